-- rescore.lua: one step of Rescore: sets the score of each of a batch of
-- articles, from a posting time on, to what the namespace's vote weight
-- makes of its counters, in the site's score index and in its groups' live
-- score indexes, and gives its voter sets the time to live of the
-- namespace's cutoff.
--
-- KEYS: byTime byScore settings progress
-- ARGV: gen run from batch:num articlePrefix recordPrefix liveScorePrefix
--       votedPrefix downvotedPrefix weight:num cutoffMillis:num nowMillis:num
-- GO: weight string, cutoffMillis int64, nowMillis int64
--
-- progress is the hash of where the walks of Rescore go on from: the step
-- records there, as the walk of run (the weight and cutoff), where the
-- next step goes on from (fields rescore, rescore-phase and rescore-at),
-- the comments' phase once the walk of the articles is done, so that a
-- call cut short is gone on with by the next (rescore.go).
--
-- gen is the generation of the settings whose weight and cutoff these are
-- (settings.go): a step of settings changed since answers 'settings'.
-- from is where the walk of the time index goes on ('-inf' first, else
-- '(' and the last time walked); a batch ends with every article of its
-- last time, so that none is passed over. liveScorePrefix, before a
-- group's name, is its live score index; '' without live groups. An entry
-- only an index has moves (ZADD XX), and a voter set that is there takes
-- the time to live that ends when voting closes, posting time plus cutoff,
-- by the Store's clock (nowMillis, as a post's and a vote's times to live
-- are reckoned); a set whose voting has closed by then goes. A member
-- whose hash does not give a time and counters is passed over.
--
-- It answers where the walk goes on, '' once it is done, and the number of
-- articles rescored.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local _, bad = try('HLEN', progress)
if bad then
	return bad
end

local walked, nextFrom = walkTimes(byTime, from, batch)

-- Every read first; then the writes, which cannot fail.
local moves, expiries, n = {}, {}, 0
for i = 1, #walked, 2 do
	local member = walked[i]
	local id = string.sub(member, #articlePrefix + 1)
	if string.sub(member, 1, #articlePrefix) == articlePrefix then
		local f = redis.pcall('HMGET', member, 'time', 'votes', 'downvotes')
		local posted, ups, downs
		if type(f) == 'table' and not f.err and f[1] then
			posted, ups, downs, bad = counts(member, f[1], f[2], f[3])
		end
		if posted and not bad then
			n = n + 1
			local text = number(posted + weight * (ups - downs))
			moves[#moves + 1] = {byScore, text, member}
			if liveScorePrefix ~= '' then
				local groups
				groups, bad = recorded(recordPrefix .. id)
				if bad then
					return bad
				end
				for _, name in ipairs(groups) do
					moves[#moves + 1] = {liveScorePrefix .. name, text, member}
				end
			end
			expiries[#expiries + 1] = math.ceil(posted * 1000 + cutoffMillis - nowMillis)
			expiries[#expiries + 1] = id
		end
	end
end
for _, m in ipairs(moves) do
	_, bad = try('ZSCORE', m[1], m[3])
	if bad then
		return bad
	end
end

for _, m in ipairs(moves) do
	redis.call('ZADD', m[1], 'XX', m[2], m[3])
end
retime(expiries, votedPrefix, downvotedPrefix)
if nextFrom == '' then
	redis.call('HSET', progress, 'rescore', run, 'rescore-phase', 'comments', 'rescore-at', '0')
else
	redis.call('HSET', progress, 'rescore', run, 'rescore-phase', 'articles', 'rescore-at', nextFrom)
end
return {nextFrom, n}
