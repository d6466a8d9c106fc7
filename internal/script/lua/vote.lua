-- vote.lua: applies one user's vote on one article.
--
-- KEYS: hash byScore voted downvoted settings orders[].index record?livePrefix
--       history?historyMillis
-- ARGV: member user dir nowText gen prefix cutoff:num historyMillis:num
--       livePrefix minusTwo minusOne plusOne plusTwo orders[key kind]:place
-- GO: settings Config, orders[].index Indexes, dir any, cutoff string,
--     historyMillis int64, orders []Order, shared gen
--
-- dir is 'up', 'down' or 'none'; nowText the time of the vote, cutoff in
-- seconds; historyMillis 0 without a history, livePrefix '' without live
-- groups; minusTwo to plusTwo the score's change for a net change of -2,
-- -1, 1 and 2 votes, worked out in Go so that its text is exact. orders
-- are the kept orders, each with its index's key after the prefix and the
-- kind of its index, read in place (the vote is the hot path, and a table
-- costs Redis about what a command does); byScore is also the index of
-- ByScore's.
--
-- The article exists when Article finds it: its hash has a time and it has
-- a score. Voting is closed from the cutoff by the Store's clock, and also
-- once either voter set has expired on Redis's clock, whichever is first: a
-- counter above zero whose voter set is gone can only mean the set expired,
-- and a vote taken then could count a voter a second time. That signal needs
-- no clock, so it holds whatever the skew between the Stores' clocks and
-- Redis's, or the time a call waited for a connection.
--
-- A count of zero means an empty voter set, which Redis keeps as no key: so
-- the down-voter set is read only when its count says it has members (a
-- first down-vote adds to it unread, through the journal), and a voter set
-- gets its time to live only when this vote creates it.
--
-- Every index the article is in takes its new value, from value() of the
-- new counts, if that differs from the old: the site's index of each kept
-- order and, with live groups, each of its groups' live indexes (their names
-- made here from the record of its groups: the caller cannot know the groups
-- without a round trip of its own; with the namespace's prefix they share
-- its Redis Cluster slot, since a group name holds no brace). ZADD XX moves
-- only an entry an index has: an article posted before an order was kept
-- waits for Reindex, and one a window has trimmed stays out.
--
-- prefix is the namespace's. The hook of a vote (onVote, lib/hooks.lua) of
-- each kind of index the namespace keeps runs among the reads, once the vote
-- is known and before the article's groups are read, given the vote (with
-- karma, the article's part of its poster's karma moves with a
-- vote of anyone else, and the poster's entry in karma: with it). With
-- none kept, onVote is false, and the vote makes no table for them.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local now = tonumber(nowText)

-- The hooks' fields of the hash too, with a kind kept.
local fields, bad
if onVote then
	fields, bad = try('HMGET', hash, 'time', 'votes', 'downvotes', unpack(onVote.fields))
else
	fields, bad = try('HMGET', hash, 'time', 'votes', 'downvotes')
end
if bad then
	return bad
end
local score
score, bad = try('ZSCORE', byScore, member)
if bad then
	return bad
end
if not fields[1] or not score then
	return 'notfound'
end
local posted, ups, downs
posted, ups, downs, bad = counts(hash, fields[1], fields[2], fields[3])
if bad then
	return bad
end
score = tonumber(score)
if not finite(score) then
	return 'corrupt ' .. byScore .. ' gives ' .. member .. ' the score ' .. tostring(score)
end
local closes = posted + cutoff
if now >= closes then
	return 'closed'
end

-- The user's vote now, and what this one changes.
local up, down, isUp, isDown, downRead
up, down, isUp, isDown, downRead, bad = ballot(voted, downvoted, user, ups, downs, dir)
if bad then
	return bad
end
local net = up - down -- -2, -1, 1 or 2: never 0
local scoreChange = net == -2 and minusTwo or net == -1 and minusOne or net == 1 and plusOne or plusTwo
local newScore = score + tonumber(scoreChange)
if not finite(newScore) then
	return 'corrupt ' .. byScore .. ': the score of ' .. member .. ' would overflow'
end

-- The kept kinds' hooks.
local plans
if onVote then
	plans, bad = planned(onVote, {prefix = prefix, hash = hash, member = member, user = user,
		fields = byName(onVote, fields, 3), net = net, up = up, down = down, isUp = isUp, isDown = isDown, ups = ups,
		downs = downs, voted = voted, downvoted = downvoted})
	if bad then
		return bad
	end
end

-- The entries that move: for each kept order whose value changes, its
-- site index and its live index in each of the article's groups. They are
-- the first writes, through the journal, since no read has proven them.
local groups -- the article's groups, with live groups (none is nil: no table to make)
if record then
	groups, bad = recorded(record)
	if bad then
		return bad
	end
	if #groups == 0 then
		groups = nil
	end
end
local texts -- each new value as written, once: net votes are many orders'
for i = 1, orders do
	local kind, index = ARGV[ordersKind + i], KEYS[ordersIndex + i]
	local old = value(kind, posted, ups, downs, score)
	local new = value(kind, posted, ups + up, downs + down, newScore)
	-- byScore moves last, by the score's change: a read has proven it.
	if new ~= old and (index ~= byScore or groups) then
		texts = texts or {}
		local text = texts[new] or number(new)
		texts[new] = text
		if index ~= byScore then
			bad = move(index, member, text, old)
		end
		if groups then
			for _, name in ipairs(groups) do
				bad = bad or move(livePrefix .. ARGV[ordersKey + i] .. name, member, text, old)
			end
		end
		if bad then
			return bad
		end
	end
end

-- Then, if this vote creates it, the down-voter set; the hooks' writes
-- to keys no read has proven; then the user's history, whose first write
-- is the last that can be refused.
bad = joinDown(downvoted, user, down, downRead)
if bad then
	return bad
end
if plans then
	bad = undoable(plans)
	if bad then
		return bad
	end
end
if history then
	-- The vote replaces the user's last on the article; votes older than
	-- the history keeps go, and the history with them once it is idle.
	local _
	if dir ~= 'none' then
		_, bad = unproven('ZADD', history, nowText, dir .. ':' .. member)
	else
		_, bad = unproven('ZREM', history, 'up:' .. member, 'down:' .. member)
	end
	if bad then
		return bad
	end
	if dir ~= 'none' and (isUp + isDown) > 0 then
		redis.call('ZREM', history, (dir == 'up' and 'down:' or 'up:') .. member)
	end
	forget(history, number(now - historyMillis / 1000), historyMillis)
end

redis.call('ZINCRBY', byScore, scoreChange, member)
tally(hash, voted, downvoted, user, up, down, ups, downs, downRead, closes - now)
if plans then
	written(plans)
end
return 'ok'
