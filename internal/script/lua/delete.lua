-- delete.lua: deletes an article in one step: its hash, its voter sets, its
-- record of its groups, its entry in the site's index of every order (one
-- the namespace no longer keeps may hold it until StopKeeping has removed
-- it; a book's cached listing may hold it until it expires), its
-- membership of each of the groups its record names with its entries in
-- their cached listings and live indexes of every order, with the size of
-- each of those groups (an emptied group leaves the sorted set of sizes).
-- With a history, its voters' history entries go too: in this step if it
-- has at most batch voters, else in later steps of clear_history.lua, for
-- which the voter sets are renamed.
--
-- KEYS: hash byScore byTime voted downvoted record sizes indexed settings orders[].index
--       pendingVoted?historyPrefix pendingDownvoted?historyPrefix
-- ARGV: member id gen groupPrefix cachePrefix livePrefix postsPrefix
--       historyPrefix batch:num orders[key] prefix
-- GO: settings Config, orders[].index Indexes, id ID, orders []Order
--
-- historyPrefix is '' without a history.
--
-- The article leaves its poster's index of articles (postsPrefix ..
-- poster), and the hook of a deletion (onDelete, lib/hooks.lua) of each
-- kind the namespace keeps runs (prefix is the namespace's): its part of
-- the poster's karma
-- goes (the poster leaves karma: with their last article, e.last, unless
-- others outside posts:<user> leave them karma), and it gives up its link
-- in the index of links (if it holds the link, the oldest article that
-- shares it takes it).
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

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local exists = redis.call('EXISTS', hash)
local fields, bad = try('HMGET', hash, unpack(hookFields(onDelete, {'poster'})))
if bad then
	return bad
end
local poster = fields[1]
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
-- The count of the articles indexed, which loses one with the time
-- index's entry.
if posted then
	local _
	_, bad = indexedCount(indexed)
	if bad then
		return bad
	end
end
-- The poster's index of articles, and the hooks.
local posts, inPosts
if poster then
	posts = postsPrefix .. poster
	inPosts, bad = try('ZSCORE', posts, member)
	if bad then
		return bad
	end
end
local plans
plans, bad = planned(onDelete, {prefix = prefix, hash = hash, id = id, member = member,
	fields = byName(onDelete, fields, 1), last = inPosts and redis.call('ZCARD', posts) == 1})
if bad then
	return bad
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

bad = undoable(plans)
if not bad then
	bad = shrink(sizes, left)
end
if bad then
	return bad
end
redis.call('DEL', hash, record)
if posted then
	redis.call('HINCRBY', indexed, 'articles', -1)
end
if inPosts then
	redis.call('ZREM', posts, member)
end
written(plans)
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
