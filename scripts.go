package voting

// This file holds the Lua scripts, one per writing operation, so that each
// operation is one atomic step and one round trip. Scripts are constants:
// user input reaches them only as KEYS and ARGV. They answer with a status
// word of their own (see the reply constants) instead of raising errors,
// because Redis and miniredis word script errors differently. Numbers travel
// as strings both ways: Lua would print a float with 14 digits, and redigo
// cannot read a Lua number as a float.

import (
	"crypto/sha1"
	"encoding/hex"
)

// A script is Lua source and its SHA-1, the name EVALSHA knows it by.
type script struct {
	src, hash string
}

func newScript(src string) *script {
	sum := sha1.Sum([]byte(src))
	return &script{src: src, hash: hex.EncodeToString(sum[:])}
}

// Status words the scripts answer with.
const (
	replyOK        = "ok"
	replyUnchanged = "unchanged"
	replyNotFound  = "notfound"
	replyClosed    = "closed"
	replyTaken     = "taken"
)

// postScript posts an article: a new id, the hash, the poster's up-vote, both
// index entries and the group memberships.
//
// KEYS: counter, score index, time index, group sets...
// ARGV: article key prefix, voted key prefix, title, link, poster, time,
// score, cutoff in milliseconds.
var postScript = newScript(`
local id = string.format('%d', redis.call('INCR', KEYS[1]))
local article = ARGV[1] .. id
if redis.call('EXISTS', article) == 1 then
	return {'` + replyTaken + `', id}
end
local voted = ARGV[2] .. id
redis.call('HSET', article, 'title', ARGV[3], 'link', ARGV[4], 'poster', ARGV[5], 'time', ARGV[6], 'votes', '1')
redis.call('SADD', voted, ARGV[5])
redis.call('PEXPIRE', voted, ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[7], article)
redis.call('ZADD', KEYS[3], ARGV[6], article)
for i = 4, #KEYS do
	redis.call('SADD', KEYS[i], article)
end
return {'` + replyOK + `', id}
`)

// voteScript applies one user's vote on one article. The net change of the
// article's votes, up minus down, is one of -2, -1, 1, 2; ARGV holds the
// score change for each, worked out in Go so that no precision is lost.
//
// KEYS: article hash, score index, voted set, downvoted set.
// ARGV: member, user, direction (up, down or none), now, cutoff in seconds,
// then the score change for net -2, -1, 0, 1, 2 at ARGV[6] to ARGV[10].
var voteScript = newScript(`
local posted = redis.call('HGET', KEYS[1], 'time')
if not posted then
	return '` + replyNotFound + `'
end
local closes = tonumber(posted) + tonumber(ARGV[5])
local now = tonumber(ARGV[4])
if now >= closes then
	return '` + replyClosed + `'
end
local user, dir = ARGV[2], ARGV[3]
local up, down = 0, 0
if dir == 'up' then
	if redis.call('SADD', KEYS[3], user) == 0 then
		return '` + replyUnchanged + `'
	end
	up = 1
	down = -redis.call('SREM', KEYS[4], user)
elseif dir == 'down' then
	if redis.call('SADD', KEYS[4], user) == 0 then
		return '` + replyUnchanged + `'
	end
	down = 1
	up = -redis.call('SREM', KEYS[3], user)
else
	up = -redis.call('SREM', KEYS[3], user)
	if up == 0 then
		down = -redis.call('SREM', KEYS[4], user)
		if down == 0 then
			return '` + replyUnchanged + `'
		end
	end
end
redis.call('ZINCRBY', KEYS[2], ARGV[8 + up - down], ARGV[1])
if up ~= 0 then
	redis.call('HINCRBY', KEYS[1], 'votes', up)
end
if down ~= 0 then
	redis.call('HINCRBY', KEYS[1], 'downvotes', down)
end
local ttl = math.ceil((closes - now) * 1000)
if up > 0 then
	redis.call('PEXPIRE', KEYS[3], ttl)
elseif down > 0 then
	redis.call('PEXPIRE', KEYS[4], ttl)
end
return '` + replyOK + `'
`)

// addGroupsScript adds an existing article to groups.
//
// KEYS: article hash, group sets...
// ARGV: member.
var addGroupsScript = newScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
	return '` + replyNotFound + `'
end
for i = 2, #KEYS do
	redis.call('SADD', KEYS[i], ARGV[1])
end
return '` + replyOK + `'
`)

// removeGroupsScript takes an article out of groups. It does not ask whether
// the article exists, so that members left behind can be cleaned up.
//
// KEYS: group sets...
// ARGV: member.
var removeGroupsScript = newScript(`
for i = 1, #KEYS do
	redis.call('SREM', KEYS[i], ARGV[1])
end
return '` + replyOK + `'
`)

// groupPageScript returns one page of a group listing, building the book's
// cached intersection first if it is missing. Check and build are one atomic
// step, so concurrent readers build it once. An empty intersection is not
// kept (Redis deletes it, miniredis would not), and with no TTL the
// intersection is dropped once read.
//
// KEYS: cache zset, group set, index zset.
// ARGV: TTL in milliseconds (0: no cache), start, stop.
var groupPageScript = newScript(`
local ttl = tonumber(ARGV[1])
if ttl == 0 or redis.call('EXISTS', KEYS[1]) == 0 then
	if redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'AGGREGATE', 'MAX') == 0 then
		redis.call('DEL', KEYS[1])
		return {}
	end
	if ttl > 0 then
		redis.call('PEXPIRE', KEYS[1], ARGV[1])
	end
end
local page = redis.call('ZREVRANGE', KEYS[1], ARGV[2], ARGV[3])
if ttl == 0 then
	redis.call('DEL', KEYS[1])
end
return page
`)
