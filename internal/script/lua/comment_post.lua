-- comment_post.lua: posts a comment on an article, or a reply to one of its
-- comments: a new id, the comment's hash, the poster's up-vote, an entry in
-- each of the parent's indexes of its children, in the article's thread and
-- in the poster's comments, and a comment more in the article's count and
-- the parent's count of replies.
--
-- KEYS: counter article byScore settings thread posts parent?parentID
-- ARGV: gen prefix articleMember articleID parentID commentPrefix votedPrefix
--       repliesPrefix poster body posted cutoffMillis maxDepth:num orders[name]
-- GO: settings Config, cutoffMillis int64
--
-- article is the article's hash, parent the parent comment's ('' for a
-- comment on the article itself); posts is the poster's index of comments;
-- orders are the value kinds of the parents' indexes (schema.CommentKinds). The
-- article exists as Article finds it; a parent must be a comment of the
-- same article that is not deleted, and a reply is at most maxDepth deep
-- (a comment on the article is at depth 0).
--
-- The id is the counter plus one, which INCR then stores; the comment's keys, and its parent's
-- indexes, are made here from their prefixes, and with the namespace's
-- prefix they share its Redis Cluster slot.
--
-- prefix is the namespace's. The hook of a comment's post (onCommentPost,
-- lib/hooks.lua) of each kind of index the namespace keeps runs once the
-- comment's id is known (with karma, the poster joins the commenters'
-- karma, and the comment's hash gets its part).

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local _, _, bad = located(article, byScore, articleMember)
if bad then
	return bad
end
local comments
comments, bad = try('HGET', article, 'comments')
if bad then
	return bad
end
if not count(comments) then
	return 'corrupt ' .. article .. ' field comments ' .. quote(comments) .. ' is not a count'
end
local depth = 0
if parentID ~= '' then
	local f
	f, bad = try('HMGET', parent, 'article', 'depth', 'deleted', 'replies', 'time')
	if bad then
		return bad
	end
	if not f[5] or f[3] == '1' then
		return 'notfound parent'
	end
	if f[1] ~= articleID then
		return 'invalid parent'
	end
	local d = count(f[2])
	if not d then
		return 'corrupt ' .. parent .. ' field depth ' .. quote(tostring(f[2])) .. ' is not a count'
	end
	if not count(f[4]) then
		return 'corrupt ' .. parent .. ' field replies ' .. quote(f[4]) .. ' is not a count'
	end
	depth = d + 1
	if depth > maxDepth then
		return 'toodeep'
	end
end

local last
last, bad = lastComment(counter)
if bad then
	return bad
end
local id = string.format('%d', last + 1)
local hash, voted = commentPrefix .. id, votedPrefix .. id
for _, key in ipairs({hash, voted}) do
	if redis.call('EXISTS', key) == 1 then
		return 'taken ' .. key
	end
end

-- The kept kinds' hooks.
local stored = {'article', articleID, 'parent', parentID, 'poster', poster, 'body', body, 'time', posted, 'votes', '1',
	'depth', depth}
local plans
plans, bad = planned(onCommentPost, {prefix = prefix, comment = true, id = id, member = hash, poster = poster, posted = posted,
	stored = stored})
if bad then
	return bad
end

-- The writes to keys no read has proven, through the journal.
local t = tonumber(posted)
local siblings = childIndexes(repliesPrefix, orders, parentName(articleID, parentID))
for i = 1, orders.n do
	bad = add(siblings[i], number(value(orders.name[i], t, 1, 0, 0)), hash)
	if bad then
		return bad
	end
end
bad = add(thread, posted, hash) or add(posts, posted, hash) or undoable(plans)
if bad then
	return bad
end

redis.call('INCR', counter)
redis.call('HSET', hash, unpack(stored))
redis.call('SADD', voted, poster)
redis.call('PEXPIRE', voted, cutoffMillis)
redis.call('HINCRBY', article, 'comments', 1)
if parentID ~= '' then
	redis.call('HINCRBY', parent, 'replies', 1)
end
written(plans)
return 'ok ' .. id
