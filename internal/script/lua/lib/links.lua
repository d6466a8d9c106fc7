-- lib/links.lua: the index of links and the articles that share a link. The
-- loader (script.go) puts before each script the functions of the library
-- it uses, and those they use.

-- asciiLower is s with its ASCII letters in lower case and every other
-- byte as it is, as Go's asciiLower (string.lower may follow a locale).
local function asciiLower(s)
	return (string.gsub(s, '[A-Z]', function(c)
		return string.char(string.byte(c) + 32)
	end))
end

-- linkKey is a link's field in the index of links (WithUniqueLinks), as
-- Go's linkKey writes it: the link without its fragment, and with the
-- ASCII letters of its scheme and host in lower case.
local function linkKey(link)
	link = string.match(link, '^[^#]*')
	local scheme, rest = string.match(link, '^(%a[%w+.-]*)://(.*)$')
	if not scheme then
		return link
	end
	local stop = string.find(rest, '[/?]') or #rest + 1
	local authority, tail = string.sub(rest, 1, stop - 1), string.sub(rest, stop)
	local user, host = string.match(authority, '^(.*@)(.*)$')
	if not user then
		user, host = '', authority
	end
	return asciiLower(scheme) .. '://' .. user .. asciiLower(host) .. tail
end

-- holderOf reads a field of the index of links: the id of the article that
-- holds the link; nil for none. A field written before the articles that
-- share a link moved to linkshares: holds several ids, the holder first,
-- until Reindex writes it afresh.
local function holderOf(field)
	return field and string.match(field, '^%S+')
end

-- shareOf is the member of linkshares: of the article id, posted at t,
-- whose link key another article holds (one that Reindex found with a link
-- an older article has): the key, a zero byte (no link holds one), the
-- time and the id, written so that the members of a key sort oldest first,
-- and of one time the lowest id first: the whole seconds from the first of
-- the years in 12 digits, the fraction of a second in 9 (each exact: t's
-- whole seconds and fraction are doubles as exact as t, where their sum
-- from the year 1 would keep only some 8 microseconds), and the id in 19,
-- zeros in front.
local function shareOf(key, t, id)
	local floor = math.floor(t)
	local fraction = string.format('%.9f', t - floor)
	if string.sub(fraction, 1, 1) == '1' then
		fraction = '999999999' -- a fraction that rounds up to a whole second
	else
		fraction = string.sub(fraction, 3)
	end
	return key .. '\0' .. string.format('%012d', floor - MIN_SECONDS) .. fraction .. string.rep('0', 19 - #id) .. id
end

-- firstShare gives the oldest member of linkshares: of the link key, and
-- its article's id; nil for none. It reads one member, whatever their
-- number.
local function firstShare(shared, key)
	local first = redis.call('ZRANGEBYLEX', shared, '[' .. key .. '\0', '(' .. key .. '\1', 'LIMIT', 0, 1)[1]
	if first then
		return first, (string.gsub(string.sub(first, -19), '^0+', ''))
	end
end

-- released reads what the index of links becomes when the article id,
-- posted at t (nil if its time is unsound), gives up its link key: if it
-- holds the link, the oldest article that shares it takes it, leaving
-- linkshares:, or with none the field goes; if it shares the link, it
-- leaves linkshares:. Each is a read or two of one field or member,
-- however many articles share the link. It gives what release writes (nil
-- for nothing), and a reply to return if a key is unsound.
local function released(links, shared, key, t, id)
	local field, bad = try('HGET', links, key)
	if bad then
		return nil, bad
	end
	local _
	_, bad = try('ZSCORE', shared, '')
	if bad then
		return nil, bad
	end
	if holderOf(field) == id then
		local member, next = firstShare(shared, key)
		return {key = key, holder = next or false, drop = member}
	end
	if field and t then
		local member = shareOf(key, t, id)
		if redis.call('ZSCORE', shared, member) then
			return {key = key, drop = member}
		end
	end
end

-- release writes what released found: the link's new holder, or no field
-- for it, and the member that leaves linkshares:.
local function release(links, shared, change)
	if not change then
		return
	end
	if change.holder then
		redis.call('HSET', links, change.key, change.holder)
	elseif change.holder == false then
		redis.call('HDEL', links, change.key)
	end
	if change.drop then
		redis.call('ZREM', shared, change.drop)
	end
end
