-- rescore_comments.lua: one step of Rescore's walk of the comments, by id
-- from the one after from up to the counter's last: gives each comment's
-- voter sets the time to live that ends when its voting closes, its
-- posting time plus the namespace's cutoff, by the Store's clock
-- (nowMillis, as a post's and a vote's times to live are reckoned); the
-- sets of a comment whose voting has closed by then go, and it takes no
-- more votes, as an article's. A comment's values in its parent's indexes
-- take no weight, so they stay as they are. An id with no hash, or one
-- that gives no time, is passed over.
--
-- KEYS: settings counter progress
-- ARGV: gen run from:num batch:num commentPrefix votedPrefix
--       downvotedPrefix cutoffMillis:num nowMillis:num
-- GO: from int64, cutoffMillis int64, nowMillis int64
--
-- gen is the generation of the settings whose cutoff this is: a step of
-- settings changed since answers 'settings', having written nothing. The
-- step records in progress, as the walk of run, the last id it walked
-- (rescore-at), or once it has reached the counter's last that the walk is
-- done (rescore-phase 'done'). It answers the last id walked, '' once the
-- walk is done, in a list.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end
local _, bad = try('HLEN', progress)
if bad then
	return bad
end
local last
last, bad = lastComment(counter)
if bad then
	return bad
end
local to = math.min(from + batch, last)

-- Every read first; then the writes, which cannot fail on sets of the
-- comment's own (PEXPIRE and UNLINK take any type).
local expiries = {}
for id = from + 1, to do
	local text = string.format('%d', id)
	local posted = tonumber(redis.pcall('HGET', commentPrefix .. text, 'time'))
	if type(posted) == 'number' then
		expiries[#expiries + 1] = math.ceil(posted * 1000 + cutoffMillis - nowMillis)
		expiries[#expiries + 1] = text
	end
end

retime(expiries, votedPrefix, downvotedPrefix)
if to >= last then
	redis.call('HSET', progress, 'rescore', run, 'rescore-phase', 'done', 'rescore-at', string.format('%d', to))
	return {''}
end
redis.call('HSET', progress, 'rescore', run, 'rescore-phase', 'comments', 'rescore-at', string.format('%d', to))
return {string.format('%d', to)}
