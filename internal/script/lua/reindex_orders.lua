-- reindex_orders.lua: one step of Reindex's walk of the time index: it walks
-- at most batch articles from a posting time (and all posted at the same time
-- as the last), and sets each one's entry in the site's index of each kept
-- order beyond the book's two to value() of its counters. Setting, not
-- adding, makes a step safe to run again and alongside votes: a vote moves
-- an entry only once it is there. An article whose hash is gone or does not
-- parse is skipped and counted. A window's index takes only articles posted
-- after both its mark and its cut.
--
-- It also puts each article in its poster's index of articles, and runs
-- the hook of a step (onReindex, lib/hooks.lua) of each kind the
-- namespace keeps, given the step's articles (prefix is the namespace's):
-- with karma it counts the
-- article's part of its poster's karma while its voting is open (its voter
-- sets say what the poster's own vote is), or if it has none yet (taking
-- the poster's own vote to be the post's up-vote, as the book's code has
-- it), and moves the poster's karma to match; with unique links it makes
-- the article the holder of its link in the index of links if no article
-- that exists holds it, else puts it behind the holder in linkshares:. A
-- hook's plan may name duplicates (an article's id, and the id of the
-- article whose place it takes second to): they are counted and named in
-- progress (field "duplicate:<id>", the other id), up to maxDuplicates of
-- them.
--
-- KEYS: byTime byScore trimmed progress orders[].index
-- ARGV: run batch:num articlePrefix votedPrefix downvotedPrefix postsPrefix
--       maxDuplicates:num orders[kind window cut] prefix
-- GO: orders[].index Indexes, orders []Order
--
-- batch is 0 to check the keys alone; an order's window and cut are ''
-- for one with no window.
--
-- progress is the hash of Reindex's run (see reindex.go): the step reads
-- from it where the walk goes on from, and records there where the next
-- goes on from, or that the walk is done (the walk of the comments,
-- reindex_comments.lua, follows), and the run's counts. So steps
-- chain whichever call sends them, even one cut short whose step runs late.
-- It answers the posting time to go on from ('' once the walk is done),
-- the run's counts of articles indexed, articles skipped, steps and
-- duplicate links, and the duplicates it named, each an id and the id of
-- the article that has its link; or
-- 'superseded', having written nothing, if the progress is of another run
-- (one that took this one's place, or none: the run is complete).

local _, bad = try('ZSCORE', byTime, '')
if bad then
	return bad
end
_, bad = try('ZSCORE', byScore, '')
if bad then
	return bad
end
local state
state, bad = try('HMGET', progress, 'run', 'phase', 'from')
if bad then
	return bad
end
local fields = {}
for i, index in ipairs(orders.index) do
	_, bad = try('ZSCORE', index, '')
	if bad then
		return bad
	end
	if orders.window[i] ~= '' then
		fields[#fields + 1] = markField(orders.window[i])
	end
end
local marked
marked, bad = marks(trimmed, fields)
if bad then
	return bad
end
local event = {prefix = prefix, articles = {}, articlePrefix = articlePrefix, votedPrefix = votedPrefix,
	downvotedPrefix = downvotedPrefix}
if batch == 0 then
	-- A check of the keys alone: the hooks, given no articles, check theirs.
	_, bad = planned(onReindex, event)
	return bad or 'ok'
end
if state[1] ~= run then
	return 'superseded'
end
if state[2] == 'comments' or state[2] == 'groups' then
	-- The walk is done: a step of a call cut short ran after the last.
	local totals = redis.call('HMGET', progress, 'articles', 'skipped', 'steps', 'duplicates')
	return {'', totals[1] or '0', totals[2] or '0', totals[3] or '0', totals[4] or '0'}
end
local from = state[3] or '-inf'
if from == '' then
	from = '-inf'
end
-- A window takes an article posted after both its mark and its cut.
local after = {}
for i, window in ipairs(orders.window) do
	if window ~= '' then
		local cut = tonumber(orders.cut[i])
		after[i] = math.max(marked[markField(window)] or cut, cut)
	end
end

local walked, nextFrom = walkTimes(byTime, from, batch)
local members = {}
for i = 1, #walked, 2 do
	members[#members + 1] = walked[i]
end
local scores = #members > 0 and redis.call('ZMSCORE', byScore, unpack(members)) or {}
local articles, skipped = {}, 0
local posts = {} -- the posters' indexes the articles join
-- Each article's fields: its counters, its poster, and the hooks'.
local wanted = hookFields(onReindex, {'time', 'votes', 'downvotes', 'poster'})
for i, member in ipairs(members) do
	local f = redis.pcall('HMGET', member, unpack(wanted))
	local posted, ups, downs
	if type(f) == 'table' and not f.err and f[1] then
		posted, ups, downs = counts(member, f[1], f[2], f[3])
	end
	if posted and scores[i] then
		local own = string.sub(member, 1, #articlePrefix) == articlePrefix
		-- The time index's score, or where a Lua cannot read its text (the
		-- 1e-07 of miniredis's), the hash's time, which counts has read.
		articles[#articles + 1] = {member, tonumber(walked[2 * i]) or posted, ups, downs, tonumber(scores[i])}
		event.articles[#event.articles + 1] = {member = member, id = string.sub(member, #articlePrefix + 1), own = own,
			posted = posted, ups = ups, downs = downs, fields = byName(onReindex, f, 4)}
		local poster = f[4]
		if own and poster then
			local key = postsPrefix .. poster
			_, bad = try('ZSCORE', key, member)
			if bad then
				return bad
			end
			posts[#posts + 1] = {key, walked[2 * i], member}
		end
	else
		skipped = skipped + 1
	end
end
local plans
plans, bad = ready(onReindex, event)
if bad then
	return bad
end

local texts = {} -- each value's text, written once: net votes repeat
for i, index in ipairs(orders.index) do
	local args = {}
	for _, art in ipairs(articles) do
		local member, posted, ups, downs, score = art[1], art[2], art[3], art[4], art[5]
		if not after[i] or posted > after[i] then
			local v = value(orders.kind[i], posted, ups, downs, score)
			local text = texts[v] or number(v)
			texts[v] = text
			args[#args + 1] = text
			args[#args + 1] = member
		end
	end
	for j = 1, #args, 1000 do
		redis.call('ZADD', index, unpack(args, j, math.min(j + 999, #args)))
	end
end
for _, p in ipairs(posts) do
	redis.call('ZADD', p[1], p[2], p[3])
end
written(plans)
local duplicates = {}
for _, plan in ipairs(plans) do
	for _, d in ipairs(plan.duplicates or {}) do
		duplicates[#duplicates + 1] = d
	end
end
local found, named = '0', {}
if #duplicates > 0 then
	found = redis.call('HINCRBY', progress, 'duplicates', #duplicates)
	local dupFields = {}
	for i, d in ipairs(duplicates) do
		if found - #duplicates + i <= maxDuplicates then
			dupFields[#dupFields + 1], dupFields[#dupFields + 2] = 'duplicate:' .. d[1], d[2]
			named[#named + 1], named[#named + 2] = d[1], d[2]
		end
	end
	if #dupFields > 0 then
		redis.call('HSET', progress, unpack(dupFields))
	end
	found = tostring(found)
end
if nextFrom == '' then
	redis.call('HSET', progress, 'run', run, 'phase', 'comments', 'from', '', 'comment', '0')
else
	redis.call('HSET', progress, 'run', run, 'phase', 'orders', 'from', nextFrom)
end
return {nextFrom, tostring(redis.call('HINCRBY', progress, 'articles', #articles)),
	tostring(redis.call('HINCRBY', progress, 'skipped', skipped)), tostring(redis.call('HINCRBY', progress, 'steps', 1)),
	found, unpack(named)}
