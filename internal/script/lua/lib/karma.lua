-- lib/karma.lua: the posters' karma (WithKarma): each article's part of its
-- poster's karma (its hash's field karma: up-votes less down-votes, less
-- the poster's own vote) and karma: (KARMA_PART), each poster's sum of
-- them. Its hooks (lib/hooks.lua): a post enters the poster; a vote moves
-- the part and the sum; a deletion takes the part away; Reindex counts the part while voting is open.
-- The comments' karma (karma-comments:, KARMA_COMMENTS_PART) is kept the
-- same way by the comments' scripts, with commentOwn and commentPart.

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

-- commentPart is a comment's part of its poster's comment karma: the
-- field karma of its hash (field, as HMGET gives it), or for a comment
-- written while the namespace kept no karma, its part counted
-- (karmaCounted, with ownField its field own, commentOwn). It gives a reply to
-- return if the field is no whole number or a voter set is unsound.
local function commentPart(hash, field, voted, downvoted, poster, ups, downs, ownField)
	local part = whole(field)
	if field and not part then
		return nil, 'corrupt ' .. hash .. ' field karma ' .. quote(field) .. ' is not a whole number'
	end
	if part then
		return part
	end
	return karmaCounted(voted, downvoted, poster, ups, downs, nil, commentOwn(ownField))
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

-- karmaOf is the key of the posters' karma in the namespace of the event
-- e, and the poster's entry there; or a reply to return if the key is
-- unsound.
local function karmaOf(e, poster)
	local karma = e.prefix .. KARMA_PART
	local now, bad = try('ZSCORE', karma, poster)
	return karma, now, bad
end

-- karmaOnPost: the poster joins karma: with no karma, if new there, and
-- the article's hash gets its part, 0: the poster's own up-vote never
-- counts.
local function karmaOnPost(e)
	local karma = e.prefix .. KARMA_PART
	e.stored[#e.stored + 1], e.stored[#e.stored + 2] = 'karma', '0'
	return {undoable = function()
		return enter(karma, e.poster)
	end}
end

-- karmaOnVote: the article's part moves with a vote of anyone but the
-- poster, and the poster's sum with it. It reads what the vote e (vote.lua's
-- event: its user, its net votes net, up and down the change of each
-- counter, isUp and isDown the user's vote before it, ups and downs the
-- counters, voted and downvoted the voter sets) moves of the karma of the
-- article's poster: the article's part is its hash's field (none yet: the
-- article was posted without karma, and its part is counted here from its
-- voter sets, less the poster's own vote after this one). Its plan is what
-- karmaWritten writes (none if the part stays, or the article has no
-- poster); or it gives a reply to return if a key or the part is unsound.
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

-- karmaOnDelete: the article's part leaves its poster's sum. It reads what
-- the deletion e (delete.lua's event: the article's hash, its fields, and
-- last, whether it is the poster's last article in their index of
-- articles) takes out of the karma of the article's poster: the article's
-- part (its karma field, none for 0), and whether the poster leaves
-- karma:, with their last article unless articles outside that index (the
-- book's, until Reindex) leave them karma. Its plan is what karmaWritten
-- writes; or it gives a reply to return if a key or the part is unsound.
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

-- karmaOnReindex: each article of the step (e.articles) has its part
-- counted (karmaCounted) and its poster's sum moved to match. A part that
-- is no whole number is refused.
local function karmaOnReindex(e)
	local karma = e.prefix .. KARMA_PART
	local _, bad = try('ZSCORE', karma, '')
	if not bad then
		-- The commenters' karma, which the walk of the comments writes, is
		-- checked with the rest before the run writes anything.
		_, bad = try('ZSCORE', e.prefix .. KARMA_COMMENTS_PART, '')
	end
	if bad then
		return nil, bad
	end
	local parts = {}
	for _, a in ipairs(e.articles) do
		local old = a.fields.karma or nil
		local part = whole(old)
		if old and not part then
			return nil, 'corrupt ' .. a.member .. ' field karma ' .. quote(old) .. ' is not a whole number'
		end
		local poster = a.fields.poster
		if a.own and poster then
			local new
			new, bad = karmaCounted(e.votedPrefix .. a.id, e.downvotedPrefix .. a.id, poster, a.ups, a.downs, part)
			if bad then
				return nil, bad
			end
			parts[#parts + 1] = {a.member, poster, new, new - (part or 0)}
		end
	end
	return {write = function()
		for _, p in ipairs(parts) do
			redis.call('HSET', p[1], 'karma', string.format('%d', p[3]))
			redis.call('ZINCRBY', karma, p[4], p[2])
		end
	end}
end
