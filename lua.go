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
)

// A script is Lua source and its SHA-1, the name EVALSHA knows it by.
type script struct {
	src, hash string
	hashArg   any // hash as an argument, made once
}

// newScript puts the shared Lua functions before body.
func newScript(body string) *script {
	src := luaPrelude + body
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

// luaPrelude holds the functions every script may use: try for reads that
// Redis may refuse, and the rules of encoding.go for stored numbers.
var luaPrelude = strings.NewReplacer(
	"MAX_SECONDS", formatFloat(maxSeconds),
	"MAX_COUNT_DIGITS", strconv.Itoa(maxCountDigits),
).Replace(`
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

-- checkSets checks that KEYS[first] to the last key are sets or missing,
-- as a write of member to each needs; it gives the reply to return if not.
local function checkSets(first, member)
	for i = first, #KEYS do
		local _, bad = try('SISMEMBER', KEYS[i], member)
		if bad then
			return bad
		end
	end
end

local function finite(x)
	return x ~= nil and x == x and x > -math.huge and x < math.huge
end
`)

// postScript posts an article: a new id, the hash, the poster's up-vote, both
// index entries and the group memberships.
//
// The id is the counter plus one, worked out on the counter's digits so that
// it is exact to the last of its 19; INCR then stores it. The new article's
// own keys are made from prefixes, not passed in KEYS: their names depend on
// the id, and with the namespace's prefix they share its Redis Cluster slot.
var postScript = newScript(`
local counter, byScore, byTime = KEYS[1], KEYS[2], KEYS[3] -- then the groups' sets
local articlePrefix, votedPrefix, downvotedPrefix = ARGV[1], ARGV[2], ARGV[3]
local title, link, poster = ARGV[4], ARGV[5], ARGV[6]
local posted, score, cutoffMillis = ARGV[7], ARGV[8], ARGV[9]

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
if redis.call('EXISTS', article, voted, downvoted) > 0 then
	for _, key in ipairs({article, voted, downvoted}) do
		if redis.call('EXISTS', key) == 1 then
			return 'taken ' .. key
		end
	end
end
local _
for _, key in ipairs({byScore, byTime}) do
	_, bad = try('ZSCORE', key, article)
	if bad then
		return bad
	end
end
bad = checkSets(4, article)
if bad then
	return bad
end

redis.call('INCR', counter)
redis.call('HSET', article, 'title', title, 'link', link, 'poster', poster, 'time', posted, 'votes', '1')
redis.call('SADD', voted, poster)
redis.call('PEXPIRE', voted, cutoffMillis)
redis.call('ZADD', byScore, score, article)
redis.call('ZADD', byTime, posted, article)
for i = 4, #KEYS do
	redis.call('SADD', KEYS[i], article)
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
local member, user, dir = ARGV[1], ARGV[2], ARGV[3]
local now, cutoff = tonumber(ARGV[4]), tonumber(ARGV[5])
-- ARGV[6] to ARGV[10]: the score change for a net change of -2 to 2.
local function scoreChange(net)
	return ARGV[8 + net]
end

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
return 'ok'
`)

// addGroupsScript adds an existing article, one Article finds, to groups.
var addGroupsScript = newScript(`
local hash, byScore = KEYS[1], KEYS[2] -- then the groups' sets
local member = ARGV[1]

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
bad = checkSets(3, member)
if bad then
	return bad
end

for i = 3, #KEYS do
	redis.call('SADD', KEYS[i], member)
end
return 'ok'
`)

// removeGroupsScript takes an article out of groups. It does not ask whether
// the article exists, so that members left behind can be cleaned up.
var removeGroupsScript = newScript(`
-- KEYS: the groups' sets.
local member = ARGV[1]

local bad = checkSets(1, member)
if bad then
	return bad
end

for i = 1, #KEYS do
	redis.call('SREM', KEYS[i], member)
end
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
var groupPageScript = newScript(`
local cache, group, index = KEYS[1], KEYS[2], KEYS[3]
local ttlMillis, start, stop = ARGV[1], ARGV[2], ARGV[3]
local ttl = tonumber(ttlMillis)

if ttl == 0 or redis.call('EXISTS', cache) == 0 then
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
