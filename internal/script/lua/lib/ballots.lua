-- lib/ballots.lua: a user's vote on an item, an article or a comment, kept
-- in two voter sets and two counters of the item's hash. The loader
-- (script.go) puts before each script the functions of the library it
-- uses, and those they use.

-- ballot reads user's vote on an item whose counters are ups and downs,
-- and works out the change dir ('up', 'down' or 'none') makes. It gives
-- the change of each counter (up, down), the user's vote now (isUp,
-- isDown, 0 or 1), whether the down-voter set was read, and a reply to
-- return instead: 'unchanged' for the vote the user has, 'closed' if a
-- voter set has expired, or one naming a key of the wrong type.
--
-- A count of zero means an empty voter set, which Redis keeps as no key:
-- so the down-voter set is read only when its count says it has members.
-- A counter above zero whose voter set is gone can only mean the set
-- expired, at the cutoff, and a vote taken then could count a voter a
-- second time: that signal needs no clock.
local function ballot(voted, downvoted, user, ups, downs, dir)
	local isUp, bad = try('SISMEMBER', voted, user)
	if bad then
		return nil, nil, nil, nil, nil, bad
	end
	local downRead = downs > 0
	local isDown = 0
	if downRead then
		isDown, bad = try('SISMEMBER', downvoted, user)
		if bad then
			return nil, nil, nil, nil, nil, bad
		end
	end
	-- The sets whose counts say they exist, and that no read has found.
	local upSet, downSet = ups > 0 and isUp == 0, downs > 0 and isDown == 0
	if upSet and downSet then
		if redis.call('EXISTS', voted, downvoted) < 2 then
			return nil, nil, nil, nil, nil, 'closed'
		end
	elseif (upSet or downSet) and redis.call('EXISTS', upSet and voted or downvoted) == 0 then
		return nil, nil, nil, nil, nil, 'closed'
	end
	local up, down
	if dir == 'up' then
		up, down = 1, -isDown
	elseif dir == 'down' then
		up, down = -isUp, 1
	elseif dir == 'none' then
		up, down = -isUp, -isDown
	else
		error('voting: unknown vote direction ' .. quote(tostring(dir)))
	end
	if up == 0 and down == 0 or dir == 'up' and isUp == 1 or dir == 'down' and isDown == 1 then
		return nil, nil, nil, nil, nil, 'unchanged'
	end
	return up, down, isUp, isDown, downRead
end

-- joinDown puts user in the down-voter set if the vote creates the set,
-- through the journal, since no read has proven it: the first of a vote's
-- writes after its moves. It gives the reply to return if Redis refuses.
local function joinDown(downvoted, user, down, downRead)
	if down > 0 and not downRead then
		return join(downvoted, user)
	end
end

-- tally writes a vote ballot worked out: the voter sets and the item's
-- counters. A voter set the vote creates expires when voting closes, left
-- seconds from now; a down-voter set the vote creates joinDown has
-- written already.
local function tally(hash, voted, downvoted, user, up, down, ups, downs, downRead, left)
	local ttl = (up > 0 and ups == 0 or down > 0 and downs == 0) and string.format('%d', math.ceil(left * 1000))
	if up > 0 then
		redis.call('SADD', voted, user)
		if ups == 0 then
			redis.call('PEXPIRE', voted, ttl)
		end
	elseif up < 0 then
		redis.call('SREM', voted, user)
	end
	if down > 0 then
		if downRead then
			redis.call('SADD', downvoted, user)
		end
		if downs == 0 then
			redis.call('PEXPIRE', downvoted, ttl)
		end
	elseif down < 0 then
		redis.call('SREM', downvoted, user)
	end
	if up ~= 0 then
		redis.call('HINCRBY', hash, 'votes', up)
	end
	if down ~= 0 then
		redis.call('HINCRBY', hash, 'downvotes', down)
	end
end

-- retime gives the voter sets of items new times to live: expiries holds,
-- for each item, the milliseconds its voting has left, then the item's
-- name after votedPrefix and downvotedPrefix; an item whose voting has
-- closed loses its voter sets.
local function retime(expiries, votedPrefix, downvotedPrefix)
	for i = 1, #expiries, 2 do
		local ttl, voted, downvoted = expiries[i], votedPrefix .. expiries[i + 1], downvotedPrefix .. expiries[i + 1]
		if ttl > 0 then
			redis.call('PEXPIRE', voted, string.format('%d', ttl))
			redis.call('PEXPIRE', downvoted, string.format('%d', ttl))
		else
			redis.call('UNLINK', voted, downvoted)
		end
	end
end
