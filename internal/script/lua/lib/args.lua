-- lib/args.lua: the reading of a script's KEYS and ARGV. The loader
-- (script.go) puts before each script the functions of the library it uses,
-- and those they use.

-- columns reads a list from ARGV at index at, sent as its length n and
-- then, for each of its fields (up to four, named a to d), n entries: a
-- table with n and, for each name, the array of that field's entries; and
-- the index after the list. A list of records goes field by field, so that
-- each field is read in one step.
local function columns(at, a, b, c, d)
	local n = tonumber(ARGV[at])
	local list = {n = n}
	list[a] = {unpack(ARGV, at + 1, at + n)}
	if b then
		list[b] = {unpack(ARGV, at + n + 1, at + 2 * n)}
	end
	if c then
		list[c] = {unpack(ARGV, at + 2 * n + 1, at + 3 * n)}
	end
	if d then
		list[d] = {unpack(ARGV, at + 3 * n + 1, at + 4 * n)}
	end
	return list, at + 1 + n * (d and 4 or c and 3 or b and 2 or 1)
end

-- sent raises an error unless the script read exactly the KEYS and ARGV it
-- was sent (keys and args are the last of each it read), so that a script
-- and the Go code that calls it cannot drift apart.
local function sent(keys, args)
	if keys ~= #KEYS or args ~= #ARGV then
		error('voting: the script read ' .. keys .. ' keys and ' .. args .. ' arguments; it was sent ' ..
			#KEYS .. ' and ' .. #ARGV)
	end
end
