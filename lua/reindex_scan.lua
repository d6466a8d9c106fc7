-- reindex_scan.lua: records, before a SCAN of Reindex's groups phase, the
-- cursor it scans from, so that a later call scans the same batch again,
-- and counts the step; if the progress is of another run (one that took
-- this one's place, or none), it writes nothing and answers 'superseded'.
-- It answers the run's count of steps.
--
-- KEYS: progress
-- ARGV: run, scan

local progress = KEYS[1]
local run, scan = ARGV[1], ARGV[2]
sent(1, 2)

local bad = ownRun(progress, run)
if bad then
	return bad
end
redis.call('HSET', progress, 'phase', 'groups', 'scan', scan)
return redis.call('HINCRBY', progress, 'steps', 1)
