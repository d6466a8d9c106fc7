-- lib/groups.lua: groups: an article's record of its groups, and the
-- groups' sizes. The loader (script.go) puts before each script the
-- functions of the library it uses, and those they use.

-- groupNames checks names read from key, which the script will make keys
-- of: a brace would take such a key out of the namespace's Redis Cluster
-- slot. It gives the reply to return if one is no group name.
local function groupNames(key, names)
	for _, name in ipairs(names) do
		if name == '' or #name > MAX_GROUP_BYTES or string.find(name, '[{}:%c ]') then
			return 'corrupt ' .. key .. ' holds ' .. quote(name) .. ', not a group name'
		end
	end
end

-- recorded reads the names in an article's record of its groups, checked
-- as group names; it gives them, and a reply to return if the record or a
-- name is unsound. An article with no record is in no group the library
-- knows of (the book's code keeps no record; Reindex writes one).
local function recorded(record)
	local names, bad = try('SMEMBERS', record)
	if bad then
		return nil, bad
	end
	bad = groupNames(record, names)
	if bad then
		return nil, bad
	end
	return names
end

-- leaving reads whether member is in the group name's set (groupPrefix ..
-- name), to take it out: if so it appends the set to sets, and sets
-- left[name] to the group's size once member is out (shrink writes it). It
-- gives the reply to return if the set is unsound.
local function leaving(groupPrefix, name, member, sets, left)
	local set = groupPrefix .. name
	local is, bad = try('SISMEMBER', set, member)
	if bad then
		return bad
	end
	if is == 1 then
		sets[#sets + 1] = set
		left[name] = redis.call('SCARD', set) - 1
	end
end

-- grow adds one to the size of each group of names in the sorted set of
-- group sizes, as a script's last write that can be refused: Redis can
-- refuse only the first, which writes nothing, and then the journal is
-- undone. It gives the reply to return if Redis refuses it.
local function grow(sizes, names)
	for _, name in ipairs(names) do
		local _, bad = unproven('ZINCRBY', sizes, 1, name)
		if bad then
			return bad
		end
	end
end

-- shrink sets the sizes of the groups an article left, as leaving found
-- them (a table from name to the group's size after it), in the sorted set
-- of group sizes: an emptied group leaves it. It is a script's last write
-- that can be refused, as grow is. It gives the reply to return if Redis
-- refuses it.
local function shrink(sizes, left)
	local set, gone = {}, {}
	for name, size in pairs(left) do
		if size > 0 then
			set[#set + 1], set[#set + 2] = size, name
		else
			gone[#gone + 1] = name
		end
	end
	local _, bad
	if #set > 0 then
		_, bad = unproven('ZADD', sizes, unpack(set))
	end
	if #gone > 0 and not bad then
		_, bad = unproven('ZREM', sizes, unpack(gone))
	end
	return bad
end
