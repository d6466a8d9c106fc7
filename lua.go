package voting

// This file holds the Lua scripts, one per writing operation, so that each
// operation is one atomic step and one round trip.
//
// Redis does not roll a script back: a command that fails half-way leaves
// the commands before it applied. So every script reads and checks all it
// needs first (the article's fields, the type of every key it will write)
// and writes last, with commands that can no longer fail: an operation
// either does all of its change or none of it, and its reply says which.
//
// Scripts are constants: user input reaches them only as KEYS and ARGV. Each
// names its arguments at its top. They answer with one string, a status word
// and, for some words, a space and a detail ("ok 7", "corrupt article:7 ..."),
// instead of raising errors, because Redis and miniredis word script errors
// differently. Numbers travel as strings both ways: Lua would print a float
// with 14 digits, and an id past 2^53 would lose its last digits as a Lua
// number.
//
// Store.run sends EVALSHA and falls back to EVAL itself rather than using
// redigo's redis.Script, because each round trip must honour the call's
// context (redis.Script's DoContext would not bound a plain or timeout-only
// connection) and run on a connection the Store has bound to the
// namespace's Redis Cluster slot.

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A script is Lua source and its SHA-1, the name EVALSHA knows it by.
type script struct {
	src, hash string
	hashArg   any // hash as an argument, made once
}

// newScript puts the shared Lua functions before body, and writes the
// numbers the scripts share in place of their names.
func newScript(body string) *script {
	src := luaConstants.Replace(luaPrelude + body)
	sum := sha1.Sum([]byte(src))
	hash := hex.EncodeToString(sum[:])
	return &script{src: src, hash: hash, hashArg: hash}
}

// Status words the scripts answer with.
const (
	replyOK        = "ok"
	replyUnchanged = "unchanged"
	replyNotFound  = "notfound"
	replyClosed    = "closed"
	replyTaken     = "taken"   // detail: the key of the new id that exists
	replyFull      = "full"    // the counter is at the largest id
	replyCorrupt   = "corrupt" // detail: what is wrong, naming the key
	replyMore      = "more"    // a listing trimmed a window and has more to trim
)

// scriptError is the error for a script's reply that the caller does not
// handle itself: ErrCorrupt with the script's detail, or an unexpected
// reply. op names the operation, as in "vote on article 7".
func scriptError(op, word, detail string) error {
	if word == replyCorrupt {
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, op, detail)
	}
	return fmt.Errorf("voting: %s: unexpected reply %q", op, strings.TrimSpace(word+" "+detail))
}

// luaConstants are the numbers of encoding.go and validate.go that the
// scripts share, by the names the scripts give them.
var luaConstants = strings.NewReplacer(
	"MAX_SECONDS", formatFloat(maxSeconds),
	"MAX_COUNT_DIGITS", strconv.Itoa(maxCountDigits),
	"MAX_GROUP_BYTES", strconv.Itoa(utf8.UTFMax*MaxGroupLen),
)

// luaPrelude holds the functions every script may use: try for reads that
// Redis may refuse, and the rules of encoding.go for stored numbers.
const luaPrelude = `
-- try runs a read. If Redis refuses it, it gives nil and the reply the
-- script must return before it writes anything: a corrupt status for a key
-- of the wrong type, else Redis's own error (an ACL's NOPERM, say).
local function try(cmd, key, ...)
	local r = redis.pcall(cmd, key, ...)
	if type(r) == 'table' and r.err then
		if string.find(r.err, 'WRONGTYPE', 1, true) then
			return nil, 'corrupt ' .. key .. ' is of the wrong type for ' .. cmd
		end
		return nil, r
	end
	return r
end

-- seconds reads a posting time as parseUnixSeconds does; nil if unsound.
local function seconds(s)
	if not s or not string.match(s, '^%-?%d+%.?%d*$') then
		return nil
	end
	local t = tonumber(s)
	if t <= -MAX_SECONDS or t >= MAX_SECONDS then
		return nil
	end
	return t
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

-- checkSets checks that KEYS[first] to KEYS[last] are sets or missing, as
-- a write of member to each needs; it gives the reply to return if not.
local function checkSets(first, last, member)
	for i = first, last do
		local _, bad = try('SISMEMBER', KEYS[i], member)
		if bad then
			return bad
		end
	end
end

local function finite(x)
	return x ~= nil and x == x and x > -math.huge and x < math.huge
end

-- number writes x so that Redis reads back the same double.
local function number(x)
	return string.format('%.17g', x)
end

-- controversy is Reddit's, of u up-votes and d down-votes: (u + d) raised
-- to min(u, d) / max(u, d), and 0 when either is 0.
local function controversy(u, d)
	if u <= 0 or d <= 0 then
		return 0
	end
	return (u + d) ^ (math.min(u, d) / math.max(u, d))
end

-- checkIndexes checks that KEYS[first] to KEYS[last] are sorted sets or
-- missing; it gives the reply to return if not.
local function checkIndexes(first, last)
	for i = first, last do
		local _, bad = try('ZSCORE', KEYS[i], '')
		if bad then
			return bad
		end
	end
end

-- checkGroupNames checks the names of groups read from key, which the
-- script will make keys of: a brace would take such a key out of the
-- namespace's Redis Cluster slot. It gives the reply to return if one is
-- no group name.
local function checkGroupNames(key, names)
	for _, name in ipairs(names) do
		if name == '' or #name > MAX_GROUP_BYTES or string.find(name, '[{}:%c ]') then
			return 'corrupt ' .. key .. ' holds ' .. string.format('%q', name) .. ', not a group name'
		end
	end
end

-- recordedGroups reads the names in an article's record of its groups,
-- checked as group names; it gives them, and a reply to return if the
-- record or a name is unsound.
local function recordedGroups(record)
	local names, bad = try('SMEMBERS', record)
	if bad then
		return nil, bad
	end
	bad = checkGroupNames(record, names)
	if bad then
		return nil, bad
	end
	return names
end

-- unrecordedGroups finds the groups of an article with no record of its
-- groups (one the book's code put in groups): each group named in the
-- namespace's set of group names, registry, whose set holds member. It
-- costs one SISMEMBER per named group. It gives the names, and a reply to
-- return if a key or a name is unsound.
local function unrecordedGroups(registry, groupPrefix, member)
	local all, bad = try('SMEMBERS', registry)
	if bad then
		return nil, bad
	end
	bad = checkGroupNames(registry, all)
	if bad then
		return nil, bad
	end
	local names = {}
	for _, name in ipairs(all) do
		local is
		is, bad = try('SISMEMBER', groupPrefix .. name, member)
		if bad then
			return nil, bad
		end
		if is == 1 then
			names[#names + 1] = name
		end
	end
	return names
end

-- mark reads where a top-of-window index was last trimmed up to: every
-- member of it was posted after that time. It gives the mark as a string,
-- or nil if there is none, and a reply to return if the field is unsound.
local function mark(trimmed, field)
	local m, bad = try('HGET', trimmed, field)
	if bad then
		return nil, bad
	end
	if m and not seconds(m) then
		return nil, 'corrupt ' .. trimmed .. ' field ' .. field .. ' ' .. string.format('%q', m) .. ' is not Unix seconds'
	end
	return m
end

-- agedOut reads which members of a top-of-window index have aged out by
-- cut, a posting time: those posted after its mark and at or before cut,
-- found by walking the time index from the mark. It takes at most batch of
-- them, and then all those posted at the same time as the last, so that the
-- walk always moves on (a step is bounded by the batch plus the articles
-- that share one posting time). It gives the members, the new mark (nil if the mark
-- stays: a mark is written only when it saves a later walk, so that most
-- reads write nothing), whether more remain to walk, and a reply to return
-- if a key is unsound. With no mark and an empty index there is nothing to
-- walk: the mark becomes cut.
local function agedOut(window, byTime, trimmed, field, cut, batch)
	local from, bad = mark(trimmed, field)
	if bad then
		return nil, nil, false, bad
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
		-- Nothing to take out; a first mark spares later walks the past.
		if from then
			return {}, nil, false
		end
		return {}, cut, false
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
		return members, cut, false
	end
	local last = old[#old]
	for _, m in ipairs(redis.call('ZRANGEBYSCORE', byTime, last, last)) do
		members[#members + 1] = m
	end
	return members, last, true
end

-- trim takes aged-out members out of a top-of-window index and moves its
-- mark, as agedOut found them.
local function trim(window, trimmed, field, members, to)
	for i = 1, #members, 1000 do
		redis.call('ZREM', window, unpack(members, i, math.min(i + 999, #members)))
	end
	if to then
		redis.call('HSET', trimmed, field, to)
	end
end
`

// postScript posts an article: a new id, the hash, the poster's up-vote, an
// entry in each kept index and the group memberships.
//
// The id is the counter plus one, worked out on the counter's digits so that
// it is exact to the last of its 19; INCR then stores it. The new article's
// own keys are made from prefixes, not passed in KEYS: their names depend on
// the id, and with the namespace's prefix they share its Redis Cluster slot.
//
// A top-of-window index takes the article unless a listing has already
// trimmed it past the posting time (a listing by a Store whose clock is
// ahead); the first post into an index with no mark gives it one.
var postScript = newScript(`
local counter, byScore, byTime, trimmed = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
-- Then the kept indexes beyond the book's two and, with live groups, each
-- group's live index of each kept order; then the set of the namespace's
-- group names; then the groups' sets.
local articlePrefix, votedPrefix, downvotedPrefix = ARGV[1], ARGV[2], ARGV[3]
local title, link, poster = ARGV[4], ARGV[5], ARGV[6]
local posted, score, cutoffMillis = ARGV[7], ARGV[8], ARGV[9]
local recordPrefix, extras = ARGV[10], tonumber(ARGV[11])
-- Then for each of those indexes: what it holds, its field in trimmed (''
-- for none) and the posting time that leaves its window now; then how long
-- a user's history keeps a vote, in milliseconds ('0' for no history: the
-- poster's history, when kept, is the key after the registry); then the
-- groups' names, in the order of their sets in KEYS.
local function extra(i)
	return KEYS[4 + i], ARGV[9 + 3 * i], ARGV[10 + 3 * i], ARGV[11 + 3 * i]
end
local registry = KEYS[5 + extras]
local historyMillis = tonumber(ARGV[12 + 3 * extras])
local history = historyMillis > 0 and KEYS[6 + extras]
local firstGroup, firstName = 6 + extras + (history and 1 or 0), 13 + 3 * extras

local last, bad = try('GET', counter)
if bad then
	return bad
end
last = last or '0'
if not (last == '0' or string.match(last, '^[1-9]%d*$')) or #last > 19
	or (#last == 19 and last > '9223372036854775807') then
	return 'corrupt ' .. counter .. ' holds ' .. string.format('%q', last) .. ', not an article id'
end
-- Add one to the decimal digits: the trailing nines become zeros.
local nines = #string.match(last, '9*$')
local id
if nines == #last then
	id = '1' .. string.rep('0', nines)
else
	local at = #last - nines
	id = string.sub(last, 1, at - 1) .. string.char(string.byte(last, at) + 1) .. string.rep('0', nines)
end
if #id == 19 and id > '9223372036854775807' then
	return 'full'
end

local article, voted, downvoted = articlePrefix .. id, votedPrefix .. id, downvotedPrefix .. id
local record = recordPrefix .. id
if redis.call('EXISTS', article, voted, downvoted, record) > 0 then
	for _, key in ipairs({article, voted, downvoted, record}) do
		if redis.call('EXISTS', key) == 1 then
			return 'taken ' .. key
		end
	end
end
bad = checkIndexes(2, 3) or checkIndexes(5, 4 + extras) or checkSets(5 + extras, 5 + extras, article)
	or checkSets(firstGroup, #KEYS, article)
if bad then
	return bad
end
if history then
	local _
	_, bad = try('ZSCORE', history, '')
	if bad then
		return bad
	end
end
-- The value of the article in each kept index; nil leaves it out.
local values, marks = {}, {}
for i = 1, extras do
	local key, holds, field, cut = extra(i)
	if holds == 'score' then
		values[i] = score
	elseif holds == 'time' then
		values[i] = posted
	elseif holds == 'controversy' then
		values[i] = 0
	else
		values[i] = 1
	end
	if field ~= '' then
		local m
		m, bad = mark(trimmed, field)
		if bad then
			return bad
		end
		if not m then
			if redis.call('ZCARD', key) == 0 then
				marks[field] = cut
			end
		elseif tonumber(posted) <= tonumber(m) then
			values[i] = nil
		end
	end
end

redis.call('INCR', counter)
redis.call('HSET', article, 'title', title, 'link', link, 'poster', poster, 'time', posted, 'votes', '1')
redis.call('SADD', voted, poster)
redis.call('PEXPIRE', voted, cutoffMillis)
redis.call('ZADD', byScore, score, article)
redis.call('ZADD', byTime, posted, article)
for i = 1, extras do
	if values[i] then
		redis.call('ZADD', (extra(i)), values[i], article)
	end
end
for field, cut in pairs(marks) do
	redis.call('HSET', trimmed, field, cut)
end
for i = firstGroup, #KEYS do
	redis.call('SADD', KEYS[i], article)
end
if firstName <= #ARGV then
	redis.call('SADD', record, unpack(ARGV, firstName))
	redis.call('SADD', registry, unpack(ARGV, firstName))
end
if history then
	-- The poster's own up-vote, as the vote script writes a vote.
	redis.call('ZADD', history, posted, 'up:' .. article)
	redis.call('ZREMRANGEBYSCORE', history, '-inf', '(' .. number(tonumber(posted) - historyMillis / 1000))
	redis.call('PEXPIRE', history, historyMillis)
end
return 'ok ' .. id
`)

// voteScript applies one user's vote on one article.
//
// The article exists when Article finds it: its hash has a time and it has
// a score. Voting is closed from the cutoff by the Store's clock, and also
// once either voter set has expired on Redis's clock, whichever is first: a
// counter above zero whose voter set is gone can only mean the set expired,
// and a vote taken then could count a voter a second time. That signal needs
// no clock, so it holds whatever the skew between the Stores' clocks and
// Redis's, or the time a call waited for a connection.
//
// The net change of the article's votes, up minus down, is one of -2, -1, 1,
// 2; ARGV holds the score change for each, worked out in Go so that no
// precision is lost.
var voteScript = newScript(`
local hash, byScore, voted, downvoted = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
-- Then the kept indexes beyond the book's two; then, with live groups, the
-- article's record of its groups.
local member, user, dir = ARGV[1], ARGV[2], ARGV[3]
local now, cutoff = tonumber(ARGV[4]), tonumber(ARGV[5])
-- ARGV[6] to ARGV[10]: the score change for a net change of -2 to 2.
local function scoreChange(net)
	return ARGV[8 + net]
end
-- ARGV[11]: the number of kept indexes; then what each holds: 'net' or
-- 'controversy'.
local extras = tonumber(ARGV[11])
local function extra(i)
	return KEYS[4 + i], ARGV[11 + i]
end
-- Then how long the user's history keeps a vote, in milliseconds ('0' for
-- no history); then, with live groups: the live indexes' prefix, and for
-- each kept order a vote moves, its index's key (after the prefix) and what
-- it holds.
local historyMillis = tonumber(ARGV[12 + extras])
local livePrefix, firstLive = ARGV[13 + extras], 14 + extras
local record = livePrefix and KEYS[5 + extras] -- the article's record of its groups
local history = historyMillis > 0 and KEYS[#KEYS] -- the user's history

local fields, bad = try('HMGET', hash, 'time', 'votes', 'downvotes')
if bad then
	return bad
end
local score
score, bad = try('ZSCORE', byScore, member)
if bad then
	return bad
end
if not fields[1] or not score then
	return 'notfound'
end
local posted, ups, downs = seconds(fields[1]), count(fields[2]), count(fields[3])
if not posted then
	return 'corrupt ' .. hash .. ' field time ' .. string.format('%q', fields[1]) .. ' is not Unix seconds'
end
if not ups then
	return 'corrupt ' .. hash .. ' field votes ' .. string.format('%q', fields[2]) .. ' is not a count'
end
if not downs then
	return 'corrupt ' .. hash .. ' field downvotes ' .. string.format('%q', fields[3]) .. ' is not a count'
end
score = tonumber(score)
if not finite(score) then
	return 'corrupt ' .. byScore .. ' gives ' .. member .. ' the score ' .. tostring(score)
end

local closes = posted + cutoff
if now >= closes then
	return 'closed'
end
local isUp, isDown
isUp, bad = try('SISMEMBER', voted, user)
if bad then
	return bad
end
isDown, bad = try('SISMEMBER', downvoted, user)
if bad then
	return bad
end
if (ups > 0 and isUp == 0 and redis.call('EXISTS', voted) == 0)
	or (downs > 0 and isDown == 0 and redis.call('EXISTS', downvoted) == 0) then
	return 'closed'
end

local up, down = 0, 0 -- the change of each counter
if dir == 'up' then
	if isUp == 1 then
		return 'unchanged'
	end
	up, down = 1, -isDown
elseif dir == 'down' then
	if isDown == 1 then
		return 'unchanged'
	end
	up, down = -isUp, 1
else
	if isUp + isDown == 0 then
		return 'unchanged'
	end
	up, down = -isUp, -isDown
end
local change = scoreChange(up - down)
if not finite(score + tonumber(change)) then
	return 'corrupt ' .. byScore .. ': the score of ' .. member .. ' would overflow'
end
local ttl = string.format('%d', math.ceil((closes - now) * 1000))
bad = checkIndexes(5, 4 + extras)
if bad then
	return bad
end
if history then
	local _
	_, bad = try('ZSCORE', history, '')
	if bad then
		return bad
	end
end
-- The article's groups' live indexes that hold it, and what each holds.
-- Their names are made here from the record, not passed in KEYS: the
-- caller cannot know the groups without a round trip of its own. This and
-- the delete script are the two that reach keys not named in KEYS; with
-- the namespace's prefix they share its Redis Cluster slot, since a group
-- name holds no brace.
local live = {}
if record then
	local names
	names, bad = recordedGroups(record)
	if bad then
		return bad
	end
	for _, name in ipairs(names) do
		for j = firstLive, #ARGV, 2 do
			local key = livePrefix .. ARGV[j] .. name
			local has
			has, bad = try('ZSCORE', key, member)
			if bad then
				return bad
			end
			if has then
				live[#live + 1] = {key, ARGV[j + 1]}
			end
		end
	end
end

if up > 0 then
	redis.call('SADD', voted, user)
	redis.call('PEXPIRE', voted, ttl)
elseif up < 0 then
	redis.call('SREM', voted, user)
end
if down > 0 then
	redis.call('SADD', downvoted, user)
	redis.call('PEXPIRE', downvoted, ttl)
elseif down < 0 then
	redis.call('SREM', downvoted, user)
end
redis.call('ZINCRBY', byScore, change, member)
if up ~= 0 then
	redis.call('HINCRBY', hash, 'votes', up)
end
if down ~= 0 then
	redis.call('HINCRBY', hash, 'downvotes', down)
end
-- A kept index moves only an entry it has: an article posted before the
-- index was kept waits for Reindex, and one a top-of-window index has
-- trimmed stays out.
for i = 1, extras do
	local key, holds = extra(i)
	if holds == 'controversy' then
		redis.call('ZADD', key, 'XX', number(controversy(ups + up, downs + down)), member)
	elseif up ~= down then
		redis.call('ZADD', key, 'XX', 'INCR', up - down, member)
	end
end
if history then
	-- The vote replaces the user's last on the article; votes older than
	-- the history keeps go, and the history with them once it is idle.
	redis.call('ZREM', history, 'up:' .. member, 'down:' .. member)
	if dir ~= 'none' then
		redis.call('ZADD', history, ARGV[4], dir .. ':' .. member)
	end
	redis.call('ZREMRANGEBYSCORE', history, '-inf', '(' .. number(now - historyMillis / 1000))
	redis.call('PEXPIRE', history, historyMillis)
end
-- A live index takes the article's new value, equal to the site's.
for _, l in ipairs(live) do
	local key, holds = l[1], l[2]
	local value
	if holds == 'score' then
		value = number(score + tonumber(change))
	elseif holds == 'controversy' then
		value = number(controversy(ups + up, downs + down))
	else
		value = (ups + up) - (downs + down)
	end
	redis.call('ZADD', key, value, member)
end
return 'ok'
`)

// addGroupsScript adds an existing article, one Article finds, to groups,
// and the groups to the article's record of its groups. With live groups,
// each group's live index of each kept order takes the article with its
// value in the site's index of that order; one the site's index lacks (an
// order kept since the article was posted, before Reindex) stays out, as
// does one a top-of-window index has trimmed or would.
var addGroupsScript = newScript(`
local hash, byScore, record, trimmed, registry = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
-- Then, with live groups, the site's index of each kept order; then the
-- groups' sets; then each group's live index of each kept order, a group
-- at a time.
local member, groups, indexes, groupPrefix = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
-- Then for each kept order: its name if it has a window ('' if not) and the
-- posting time that leaves the window now; then the groups' names, in the
-- order of their sets.
local function site(i)
	return KEYS[5 + i], ARGV[3 + 2 * i], ARGV[4 + 2 * i]
end
local firstSet, beforeNames = 6 + indexes, 4 + 2 * indexes
local function liveIndex(g, i)
	return KEYS[5 + indexes + groups + (g - 1) * indexes + i]
end

local posted, bad = try('HGET', hash, 'time')
if bad then
	return bad
end
local score
score, bad = try('ZSCORE', byScore, member)
if bad then
	return bad
end
if not posted or not score then
	return 'notfound'
end
bad = checkSets(3, 3, member) or checkSets(5, 5, member) or checkSets(firstSet, firstSet + groups - 1, member)
	or checkIndexes(firstSet + groups, #KEYS)
if bad then
	return bad
end
-- An article with no record yet may be one the book's code put in groups:
-- its record, once written, names those too, so that a deletion finds them.
local unrecorded = {}
if redis.call('EXISTS', record) == 0 then
	unrecorded, bad = unrecordedGroups(registry, groupPrefix, member)
	if bad then
		return bad
	end
end
local entries, marks = {}, {} -- the live indexes to write: key, value; new marks
if indexes > 0 then
	local t = seconds(posted)
	if not t then
		return 'corrupt ' .. hash .. ' field time ' .. string.format('%q', posted) .. ' is not Unix seconds'
	end
	local values = {}
	for i = 1, indexes do
		values[i], bad = try('ZSCORE', (site(i)), member)
		if bad then
			return bad
		end
	end
	for g = 1, groups do
		local name = ARGV[beforeNames + g]
		for i = 1, indexes do
			local _, window, cut = site(i)
			local value = values[i]
			if window ~= '' then
				local field = window .. ':' .. name
				local m
				m, bad = mark(trimmed, field)
				if bad then
					return bad
				end
				if t <= tonumber(cut) or (m and t <= tonumber(m)) then
					value = nil
				end
				-- As a post does, give an empty window with no mark one.
				if not m and redis.call('ZCARD', liveIndex(g, i)) == 0 then
					marks[field] = cut
				end
			end
			if value then
				entries[#entries + 1] = {liveIndex(g, i), value}
			end
		end
	end
end

for i = firstSet, firstSet + groups - 1 do
	redis.call('SADD', KEYS[i], member)
end
redis.call('SADD', record, unpack(ARGV, beforeNames + 1))
if #unrecorded > 0 then
	redis.call('SADD', record, unpack(unrecorded))
end
redis.call('SADD', registry, unpack(ARGV, beforeNames + 1))
for _, e in ipairs(entries) do
	redis.call('ZADD', e[1], e[2], member)
end
for field, cut in pairs(marks) do
	redis.call('HSET', trimmed, field, cut)
end
return 'ok'
`)

// removeGroupsScript takes an article out of groups, and the groups out of
// its record; out of each group's live indexes too, or without live groups
// out of its cached listings. It
// does not ask whether the article exists, so that members left behind can
// be cleaned up.
var removeGroupsScript = newScript(`
local record = KEYS[1] -- then the groups' sets, then their live indexes or
-- their cached listings
local member = ARGV[1] -- then the groups' names, in the order of their sets
local groups = #ARGV - 1

local bad = checkSets(1, 1 + groups, member) or checkIndexes(2 + groups, #KEYS)
if bad then
	return bad
end

for i = 2, 1 + groups do
	redis.call('SREM', KEYS[i], member)
end
for i = 2 + groups, #KEYS do
	redis.call('ZREM', KEYS[i], member)
end
redis.call('SREM', record, unpack(ARGV, 2))
return 'ok'
`)

// groupPageScript returns one page of a group listing, building the book's
// cached intersection first if it is missing. Check and build are one atomic
// step, so concurrent readers build it once. The group's members weigh 0 and
// the index's scores 1, so each article keeps exactly its index score (the
// book's AGGREGATE MAX would lift every score below 1 to the members' 1). An
// empty intersection is not kept (Redis deletes it, miniredis would not),
// and with no TTL the intersection is dropped once read. ZINTERSTORE checks
// its sources' types before it writes.
//
// For a top-of-window order, the index is trimmed to the window before it
// is intersected; if more is left to trim than one step takes, the script
// answers 'more' having built nothing, and the caller runs it again. Like
// every cached group listing, a window's may hold, until the cache expires,
// an article that has aged out since it was built.
var groupPageScript = newScript(`
local cache, group, index, byTime, trimmed = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local ttlMillis, start, stop = ARGV[1], ARGV[2], ARGV[3]
local field, cut, batch = ARGV[4], ARGV[5], tonumber(ARGV[6]) -- field '' for no window
local ttl = tonumber(ttlMillis)

if ttl == 0 or redis.call('EXISTS', cache) == 0 then
	-- ZINTERSTORE would refuse a group of the wrong type, after the trim.
	local _, bad = try('SISMEMBER', group, '')
	if bad then
		return bad
	end
	if field ~= '' then
		local members, to, more, bad = agedOut(index, byTime, trimmed, field, cut, batch)
		if bad then
			return bad
		end
		trim(index, trimmed, field, members, to)
		if more then
			return 'more'
		end
	end
	if redis.call('ZINTERSTORE', cache, 2, group, index, 'WEIGHTS', 0, 1) == 0 then
		redis.call('DEL', cache)
		return {}
	end
	if ttl > 0 then
		redis.call('PEXPIRE', cache, ttlMillis)
	end
end
local page = redis.call('ZREVRANGE', cache, start, stop)
if ttl == 0 then
	redis.call('DEL', cache)
end
return page
`)

// windowTrimScript trims from a top-of-window index the articles that have
// aged out of the window: those posted at or before cut. A listing sends it
// in one round trip with the ZREVRANGE of its page, which Redis runs right
// after it, so the page holds exactly the articles posted after cut. If
// more is left to trim than one step takes, so that no step holds Redis for
// long, it answers 'more' and the caller runs it again.
var windowTrimScript = newScript(`
local window, byTime, trimmed = KEYS[1], KEYS[2], KEYS[3]
local field, cut, batch = ARGV[1], ARGV[2], tonumber(ARGV[3])

local members, to, more, bad = agedOut(window, byTime, trimmed, field, cut, batch)
if bad then
	return bad
end
trim(window, trimmed, field, members, to)
if more then
	return 'more'
end
return 'ok'
`)

// reindexScript is one step of Reindex: it walks the time index from a
// posting time, at most batch articles (and all posted at the same time as
// the last), and sets each walked article's entry in each kept index from
// its counters. Setting, not adding, makes a step safe to run again and
// alongside votes: a vote moves an entry only once it is there. Articles
// whose hash is gone or does not parse are skipped and counted. It answers
// the articles indexed, those skipped, and the posting time to walk on from
// (” once the walk is done).
var reindexScript = newScript(`
local byTime, trimmed = KEYS[1], KEYS[2] -- then the kept indexes beyond the book's two
local from, batch = ARGV[1], tonumber(ARGV[2])
-- Then for each kept index: what it holds, its field in trimmed ('' for
-- none) and the posting time that leaves its window now.
local function extra(i)
	return KEYS[2 + i], ARGV[3 * i], ARGV[1 + 3 * i], ARGV[2 + 3 * i]
end
local extras = #KEYS - 2

local bad = checkIndexes(1, 1) or checkIndexes(3, #KEYS)
if bad then
	return bad
end
-- A window takes an article posted after both its mark and its cut.
local after = {}
for i = 1, extras do
	local _, _, field, cut = extra(i)
	if field ~= '' then
		local m
		m, bad = mark(trimmed, field)
		if bad then
			return bad
		end
		after[i] = math.max(tonumber(m or cut), tonumber(cut))
	end
end
if batch == 0 then
	return {'0', '0', ''} -- a check of the keys alone
end
local walked = redis.call('ZRANGEBYSCORE', byTime, from, '+inf', 'WITHSCORES', 'LIMIT', 0, batch)
local nextFrom = ''
if #walked == 2 * batch then
	local last = walked[#walked]
	while #walked > 0 and walked[#walked] == last do
		walked[#walked], walked[#walked - 1] = nil, nil
	end
	for _, m in ipairs(redis.call('ZRANGEBYSCORE', byTime, last, last, 'WITHSCORES')) do
		walked[#walked + 1] = m
	end
	nextFrom = '(' .. last
end
local articles, skipped = {}, 0
for i = 1, #walked, 2 do
	local member, posted = walked[i], tonumber(walked[i + 1])
	local fields = redis.pcall('HMGET', member, 'time', 'votes', 'downvotes')
	local ups, downs
	if type(fields) == 'table' and not fields.err and seconds(fields[1]) then
		ups, downs = count(fields[2]), count(fields[3])
	end
	if ups and downs then
		articles[#articles + 1] = {member, posted, ups, downs}
	else
		skipped = skipped + 1
	end
end

for i = 1, extras do
	local key, holds = extra(i)
	local args = {}
	for _, a in ipairs(articles) do
		local member, posted, ups, downs = a[1], a[2], a[3], a[4]
		if not after[i] or posted > after[i] then
			local value = ups - downs
			if holds == 'controversy' then
				value = controversy(ups, downs)
			end
			args[#args + 1] = number(value)
			args[#args + 1] = member
		end
	end
	for j = 1, #args, 1000 do
		redis.call('ZADD', key, unpack(args, j, math.min(j + 999, #args)))
	end
end
return {tostring(#articles), tostring(skipped), nextFrom}
`)

// recordScript is one step of Reindex's walk of a group's set: it scans a
// few of the set's members from a cursor and adds the group's name to the
// record of each that is an article of the namespace, for articles the
// book's code put in groups; with live groups it also sets each article's
// entry in the group's live index of each kept order to its value in the
// site's index of that order (one the site's index lacks stays out, and a
// top-of-window index takes only articles posted after its mark and its
// cut). It answers the cursor to go on from ('0' once the scan is done), the
// records written and the members skipped (not an article, or one whose hash
// is gone). The records' keys are made from the prefix, not passed in KEYS:
// with the namespace's prefix they share its Redis Cluster slot.
var recordScript = newScript(`
local group, trimmed, registry = KEYS[1], KEYS[2], KEYS[3]
-- Then, with live groups, the site's index of each kept order (the score
-- index first, the time index second), then the group's live index of each.
local cursor, count, name, articlePrefix, recordPrefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local indexes = tonumber(ARGV[6])
-- Then for each kept order: the field of the mark of the group's live
-- index in trimmed ('' for no window) and the posting time that leaves the
-- window now.
local function site(i)
	return KEYS[3 + i], ARGV[5 + 2 * i], ARGV[6 + 2 * i]
end
local function liveIndex(i)
	return KEYS[3 + indexes + i]
end

local scanned, bad = try('SSCAN', group, cursor, 'COUNT', count)
if bad then
	return bad
end
local _
_, bad = try('SISMEMBER', registry, name)
if bad then
	return bad
end
local members, records, skipped = {}, {}, 0
for _, member in ipairs(scanned[2]) do
	local id = string.sub(member, #articlePrefix + 1)
	if string.sub(member, 1, #articlePrefix) == articlePrefix and string.match(id, '^[1-9]%d*$')
		and redis.call('EXISTS', member) == 1 then
		local record = recordPrefix .. id
		local _
		_, bad = try('SISMEMBER', record, name)
		if bad then
			return bad
		end
		members[#members + 1] = member
		records[#records + 1] = record
	else
		skipped = skipped + 1
	end
end
local entries, marks = {}, {} -- for each live index, ZADD's arguments; new marks
if indexes > 0 and #members > 0 then
	bad = checkIndexes(4 + indexes, #KEYS)
	if bad then
		return bad
	end
	local values = {}
	for i = 1, indexes do
		values[i], bad = try('ZMSCORE', (site(i)), unpack(members))
		if bad then
			return bad
		end
	end
	local scores, times = values[1], values[2]
	for i = 1, indexes do
		local _, field, cut = site(i)
		local after
		if field ~= '' then
			local m
			m, bad = mark(trimmed, field)
			if bad then
				return bad
			end
			after = math.max(tonumber(m or cut), tonumber(cut))
			-- A first mark for an empty window, as a post gives, so that
			-- its first trim need not walk the group's past.
			if not m and redis.call('ZCARD', liveIndex(i)) == 0 then
				marks[field] = cut
			end
		end
		local args = {}
		for j, member in ipairs(members) do
			local value = values[i][j]
			if value and scores[j] and (not after or tonumber(times[j]) > after) then
				args[#args + 1] = value
				args[#args + 1] = member
			end
		end
		entries[i] = args
	end
end

redis.call('SADD', registry, name)
for _, record in ipairs(records) do
	redis.call('SADD', record, name)
end
for i, args in pairs(entries) do
	for j = 1, #args, 1000 do
		redis.call('ZADD', liveIndex(i), unpack(args, j, math.min(j + 999, #args)))
	end
end
for field, cut in pairs(marks) do
	redis.call('HSET', trimmed, field, cut)
end
return {scanned[1], tostring(#records), tostring(skipped)}
`)

// deleteScript deletes an article: its hash, its voter sets, its record of
// its groups, its entries in the time and score indexes and every kept
// index, its membership of each of its groups with its entries in their
// cached listings and live indexes, and its entries in its voters'
// histories (those voting is still open for: once the voter sets have
// expired, UserHistory leaves out an article that is gone). The groups come
// from the article's record; an article with none (one the book's code
// put in groups) is looked for in every group of the namespace's set of
// group names. Like the vote script, it makes the names of those keys here
// rather than take them in KEYS: the caller cannot know them without a
// round trip of its own; with the namespace's prefix they share its Redis
// Cluster slot, since a group name holds no brace.
var deleteScript = newScript(`
local hash, byScore, byTime, voted, downvoted, record, registry = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
-- Then the kept indexes beyond the book's two.
local member, groupPrefix, prefix, livePrefix, historyPrefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
-- Then the key (after the prefix) of each kept order's index: a group's
-- cached listing of it is prefix .. key .. name and, with live groups
-- (livePrefix not ''), its live index livePrefix .. key .. name. With no
-- history, historyPrefix is ''.
local firstOrder = 6

local exists = redis.call('EXISTS', hash)
local score, bad = try('ZSCORE', byScore, member)
if bad then
	return bad
end
local posted
posted, bad = try('ZSCORE', byTime, member)
if bad then
	return bad
end
if exists == 0 and not score and not posted then
	return 'notfound'
end
local _
_, bad = try('HGET', hash, 'time')
if bad then
	return bad
end
bad = checkIndexes(8, #KEYS)
if bad then
	return bad
end
local voters = {}
for _, set in ipairs({voted, downvoted}) do
	local users
	users, bad = try('SMEMBERS', set)
	if bad then
		return bad
	end
	for _, user in ipairs(users) do
		voters[#voters + 1] = user
	end
end
local names
names, bad = recordedGroups(record)
if bad then
	return bad
end
if #names == 0 then
	-- No record: look in every group the namespace has named.
	names, bad = unrecordedGroups(registry, groupPrefix, member)
	if bad then
		return bad
	end
end
local sets, indexes, histories = {}, {}, {}
for _, name in ipairs(names) do
	sets[#sets + 1] = groupPrefix .. name
	for i = firstOrder, #ARGV do
		indexes[#indexes + 1] = prefix .. ARGV[i] .. name
		if livePrefix ~= '' then
			indexes[#indexes + 1] = livePrefix .. ARGV[i] .. name
		end
	end
end
if historyPrefix ~= '' then
	for _, user in ipairs(voters) do
		histories[#histories + 1] = historyPrefix .. user
	end
end
for _, set in ipairs(sets) do
	_, bad = try('SISMEMBER', set, member)
	if bad then
		return bad
	end
end
for _, list in ipairs({indexes, histories}) do
	for _, key in ipairs(list) do
		_, bad = try('ZSCORE', key, member)
		if bad then
			return bad
		end
	end
end

redis.call('DEL', hash, voted, downvoted, record)
redis.call('ZREM', byScore, member)
redis.call('ZREM', byTime, member)
for i = 8, #KEYS do
	redis.call('ZREM', KEYS[i], member)
end
for _, set in ipairs(sets) do
	redis.call('SREM', set, member)
end
for _, key in ipairs(indexes) do
	redis.call('ZREM', key, member)
end
for _, key in ipairs(histories) do
	redis.call('ZREM', key, 'up:' .. member, 'down:' .. member)
end
return 'ok'
`)
