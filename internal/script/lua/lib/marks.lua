-- lib/marks.lua: the marks of built indexes (indexed:). The loader
-- (script.go) puts before each script the functions of the library it uses,
-- and those they use.

-- builtAmong reads which of fields (of indexes a write cannot keep) the hash
-- indexed: marks as built or being built (internal/schema/marks.go), so that the write can
-- take those marks away; with no fields it checks the hash's type alone, for
-- a write that marks it. It gives the fields marked, and a reply to return
-- if the hash is unsound. A missing hash, the rule where no Store keeps more
-- than the book's indexes, costs one EXISTS: with no marks there is nothing
-- to take away, and so nothing to write.
local function builtAmong(indexed, fields)
	if #fields == 0 then
		local _, bad = try('HLEN', indexed)
		return {}, bad
	end
	if redis.call('EXISTS', indexed) == 0 then
		return {} -- no marks to take away, and none written
	end
	local got, bad = try('HMGET', indexed, unpack(fields))
	if bad then
		return nil, bad
	end
	local marked = {}
	for i, field in ipairs(fields) do
		if got[i] then
			marked[#marked + 1] = field
		end
	end
	return marked
end
