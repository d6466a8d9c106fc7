-- comment_vote.lua: applies one user's vote on one comment, as vote.lua
-- does on an article: up, down, a switch or a vote taken back, once per
-- user, until the cutoff from the comment's posting time.
--
-- KEYS: hash voted downvoted settings karma?karmaKept
-- ARGV: member user dir nowText gen cutoff:num repliesPrefix karmaKept:flag kinds[name]
-- GO: settings Config, dir any, cutoff string
--
-- The comment exists when its hash has a time and it is not deleted. Each
-- of its parent's indexes (their names made here from the hash's article
-- and parent, with kinds the kinds of those indexes) takes the comment's
-- new value, if that differs from the old.
--
-- A vote of the poster's own is kept in the hash (field own: '-1', or '0'
-- for none; no field for an up-vote), so that Reindex counts the comment's
-- part once its voter sets have expired.
--
-- With karma kept (karmaKept), a vote by anyone but the poster moves the
-- comment's part of its poster's karma (its field karma, commentPart) and
-- the poster's sum in karma, the commenters' karma, by the up-votes less
-- the down-votes it adds (a comment written without karma has its part
-- counted first, and joins the sum whole).

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local f, bad = try('HMGET', hash, 'time', 'votes', 'downvotes', 'article', 'parent', 'deleted', 'poster', 'karma', 'own')
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

-- The part before the vote, read before the vote is worked out, as the
-- voter sets stand.
local poster, part = f[7], nil
local karmaMoves = karmaKept and poster and poster ~= user
if karmaMoves then
	part, bad = commentPart(hash, f[8], voted, downvoted, poster, ups, downs, f[9])
	if not bad then
		local _
		_, bad = try('ZSCORE', karma, poster)
	end
	if bad then
		return bad
	end
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
-- The poster's own vote, kept in the hash for the time after the voter
-- sets have expired (karmaCounted): none for the post's up-vote.
if user == poster then
	if dir == 'up' then
		redis.call('HDEL', hash, 'own')
	else
		redis.call('HSET', hash, 'own', dir == 'down' and '-1' or '0')
	end
end
if karmaMoves then
	-- A part counted here, of a comment written without karma, joins its
	-- poster's sum whole.
	redis.call('HSET', hash, 'karma', string.format('%d', part + up - down))
	redis.call('ZINCRBY', karma, (f[8] and 0 or part) + up - down, poster)
end
return 'ok'
