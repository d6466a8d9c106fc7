-- lib/karma.lua: the posters' karma (WithKarma): each article's part of its
-- poster's karma (its hash's field karma: up-votes less down-votes, less
-- the poster's own vote) and karma:, each poster's sum of them. A vote, a
-- deletion and Reindex each ask these in their reads, and write what they
-- found last.

-- karmaOfVote reads what a vote moves of the poster's karma, with karma
-- kept: the vote by user, of net votes net (up, down the change of each
-- counter), on an article of the hash whose counters are ups and downs,
-- whose poster is poster and whose part is old (nil for none yet: the
-- article was posted without karma, and its part is counted here from its
-- voter sets, voted and downvoted, less the poster's own vote after this
-- one), where user had voted isUp and isDown. It gives the part and the
-- poster's change to write (nil if the part stays), and a reply to return
-- if a key or the part is unsound.
local function karmaOfVote(karma, hash, poster, old, user, net, up, down, isUp, isDown, ups, downs, voted, downvoted)
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
			own = up + isUp - (down + isDown)
		else
			own = redis.call('SISMEMBER', voted, poster) - (downs > 0 and redis.call('SISMEMBER', downvoted, poster) or 0)
		end
		part = ups + up - (downs + down) - own
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

-- karmaOfDeletion reads what a deletion takes out of the poster's karma:
-- the part of the article of the hash (part, its karma field, nil for
-- none), and whether the poster leaves karma:, with their last article in
-- their index of articles (last) unless articles outside it (the book's,
-- until Reindex) leave them karma. It gives what karmaWritten writes, and
-- a reply to return if a key or the part is unsound.
local function karmaOfDeletion(karma, hash, poster, part, last)
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
