-- reindex_start.lua: starts a run of Reindex, in place of any other: its
-- progress afresh, with the run's token, and each index the run builds
-- that is not built already marked as being built by this run.
--
-- KEYS: progress indexed byTime
-- ARGV: run phase token built[field]
--
-- run names the run: the Store's options and the token (reindex.go).
-- built are the fields of indexed: of the indexes the namespace keeps beyond
-- the book's two (internal/schema/marks.go). A field is marked '0:' .. token: a run of
-- another token, which started before, walks on but cannot mark it built
-- (reindex_done.lua), since its walk may have passed an article posted
-- before this run started.
--
-- The run walks every article of the time index, byTime: it keeps in its
-- progress (the field deficit) how many more the time index holds than the
-- library has counted as indexed (the field articles of indexed:, lib/marks.lua),
-- for reindex_done.lua to count once the walk is done.

local set, bad = {}
if built.n > 0 then
	local got
	got, bad = try('HMGET', indexed, unpack(built.field))
	if bad then
		return bad
	end
	for i, field in ipairs(built.field) do
		if got[i] ~= '1' then
			set[#set + 1], set[#set + 2] = field, '0:' .. token
		end
	end
end

local indexedNow, size
indexedNow, bad = indexedCount(indexed)
if bad then
	return bad
end
size, bad = try('ZCARD', byTime)
if bad then
	return bad
end

redis.call('DEL', progress)
redis.call('HSET', progress, 'run', run, 'phase', phase, 'scan', '0', 'deficit', tostring(size - indexedNow))
if #set > 0 then
	redis.call('HSET', indexed, unpack(set))
end
return 'ok'
