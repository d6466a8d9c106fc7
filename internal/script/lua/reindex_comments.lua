-- reindex_comments.lua: one step of Reindex's walk of the comments, by id
-- from the first up to the counter's: it sets each comment's entry in each
-- of its parent's indexes to value() of its counters, in its article's
-- thread and, unless it is deleted, in its poster's comments, all by its
-- posting time. Setting, not adding, makes a step safe to run again and
-- alongside votes: a vote moves an entry only once it is there. A comment
-- whose hash does not parse, or whose article or parent comment is gone,
-- is skipped and counted (an article's or a parent's hash of the wrong
-- type stops the step, naming it); an id with no hash is a comment deleted whole,
-- and passed over.
--
-- prefix is the namespace's. The hook of a step (onCommentReindex,
-- lib/hooks.lua) of each kind of index the namespace keeps runs given the
-- step's comments (with karma, it counts each comment's part of its
-- poster's comment karma, from its voter sets while its voting is open,
-- else the part it has, or its counters less the poster's own vote its
-- hash keeps, and moves the poster's sum in the commenters' karma to
-- match; a tombstone has no part).
--
-- KEYS: progress counter
-- ARGV: run batch:num prefix commentPrefix votedPrefix downvotedPrefix repliesPrefix
--       articlePrefix threadPrefix postsPrefix orders[name]
--
-- progress is the hash of Reindex's run (see reindex.go): the step reads
-- from it the last id walked (the field comment), and records there the
-- next, or once the walk has reached the counter that the groups' phase
-- follows, and the run's counts. It answers the last id walked ('' once the
-- walk is done), the run's counts of comments indexed, items skipped and
-- steps; or 'superseded', having written nothing, if the progress is of
-- another run (one that took this one's place, or none).

local bad = ownRun(progress, run)
if bad then
	return bad
end
local state = redis.call('HMGET', progress, 'phase', 'comment', 'comments', 'skipped', 'steps')
if state[1] ~= 'comments' then
	-- The walk is done: a step of a call cut short ran after the last.
	return {'', state[3] or '0', state[4] or '0', state[5] or '0'}
end
local last
last, bad = lastComment(counter)
if bad then
	return bad
end
local from = tonumber(state[2] or '0') or 0
local to = math.min(from + batch, last)

-- proven reads the sorted set key, once a step, so that no write to it
-- can fail.
local read = {}
local function proven(key)
	if read[key] then
		return nil
	end
	read[key] = true
	local _, err = try('ZSCORE', key, '')
	return err
end

local walked, skipped = {}, 0
local wanted = hookFields(onCommentReindex, {'time', 'votes', 'downvotes', 'article', 'parent', 'poster', 'deleted', 'own'})
for n = from + 1, to do
	local id = string.format('%d', n)
	local member = commentPrefix .. id
	local f = redis.pcall('HMGET', member, unpack(wanted))
	if type(f) ~= 'table' or f.err then
		skipped = skipped + 1
	elseif f[1] then
		local posted, ups, downs = counts(member, f[1], f[2], f[3])
		local article, parentID = f[4], f[5] or ''
		local ok = posted and article
		for _, key in ipairs({ok and articlePrefix .. article, ok and parentID ~= '' and commentPrefix .. parentID}) do
			if key then
				local t
				t, bad = try('HGET', key, 'time')
				if bad then
					return bad
				end
				ok = ok and t
			end
		end
		if not ok then
			skipped = skipped + 1
		else
			local c = {member = member, id = id, time = f[1], posted = posted, ups = ups, downs = downs,
				indexes = childIndexes(repliesPrefix, orders, parentName(article, parentID)), thread = threadPrefix .. article,
				fields = byName(onCommentReindex, f, 8), ownField = f[8]}
			for _, key in ipairs(c.indexes) do
				bad = bad or proven(key)
			end
			bad = bad or proven(c.thread)
			local poster = f[6]
			if f[7] ~= '1' and poster then
				c.posts, c.poster = postsPrefix .. poster, poster
				bad = bad or proven(c.posts)
			end
			if bad then
				return bad
			end
			walked[#walked + 1] = c
		end
	end
end

-- The kept kinds' hooks.
local plans
plans, bad = ready(onCommentReindex, {prefix = prefix, comment = true, comments = walked, votedPrefix = votedPrefix,
	downvotedPrefix = downvotedPrefix})
if bad then
	return bad
end

for _, c in ipairs(walked) do
	for i, key in ipairs(c.indexes) do
		redis.call('ZADD', key, number(value(orders.name[i], c.posted, c.ups, c.downs, 0)), c.member)
	end
	redis.call('ZADD', c.thread, c.time, c.member)
	if c.posts then
		redis.call('ZADD', c.posts, c.time, c.member)
	end
end
written(plans)
local nextFrom = tostring(to)
if to >= last then
	nextFrom = ''
	redis.call('HSET', progress, 'phase', 'groups', 'comment', tostring(to), 'scan', '0')
else
	redis.call('HSET', progress, 'comment', nextFrom)
end
return {nextFrom, tostring(redis.call('HINCRBY', progress, 'comments', #walked)),
	tostring(redis.call('HINCRBY', progress, 'skipped', skipped)), tostring(redis.call('HINCRBY', progress, 'steps', 1))}
