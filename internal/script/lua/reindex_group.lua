-- reindex_group.lua: one step of Reindex's walk of a group's set: it scans a
-- few of the set's members from a cursor and adds the group's name to the
-- record of each that is an article of the namespace, for articles the
-- book's code put in groups; with live groups it also sets each one's entry
-- in the group's live index of each kept order to its entry in the site's
-- index of that order, which holds value() of its counters (one the site's
-- index lacks stays out, and a window's index takes only articles posted
-- after both its mark and its cut). A member whose article is gone (no hash
-- and no score: deleted before its record named this group) leaves the
-- group. The group's size in the sorted set of group sizes is set to its
-- set's, or it leaves it, left empty. Members that are not articles of the
-- namespace are skipped and counted.
--
-- KEYS: group byScore byTime trimmed sizes progress orders[].index
-- ARGV: run name scanCount articlePrefix recordPrefix livePrefix
--       orders[key window cut]
-- GO: orders[].index Indexes, scanCount int, orders []Order
--
-- scanCount is how many members SSCAN asks for; livePrefix is '' without
-- live groups; an order's window and cut are '' for one with no window.
--
-- orders are, with live groups, the kept orders (none without them), with
-- their site indexes. The records' and the live indexes' keys are made here
-- from their prefixes: with the namespace's prefix they share its Redis
-- Cluster slot.
--
-- progress is the hash of Reindex's run (see reindex.go): the step goes on
-- from the cursor it holds for the group, if it is the group being walked
-- in the run named run, and does nothing for a group recorded there as
-- walked in the batch being scanned (field 'walked:' .. name, see
-- reindex_scan.lua); it records there the group and the cursor to go on
-- from, or the group as walked, and counts the step. So steps chain
-- whichever call sends them, even one cut short whose step runs late. It
-- answers that cursor ('0' once the scan is done), the records written, and
-- the run's counts of members skipped, groups done and steps.

local state, bad = try('HMGET', progress, 'run', 'group', 'sscan', 'walked:' .. name)
if bad then
	return bad
end
if state[1] ~= run then
	return 'superseded' -- another run took this one's place (reindex.go)
end
local cursor = '0'
if state[4] then
	-- The group is walked: a step of a call cut short ran after its last.
	local totals = redis.call('HMGET', progress, 'skipped', 'groups', 'steps')
	return {'0', '0', totals[1] or '0', totals[2] or '0', totals[3] or '0'}
elseif state[2] == name then
	cursor = state[3]
end
local scanned
scanned, bad = try('SSCAN', group, cursor, 'COUNT', scanCount)
if bad then
	return bad
end
local _
_, bad = try('ZSCORE', sizes, name)
if bad then
	return bad
end
-- The articles among the members: an id after the namespace's prefix;
-- with a hash or a score (else gone).
local candidates, skipped = {}, 0
for _, member in ipairs(scanned[2]) do
	local id = string.sub(member, #articlePrefix + 1)
	if string.sub(member, 1, #articlePrefix) == articlePrefix and string.match(id, '^[1-9]%d*$') and #id <= 19 then
		candidates[#candidates + 1] = member
	else
		skipped = skipped + 1
	end
end
local members, recordKeys, gone, scores = {}, {}, {}, {}
if #candidates > 0 then
	local found
	found, bad = try('ZMSCORE', byScore, unpack(candidates))
	if bad then
		return bad
	end
	for i, member in ipairs(candidates) do
		if found[i] or redis.call('EXISTS', member) == 1 then
			local record = recordPrefix .. string.sub(member, #articlePrefix + 1)
			_, bad = try('SISMEMBER', record, name)
			if bad then
				return bad
			end
			members[#members + 1], scores[#members + 1] = member, found[i]
			recordKeys[#recordKeys + 1] = record
		else
			gone[#gone + 1] = member
		end
	end
end

-- With live groups: each live index's entries, copied from the site's
-- index of its order, and first marks for empty windows, as a post gives.
local entries, newMarks = {}, {}
if orders.n > 0 and #members > 0 then
	local posted
	posted, bad = try('ZMSCORE', byTime, unpack(members))
	if bad then
		return bad
	end
	local fields = {}
	for _, window in ipairs(orders.window) do
		if window ~= '' then
			fields[#fields + 1] = markField(window, name)
		end
	end
	local marked
	marked, bad = marks(trimmed, fields)
	if bad then
		return bad
	end
	for i, index in ipairs(orders.index) do
		local live = livePrefix .. orders.key[i] .. name
		local size
		size, bad = try('ZCARD', live)
		if bad then
			return bad
		end
		local values
		values, bad = try('ZMSCORE', index, unpack(members))
		if bad then
			return bad
		end
		local after
		if orders.window[i] ~= '' then
			local field, cut = markField(orders.window[i], name), tonumber(orders.cut[i])
			local m = marked[field]
			after = math.max(m or cut, cut)
			if not m and size == 0 and mark(orders.cut[i]) then
				newMarks[#newMarks + 1] = field
				newMarks[#newMarks + 1] = orders.cut[i]
			end
		end
		local args = {}
		for j, member in ipairs(members) do
			-- An article Article finds has a score; a window takes it if
			-- posted after its mark and its cut.
			if values[j] and scores[j] and (not after or posted[j] and tonumber(posted[j]) > after) then
				args[#args + 1] = values[j]
				args[#args + 1] = member
			end
		end
		entries[#entries + 1] = {live, args}
	end
end

for _, record in ipairs(recordKeys) do
	redis.call('SADD', record, name)
end
for _, e in ipairs(entries) do
	local live, args = e[1], e[2]
	for j = 1, #args, 1000 do
		redis.call('ZADD', live, unpack(args, j, math.min(j + 999, #args)))
	end
end
if #newMarks > 0 then
	redis.call('HSET', trimmed, unpack(newMarks))
end
if #gone > 0 then
	redis.call('SREM', group, unpack(gone))
end
local size = redis.call('SCARD', group)
if size > 0 then
	redis.call('ZADD', sizes, size, name)
else
	redis.call('ZREM', sizes, name)
end
local nextCursor = scanned[1]
if nextCursor == '0' then
	redis.call('HSET', progress, 'run', run, 'group', '', 'sscan', '0', 'walked:' .. name, '1')
else
	redis.call('HSET', progress, 'run', run, 'group', name, 'sscan', nextCursor)
end
return {nextCursor, tostring(#recordKeys), tostring(redis.call('HINCRBY', progress, 'skipped', skipped + #gone)),
	tostring(redis.call('HINCRBY', progress, 'groups', nextCursor == '0' and 1 or 0)),
	tostring(redis.call('HINCRBY', progress, 'steps', 1))}
