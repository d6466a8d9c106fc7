-- comment_purge.lua: takes away up to batch comments of a deleted article,
-- the first of its thread: each comment's hash, voter sets, entries in its
-- parent's indexes and in its poster's comments; and once the thread is
-- empty, what is left of the article's own indexes of its comments. It answers the number
-- of comments left, and after a space the number it took.
--
-- KEYS: thread settings
-- ARGV: gen prefix articleName commentPrefix votedPrefix downvotedPrefix repliesPrefix
--       postsPrefix batch:num orders[name]
-- GO: settings Config
--
-- articleName is the article's name in the names of its indexes
-- ("a:7"). The posters' keys are made here from their prefix, and
-- read before any write.
--
-- prefix is the namespace's. The hook of a purge (onCommentPurge,
-- lib/hooks.lua) of each kind of index the namespace keeps runs once the
-- comments that go are read, given them (with karma, each comment's part
-- leaves its poster's sum in the commenters' karma, and a poster left with
-- no comment leaves it).

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

-- checked reads each of keys as the type each is, read; a key of the
-- wrong type gives the reply to return.
local function checked(keys, read)
	for _, key in ipairs(keys) do
		local _, bad = try(read, key)
		if bad then
			return bad
		end
	end
end

-- indexes are the indexes of the children of the parent name.
local function indexes(name)
	return childIndexes(repliesPrefix, orders, name)
end

local members, bad = try('ZRANGEBYSCORE', thread, '-inf', '+inf', 'LIMIT', 0, batch)
if bad then
	return bad
end
-- Each comment leaves its parent's indexes, so that no index is left to
-- delete whole: a parent with many replies loses them a batch at a time.
local posters, parents, keys = {}, {}, {}
-- gone are the comments that go, as the hooks are given them.
local gone = {}
local wanted = hookFields(onCommentPurge, {'poster', 'parent'})
for i, member in ipairs(members) do
	local f
	f, bad = try('HMGET', member, unpack(wanted))
	if bad then
		return bad
	end
	local poster = f[1]
	if poster then
		bad = checked({postsPrefix .. poster}, 'ZCARD')
		if bad then
			return bad
		end
	end
	posters[i] = poster or false
	parents[i] = (f[2] and f[2] ~= '') and indexes(parentName(nil, f[2])) or indexes(articleName)
	local id = string.sub(member, #commentPrefix + 1)
	local voters = {votedPrefix .. id, downvotedPrefix .. id}
	gone[i] = {member = member, fields = byName(onCommentPurge, f, 2)}
	bad = checked(voters, 'SCARD') or checked(parents[i], 'ZCARD')
	if bad then
		return bad
	end
	keys[#keys + 1] = member
	for _, key in ipairs(voters) do
		keys[#keys + 1] = key
	end
end
local left = redis.call('ZCARD', thread) - #members
if left == 0 then
	bad = checked(indexes(articleName), 'ZCARD')
	if bad then
		return bad
	end
end

-- The kept kinds' hooks.
local plans
plans, bad = ready(onCommentPurge, {prefix = prefix, comment = true, comments = gone, postsPrefix = postsPrefix})
if bad then
	return bad
end

-- UNLINK: voter sets may hold many, which Redis frees aside.
if #keys > 0 then
	redis.call('UNLINK', unpack(keys))
end
for i, member in ipairs(members) do
	if posters[i] then
		redis.call('ZREM', postsPrefix .. posters[i], member)
	end
	for _, key in ipairs(parents[i]) do
		redis.call('ZREM', key, member)
	end
end
if #members > 0 then
	redis.call('ZREM', thread, unpack(members))
end
written(plans)
if left == 0 then
	-- Empty now, unless they held what no comment of the thread was.
	redis.call('DEL', unpack(indexes(articleName)))
end
return tostring(left) .. ' ' .. tostring(#members)
