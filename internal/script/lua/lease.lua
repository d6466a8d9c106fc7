-- lease.lua: the lease of the Store that builds the namespace's unbuilt
-- indexes in the background (the voting package's build.go), so that one
-- Store at a time builds them, and another takes over once the holder
-- stops renewing it (a process that died).
--
-- KEYS: lease
-- ARGV: token op ms:num
-- GO: ms Millis int64
--
-- op 'take' takes the lease for token for ms milliseconds if no one holds
-- it, or renews it if token holds it; 'renew' renews it only if token
-- holds it; 'release' gives it up if token holds it. It answers 'ok' if
-- token holds the lease once it is done ('release': gave it up), else
-- 'taken' and the holder's token.

local holder, bad = try('GET', lease)
if bad then
	return bad
end
if op == 'release' then
	if holder == token then
		redis.call('DEL', lease)
		return 'ok'
	end
	return 'taken ' .. tostring(holder or '')
end
if holder == token or not holder and op == 'take' then
	redis.call('SET', lease, token, 'PX', string.format('%d', ms))
	return 'ok'
end
return 'taken ' .. tostring(holder or '')
