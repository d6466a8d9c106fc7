-- post.lua: posts an article: a new id, the hash, the poster's up-vote, an
-- entry in each kept index, the group memberships and, with live groups,
-- an entry in each group's live index of each kept order.
--
-- KEYS: counter trimmed sizes indexed posts settings orders[].index
--       history?historyMillis
-- ARGV: gen prefix articlePrefix votedPrefix downvotedPrefix recordPrefix
--       groupPrefix livePrefix texts[name value] link poster posted score
--       cutoffMillis historyMillis:num
--       orders[key kind window cut] groups[name] built[field] unbuilt[field]
-- GO: settings Config, orders[].index Indexes, texts []Text, cutoffMillis
--     int64, historyMillis int64, orders []Order, built *Names, unbuilt *Names
--
-- texts are the article's text fields that no index reads (its title),
-- stored as they are; livePrefix is '' without live groups, historyMillis
-- 0 without a history; an order's window and cut are '' for one with no
-- window.
--
-- posts is the poster's index of articles; prefix the namespace's. The
-- hook of a post (onPost, lib/hooks.lua) of each kind of index the Store
-- keeps runs among the reads (with
-- karma the poster joins karma:; with unique links a link another article
-- holds is refused, naming it, before any write).
--
-- orders are the kept orders, ByScore's first and ByTime's second, each
-- with its index's key after the prefix, the kind of its index, and for a
-- window order its name (the field of its mark in trimmed) and the posting
-- time that leaves the window now. The groups are distinct names, at most
-- MaxGroups of them.
--
-- The id is the counter plus one, worked out on the counter's digits so that
-- it is exact to the last of its 19; INCR then stores it. The new article's
-- own keys, and each group's keys, are made here from their prefixes: their
-- names depend on the id or the group, and with the namespace's prefix they
-- share its Redis Cluster slot (a group name holds no brace).
--
-- built are the fields of indexed: of the indexes the namespace keeps beyond
-- the book's two, unbuilt those of all others: a post into an empty
-- namespace marks the first built, and a post takes away the marks of the
-- others, which it cannot write (internal/schema/marks.go); a post in no group, the site's
-- alone.
--
-- A window's index takes the article unless a listing has already trimmed
-- it past the posting time (a listing by a Store whose clock is ahead); the
-- first post into an index with no mark gives it one.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local last, bad = try('GET', counter)
if bad then
	return bad
end
last = last or '0'
if not (last == '0' or string.match(last, '^[1-9]%d*$')) or #last > 19
	or (#last == 19 and last > '9223372036854775807') then
	return 'corrupt ' .. counter .. ' holds ' .. quote(last) .. ', not an article id'
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
-- The hash's fields; the hooks may add their own.
local stored = {'link', link, 'poster', poster, 'time', posted, 'votes', '1'}
for i = 1, texts.n do
	stored[#stored + 1], stored[#stored + 2] = texts.name[i], texts.value[i]
end
local plans
plans, bad = planned(onPost,
	{prefix = prefix, id = id, member = article, poster = poster, posted = posted, link = link, stored = stored})
if bad then
	return bad
end
if redis.call('EXISTS', article, voted, downvoted, record) > 0 then
	for _, key in ipairs({article, voted, downvoted, record}) do
		if redis.call('EXISTS', key) == 1 then
			return 'taken ' .. key
		end
	end
end

-- The entries to add: the site's index of each kept order and, with live
-- groups, each group's live index of it; a window's only if the article is
-- posted after its mark. A window with no mark whose index is empty gets
-- its first mark, the window's cut now (if mark gives one).
local t, ups, downs = tonumber(posted), 1, 0
local names = groups.name
local liveNames = livePrefix ~= '' and names or {} -- the groups whose live indexes take it
-- Each index to add to: the site's of each order, then each group's.
local indexes, fields, cuts, values = {}, {}, {}, {}
for i, kind in ipairs(orders.kind) do
	local window, v = orders.window[i], number(value(kind, t, ups, downs, tonumber(score)))
	indexes[#indexes + 1], fields[#indexes + 1], cuts[#indexes + 1], values[#indexes + 1] =
		orders.index[i], window ~= '' and markField(window), orders.cut[i], v
	for _, name in ipairs(liveNames) do
		indexes[#indexes + 1], fields[#indexes + 1], cuts[#indexes + 1], values[#indexes + 1] =
			livePrefix .. orders.key[i] .. name, window ~= '' and markField(window, name), orders.cut[i], v
	end
end
local windowFields = {}
for i = 1, #indexes do
	if fields[i] then
		windowFields[#windowFields + 1] = fields[i]
	end
end
local marked
marked, bad = marks(trimmed, windowFields)
if bad then
	return bad
end
local out, newMarks = {}, {} -- the windows' indexes the article stays out of; marks to write
for i, index in ipairs(indexes) do
	local field = fields[i]
	local m = field and marked[field]
	if m then
		if t <= m then
			out[index] = true
		end
	elseif field then
		local size
		size, bad = try('ZCARD', index)
		if bad then
			return bad
		end
		if size == 0 and mark(cuts[i]) then
			newMarks[#newMarks + 1] = field
			newMarks[#newMarks + 1] = cuts[i]
		end
	end
end

-- Which indexes the post leaves built or not: all the Store's in an empty
-- namespace, and none that it cannot write.
local unmarks = unbuilt.field
if #names == 0 then
	-- A post in no group leaves every group's live indexes complete.
	unmarks = {}
	for _, field in ipairs(unbuilt.field) do
		if string.sub(field, 1, 5) ~= 'live:' then
			unmarks[#unmarks + 1] = field
		end
	end
end
local unmark
unmark, bad = builtAmong(indexed, unmarks)
if bad then
	return bad
end
local _
_, bad = indexedCount(indexed)
if bad then
	return bad
end
local first = false
if built.n > 0 then
	local size
	size, bad = try('ZCARD', orders.index[2]) -- the time index, which holds every article
	if bad then
		return bad
	end
	first = size == 0
end

-- Writes to keys no read has proven, undone if one is refused; the
-- groups' sizes last, since nothing after them can be refused.
for i, index in ipairs(indexes) do
	if not out[index] then
		bad = add(index, values[i], article)
		if bad then
			return bad
		end
	end
end
for _, name in ipairs(names) do
	bad = join(groupPrefix .. name, article)
	if bad then
		return bad
	end
end
if history then
	-- The poster's own up-vote, as the vote script writes a vote.
	bad = add(history, posted, 'up:' .. article)
	if bad then
		return bad
	end
end
bad = add(posts, posted, article)
if not bad then
	bad = undoable(plans)
end
if bad then
	return bad
end
bad = grow(sizes, names)
if bad then
	return bad
end

redis.call('INCR', counter)
redis.call('HINCRBY', indexed, 'articles', 1)
redis.call('HSET', article, unpack(stored))
written(plans)
redis.call('SADD', voted, poster)
redis.call('PEXPIRE', voted, cutoffMillis)
if #names > 0 then
	redis.call('SADD', record, unpack(names))
end
if #newMarks > 0 then
	redis.call('HSET', trimmed, unpack(newMarks))
end
if #unmark > 0 then
	redis.call('HDEL', indexed, unpack(unmark))
end
if first then
	local set = {}
	for _, field in ipairs(built.field) do
		set[#set + 1], set[#set + 2] = field, '1'
	end
	redis.call('HSET', indexed, unpack(set))
end
if history then
	forget(history, number(t - historyMillis / 1000), historyMillis)
end
return 'ok ' .. id
