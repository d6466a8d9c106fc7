-- comment_edit.lua: sets a comment's body; nothing else changes. The
-- comment exists when its hash has a time and it is not deleted.
--
-- KEYS: hash
-- ARGV: body

local f, bad = try('HMGET', hash, 'time', 'deleted')
if bad then
	return bad
end
if not f[1] or f[2] == '1' then
	return 'notfound'
end
redis.call('HSET', hash, 'body', body)
return 'ok'
