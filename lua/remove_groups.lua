-- remove_groups.lua: takes an article out of groups, and the groups out of
-- its record of its groups; out of each group's listing of each kept order
-- too: its live index with live groups, else its cached listing. A group
-- that becomes empty leaves the set of the namespace's group names. It does
-- not ask whether the article exists, so that members left behind can be
-- cleaned up.
--
-- KEYS: record, registry
-- ARGV: member, groupPrefix, listingPrefix, orders[]: key, groups[]: name
--
-- A group's listing of an order is listingPrefix .. key .. name: the live
-- prefix with live groups, else the namespace's prefix (the book's cached
-- listings). The groups are distinct names, at most MaxGroups of them.
-- Everything is read first, so that only what is there is written.

local record, registry = KEYS[1], KEYS[2]
local member, groupPrefix, listingPrefix = ARGV[1], ARGV[2], ARGV[3]
local orders, a = columns(4, 'key')
local groups
groups, a = columns(a, 'name')
sent(2, a - 1)

local names, bad = recorded(record)
if bad then
	return bad
end
local inRecord = {}
for _, name in ipairs(names) do
	inRecord[name] = true
end
local sets, emptied, listings, unrecord = {}, {}, {}, {}
for _, name in ipairs(groups.name) do
	bad = leaving(groupPrefix, name, member, sets, emptied)
	if bad then
		return bad
	end
	for _, key in ipairs(orders.key) do
		bad = holding(listingPrefix .. key .. name, member, listings)
		if bad then
			return bad
		end
	end
	if inRecord[name] then
		unrecord[#unrecord + 1] = name
	end
end

if #emptied > 0 then
	local _
	_, bad = unproven('SREM', registry, unpack(emptied))
	if bad then
		return bad
	end
end
for _, set in ipairs(sets) do
	redis.call('SREM', set, member)
end
for _, listing in ipairs(listings) do
	redis.call('ZREM', listing, member)
end
if #unrecord > 0 then
	redis.call('SREM', record, unpack(unrecord))
end
return 'ok'
