-- clear_history.lua: one step of clearing a deleted article's entries from
-- its voters' histories, after delete.lua has deleted it and renamed its
-- voter sets: it takes up to batch voters out of those sets and their
-- entries of the article out of their histories. It answers how many
-- voters are left. A history of the wrong type holds no entry to take out,
-- and is passed over.
--
-- KEYS: pendingVoted pendingDownvoted
-- ARGV: member historyPrefix batch:num

local left = batch
for _, set in ipairs({pendingVoted, pendingDownvoted}) do
	if left > 0 then
		local users, bad = try('SPOP', set, left)
		if bad then
			return bad
		end
		for _, user in ipairs(users) do
			redis.pcall('ZREM', historyPrefix .. user, 'up:' .. member, 'down:' .. member)
		end
		left = left - #users
	end
end
return tostring(redis.call('SCARD', pendingVoted) + redis.call('SCARD', pendingDownvoted))
