-- delete.lua: deletes an article in one step: its hash, its voter sets, its
-- record of its groups, its entry in the site's index of every order (a
-- Store of other options may keep those the caller does not), its
-- membership of each of the groups its record names with its entries in
-- their cached listings and live indexes of every order, with the size of
-- each of those groups (an emptied group leaves the sorted set of sizes).
-- With a history, its voters' history entries go too: in this step if it
-- has at most batch voters, else in later steps of clear_history.lua, for
-- which the voter sets are renamed.
--
-- KEYS: hash byScore byTime voted downvoted record sizes karma links shared
--       orders[].index pendingVoted?historyPrefix
--       pendingDownvoted?historyPrefix
-- ARGV: member id groupPrefix cachePrefix livePrefix postsPrefix
--       historyPrefix batch:num orders[key]
--
-- historyPrefix is '' without a history.
--
-- Whatever the Store's options, the article leaves its poster's index of
-- articles (postsPrefix .. poster), its part of the poster's karma goes
-- (the karma field of its hash), the poster leaves karma: with the last
-- article (unless others outside posts:<user> leave them karma), and it
-- gives up its link in the index of links (released: if it holds the link,
-- the oldest article that shares it takes it): a Store of other options may
-- keep them.
--
-- orders are all the orders of the table, each with its index's key after
-- the prefix:
-- a group's cached listing of it is cachePrefix .. key .. name and its live
-- index livePrefix .. key .. name. The groups' and the histories' keys are
-- made here from their prefixes: the caller cannot know the groups or the
-- voters without a round trip of its own, and with the namespace's prefix
-- they share its Redis Cluster slot (a group name holds no brace; a user's
-- may, but after the prefix's tag).
--
-- An article with no record (one the book's code put in groups, until
-- Reindex records them) is in no group this step knows of. It answers 'ok'
-- and the number of voters whose histories are left to clear, or
-- 'notfound' if there is no hash, no score and no posting time.

local exists = redis.call('EXISTS', hash)
local fields, bad = try('HMGET', hash, 'poster', 'karma', 'link', 'time')
if bad then
	return bad
end
local poster, part, link, postedAt = fields[1], fields[2], fields[3], fields[4]
local score
score, bad = try('ZSCORE', byScore, member)
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

-- What to take the article out of: every index that holds it, every group
-- set that holds it, and the voter sets.
local indexes, sets, left = {}, {}, {}
for _, index in ipairs(orders.index) do
	bad = holding(index, member, indexes)
	if bad then
		return bad
	end
end
local names
names, bad = recorded(record)
if bad then
	return bad
end
for _, name in ipairs(names) do
	bad = leaving(groupPrefix, name, member, sets, left)
	if bad then
		return bad
	end
	for _, key in ipairs(orders.key) do
		bad = holding(cachePrefix .. key .. name, member, indexes)
		if not bad then
			bad = holding(livePrefix .. key .. name, member, indexes)
		end
		if bad then
			return bad
		end
	end
end
local ups, downs
ups, bad = try('SCARD', voted)
if bad then
	return bad
end
downs, bad = try('SCARD', downvoted)
if bad then
	return bad
end
-- The poster's index of articles and karma, and the index of links.
local posts, inPosts, change, taken
if poster then
	posts = postsPrefix .. poster
	inPosts, bad = try('ZSCORE', posts, member)
	if bad then
		return bad
	end
	taken, bad = karmaOfDeletion(karma, hash, poster, part, inPosts and redis.call('ZCARD', posts) == 1)
	if bad then
		return bad
	end
end
if link then
	change, bad = released(links, shared, linkKey(link), seconds(postedAt), id)
	if bad then
		return bad
	end
end

-- With a history: the voters whose entries go in this step, if there are
-- at most batch of them.
local voters, pending = {}, 0
if historyPrefix ~= '' then
	if ups + downs <= batch then
		for _, set in ipairs({voted, downvoted}) do
			for _, user in ipairs(redis.call('SMEMBERS', set)) do
				voters[#voters + 1] = user
			end
		end
	else
		pending = ups + downs
	end
end

bad = shrink(sizes, left)
if bad then
	return bad
end
redis.call('DEL', hash, record)
if inPosts then
	redis.call('ZREM', posts, member)
end
karmaWritten(karma, nil, poster, taken)
release(links, shared, change)
for _, index in ipairs(indexes) do
	redis.call('ZREM', index, member)
end
for _, set in ipairs(sets) do
	redis.call('SREM', set, member)
end
for _, user in ipairs(voters) do
	-- A history of the wrong type holds no entry to take out.
	redis.pcall('ZREM', historyPrefix .. user, 'up:' .. member, 'down:' .. member)
end
if pending > 0 then
	-- Renamed, the sets keep their time to live, so that what a cut-short
	-- call leaves expires at the cutoff; no vote finds them.
	if ups > 0 then
		redis.call('RENAME', voted, pendingVoted)
	end
	if downs > 0 then
		redis.call('RENAME', downvoted, pendingDownvoted)
	end
else
	redis.call('UNLINK', voted, downvoted)
end
return 'ok ' .. pending
