-- add_groups.lua: adds an existing article, one Article finds, to groups,
-- and the groups to the article's record of its groups.
--
-- KEYS: hash byScore record trimmed sizes indexed settings orders[].index
-- ARGV: member gen groupPrefix livePrefix maxGroups:num orders[key window cut]
--       groups[name] unbuilt[field]
-- GO: settings Config, orders[].index Indexes, orders []Order, unbuilt *Names
--
-- livePrefix is '' without live groups; an order's window and cut are ''
-- for one with no window.
--
-- orders are, with live groups, the kept orders (none without them), each
-- with its index's key after the prefix and for a window order its name
-- (the field of its mark in trimmed) and the posting time that leaves the
-- window now. The groups are distinct names, at most maxGroups of them.
--
-- With live groups, each group's live index of each kept order takes the
-- article with its value in the site's index of that order; one the site's
-- index lacks (an order kept since the article was posted, before Reindex)
-- stays out, as does one a window has trimmed or would. An article may be
-- in at most maxGroups groups: past that the script answers 'toomany' and
-- the number it would be in. unbuilt are the fields of indexed: of the live
-- group indexes the namespace does not keep: it takes their marks away
-- (internal/schema/marks.go), should any be left from when it kept them.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local posted, _, bad = located(hash, byScore, member)
if bad then
	return bad
end
local names
names, bad = recorded(record)
if bad then
	return bad
end
-- The groups given, and how many the article would be in with them.
local new, total, inRecord = groups.name, #names, {}
for _, name in ipairs(names) do
	inRecord[name] = true
end
for _, name in ipairs(new) do
	if not inRecord[name] then
		total = total + 1
	end
end
if total > maxGroups then
	return 'toomany ' .. total
end

-- With live groups: the entries to add, each the article's value in the
-- site's index of the order, in a group's window only if posted after its
-- cut and its mark; and first marks for empty windows, as a post gives.
local entries, newMarks = {}, {}
if orders.n > 0 then
	local t = seconds(posted)
	if not t then
		return 'corrupt ' .. hash .. ' field time ' .. quote(posted) .. ' is not Unix seconds'
	end
	local fields = {}
	local values = {} -- the article's value in the site's index of each order
	for i, index in ipairs(orders.index) do
		values[i], bad = try('ZSCORE', index, member)
		if bad then
			return bad
		end
		if orders.window[i] ~= '' then
			for _, name in ipairs(new) do
				fields[#fields + 1] = markField(orders.window[i], name)
			end
		end
	end
	local marked
	marked, bad = marks(trimmed, fields)
	if bad then
		return bad
	end
	for _, name in ipairs(new) do
		for i = 1, orders.n do
			local live, v, window, cut = livePrefix .. orders.key[i] .. name, values[i], orders.window[i], orders.cut[i]
			if window ~= '' then
				local field = markField(window, name)
				local m = marked[field]
				if t <= tonumber(cut) or (m and t <= m) then
					v = nil
				end
				if not m then
					local size
					size, bad = try('ZCARD', live)
					if bad then
						return bad
					end
					if size == 0 and mark(cut) then
						newMarks[#newMarks + 1] = field
						newMarks[#newMarks + 1] = cut
					end
				end
			end
			if v then
				entries[#entries + 1] = {live, v}
			end
		end
	end
end

-- A change that adds the article to no group it was not in leaves the live
-- indexes as complete as they were.
local unmark, joins = {}, total > #names
if joins then
	unmark, bad = builtAmong(indexed, unbuilt.field)
	if bad then
		return bad
	end
end

-- Writes to keys no read has proven, undone if one is refused; the set of
-- group names last, since nothing after it can be refused.
local joined = {} -- the groups the article joins, each one larger
for _, name in ipairs(new) do
	local added
	bad, added = join(groupPrefix .. name, member)
	if bad then
		return bad
	end
	if added then
		joined[#joined + 1] = name
	end
end
for _, e in ipairs(entries) do
	bad = add(e[1], e[2], member)
	if bad then
		return bad
	end
end
bad = grow(sizes, joined)
if bad then
	return bad
end

redis.call('SADD', record, unpack(new))
if #newMarks > 0 then
	redis.call('HSET', trimmed, unpack(newMarks))
end
if #unmark > 0 then
	redis.call('HDEL', indexed, unpack(unmark))
end
return 'ok'
