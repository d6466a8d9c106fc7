-- lib/cursors.lua: cursors: where a page after a point starts. The loader
-- (script.go) puts before each script the functions of the library it uses,
-- and those they use.

-- placeAfter gives the place in index, from 0, of the first entry after the
-- point (score, member) of a listing's order, highest score first and,
-- among equal scores, the greater member first: the place of the entry
-- after member if member is still there with that score (score as Redis
-- writes it), else the place a probe put at the point takes, the probe
-- taken out at once. member .. '\0' sorts where member would, next to
-- nothing, when member is there with another score. It gives a reply to
-- return if the index is unsound.
local function placeAfter(index, score, member)
	local current, bad = try('ZSCORE', index, member)
	if bad then
		return nil, bad
	end
	if current == score then
		return redis.call('ZREVRANK', index, member) + 1
	end
	local probe = member
	if current then
		probe = member .. '\0'
	end
	redis.call('ZADD', index, score, probe)
	local place = redis.call('ZREVRANK', index, probe)
	redis.call('ZREM', index, probe)
	return place
end
