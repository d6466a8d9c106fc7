-- comment_vote.lua: applies one user's vote on one comment, as vote.lua
-- does on an article: up, down, a switch or a vote taken back, once per
-- user, until the cutoff from the comment's posting time.
--
-- KEYS: hash voted downvoted settings
-- ARGV: member user dir nowText gen cutoff:num repliesPrefix kinds[name]
--
-- The comment exists when its hash has a time and it is not deleted. Each
-- of its parent's indexes (their names made here from the hash's article
-- and parent, with kinds the kinds of those indexes) takes the comment's
-- new value, if that differs from the old.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local f, bad = try('HMGET', hash, 'time', 'votes', 'downvotes', 'article', 'parent', 'deleted')
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

local up, down, _, downRead
up, down, _, _, downRead, bad = ballot(voted, downvoted, user, ups, downs, dir)
if bad then
	return bad
end

local siblings = childIndexes(repliesPrefix, kinds, parentName(f[4], f[5]))
for i = 1, kinds.n do
	local kind = kinds.name[i]
	local old, new = value(kind, posted, ups, downs, 0), value(kind, posted, ups + up, downs + down, 0)
	if new ~= old then
		bad = move(siblings[i], member, number(new), old)
		if bad then
			return bad
		end
	end
end
bad = joinDown(downvoted, user, down, downRead)
if bad then
	return bad
end
tally(hash, voted, downvoted, user, up, down, ups, downs, downRead, closes - now)
return 'ok'
