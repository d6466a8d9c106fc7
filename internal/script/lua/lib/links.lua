-- lib/links.lua: the index of links (WithUniqueLinks): links: (LINKS_PART),
-- each link's key to the id of the article that holds it, and linkshares:
-- (LINKSHARES_PART), the articles that share a link behind its holder. Its
-- hooks (lib/hooks.lua): a post holds its link, refused if another article
-- does; an edit and a deletion give the old link up; Reindex makes each article hold or share its link.

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


-- taken gives the reply that refuses a link whose key the index of links
-- names an article for ('duplicate' and the holder's id), or one naming
-- the index if it is unsound; nil if the link is free.
local function taken(links, key)
	local linked, bad = try('HGET', links, key)
	if bad then
		return bad
	end
	if linked then
		return 'duplicate ' .. holderOf(linked)
	end
end

-- linksOnPost: a link whose key (linkKey) the index has already is
-- refused, naming the article that holds it; else the new article e.id
-- holds it.
local function linksOnPost(e)
	local links, key = e.prefix .. LINKS_PART, linkKey(e.link)
	local bad = taken(links, key)
	if bad then
		return nil, bad
	end
	return {write = function()
		redis.call('HSET', links, key, e.id)
	end}
end

-- linksOnEdit: a new link (one whose key is not the old one's,
-- e.fields.link) gives up the old one (released), and is refused, naming
-- the article that has it, if the index names another; else the article
-- holds it.
local function linksOnEdit(e)
	local links, shared = e.prefix .. LINKS_PART, e.prefix .. LINKSHARES_PART
	local old = e.fields.link or nil
	local newKey, oldKey = linkKey(e.link), old and linkKey(old)
	if newKey == oldKey then
		return nil
	end
	local bad = taken(links, newKey)
	if bad then
		return nil, bad
	end
	local change
	if oldKey then
		change, bad = released(links, shared, oldKey, seconds(e.posted), e.id)
		if bad then
			return nil, bad
		end
	end
	return {write = function()
		release(links, shared, change)
		redis.call('HSET', links, newKey, e.id)
	end}
end

-- linksOnDelete: the article gives up its link (released).
local function linksOnDelete(e)
	local link = e.fields.link
	if not link then
		return nil
	end
	local links, shared = e.prefix .. LINKS_PART, e.prefix .. LINKSHARES_PART
	local change, bad = released(links, shared, linkKey(link), seconds(e.fields.time or nil), e.id)
	if bad then
		return nil, bad
	end
	return {write = function()
		release(links, shared, change)
	end}
end

-- linksOnReindex: each article of the step (e.articles) holds its link if
-- no article that exists holds it (the oldest that shares it takes it
-- first, if older), else joins linkshares: (shareOf) behind the holder:
-- one that joins is a duplicate, which the plan names (duplicates: its id
-- and the holder's). A field written before linkshares: held those that
-- share a link (several ids) is written afresh with its holder. Each
-- article reads a field and a member or two, however many share its link.
local function linksOnReindex(e)
	local links, shared = e.prefix .. LINKS_PART, e.prefix .. LINKSHARES_PART
	local _, bad = try('HGET', links, '')
	if not bad then
		_, bad = try('ZSCORE', shared, '')
	end
	if bad then
		return nil, bad
	end
	local linked = {} -- each article's posting time, id and link key
	for _, a in ipairs(e.articles) do
		if a.own and a.fields.link then
			linked[#linked + 1] = {a.posted, a.id, linkKey(a.fields.link)}
		end
	end
	-- The oldest article first, and of those posted at one time the lowest
	-- id (the walk gives them in the order of their keys, where article:10
	-- comes before article:9). Each link's holder: the article the index
	-- names, if it exists; else the oldest that shares the link, if it
	-- exists and is older than the article met; else the article met.
	-- Every other article met with the link shares it.
	table.sort(linked, function(x, y)
		if x[1] ~= y[1] then
			return x[1] < y[1]
		end
		return #x[2] < #y[2] or #x[2] == #y[2] and x[2] < y[2]
	end)
	local holders, setHolders = {}, {} -- each link key's holder as this step leaves it; those to write
	local joins, joined, leaves = {}, {}, {} -- members of linkshares: to add (and as a set), to take out
	local duplicates = {}
	for _, l in ipairs(linked) do
		local posted, id, key = l[1], l[2], l[3]
		local member = not string.find(key, '\0', 1, true) and shareOf(key, posted, id)
		local holder = holders[key]
		if member and holder == nil then
			local field = redis.call('HGET', links, key)
			holder = holderOf(field)
			if holder and holder ~= id and redis.call('EXISTS', e.articlePrefix .. holder) == 0 then
				holder = nil -- gone, and its link free
			end
			if not holder then
				local first, firstID = firstShare(shared, key)
				if first and first < member and redis.call('EXISTS', e.articlePrefix .. firstID) == 1 then
					holder = firstID
					leaves[#leaves + 1] = first
				end
			end
			holder = holder or id
			if holder ~= field then
				setHolders[key] = holder -- a new holder, or a field of several ids written afresh
			end
			holders[key] = holder
		end
		if member and holder == id and setHolders[key] == id then
			-- It holds the link now: it leaves linkshares:, if it was there.
			if redis.call('ZSCORE', shared, member) then
				leaves[#leaves + 1] = member
			end
		elseif member and holder ~= id and not joined[member] and not redis.call('ZSCORE', shared, member) then
			joined[member] = true
			joins[#joins + 1] = member
			duplicates[#duplicates + 1] = {id, holder}
		end
	end
	return {duplicates = duplicates, write = function()
		local fields = {}
		for key, holder in pairs(setHolders) do
			fields[#fields + 1], fields[#fields + 2] = key, holder
		end
		if #fields > 0 then
			redis.call('HSET', links, unpack(fields))
		end
		for i = 1, #leaves, 1000 do
			redis.call('ZREM', shared, unpack(leaves, i, math.min(i + 999, #leaves)))
		end
		for i = 1, #joins, 500 do
			local args = {}
			for j = i, math.min(i + 499, #joins) do
				args[#args + 1], args[#args + 2] = 0, joins[j]
			end
			redis.call('ZADD', shared, unpack(args))
		end
	end}
end
