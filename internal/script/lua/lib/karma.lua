-- lib/karma.lua: the posters' karma (WithKarma), of articles and of
-- comments alike: each item's part of its poster's karma (its hash's field
-- karma: up-votes less down-votes, less the poster's own vote) and each
-- poster's sum of their items' parts, in karma: (KARMA_PART) for articles
-- and karma-comments: (KARMA_COMMENTS_PART) for comments. Its hooks
-- (lib/hooks.lua) are the same for both kinds of item, an event's table
-- saying which (comment): a post enters the poster; a vote moves the part
-- and the sum; a deletion, or the purge of a deleted article's comments,
-- takes the part away; Reindex counts the part while voting is open.

-- karmaCounted is an item's part as Reindex counts it, of its counters
-- ups and downs and its part (nil for none): while its voting is open (a
-- voter set with members by its count is there), from its voter sets, voted
-- and downvoted; once it has closed, the part it has, or its counters less
-- the poster's own vote, own: a comment's as its hash keeps it; for an
-- article (own nil), the poster's up-vote (the book's code allows the
-- poster no other vote). It gives a reply to return if a voter set is
-- unsound.
local function karmaCounted(voted, downvoted, poster, ups, downs, part, own)
	local open = (ups == 0 or redis.call('EXISTS', voted) == 1) and (downs == 0 or redis.call('EXISTS', downvoted) == 1)
	if not open then
		return part or ups - downs - (own or (ups > 0 and 1 or 0))
	end
	local isUp, bad = try('SISMEMBER', voted, poster)
	local isDown
	if not bad then
		isDown, bad = try('SISMEMBER', downvoted, poster)
	end
	if bad then
		return nil, bad
	end
	return ups - downs - isUp + isDown
end

-- commentOwn is a comment's poster's own vote as its hash's field own
-- keeps it (ownField, as HMGET gives it): none for the post's up-vote,
-- '0' for none, '-1' for a down-vote.
local function commentOwn(ownField)
	return tonumber(ownField or '1') or 1
end

-- karmaWritten writes the plan of a vote's or a deletion's hook (the
-- plan itself: karma, poster, and part and change, or leaves): the
-- article's new part in its hash, hash (none when the deletion takes the
-- hash), and the poster's sum moved by the change (a vote enters a poster
-- new to karma: so, with a change of 0), or the poster out of karma:.
local function karmaWritten(plan)
	local karma, poster = plan.karma, plan.poster
	if plan.leaves then
		redis.call('ZREM', karma, poster)
		return
	end
	if plan.hash then
		redis.call('HSET', plan.hash, 'karma', string.format('%d', plan.part))
	end
	redis.call('ZINCRBY', karma, plan.change, poster)
end

-- karmaKey is the key of the posters' karma of the event e's kind of
-- item, in its namespace (e.prefix): karma-comments: for a comment's
-- (e.comment), karma: for an article's.
local function karmaKey(e)
	return e.prefix .. (e.comment and KARMA_COMMENTS_PART or KARMA_PART)
end

-- karmaOf is the key of the posters' karma of the event e (karmaKey), and
-- the poster's entry there; or a reply to return if the key is unsound.
local function karmaOf(e, poster)
	local karma = karmaKey(e)
	local now, bad = try('ZSCORE', karma, poster)
	return karma, now, bad
end

-- karmaOnPost: the poster joins the posters' karma (karmaKey) with no
-- karma, if new there, and the item's hash gets its part, 0: the poster's
-- own up-vote never counts. It is given the post e: the poster, and
-- stored, the fields the hash is written with.
local function karmaOnPost(e)
	local karma = karmaKey(e)
	e.stored[#e.stored + 1], e.stored[#e.stored + 2] = 'karma', '0'
	return {undoable = function()
		return enter(karma, e.poster)
	end}
end

-- karmaOnVote: the item's part moves with a vote of anyone but the
-- poster, and the poster's sum with it. It reads what the vote e (vote.lua's
-- event, or comment_vote.lua's: its user, its net votes net, up and down
-- the change of each counter, isUp and isDown the user's vote before it,
-- ups and downs the counters, voted and downvoted the voter sets) moves of
-- the karma of the item's poster: the item's part is its hash's field (none
-- yet: the item was posted without karma, and its part is counted here
-- from its voter sets, less the poster's own vote after this one). Its
-- plan is what karmaWritten writes (none if the part stays, or the item
-- has no poster); or it gives a reply to return if a key or the part is
-- unsound.
local function karmaOnVote(e)
	local poster = e.fields.poster
	if not poster then
		return nil
	end
	local hash, old, user, net, up, down = e.hash, e.fields.karma or nil, e.user, e.net, e.up, e.down
	local part
	if old then
		part = whole(old)
		if not part then
			return nil, 'corrupt ' .. hash .. ' field karma ' .. quote(old) .. ' is not a whole number'
		end
		if user ~= poster then
			part = part + net
		end
	else
		local own
		if user == poster then
			own = up + e.isUp - (down + e.isDown)
		else
			own = redis.call('SISMEMBER', e.voted, poster) - (e.downs > 0 and redis.call('SISMEMBER', e.downvoted, poster) or 0)
		end
		part = e.ups + up - (e.downs + down) - own
	end
	local change = part - (old and tonumber(old) or 0)
	if change == 0 and old then
		return nil -- unchanged: nothing to write
	end
	local karma, _, bad = karmaOf(e, poster)
	if bad then
		return nil, bad
	end
	return {write = karmaWritten, karma = karma, poster = poster, hash = hash, part = part, change = change}
end

-- karmaOnCommentPost: a comment's post is an article's (karmaOnPost).
local karmaOnCommentPost = karmaOnPost

-- karmaOnCommentVote: a comment's vote is an article's (karmaOnVote).
local karmaOnCommentVote = karmaOnVote

-- karmaOnDelete: the item's part leaves its poster's sum. It reads what
-- the deletion e (delete.lua's event, or comment_delete.lua's: the item's
-- hash, its fields, and last, whether it is the poster's last item in
-- their index of articles or of comments) takes out of the karma of the
-- item's poster: the item's part (its karma field, none for 0), and
-- whether the poster leaves the posters' karma, with their last item
-- unless items outside that index (the book's articles, until Reindex)
-- leave them karma. Its plan is what karmaWritten writes; or it gives a
-- reply to return if a key or the part is unsound.
local function karmaOnDelete(e)
	local poster = e.fields.poster
	if not poster then
		return nil
	end
	local part = e.fields.karma or nil
	local n = whole(part or '0')
	if not n then
		return nil, 'corrupt ' .. e.hash .. ' field karma ' .. quote(part) .. ' is not a whole number'
	end
	local karma, now, bad = karmaOf(e, poster)
	if bad then
		return nil, bad
	end
	if e.last and now and tonumber(now) == n then
		return {write = karmaWritten, karma = karma, poster = poster, leaves = true}
	end
	if n ~= 0 then
		return {write = karmaWritten, karma = karma, poster = poster, change = -n}
	end
end

-- karmaOnCommentDelete: a comment's deletion is an article's
-- (karmaOnDelete); one that leaves a tombstone has its field karma taken
-- with the hooks' other fields.
local karmaOnCommentDelete = karmaOnDelete

-- karmaOnCommentPurge: the parts of the comments a purge of a deleted
-- article's thread takes (e.comments, each its member and fields) leave
-- their posters' sums; a poster left with no comment in their index of
-- comments (e.postsPrefix and the poster, which the purge reads, and
-- writes before the plan's write) leaves the commenters' karma. It gives
-- a reply to return if a key or a part is unsound.
local function karmaOnCommentPurge(e)
	local karma = karmaKey(e)
	local _, bad = try('ZCARD', karma)
	if bad then
		return nil, bad
	end
	local parts, order = {}, {}
	for _, c in ipairs(e.comments) do
		local poster, field = c.fields.poster, c.fields.karma or nil
		if poster then
			local part = whole(field or '0')
			if not part then
				return nil, 'corrupt ' .. c.member .. ' field karma ' .. quote(field) .. ' is not a whole number'
			end
			if not parts[poster] then
				order[#order + 1] = poster
			end
			parts[poster] = (parts[poster] or 0) + part
		end
	end
	return {write = function()
		for _, poster in ipairs(order) do
			if redis.call('ZCARD', e.postsPrefix .. poster) == 0 then
				redis.call('ZREM', karma, poster)
			elseif parts[poster] ~= 0 then
				redis.call('ZINCRBY', karma, -parts[poster], poster)
			end
		end
	end}
end

-- karmaRecounted is the plan of a step of Reindex's walk of the event e:
-- each item of items (each its member, id, poster, or none for one with no
-- part, counters ups and downs, and fields) has its part counted
-- (karmaCounted, with the item's own, a comment's own vote as its hash
-- keeps it, commentOwn, or none for an article) and its poster's sum in
-- the posters' karma (karmaKey) moved to match. A part that is no whole
-- number is refused, with the reply to return.
local function karmaRecounted(e, items)
	local karma = karmaKey(e)
	local _, bad = try('ZSCORE', karma, '')
	if bad then
		return nil, bad
	end
	local parts = {}
	for _, c in ipairs(items) do
		local old = c.fields.karma or nil
		local part = whole(old)
		if old and not part then
			return nil, 'corrupt ' .. c.member .. ' field karma ' .. quote(old) .. ' is not a whole number'
		end
		if c.poster then
			local new
			new, bad = karmaCounted(e.votedPrefix .. c.id, e.downvotedPrefix .. c.id, c.poster, c.ups, c.downs, part, c.own)
			if bad then
				return nil, bad
			end
			parts[#parts + 1] = {c.member, c.poster, new, new - (part or 0)}
		end
	end
	return {write = function()
		for _, p in ipairs(parts) do
			redis.call('HSET', p[1], 'karma', string.format('%d', p[3]))
			redis.call('ZINCRBY', karma, p[4], p[2])
		end
	end}
end

-- karmaOnReindex: each article of the step (e.articles) of the
-- namespace's own (a.own) has its part counted and its poster's sum moved
-- to match (karmaRecounted). The commenters' karma, which the walk of the
-- comments writes, is checked too, before the run writes anything.
local function karmaOnReindex(e)
	local _, bad = try('ZSCORE', e.prefix .. KARMA_COMMENTS_PART, '')
	if bad then
		return nil, bad
	end
	local items = {}
	for _, a in ipairs(e.articles) do
		items[#items + 1] = {member = a.member, id = a.id, poster = a.own and a.fields.poster, ups = a.ups, downs = a.downs,
			fields = a.fields}
	end
	return karmaRecounted(e, items)
end

-- karmaOnCommentReindex: each comment of the step (e.comments: a
-- tombstone has no poster; ownField is the field own of its hash) has its
-- part counted and its poster's sum moved to match (karmaRecounted).
local function karmaOnCommentReindex(e)
	for _, c in ipairs(e.comments) do
		c.own = commentOwn(c.ownField)
	end
	return karmaRecounted(e, e.comments)
end
