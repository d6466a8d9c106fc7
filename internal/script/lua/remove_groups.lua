-- remove_groups.lua: takes an article out of groups, and the groups out of
-- its record of its groups; out of each group's listings of every order
-- too, live indexes and cached listings both, whatever the namespace keeps, so
-- that no listing, of this Store or of one with other options, keeps an
-- article that has left the group. Each group it leaves has its size set
-- in the sorted set of group sizes, which an emptied group leaves. It does not ask whether the article
-- exists, so that members left behind can be cleaned up.
--
-- KEYS: record sizes
-- ARGV: member groupPrefix cachePrefix livePrefix orders[key] groups[name]
-- GO: orders []Order
--
-- orders are all the orders of the table. A group's cached listing of an
-- order is cachePrefix .. key .. name, its live index livePrefix .. key ..
-- name. The groups are distinct names, at most MaxGroups of them.
-- Everything is read first, so that only what is there is written.

local names, bad = recorded(record)
if bad then
	return bad
end
local inRecord = {}
for _, name in ipairs(names) do
	inRecord[name] = true
end
local sets, left, listings, unrecord = {}, {}, {}, {}
for _, name in ipairs(groups.name) do
	bad = leaving(groupPrefix, name, member, sets, left)
	if bad then
		return bad
	end
	for _, key in ipairs(orders.key) do
		for _, prefix in ipairs({cachePrefix, livePrefix}) do
			bad = holding(prefix .. key .. name, member, listings)
			if bad then
				return bad
			end
		end
	end
	if inRecord[name] then
		unrecord[#unrecord + 1] = name
	end
end

bad = shrink(sizes, left)
if bad then
	return bad
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
