-- lib/history.lua: a user's history of votes. The loader (script.go) puts
-- before each script the functions of the library it uses, and those they
-- use.

-- forget takes out of a user's history up to 100 of its votes cast at or
-- before the time cut (the history's edge: reads leave out a vote cast
-- exactly there, as older ones), the oldest first, and gives it the history's
-- time to live: every vote and post of the user forgets a few, so that the
-- history stays about as long as its time keeps votes, and no call takes
-- Redis time in proportion to how many votes a user once cast. Reads leave
-- out votes older than that time until they are forgotten.
local function forget(history, cut, millis)
	local old = redis.call('ZRANGEBYSCORE', history, '-inf', cut, 'LIMIT', 0, 100)
	if #old > 0 then
		redis.call('ZREM', history, unpack(old))
	end
	redis.call('PEXPIRE', history, millis)
end
