-- edit.lua: edits an article's title and link, and nothing else: its score,
-- votes, groups and index entries stay as they are. The article must exist
-- as Article finds it: a hash with a posting time, and a score.
--
-- KEYS: hash, byScore
-- ARGV: member, title, link

local hash, byScore = KEYS[1], KEYS[2]
local member, title, link = ARGV[1], ARGV[2], ARGV[3]
sent(2, 3)

local _, _, bad = located(hash, byScore, member)
if bad then
	return bad
end

redis.call('HSET', hash, 'title', title, 'link', link)
return 'ok'
