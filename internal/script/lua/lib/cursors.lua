-- lib/cursors.lua: cursors: where a page after a point starts. The loader
-- (script.go) puts before each script the functions of the library it uses,
-- and those they use.

-- memberBefore reports whether member a sorts before b as Redis orders the
-- members of one score, byte by byte (memcmp): Lua's own < follows the
-- locale Redis sets for its collation, which may order them otherwise.
local function memberBefore(a, b)
	for i = 1, math.min(#a, #b) do
		local x, y = string.byte(a, i), string.byte(b, i)
		if x ~= y then
			return x < y
		end
	end
	return #a < #b
end

-- placeAfter gives the place in index, from 0, of the first entry after the
-- point (score, member) of a listing's order, highest score first and,
-- among equal scores, the greater member first; with ascending, lowest
-- score first and the lesser member first. Where the point is still an
-- entry (score as Redis writes it), the place is the one after its rank;
-- where its member has gone, or moved to another score, since, the entries
-- of the point's score, which hold one place each in the member's order,
-- are searched by halves (a ZRANGE of one entry a step, log2 of their
-- number). Either way the index is only read: a read after a cursor
-- writes nothing, and a client-side cache hears of no change. It gives a
-- reply to return if the index is unsound.
local function placeAfter(index, score, member, ascending)
	-- The point's own entry, where no write has moved it: its place.
	local current, bad = try('ZSCORE', index, member)
	if bad then
		return nil, bad
	end
	if current == score then
		if ascending then
			return redis.call('ZRANK', index, member) + 1
		end
		return redis.call('ZREVRANK', index, member) + 1
	end
	local lo, hi
	if ascending then
		lo, bad = try('ZCOUNT', index, '-inf', '(' .. score)
		if not bad then
			hi = redis.call('ZCOUNT', index, '-inf', score)
		end
	else
		lo, bad = try('ZCOUNT', index, '(' .. score, '+inf')
		if not bad then
			hi = redis.call('ZCOUNT', index, score, '+inf')
		end
	end
	if bad then
		return nil, bad
	end
	-- Places lo to hi - 1 hold the entries of the point's score: the first
	-- whose member comes after the point's in the order is the place.
	while lo < hi do
		local mid = math.floor((lo + hi) / 2)
		local at
		if ascending then
			at = redis.call('ZRANGE', index, mid, mid)[1]
		else
			at = redis.call('ZREVRANGE', index, mid, mid)[1]
		end
		local past
		if ascending then
			past = memberBefore(member, at)
		else
			past = memberBefore(at, member)
		end
		if past then
			hi = mid
		else
			lo = mid + 1
		end
	end
	return lo
end
