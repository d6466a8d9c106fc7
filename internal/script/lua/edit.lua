-- edit.lua: edits an article's text fields that no index reads (texts: its
-- title) and its link, and nothing else: its score,
-- votes, groups and index entries stay as they are. The article must exist
-- as Article finds it: a hash with a posting time, and a score.
--
-- KEYS: hash byScore links shared indexed
-- ARGV: member id texts[name value] link unique:flag
--
-- A new link (one whose key, linkKey, is not the old one's) gives up the
-- old one in the index of links (released): if the article holds it, the
-- oldest article that shares it (linkshares:, shared) takes it. With unique
-- links the new one is refused, naming the article that has it, if the
-- index names another, and else the article holds it; without them the
-- index no longer holds every article's link, and its mark in indexed:
-- goes (internal/schema/marks.go).

local posted, _, bad = located(hash, byScore, member)
if bad then
	return bad
end
local old
old, bad = try('HGET', hash, 'link')
if bad then
	return bad
end
local newKey, oldKey = linkKey(link), old and linkKey(old)
local change, unmark = nil, {} -- change: what giving up the old link writes
if newKey ~= oldKey then
	local linked
	linked, bad = try('HGET', links, newKey)
	if bad then
		return bad
	end
	if unique and linked then
		return 'duplicate ' .. holderOf(linked)
	end
	if oldKey then
		change, bad = released(links, shared, oldKey, seconds(posted), id)
		if bad then
			return bad
		end
	end
	if not unique then
		unmark, bad = builtAmong(indexed, {'links'})
		if bad then
			return bad
		end
	end
end

local fields = {'link', link}
for i = 1, texts.n do
	fields[#fields + 1], fields[#fields + 2] = texts.name[i], texts.value[i]
end
redis.call('HSET', hash, unpack(fields))
release(links, shared, change)
if unique and newKey ~= oldKey then
	redis.call('HSET', links, newKey, id)
end
if #unmark > 0 then
	redis.call('HDEL', indexed, unpack(unmark))
end
return 'ok'
