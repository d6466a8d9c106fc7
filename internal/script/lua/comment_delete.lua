-- comment_delete.lua: deletes a comment. One with replies stays as a
-- tombstone: no poster, no body, no voters, flagged deleted, in its place
-- among its siblings, its replies kept. One without replies goes entirely,
-- out of its parent's indexes, the thread and the poster's comments; and
-- then so does each tombstone above it left without a reply, up to maxClimb
-- of them. The article's count of comments, which counts those not
-- deleted, loses one.
--
-- KEYS: hash voted downvoted settings
-- ARGV: gen prefix member commentPrefix votedPrefix downvotedPrefix repliesPrefix
--       articlePrefix threadPrefix postsPrefix maxClimb:num orders[name]
-- GO: settings Config
--
-- The comment exists when its hash has a time and it is not deleted. The
-- article's, the parents' and the poster's keys are made here from their
-- prefixes. Everything the script writes is read first.
--
-- prefix is the namespace's. The hook of a comment's deletion
-- (onCommentDelete, lib/hooks.lua) of each kind of index the namespace
-- keeps runs among the reads (with karma, the comment's part leaves its
-- poster's sum in the commenters' karma, and a poster left with no comment
-- leaves it); a tombstone loses the hooks' fields of its hash with its
-- poster and body.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local f, bad = try('HMGET', hash, unpack(hookFields(onCommentDelete, {'time', 'article', 'parent', 'poster', 'replies', 'deleted'})))
if bad then
	return bad
end
if not f[1] or f[6] == '1' then
	return 'notfound'
end
local replies = count(f[5])
if not replies then
	return 'corrupt ' .. hash .. ' field replies ' .. quote(f[5]) .. ' is not a count'
end
local articleID, posts = tostring(f[2]), postsPrefix .. tostring(f[4])
local article, thread = articlePrefix .. articleID, threadPrefix .. articleID

-- proven reads the sorted sets of keys, so that no write to them can fail.
local function proven(keys, entry)
	for _, key in ipairs(keys) do
		local _, err = try('ZSCORE', key, entry)
		if err then
			return err
		end
	end
end

-- indexes are the indexes of the children of a comment's parent.
local function indexes(parentID)
	return childIndexes(repliesPrefix, orders, parentName(articleID, parentID))
end

local live
live, bad = try('HGET', article, 'time')
if bad then
	return bad
end
if live then
	local n
	n, bad = try('HGET', article, 'comments')
	if bad then
		return bad
	end
	if not count(n) or count(n) < 1 then
		return 'corrupt ' .. article .. ' field comments ' .. quote(tostring(n)) .. ' does not count this comment'
	end
end
local inPosts
inPosts, bad = try('ZSCORE', posts, member)
if bad then
	return bad
end
-- The voter sets go whatever they hold, but not whatever their type.
for _, key in ipairs({voted, downvoted}) do
	_, bad = try('SCARD', key)
	if bad then
		return bad
	end
end

-- The comments that go: this one if it has no reply, then each tombstone
-- above whose last reply goes, each with its parent, up to maxClimb of
-- them.
-- Each parent whose count loses one is read first; one gone already (the
-- article's deletion took it, and is taking the rest) has no count left.
local gone = {}
if replies == 0 then
	local at, parentID = member, tostring(f[3])
	while true do
		local g = {member = at, parent = parentID}
		gone[#gone + 1] = g
		if parentID == '' then
			break
		end
		local parent = commentPrefix .. parentID
		local p
		p, bad = try('HMGET', parent, 'parent', 'replies', 'deleted', 'time')
		if bad then
			return bad
		end
		if not p[4] then
			g.orphan = true
			break
		end
		if not count(p[2]) or count(p[2]) < 1 then
			return 'corrupt ' .. parent .. ' field replies ' .. quote(tostring(p[2])) .. ' does not count its replies'
		end
		if p[3] ~= '1' or count(p[2]) > 1 or #gone > maxClimb then
			break
		end
		at, parentID = parent, tostring(p[1])
	end
	for _, g in ipairs(gone) do
		bad = proven(indexes(g.parent), g.member) or proven({thread}, g.member)
		if bad then
			return bad
		end
	end
end

-- The kept kinds' hooks.
local plans
plans, bad = ready(onCommentDelete, {prefix = prefix, comment = true, hash = hash, member = member,
	fields = byName(onCommentDelete, f, 6), last = onCommentDelete and inPosts and redis.call('ZCARD', posts) == 1})
if bad then
	return bad
end

redis.call('ZREM', posts, member)
written(plans)
-- UNLINK: a voter set may hold many, which Redis frees aside.
redis.call('UNLINK', voted, downvoted)
if live then
	redis.call('HINCRBY', article, 'comments', -1)
end
if replies > 0 then
	redis.call('HDEL', hash, unpack(hookFields(onCommentDelete, {'poster', 'body', 'own'})))
	redis.call('HSET', hash, 'deleted', '1')
	return 'ok'
end
for _, g in ipairs(gone) do
	for _, key in ipairs(indexes(g.parent)) do
		redis.call('ZREM', key, g.member)
	end
	redis.call('ZREM', thread, g.member)
	local id = string.sub(g.member, #commentPrefix + 1)
	redis.call('UNLINK', g.member, votedPrefix .. id, downvotedPrefix .. id)
	if g.parent ~= '' and not g.orphan then
		redis.call('HINCRBY', commentPrefix .. g.parent, 'replies', -1)
	end
end
return 'ok'
