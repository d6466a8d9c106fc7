-- lib/karma.lua: the posters' karma (WithKarma): each article's part of its
-- poster's karma (its hash's field karma: up-votes less down-votes, less
-- the poster's own vote) and karma: (KARMA_PART), each poster's sum of
-- them. Its hooks (lib/hooks.lua): a post enters the poster; a vote moves
-- the part and the sum; a deletion, whatever the Store keeps, takes the
-- part away; Reindex counts the part while voting is open.

-- karmaOfVote reads what the vote e (vote.lua's event: its user, its net
-- votes net, up and down the change of each counter, isUp and isDown the
-- user's vote before it, ups and downs the counters, voted and downvoted
-- the voter sets) moves of the karma of poster: the article's part is its
-- hash's field (none yet: the article was posted without karma, and its
-- part is counted here from its voter sets, less the poster's own vote
-- after this one). It gives the part and the poster's change to write (nil
-- if the part stays), and a reply to return if a key or the part is
-- unsound.
local function karmaOfVote(karma, e, poster)
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
	local _, bad = try('ZSCORE', karma, poster)
	if bad then
		return nil, bad
	end
	return {part = part, change = change}
end

-- karmaOfDeletion reads what the deletion e (delete.lua's event: the
-- article's hash, its fields, and last, whether it is the poster's last
-- article in their index of articles) takes out of the karma of poster:
-- the article's part (its karma field, none for 0), and whether the
-- poster leaves karma:, with their last article unless articles outside
-- that index (the book's, until Reindex) leave them karma. It gives what
-- karmaWritten writes, and a reply to return if a key or the part is
-- unsound.
local function karmaOfDeletion(karma, e, poster)
	local hash, part, last = e.hash, e.fields.karma or nil, e.last
	local n = whole(part or '0')
	if not n then
		return nil, 'corrupt ' .. hash .. ' field karma ' .. quote(part) .. ' is not a whole number'
	end
	local now, bad = try('ZSCORE', karma, poster)
	if bad then
		return nil, bad
	end
	if last and now and tonumber(now) == n then
		return {leaves = true}
	end
	if n ~= 0 then
		return {change = -n}
	end
end

-- karmaCounted is an article's part as Reindex counts it, of its counters
-- ups and downs and its part (nil for none): while its voting is open (a
-- voter set with members by its count is there), from its voter sets, voted
-- and downvoted; once it has closed, the part it has, or one with the
-- poster's up-vote (the book's code allows the poster no other vote). It
-- gives a reply to return if a voter set is unsound.
local function karmaCounted(voted, downvoted, poster, ups, downs, part)
	local open = (ups == 0 or redis.call('EXISTS', voted) == 1) and (downs == 0 or redis.call('EXISTS', downvoted) == 1)
	if not open then
		return part or ups - downs - (ups > 0 and 1 or 0)
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

-- karmaWritten writes what karmaOfVote or karmaOfDeletion found for the
-- article of the hash (hash nil for a deletion: its hash goes): its new
-- part, and the poster's sum moved by the change (a vote enters a poster
-- new to karma: so, with a change of 0), or the poster out of karma:.
local function karmaWritten(karma, hash, poster, found)
	if not found then
		return
	end
	if found.leaves then
		redis.call('ZREM', karma, poster)
		return
	end
	if hash then
		redis.call('HSET', hash, 'karma', string.format('%d', found.part))
	end
	redis.call('ZINCRBY', karma, found.change, poster)
end

-- karmaFields are the fields of the article's hash the hooks read.
local karmaFields = {'poster', 'karma'}

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

-- karmaWrite writes the plan of karmaMoved.
local function karmaWrite(plan)
	karmaWritten(plan.karma, plan.hash, plan.poster, plan.moved)
end

-- karmaMoved is the plan of the event e's hook that moves the karma of
-- the article's poster: found (karmaOfVote or karmaOfDeletion) reads what
-- moves, written to the article's hash, hash (nil when it goes). An
-- article with no poster moves none.
local function karmaMoved(e, found, hash)
	local poster = e.fields.poster
	if not poster then
		return nil
	end
	local karma = e.prefix .. KARMA_PART
	local moved, bad = found(karma, e, poster)
	if bad then
		return nil, bad
	end
	return {write = karmaWrite, karma = karma, hash = hash, poster = poster, moved = moved}
end

-- karmaOnVote: the article's part moves with a vote of anyone but the
-- poster, and the poster's sum with it; an article with no part yet
-- (posted without karma) has it counted from its voter sets.
local function karmaOnVote(e)
	return karmaMoved(e, karmaOfVote, e.hash)
end

-- karmaOnDelete: the article's part leaves its poster's sum, and the
-- poster leaves karma: with their last article (e.last).
local function karmaOnDelete(e)
	return karmaMoved(e, karmaOfDeletion, nil)
end

-- karmaOnReindex: each article of the step (e.articles) has its part
-- counted (karmaCounted) and its poster's sum moved to match. A part that
-- is no whole number is refused whatever the Store keeps.
local function karmaOnReindex(e, kept)
	local karma = e.prefix .. KARMA_PART
	if kept then
		local _, bad = try('ZSCORE', karma, '')
		if bad then
			return nil, bad
		end
	end
	local parts = {}
	for _, a in ipairs(e.articles) do
		local old = a.fields.karma or nil
		local part = whole(old)
		if old and not part then
			return nil, 'corrupt ' .. a.member .. ' field karma ' .. quote(old) .. ' is not a whole number'
		end
		local poster = a.fields.poster
		if kept and a.own and poster then
			local new, bad = karmaCounted(e.votedPrefix .. a.id, e.downvotedPrefix .. a.id, poster, a.ups, a.downs, part)
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
