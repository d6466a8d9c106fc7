-- lib/reindex.lua: a run of Reindex, and the walk of the time index that
-- Reindex and Rescore make. The loader (script.go) puts before
-- each script the functions of the library it uses, and those they use.

-- ownRun gives a reply to return unless progress, the hash of Reindex's
-- run, is of the run named run: 'superseded' if it is another's (or none),
-- or one naming it if it is of the wrong type.
local function ownRun(progress, run)
	local current, bad = try('HGET', progress, 'run')
	if bad then
		return bad
	end
	if current ~= run then
		return 'superseded'
	end
end

-- walkTimes reads a step of the walk of the time index byTime: up to batch
-- members with their times (WITHSCORES, flat), from from ('-inf' first,
-- else '(' and the last time walked), ending with every member of its last
-- time, so that a step never splits the articles of one time; and where the
-- next step goes on from, '' once the walk is done.
local function walkTimes(byTime, from, batch)
	local walked = redis.call('ZRANGEBYSCORE', byTime, from, '+inf', 'WITHSCORES', 'LIMIT', 0, batch)
	if #walked < 2 * batch then
		return walked, ''
	end
	local last = walked[#walked]
	while #walked > 0 and walked[#walked] == last do
		walked[#walked], walked[#walked - 1] = nil, nil
	end
	for _, m in ipairs(redis.call('ZRANGEBYSCORE', byTime, last, last, 'WITHSCORES')) do
		walked[#walked + 1] = m
	end
	return walked, '(' .. last
end
