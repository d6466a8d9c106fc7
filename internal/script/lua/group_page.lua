-- group_page.lua: one page of a group's listing without live groups, or its
-- size: the book's cached intersection of the group with an index, built
-- first if it is missing. Check and build are one atomic step, so
-- concurrent readers build it once, and a page and the count that numbers
-- it read the same cache. The group's members weigh 0 and the index's
-- scores 1, so each article keeps exactly its index score (the book's
-- AGGREGATE MAX would lift every score below 1 to the members' 1). An empty
-- intersection is not kept (Redis deletes it, miniredis would not), and
-- with no TTL the intersection is dropped once read. ZINTERSTORE checks its
-- sources' types before it writes.
--
-- KEYS: cache group index byTime trimmed indexed
-- ARGV: ttlMillis start stop field cut batch:num built cursor afterValue
--       afterMember
-- GO: ttlMillis TTLMillis int64, start int64, stop any
--
-- ttlMillis is '0' for no cache, stop '' for the size, field '' for an
-- order with no window, built '' for an index always built, cursor '1' for
-- a page of a cursor ('' for a numbered one), afterValue and afterMember ''
-- for the first page.
--
-- A page of a cursor is the stop - start + 1 entries, with their values,
-- from the start, or after the point (afterValue, afterMember) of a cursor
-- (after.lua says how).
--
-- For a window order, the index is trimmed to the window before it is
-- intersected; if more is left to trim than one step takes, the script
-- answers 'more' having built nothing, and the caller runs it again. Like
-- every cached group listing, a window's may hold, until the cache
-- expires, an article that has aged out since it was built. An index that
-- does not hold every article (complete, lib/marks.lua, of its field built
-- of indexed:; byTime is the site's time index) gives 'notindexed' and
-- nothing else.

local ttl = tonumber(ttlMillis)

if built ~= '' then
	local holdsAll, bad = complete(indexed, built, byTime)
	if bad then
		return bad
	end
	if not holdsAll then
		return 'notindexed'
	end
end
if ttl == 0 or redis.call('EXISTS', cache) == 0 then
	-- ZINTERSTORE would refuse a key of the wrong type, after the trim.
	local _, bad = try('SISMEMBER', group, '')
	if bad then
		return bad
	end
	_, bad = try('ZSCORE', index, '')
	if bad then
		return bad
	end
	if field ~= '' then
		local members, to, more
		members, to, more, bad = agedOut(index, byTime, trimmed, field, cut, batch)
		if bad then
			return bad
		end
		trim(index, trimmed, field, members, to)
		if more then
			return 'more'
		end
	end
	if redis.call('ZINTERSTORE', cache, 2, group, index, 'WEIGHTS', 0, 1) == 0 then
		redis.call('DEL', cache)
		if stop == '' then
			return 0
		end
		return {}
	end
	if ttl > 0 then
		redis.call('PEXPIRE', cache, ttlMillis)
	end
end
local out, bad
if stop == '' then
	out, bad = try('ZCARD', cache)
elseif cursor ~= '' then
	local from = 0
	if afterMember ~= '' then
		from, bad = placeAfter(cache, afterValue, afterMember, false)
	end
	if not bad then
		out = redis.call('ZREVRANGE', cache, from, from + tonumber(stop) - tonumber(start), 'WITHSCORES')
	end
else
	out, bad = try('ZREVRANGE', cache, start, stop)
end
if bad then
	return bad
end
if ttl == 0 then
	redis.call('DEL', cache)
end
return out
