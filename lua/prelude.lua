-- prelude.lua: the functions the scripts share. lua.go puts before each
-- script the ones it uses (and those they use), since a script defines its
-- functions again on every call, and writes the numbers it shares with Go
-- (MIN_SECONDS, MAX_SECONDS, MAX_COUNT_DIGITS, MAX_GROUP_BYTES) in place of
-- their names, so that what Redis runs is one plain Lua chunk per script.
-- Each function is one block of lines, its comment first, with no blank
-- line in it.
--
-- The rules every script follows:
--   * It reads its KEYS and ARGV once, at its top, into named locals, in the
--     order its header gives; a list whose length varies comes as its length
--     and then its entries, a field at a time (columns). sent checks that it
--     read exactly what it was sent.
--   * It reads and checks what it needs, then writes. A write to a key that
--     no read has proven of the right type goes through the journal (unproven
--     and the functions after it), which undoes the journal's earlier writes
--     if Redis refuses one, so that a script still does all of its change or
--     none of it: Redis does not roll a script back. Every other write is one
--     that can no longer fail.
--   * It answers with a status word ('ok', 'notfound', 'corrupt <detail>'...)
--     rather than raising an error, since Redis and miniredis word script
--     errors differently. Only a fault of the library itself (an unknown index
--     kind, arguments that do not match the header) raises one, before any
--     write.
--   * Numbers travel as strings both ways: Lua would print a float with 14
--     digits, and an id past 2^53 would lose its last digits as a number.

-- columns reads a list from ARGV at index at, sent as its length n and
-- then, for each of its fields (up to four, named a to d), n entries: a
-- table with n and, for each name, the array of that field's entries; and
-- the index after the list. A list of records goes field by field, so that
-- each field is read in one step.
local function columns(at, a, b, c, d)
	local n = tonumber(ARGV[at])
	local list = {n = n}
	list[a] = {unpack(ARGV, at + 1, at + n)}
	if b then
		list[b] = {unpack(ARGV, at + n + 1, at + 2 * n)}
	end
	if c then
		list[c] = {unpack(ARGV, at + 2 * n + 1, at + 3 * n)}
	end
	if d then
		list[d] = {unpack(ARGV, at + 3 * n + 1, at + 4 * n)}
	end
	return list, at + 1 + n * (d and 4 or c and 3 or b and 2 or 1)
end

-- sent raises an error unless the script read exactly the KEYS and ARGV it
-- was sent (keys and args are the last of each it read), so that a script
-- and the Go code that calls it cannot drift apart.
local function sent(keys, args)
	if keys ~= #KEYS or args ~= #ARGV then
		error('voting: the script read ' .. keys .. ' keys and ' .. args .. ' arguments; it was sent ' ..
			#KEYS .. ' and ' .. #ARGV)
	end
end

-- refused is the reply for a command Redis refused: a corrupt status for a
-- key of the wrong type, naming the key, else Redis's own error (an ACL's
-- NOPERM, say).
local function refused(cmd, key, r)
	if string.find(r.err, 'WRONGTYPE', 1, true) then
		return 'corrupt ' .. key .. ' is of the wrong type for ' .. cmd
	end
	return r
end

-- try runs a read. If Redis refuses it, it gives nil and the reply the
-- script must return before it writes anything.
local function try(cmd, key, ...)
	local r = redis.pcall(cmd, key, ...)
	if type(r) == 'table' and r.err then
		return nil, refused(cmd, key, r)
	end
	return r
end

-- The journal: for each write made through it so far, what undoes it, four
-- entries a write (the command, the key, the member, and the old score of
-- a moved entry or false), kept flat so that a write costs no table; made
-- by the first such write.
local journal

-- undo runs the journal's inverses, newest first, and empties it.
local function undo()
	for i = #(journal or {}) - 3, 1, -4 do
		local cmd, key, member, old = journal[i], journal[i + 1], journal[i + 2], journal[i + 3]
		if old then
			redis.call(cmd, key, 'XX', string.format('%.17g', old), member)
		else
			redis.call(cmd, key, member)
		end
	end
	journal = nil
end

-- unproven runs a write to key, which no read has proven of the right type.
-- If Redis refuses it, it undoes the journal and gives nil and the reply to
-- return; else it gives the write's reply. The caller journals the inverse.
local function unproven(cmd, key, ...)
	local r = redis.pcall(cmd, key, ...)
	if type(r) == 'table' and r.err then
		undo()
		return nil, refused(cmd, key, r)
	end
	return r
end

-- journalled records what undoes a write: cmd on key and member, and with
-- old the score to set back.
local function journalled(cmd, key, member, old)
	journal = journal or {}
	local n = #journal
	journal[n + 1], journal[n + 2], journal[n + 3], journal[n + 4] = cmd, key, member, old or false
end

-- add puts a new entry, member with the score x, in the sorted set key;
-- undone by removing it, if it was not there. It gives the reply to return
-- if Redis refuses it.
local function add(key, x, member)
	local r, bad = unproven('ZADD', key, x, member)
	if r == 1 then
		journalled('ZREM', key, member)
	end
	return bad
end

-- move sets the score of member in the sorted set key from old (a number)
-- to new (its text), if the set holds member at all (ZADD XX); undone by
-- setting it back. It gives the reply to return if Redis refuses it.
local function move(key, member, new, old)
	local r = redis.pcall('ZADD', key, 'XX', new, member)
	if type(r) == 'table' and r.err then
		undo()
		return refused('ZADD', key, r)
	end
	journalled('ZADD', key, member, old)
end

-- enter puts member in the sorted set key with the score 0, if it is not
-- there (ZADD NX); undone by taking it out. It gives the reply to return
-- if Redis refuses it.
local function enter(key, member)
	local r, bad = unproven('ZADD', key, 'NX', 0, member)
	if r == 1 then
		journalled('ZREM', key, member)
	end
	return bad
end

-- join adds member to the set key; undone by taking it out, if it was not
-- there. It gives the reply to return if Redis refuses it, and whether
-- member joined.
local function join(key, member)
	local r, bad = unproven('SADD', key, member)
	if r == 1 then
		journalled('SREM', key, member)
	end
	return bad, r == 1
end

-- grow adds one to the size of each group of names in the sorted set of
-- group sizes, as a script's last write that can be refused: Redis can
-- refuse only the first, which writes nothing, and then the journal is
-- undone. It gives the reply to return if Redis refuses it.
local function grow(sizes, names)
	for _, name in ipairs(names) do
		local _, bad = unproven('ZINCRBY', sizes, 1, name)
		if bad then
			return bad
		end
	end
end

-- shrink sets the sizes of the groups an article left, as leaving found
-- them (a table from name to the group's size after it), in the sorted set
-- of group sizes: an emptied group leaves it. It is a script's last write
-- that can be refused, as grow is. It gives the reply to return if Redis
-- refuses it.
local function shrink(sizes, left)
	local set, gone = {}, {}
	for name, size in pairs(left) do
		if size > 0 then
			set[#set + 1], set[#set + 2] = size, name
		else
			gone[#gone + 1] = name
		end
	end
	local _, bad
	if #set > 0 then
		_, bad = unproven('ZADD', sizes, unpack(set))
	end
	if #gone > 0 and not bad then
		_, bad = unproven('ZREM', sizes, unpack(gone))
	end
	return bad
end

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

-- controversy is Reddit's, of u up-votes and d down-votes: (u + d) raised
-- to min(u, d) / max(u, d), and 0 when either is 0.
local function controversy(u, d)
	if u <= 0 or d <= 0 then
		return 0
	end
	return (u + d) ^ (math.min(u, d) / math.max(u, d))
end

-- hot is Reddit's hot ranking of an article posted at t with net votes s:
-- sign(s) x log10(max(|s|, 1)) + (t - 1134028003) / 45000.
local function hot(t, s)
	local sign = 0
	if s > 0 then
		sign = 1
	elseif s < 0 then
		sign = -1
	end
	return sign * math.log10(math.max(math.abs(s), 1)) + (t - 1134028003) / 45000
end

-- best is the lower bound of the Wilson score interval of the share of up
-- votes u among u + d, with z = 1.281551565545, as Reddit's "best"; 0 with
-- no vote.
local function best(u, d)
	local n = u + d
	if n <= 0 then
		return 0
	end
	local z, p = 1.281551565545, u / n
	return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)
end

-- placeAfter gives the place in index, from 0, of the first entry after the
-- point (score, member) of a listing's order, highest score first and,
-- among equal scores, the greater member first: the place of the entry
-- after member if member is still there with that score (score as Redis
-- writes it), else the place a probe put at the point takes, the probe
-- taken out at once. member .. '\0' sorts where member would, next to
-- nothing, when member is there with another score. It gives a reply to
-- return if the index is unsound.
local function placeAfter(index, score, member)
	local current, bad = try('ZSCORE', index, member)
	if bad then
		return nil, bad
	end
	if current == score then
		return redis.call('ZREVRANK', index, member) + 1
	end
	local probe = member
	if current then
		probe = member .. '\0'
	end
	redis.call('ZADD', index, score, probe)
	local place = redis.call('ZREVRANK', index, probe)
	redis.call('ZREM', index, probe)
	return place
end

-- value is an article's entry in an index of the given kind, from its
-- posting time, up-votes, down-votes and score: the one place that says
-- what each kind of index holds (orders.go names the kind of each order).
-- A post, a vote and Reindex all ask it; a kind it does not know is an
-- error, never a default.
local function value(kind, posted, ups, downs, score)
	if kind == 'score' then
		return score
	elseif kind == 'time' then
		return posted
	elseif kind == 'net' then
		return ups - downs
	elseif kind == 'controversy' then
		return controversy(ups, downs)
	elseif kind == 'hot' then
		return hot(posted, ups - downs)
	elseif kind == 'best' then
		return best(ups, downs)
	end
	error('voting: unknown index kind ' .. quote(tostring(kind)))
end

-- groupNames checks names read from key, which the script will make keys
-- of: a brace would take such a key out of the namespace's Redis Cluster
-- slot. It gives the reply to return if one is no group name.
local function groupNames(key, names)
	for _, name in ipairs(names) do
		if name == '' or #name > MAX_GROUP_BYTES or string.find(name, '[{}:%c ]') then
			return 'corrupt ' .. key .. ' holds ' .. quote(name) .. ', not a group name'
		end
	end
end

-- builtAmong reads which of fields (of indexes a write cannot keep) the hash
-- indexed: marks as built or being built (built.go), so that the write can
-- take those marks away; with no fields it checks the hash's type alone, for
-- a write that marks it. It gives the fields marked, and a reply to return
-- if the hash is unsound. A missing hash, the rule where no Store keeps more
-- than the book's indexes, costs one EXISTS: with no marks there is nothing
-- to take away, and so nothing to write.
local function builtAmong(indexed, fields)
	if #fields == 0 then
		local _, bad = try('HLEN', indexed)
		return {}, bad
	end
	if redis.call('EXISTS', indexed) == 0 then
		return {} -- no marks to take away, and none written
	end
	local got, bad = try('HMGET', indexed, unpack(fields))
	if bad then
		return nil, bad
	end
	local marked = {}
	for i, field in ipairs(fields) do
		if got[i] then
			marked[#marked + 1] = field
		end
	end
	return marked
end

-- ownRun gives a reply to return unless progress, the hash of Reindex's
-- run, is of the run named run: 'superseded' if it is another's (or none),
-- or one naming it if it is of the wrong type.
local function ownRun(progress, run)
	local current, bad = try('HGET', progress, 'run')
	if bad then
		return bad
	end
	if current ~= run then
		return 'superseded'
	end
end

-- located reads an article's posting time (its hash's field) and score, as
-- Article finds it; it gives both, and a reply to return: 'notfound' if
-- either is missing, or one naming a key of the wrong type.
local function located(hash, byScore, member)
	local posted, bad = try('HGET', hash, 'time')
	if bad then
		return nil, nil, bad
	end
	local score
	score, bad = try('ZSCORE', byScore, member)
	if bad then
		return nil, nil, bad
	end
	if not posted or not score then
		return nil, nil, 'notfound'
	end
	return posted, score
end

-- recorded reads the names in an article's record of its groups, checked
-- as group names; it gives them, and a reply to return if the record or a
-- name is unsound. An article with no record is in no group the library
-- knows of (the book's code keeps no record; Reindex writes one).
local function recorded(record)
	local names, bad = try('SMEMBERS', record)
	if bad then
		return nil, bad
	end
	bad = groupNames(record, names)
	if bad then
		return nil, bad
	end
	return names
end

-- holding reads whether the sorted set index holds member, to take it out:
-- if so it appends index to indexes. It gives the reply to return if the
-- set is unsound.
local function holding(index, member, indexes)
	local has, bad = try('ZSCORE', index, member)
	if has then
		indexes[#indexes + 1] = index
	end
	return bad
end

-- leaving reads whether member is in the group name's set (groupPrefix ..
-- name), to take it out: if so it appends the set to sets, and sets
-- left[name] to the group's size once member is out (shrink writes it). It
-- gives the reply to return if the set is unsound.
local function leaving(groupPrefix, name, member, sets, left)
	local set = groupPrefix .. name
	local is, bad = try('SISMEMBER', set, member)
	if bad then
		return bad
	end
	if is == 1 then
		sets[#sets + 1] = set
		left[name] = redis.call('SCARD', set) - 1
	end
end

-- holderOf reads a field of the index of links: the id of the article that
-- holds the link; nil for none. A field written before the articles that
-- share a link moved to linkshares: holds several ids, the holder first,
-- until Reindex writes it afresh.
local function holderOf(field)
	return field and string.match(field, '^%S+')
end

-- shareOf is the member of linkshares: of the article id, posted at t,
-- whose link key another article holds (one that Reindex found with a link
-- an older article has): the key, a zero byte (no link holds one), the
-- time and the id, written so that the members of a key sort oldest first,
-- and of one time the lowest id first: the whole seconds from the first of
-- the years in 12 digits, the fraction of a second in 9 (each exact: t's
-- whole seconds and fraction are doubles as exact as t, where their sum
-- from the year 1 would keep only some 8 microseconds), and the id in 19,
-- zeros in front.
local function shareOf(key, t, id)
	local floor = math.floor(t)
	local fraction = string.format('%.9f', t - floor)
	if string.sub(fraction, 1, 1) == '1' then
		fraction = '999999999' -- a fraction that rounds up to a whole second
	else
		fraction = string.sub(fraction, 3)
	end
	return key .. '\0' .. string.format('%012d', floor - MIN_SECONDS) .. fraction .. string.rep('0', 19 - #id) .. id
end

-- firstShare gives the oldest member of linkshares: of the link key, and
-- its article's id; nil for none. It reads one member, whatever their
-- number.
local function firstShare(shared, key)
	local first = redis.call('ZRANGEBYLEX', shared, '[' .. key .. '\0', '(' .. key .. '\1', 'LIMIT', 0, 1)[1]
	if first then
		return first, (string.gsub(string.sub(first, -19), '^0+', ''))
	end
end

-- released reads what the index of links becomes when the article id,
-- posted at t (nil if its time is unsound), gives up its link key: if it
-- holds the link, the oldest article that shares it takes it, leaving
-- linkshares:, or with none the field goes; if it shares the link, it
-- leaves linkshares:. Each is a read or two of one field or member,
-- however many articles share the link. It gives what release writes (nil
-- for nothing), and a reply to return if a key is unsound.
local function released(links, shared, key, t, id)
	local field, bad = try('HGET', links, key)
	if bad then
		return nil, bad
	end
	local _
	_, bad = try('ZSCORE', shared, '')
	if bad then
		return nil, bad
	end
	if holderOf(field) == id then
		local member, next = firstShare(shared, key)
		return {key = key, holder = next or false, drop = member}
	end
	if field and t then
		local member = shareOf(key, t, id)
		if redis.call('ZSCORE', shared, member) then
			return {key = key, drop = member}
		end
	end
end

-- release writes what released found: the link's new holder, or no field
-- for it, and the member that leaves linkshares:.
local function release(links, shared, change)
	if not change then
		return
	end
	if change.holder then
		redis.call('HSET', links, change.key, change.holder)
	elseif change.holder == false then
		redis.call('HDEL', links, change.key)
	end
	if change.drop then
		redis.call('ZREM', shared, change.drop)
	end
end

-- asciiLower is s with its ASCII letters in lower case and every other
-- byte as it is, as Go's asciiLower (string.lower may follow a locale).
local function asciiLower(s)
	return (string.gsub(s, '[A-Z]', function(c)
		return string.char(string.byte(c) + 32)
	end))
end

-- linkKey is a link's field in the index of links (WithUniqueLinks), as
-- Go's linkKey writes it: the link without its fragment, and with the
-- ASCII letters of its scheme and host in lower case.
local function linkKey(link)
	link = string.match(link, '^[^#]*')
	local scheme, rest = string.match(link, '^(%a[%w+.-]*)://(.*)$')
	if not scheme then
		return link
	end
	local stop = string.find(rest, '[/?]') or #rest + 1
	local authority, tail = string.sub(rest, 1, stop - 1), string.sub(rest, stop)
	local user, host = string.match(authority, '^(.*@)(.*)$')
	if not user then
		user, host = '', authority
	end
	return asciiLower(scheme) .. '://' .. user .. asciiLower(host) .. tail
end

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

-- forget takes out of a user's history up to 100 of its votes cast at or
-- before the time cut (the history's edge: reads leave out a vote cast
-- exactly there, as older ones), the oldest first, and gives it the history's
-- time to live: every vote and post of the user forgets a few, so that the
-- history stays about as long as its time keeps votes, and no call takes
-- Redis time in proportion to how many votes a user once cast. Reads leave
-- out votes older than that time until they are forgotten.
local function forget(history, cut, millis)
	local old = redis.call('ZRANGEBYSCORE', history, '-inf', cut, 'LIMIT', 0, 100)
	if #old > 0 then
		redis.call('ZREM', history, unpack(old))
	end
	redis.call('PEXPIRE', history, millis)
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
