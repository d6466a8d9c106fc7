-- comment_vote.lua: applies one user's vote on one comment, as vote.lua
-- does on an article: up, down, a switch or a vote taken back, once per
-- user, until the cutoff from the comment's posting time.
--
-- KEYS: hash voted downvoted settings
-- ARGV: member user dir nowText gen prefix cutoff:num repliesPrefix orders[name]
-- GO: settings Config, dir any, cutoff string
--
-- The comment exists when its hash has a time and it is not deleted. Each
-- of its parent's indexes (their names made here from the hash's article
-- and parent, with orders the value kinds of those indexes) takes the comment's
-- new value, if that differs from the old.
--
-- A vote of the poster's own is kept in the hash (field own: '-1', or '0'
-- for none; no field for an up-vote), so that Reindex counts the comment's
-- part once its voter sets have expired.
--
-- prefix is the namespace's. The hook of a comment's vote (onCommentVote,
-- lib/hooks.lua) of each kind of index the namespace keeps runs among the
-- reads, once the vote is known (with karma, a vote by anyone but the
-- poster moves the comment's part of its poster's karma and the poster's
-- sum in the commenters' karma). With none kept, onCommentVote is false,
-- and the vote makes no table for them.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

-- The hooks' fields of the hash too, with a kind kept.
local f, bad
if onCommentVote then
	f, bad = try('HMGET', hash, 'time', 'votes', 'downvotes', 'article', 'parent', 'deleted', 'poster',
		unpack(onCommentVote.fields))
else
	f, bad = try('HMGET', hash, 'time', 'votes', 'downvotes', 'article', 'parent', 'deleted', 'poster')
end
if bad then
	return bad
end
if not f[1] or f[6] == '1' then
	return 'notfound'
end
local posted, ups, downs
posted, ups, downs, bad = counts(hash, f[1], f[2], f[3])
if bad then
	return bad
end
local now = tonumber(nowText)
local closes = posted + cutoff
if now >= closes then
	return 'closed'
end

local poster = f[7]
local up, down, isUp, isDown, downRead
up, down, isUp, isDown, downRead, bad = ballot(voted, downvoted, user, ups, downs, dir)
if bad then
	return bad
end

-- The kept kinds' hooks.
local plans
if onCommentVote then
	plans, bad = planned(onCommentVote, {prefix = prefix, comment = true, hash = hash, member = member, user = user,
		fields = byName(onCommentVote, f, 7), net = up - down, up = up, down = down, isUp = isUp, isDown = isDown,
		ups = ups, downs = downs, voted = voted, downvoted = downvoted})
	if bad then
		return bad
	end
end

local siblings = childIndexes(repliesPrefix, orders, parentName(f[4], f[5]))
for i = 1, orders.n do
	local kind = orders.name[i]
	local old, new = value(kind, posted, ups, downs, 0), value(kind, posted, ups + up, downs + down, 0)
	if new ~= old then
		bad = move(siblings[i], member, number(new), old)
		if bad then
			return bad
		end
	end
end
bad = joinDown(downvoted, user, down, downRead)
if not bad and plans then
	bad = undoable(plans)
end
if bad then
	return bad
end
tally(hash, voted, downvoted, user, up, down, ups, downs, downRead, closes - now)
-- The poster's own vote, kept in the hash for the time after the voter
-- sets have expired (karmaCounted): none for the post's up-vote.
if user == poster then
	if dir == 'up' then
		redis.call('HDEL', hash, 'own')
	else
		redis.call('HSET', hash, 'own', dir == 'down' and '-1' or '0')
	end
end
if plans then
	written(plans)
end
return 'ok'
