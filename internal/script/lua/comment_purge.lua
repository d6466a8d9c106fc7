-- comment_purge.lua: takes away up to batch comments of a deleted article,
-- the first of its thread: each comment's hash, voter sets, entries in its
-- parent's indexes and in its poster's comments; and once the thread is
-- empty, what is left of the article's own indexes of its comments. It answers the number
-- of comments left, and after a space the number it took.
--
-- KEYS: thread settings karma?karmaKept
-- ARGV: gen articleName commentPrefix votedPrefix downvotedPrefix repliesPrefix
--       postsPrefix batch:num karmaKept:flag kinds[name]
-- GO: settings Config
--
-- articleName is the article's name in the names of its indexes
-- ("a:7"). The posters' keys are made here from their prefix, and
-- read before any write.
--
-- With karma kept (karmaKept), each comment's part leaves its poster's sum
-- in karma, the commenters' karma; a poster left with no comment leaves
-- karma.

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
	return childIndexes(repliesPrefix, kinds, name)
end

local members, bad = try('ZRANGEBYSCORE', thread, '-inf', '+inf', 'LIMIT', 0, batch)
if bad then
	return bad
end
-- Each comment leaves its parent's indexes, so that no index is left to
-- delete whole: a parent with many replies loses them a batch at a time.
local posters, parents, keys = {}, {}, {}
-- parts are the posters' sums of the parts that leave, by poster, and
-- order the posters in the order first met.
local parts, order = {}, {}
if karmaKept then
	local _
	_, bad = try('ZCARD', karma)
	if bad then
		return bad
	end
end
for i, member in ipairs(members) do
	local f
	f, bad = try('HMGET', member, 'poster', 'parent', 'karma')
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
	if karmaKept and poster then
		-- The part the poster's sum holds: none for a comment written
		-- without karma, whose part Reindex has not counted.
		local part = whole(f[3] or '0')
		if not part then
			return 'corrupt ' .. member .. ' field karma ' .. quote(f[3]) .. ' is not a whole number'
		end
		if not parts[poster] then
			order[#order + 1] = poster
		end
		parts[poster] = (parts[poster] or 0) + part
	end
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
for _, poster in ipairs(order) do
	if redis.call('ZCARD', postsPrefix .. poster) == 0 then
		redis.call('ZREM', karma, poster)
	elseif parts[poster] ~= 0 then
		redis.call('ZINCRBY', karma, -parts[poster], poster)
	end
end
if left == 0 then
	-- Empty now, unless they held what no comment of the thread was.
	redis.call('DEL', unpack(indexes(articleName)))
end
return tostring(left) .. ' ' .. tostring(#members)
