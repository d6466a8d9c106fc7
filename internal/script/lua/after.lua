-- after.lua: a page of a listing after a cursor: the size entries of
-- index, with their values, that come after the point (score, member) in
-- the listing's order (highest value first; among equal values, the
-- greater member first), wherever the point's own article has gone since.
-- So an article whose entry no write moves is listed once in a walk of
-- the pages, whatever moves the others.
--
-- KEYS: index
-- ARGV: score member size:num
-- WRITES: never

local start, bad = placeAfter(index, score, member, false)
if bad then
	return bad
end
return redis.call('ZREVRANGE', index, start, start + size - 1, 'WITHSCORES')
