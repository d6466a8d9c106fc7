-- lib/articles.lua: an article as a script finds it, and the indexes that
-- hold it. The loader (script.go) puts before each script the functions of
-- the library it uses, and those they use.

-- located reads an article's posting time (its hash's field) and score, as
-- Article finds it; it gives both, and a reply to return: 'notfound' if
-- either is missing, or one naming a key of the wrong type.
local function located(hash, byScore, member)
	local posted, bad = try('HGET', hash, 'time')
	if bad then
		return nil, nil, bad
	end
	local score
	score, bad = try('ZSCORE', byScore, member)
	if bad then
		return nil, nil, bad
	end
	if not posted or not score then
		return nil, nil, 'notfound'
	end
	return posted, score
end

-- holding reads whether the sorted set index holds member, to take it out:
-- if so it appends index to indexes. It gives the reply to return if the
-- set is unsound.
local function holding(index, member, indexes)
	local has, bad = try('ZSCORE', index, member)
	if has then
		indexes[#indexes + 1] = index
	end
	return bad
end
