-- lib/windows.lua: the windows of the top-of-window orders: their marks and
-- trims. The loader (script.go) puts before each script the functions of
-- the library it uses, and those they use.

-- markField is the field of trimmed: that holds the mark of a window order's
-- index: the site's (window) or a group's live one (window:group).
local function markField(window, group)
	if group then
		return window .. ':' .. group
	end
	return window
end

-- mark is the text to write as a window's mark at t, a posting time as
-- Redis or Go wrote it: decimal(t), which seconds reads back as exactly t,
-- so that a walk from just after the mark neither takes again those posted
-- at it nor passes over those posted after it. It is nil if seconds would
-- refuse t: a window's cut before the first posting time needs no mark, as
-- no article is posted before it.
local function mark(t)
	t = tonumber(t)
	if not t or not (t >= MIN_SECONDS and t < MAX_SECONDS) then
		return nil
	end
	return decimal(t)
end

-- marks reads the marks of fields (a list of markField names) from trimmed:
-- where each window has been trimmed up to; every member of its index was
-- posted after its mark. It gives a table from field to mark (a number) or
-- false, and a reply to return if the hash or a mark is unsound.
local function marks(trimmed, fields)
	local out = {}
	if #fields == 0 then
		return out
	end
	local got, bad = try('HMGET', trimmed, unpack(fields))
	if bad then
		return nil, bad
	end
	for i, field in ipairs(fields) do
		local m = got[i]
		if m and not seconds(m) then
			return nil, 'corrupt ' .. trimmed .. ' field ' .. field .. ' ' .. quote(m) .. ' is not Unix seconds'
		end
		out[field] = m and tonumber(m) or false
	end
	return out
end

-- agedOut reads which members of a window's index have aged out by cut, a
-- posting time: those posted after its mark and at or before cut, found by
-- walking the time index from the mark. It takes at most batch of them, and
-- then all those posted at the same time as the last, so that the walk always
-- moves on. It gives the members, the new mark (nil if the mark stays: a
-- mark is written only when it saves a later walk, so that most reads write
-- nothing), whether more remain to walk, and a reply to return if a key is
-- unsound. With an empty index there is nothing to walk, and nothing is
-- written: a listing of a group that holds nothing, or of one that does
-- not exist, leaves no trace (the post that first fills an index gives it
-- its first mark). A step that stops at a time that is no posting time
-- (the time index holds it, written by other code) cannot mark where it
-- stopped: it is a reply to return.
local function agedOut(window, byTime, trimmed, field, cut, batch)
	local from, bad = try('HGET', trimmed, field)
	if bad then
		return nil, nil, false, bad
	end
	if from and not seconds(from) then
		return nil, nil, false, 'corrupt ' .. trimmed .. ' field ' .. field .. ' ' .. quote(from) .. ' is not Unix seconds'
	end
	if from and tonumber(from) >= tonumber(cut) then
		return {}, nil, false -- trimmed to cut or past it already
	end
	local size
	size, bad = try('ZCARD', window)
	if bad then
		return nil, nil, false, bad
	end
	if size == 0 then
		return {}, nil, false -- nothing to take out
	end
	local old
	old, bad = try('ZRANGEBYSCORE', byTime, from and ('(' .. from) or '-inf', cut, 'WITHSCORES', 'LIMIT', 0, batch)
	if bad then
		return nil, nil, false, bad
	end
	local members = {}
	for i = 1, #old, 2 do
		members[#members + 1] = old[i]
	end
	if #members == 0 and from then
		return members, nil, false -- the mark may lag: the walk past it finds only aged-out members
	end
	if #members < batch then
		return members, mark(cut), false
	end
	local last = old[#old]
	local to = mark(last)
	if not to then
		return nil, nil, false, 'corrupt ' .. byTime .. ' gives ' .. old[#old - 1] .. ' the time ' .. last .. ', not Unix seconds'
	end
	for _, m in ipairs(redis.call('ZRANGEBYSCORE', byTime, last, last)) do
		members[#members + 1] = m
	end
	return members, to, true
end

-- trim takes aged-out members out of a window's index and moves its mark, as
-- agedOut found them. ZREM takes them a thousand at a time, below Lua's
-- unpack limit.
local function trim(window, trimmed, field, members, to)
	for i = 1, #members, 1000 do
		redis.call('ZREM', window, unpack(members, i, math.min(i + 999, #members)))
	end
	if to then
		redis.call('HSET', trimmed, field, to)
	end
end
