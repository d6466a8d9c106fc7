-- reindex_done.lua: completes a run of Reindex: it marks built each index
-- the run built, one that the run's start marked '0:' .. token (being built
-- by this run) and that no write has taken away since, and deletes the
-- run's progress, answering the run's counts of duplicate links and the
-- duplicates it named, each an id and the id of the first article with its
-- link (from the progress, which every step wrote, so that none a late
-- step of a cut-short call wrote is missed). If the progress is of
-- another run (a later run started in its place, or this one is complete
-- already), it writes nothing and answers 'superseded': the caller goes on
-- with the run there is.
--
-- KEYS: progress indexed
-- ARGV: run token built[field]
--
-- built are the fields of indexed: of the indexes the namespace keeps beyond
-- the book's two (internal/schema/marks.go). A post or a change of groups by a Store that
-- does not keep one of them takes its mark away: that index then stays
-- unmarked, for a later run to build.
--
-- The articles the run's start found the library had not counted as
-- indexed (its progress's deficit), all of which its walk has indexed,
-- join the count of those indexed (the field articles of indexed:, lib/marks.lua).

local bad = ownRun(progress, run)
if bad then
	return bad
end
local set = {}
if built.n > 0 then
	local got
	got, bad = try('HMGET', indexed, unpack(built.field))
	if bad then
		return bad
	end
	for i, field in ipairs(built.field) do
		if got[i] == '0:' .. token then
			set[#set + 1], set[#set + 2] = field, '1'
		end
	end
end

local _
_, bad = indexedCount(indexed)
if bad then
	return bad
end

local all = redis.call('HGETALL', progress)
local report, deficit = {'0'}, 0
for i = 1, #all, 2 do
	local field, v = all[i], all[i + 1]
	if field == 'deficit' then
		deficit = tonumber(v) or 0
	elseif field == 'duplicates' then
		report[1] = v
	elseif string.sub(field, 1, 10) == 'duplicate:' then
		report[#report + 1], report[#report + 2] = string.sub(field, 11), v
	end
end
redis.call('DEL', progress)
if deficit ~= 0 then
	redis.call('HINCRBY', indexed, 'articles', deficit)
end
if #set > 0 then
	redis.call('HSET', indexed, unpack(set))
end
return report
