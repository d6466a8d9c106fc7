-- reindex_scan.lua: records, before a SCAN of Reindex's groups phase, the
-- cursor it scans from, so that a later call scans the same batch again,
-- and counts the step; if the progress is of another run (one that took
-- this one's place, or none), it writes nothing and answers 'superseded'.
--
-- KEYS: progress
-- ARGV: run scan
--
-- Each group walked to its end is recorded in progress as the field
-- 'walked:' .. name (reindex_group.lua), for the batch of the cursor
-- recorded. A later call that scans the same batch again walks every
-- group of it not recorded so: Redis may give the batch in another order,
-- or give it other keys, once its table has grown, so no place in the
-- batch can say what is done. A scan from another cursor starts a new
-- batch: the records of the last go. It answers the run's count of steps,
-- then the names of the groups of this batch walked already.

local state, bad = try('HMGET', progress, 'run', 'scan')
if bad then
	return bad
end
if state[1] ~= run then
	return 'superseded'
end
local walked, stale = {}, {}
for _, field in ipairs(redis.call('HKEYS', progress)) do
	if string.sub(field, 1, 7) == 'walked:' then
		if state[2] == scan then
			walked[#walked + 1] = string.sub(field, 8)
		else
			stale[#stale + 1] = field
		end
	end
end
for i = 1, #stale, 1000 do
	redis.call('HDEL', progress, unpack(stale, i, math.min(i + 999, #stale)))
end
redis.call('HSET', progress, 'phase', 'groups', 'scan', scan)
local reply = {redis.call('HINCRBY', progress, 'steps', 1)}
for _, name in ipairs(walked) do
	reply[#reply + 1] = name
end
return reply
