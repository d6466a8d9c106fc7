-- comment_after.lua: a page of a parent's comments oldest first after a
-- cursor: the size entries of index, with their values, after the point
-- (score, member) in ascending order, wherever the point's comment has
-- gone since: a comment deleted since leaves the others of its time in
-- their places, each listed once.
--
-- KEYS: index
-- ARGV: score member size:num
-- WRITES: never

local start, bad = placeAfter(index, score, member, true)
if bad then
	return bad
end
return redis.call('ZRANGE', index, start, start + size - 1, 'WITHSCORES')
