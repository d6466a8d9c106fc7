-- settings.lua: writes the namespace's settings (settings.go): creates
-- them for a namespace that has none, or adds to them, if they are still
-- of the generation the caller read.
--
-- KEYS: settings indexed byTime
-- ARGV: gen kinds kindsIfEmpty fields[name value] unmark[field]
-- GO: fields []Text
--
-- gen is the generation the caller read, '' for none: the namespace has
-- no settings, and this creates them, and the count of the articles the
-- library has indexed (the field articles of indexed:), 0 unless there is
-- one. The settings written are of the next generation. fields are the
-- settings to write other than kinds; kinds are the kinds of index kept
-- (the field kinds), and kindsIfEmpty what they are in a namespace created
-- with no article (a namespace the library creates keeps live groups,
-- unless the Store that creates it lists groups through the book's cache).
-- unmark are the fields of indexed: of the indexes added, whose marks are
-- taken away: an index added to a namespace with articles is not built
-- until Reindex builds it (internal/schema/marks.go).
--
-- It answers 'ok', or 'ok unbuilt' if it created the settings of a
-- namespace that holds articles or took marks away in one (what it keeps
-- needs building), or 'changed' if the settings are not of generation gen:
-- the caller reads them again.

local now, bad = try('HGET', settings, 'gen')
if bad then
	return bad
end
if (now or '') ~= gen then
	return 'changed'
end
local _
_, bad = try('HLEN', indexed)
if bad then
	return bad
end
local articles
articles, bad = try('ZCARD', byTime)
if bad then
	return bad
end

local set = {'gen', tostring((tonumber(now) or 0) + 1), 'kinds', kinds}
if gen == '' and articles == 0 then
	set[4] = kindsIfEmpty
end
for i = 1, fields.n do
	set[#set + 1], set[#set + 2] = fields.name[i], fields.value[i]
end
redis.call('HSET', settings, unpack(set))
if gen == '' then
	redis.call('HSETNX', indexed, 'articles', '0')
end
if unmark.n > 0 then
	redis.call('HDEL', indexed, unpack(unmark.field))
end
if articles > 0 and (gen == '' or unmark.n > 0) then
	return 'ok unbuilt'
end
return 'ok'
