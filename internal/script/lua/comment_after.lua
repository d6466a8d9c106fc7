-- comment_after.lua: a page of a parent's comments oldest first after a
-- cursor: the size entries of index, with their values, after the point
-- (score, member) in ascending order. A comment's posting time never
-- moves, so while the point's comment is in the index the page starts
-- after its rank, in the same step; once it is gone, after every entry of
-- a lower time, which may show again a comment of the same time.
--
-- KEYS: index
-- ARGV: score member size:num
-- WRITES: never

local start
local rank, bad = try('ZRANK', index, member)
if bad then
	return bad
end
if rank then
	start = rank + 1
else
	start = redis.call('ZCOUNT', index, '-inf', '(' .. score)
end
return redis.call('ZRANGE', index, start, start + size - 1, 'WITHSCORES')
