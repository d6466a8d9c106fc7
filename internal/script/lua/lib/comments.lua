-- lib/comments.lua: the names of a comment's parent's indexes. The loader
-- (script.go) puts before each script the functions of the library it
-- uses, and those they use.

-- parentName is the name of a comment's parent in the names of its
-- indexes, as schema.ParentName writes it: 'c:' and the parent comment's
-- id, or with none 'a:' and the article's.
local function parentName(articleID, parentID)
	if parentID and parentID ~= '' then
		return 'c:' .. parentID
	end
	return 'a:' .. tostring(articleID)
end

-- lastComment reads the counter of comment ids: the last id it gave (0
-- for none yet), or a reply to return if it is of the wrong type or holds
-- no id.
local function lastComment(counter)
	local last, bad = try('GET', counter)
	if bad then
		return nil, bad
	end
	last = last or '0'
	if not (last == '0' or string.match(last, '^[1-9]%d*$')) or #last > 15 then
		return nil, 'corrupt ' .. counter .. ' holds ' .. quote(last) .. ', not a comment id'
	end
	return tonumber(last)
end

-- childIndexes are the indexes of the children of the parent name, one
-- for each kind of kinds (a list as columns reads it).
local function childIndexes(repliesPrefix, kinds, name)
	local keys = {}
	for i = 1, kinds.n do
		keys[i] = repliesPrefix .. kinds.name[i] .. ':' .. name
	end
	return keys
end
