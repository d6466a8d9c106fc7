-- edit.lua: edits an article's text fields that no index reads (texts: its
-- title) and its link, and nothing else: its score,
-- votes, groups and index entries stay as they are. The article must exist
-- as Article finds it: a hash with a posting time, and a score.
--
-- KEYS: hash byScore settings
-- ARGV: member id gen texts[name value] link prefix
-- GO: settings Config, id ID, texts []Text
--
-- prefix is the namespace's. The hook of an edit (onEdit, lib/hooks.lua)
-- of each kind the namespace keeps runs: with unique links, a new link
-- gives up the old one in the index of links, and is refused, naming the
-- article that has it, if another has it.

local unsettled = staleSettings(settings, gen)
if unsettled then
	return unsettled
end

local posted, _, bad = located(hash, byScore, member)
if bad then
	return bad
end
local wanted = hookFields(onEdit, {})
local fields = {}
if #wanted > 0 then
	fields, bad = try('HMGET', hash, unpack(wanted))
	if bad then
		return bad
	end
end
local plans
plans, bad = planned(onEdit, {prefix = prefix, hash = hash, id = id, member = member, link = link,
	posted = posted, fields = byName(onEdit, fields, 0)})
if bad then
	return bad
end
bad = undoable(plans)
if bad then
	return bad
end

local set = {'link', link}
for i = 1, texts.n do
	set[#set + 1], set[#set + 2] = texts.name[i], texts.value[i]
end
redis.call('HSET', hash, unpack(set))
written(plans)
return 'ok'
