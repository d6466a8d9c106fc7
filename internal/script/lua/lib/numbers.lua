-- lib/numbers.lua: number formats: posting times, counters, and how Lua
-- writes numbers back. The loader (script.go) puts before each script the
-- functions of the library it uses, and those they use.

-- seconds reads a posting time as parseUnixSeconds does; nil if unsound.
local function seconds(s)
	if not s or not string.match(s, '^%-?%d+%.?%d*$') then
		return nil
	end
	local t = tonumber(s)
	if t < MIN_SECONDS or t >= MAX_SECONDS then
		return nil
	end
	return t
end

local function finite(x)
	return x ~= nil and x == x and x > -math.huge and x < math.huge
end

-- number writes x so that Redis reads back the same double.
local function number(x)
	return string.format('%.17g', x)
end

-- decimal writes x, a finite number, as formatFloat does: in plain decimal,
-- with no exponent, in the fewest digits that read back as exactly x.
-- Redis writes a score near 0 with an exponent (1e-05), which seconds does
-- not read.
local function decimal(x)
	local s
	for digits = 1, 17 do
		s = string.format('%.' .. digits .. 'g', x)
		local sign, first, rest, e = string.match(s, '^(%-?)(%d)%.?(%d*)e([-+]%d+)$')
		if sign then
			-- Move the point by the exponent.
			local all, point = first .. rest, 1 + tonumber(e) -- point: the digits before it
			if point <= 0 then
				s = sign .. '0.' .. string.rep('0', -point) .. all
			elseif point >= #all then
				s = sign .. all .. string.rep('0', point - #all)
			else
				s = sign .. string.sub(all, 1, point) .. '.' .. string.sub(all, point + 1)
			end
		end
		if tonumber(s) == x then
			return s
		end
	end
	return s
end

-- quote writes s as a Lua string literal, for error details.
local function quote(s)
	return string.format('%q', s)
end

-- count reads a counter field as parseCount does; a missing field is 0,
-- nil if unsound.
local function count(s)
	if not s then
		return 0
	end
	if s == '0' or (#s <= MAX_COUNT_DIGITS and string.match(s, '^[1-9]%d*$')) then
		return tonumber(s)
	end
	return nil
end

-- whole reads a whole number, such as a karma, written in decimal with an
-- optional '-': nil if unsound.
local function whole(s)
	if s and #s <= MAX_COUNT_DIGITS + 1 and string.match(s, '^%-?%d+$') then
		return tonumber(s)
	end
	return nil
end

-- counts reads an article's time and counters from its hash's fields, as
-- HMGET gives them: the posting time, the up-votes and the down-votes, or
-- the reply to return if one is unsound.
local function counts(hash, posted, ups, downs)
	local t, u, d = seconds(posted), count(ups), count(downs)
	if not t then
		return nil, nil, nil, 'corrupt ' .. hash .. ' field time ' .. quote(tostring(posted)) .. ' is not Unix seconds'
	end
	if not u then
		return nil, nil, nil, 'corrupt ' .. hash .. ' field votes ' .. quote(ups) .. ' is not a count'
	end
	if not d then
		return nil, nil, nil, 'corrupt ' .. hash .. ' field downvotes ' .. quote(downs) .. ' is not a count'
	end
	return t, u, d
end
