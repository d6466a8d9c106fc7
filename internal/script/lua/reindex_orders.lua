-- reindex_orders.lua: one step of Reindex's walk of the time index: it walks
-- at most batch articles from a posting time (and all posted at the same time
-- as the last), and sets each one's entry in the site's index of each kept
-- order beyond the book's two to value() of its counters. Setting, not
-- adding, makes a step safe to run again and alongside votes: a vote moves
-- an entry only once it is there. An article whose hash is gone or does not
-- parse is skipped and counted. A window's index takes only articles posted
-- after both its mark and its cut.
--
-- It also puts each article in its poster's index of articles; with karma
-- it counts the article's part of its poster's karma while its voting is
-- open (its voter sets say what the poster's own vote is), or if it has
-- none yet (taking the poster's own vote to be the post's up-vote, as the
-- book's code has it), and moves the poster's karma to match; with unique
-- links it makes the article the holder of its link in the index of links
-- if no article that exists holds it (the oldest that shares it takes it
-- first, if older), else puts it in linkshares: (shared, shareOf), behind
-- the holder: one that joins linkshares: is a duplicate, counted and named
-- in progress (field "duplicate:<id>", the id of the link's holder), up to
-- maxDuplicates of them. A link's field written before linkshares: held
-- those that share it (several ids) is written afresh with its holder.
-- Each article reads a field and a member or two, however many articles
-- share its link.
--
-- KEYS: byTime byScore trimmed progress orders[].index karma?keepKarma
--       links?unique shared?unique
-- ARGV: run batch:num articlePrefix votedPrefix downvotedPrefix postsPrefix
--       keepKarma:flag unique:flag maxDuplicates:num orders[kind window cut]
--
-- batch is 0 to check the keys alone; an order's window and cut are ''
-- for one with no window.
--
-- progress is the hash of Reindex's run (see reindex.go): the step reads
-- from it where the walk goes on from, and records there where the next
-- goes on from, or that the walk is done, and the run's counts. So steps
-- chain whichever call sends them, even one cut short whose step runs late.
-- It answers the posting time to go on from ('' once the walk is done),
-- the run's counts of articles indexed, articles skipped, steps and
-- duplicate links, and the duplicates it named, each an id and the id of
-- the article that has its link; or
-- 'superseded', having written nothing, if the progress is of another run
-- (one that took this one's place, or none: the run is complete).

local _, bad = try('ZSCORE', byTime, '')
if bad then
	return bad
end
_, bad = try('ZSCORE', byScore, '')
if bad then
	return bad
end
local state
state, bad = try('HMGET', progress, 'run', 'phase', 'from')
if bad then
	return bad
end
local fields = {}
for i, index in ipairs(orders.index) do
	_, bad = try('ZSCORE', index, '')
	if bad then
		return bad
	end
	if orders.window[i] ~= '' then
		fields[#fields + 1] = markField(orders.window[i])
	end
end
local marked
marked, bad = marks(trimmed, fields)
if bad then
	return bad
end
if karma then
	_, bad = try('ZSCORE', karma, '')
	if bad then
		return bad
	end
end
if links then
	_, bad = try('HGET', links, '')
	if not bad then
		_, bad = try('ZSCORE', shared, '')
	end
	if bad then
		return bad
	end
end
if batch == 0 then
	return 'ok' -- a check of the keys alone
end
if state[1] ~= run then
	return 'superseded'
end
if state[2] == 'groups' then
	-- The walk is done: a step of a call cut short ran after the last.
	local totals = redis.call('HMGET', progress, 'articles', 'skipped', 'steps', 'duplicates')
	return {'', totals[1] or '0', totals[2] or '0', totals[3] or '0', totals[4] or '0'}
end
local from = state[3] or '-inf'
if from == '' then
	from = '-inf'
end
-- A window takes an article posted after both its mark and its cut.
local after = {}
for i, window in ipairs(orders.window) do
	if window ~= '' then
		local cut = tonumber(orders.cut[i])
		after[i] = math.max(marked[markField(window)] or cut, cut)
	end
end

local walked = redis.call('ZRANGEBYSCORE', byTime, from, '+inf', 'WITHSCORES', 'LIMIT', 0, batch)
local nextFrom = ''
if #walked == 2 * batch then
	local last = walked[#walked]
	while #walked > 0 and walked[#walked] == last do
		walked[#walked], walked[#walked - 1] = nil, nil
	end
	for _, m in ipairs(redis.call('ZRANGEBYSCORE', byTime, last, last, 'WITHSCORES')) do
		walked[#walked + 1] = m
	end
	nextFrom = '(' .. last
end
local members = {}
for i = 1, #walked, 2 do
	members[#members + 1] = walked[i]
end
local scores = #members > 0 and redis.call('ZMSCORE', byScore, unpack(members)) or {}
local articles, skipped = {}, 0
local posts, parts, duplicates = {}, {}, {} -- what the article's poster and link take
local linked = {} -- each article's posting time, id and link key, with unique links
for i, member in ipairs(members) do
	local f = redis.pcall('HMGET', member, 'time', 'votes', 'downvotes', 'poster', 'karma', 'link')
	local posted, ups, downs
	if type(f) == 'table' and not f.err and f[1] then
		posted, ups, downs = counts(member, f[1], f[2], f[3])
	end
	local id = string.sub(member, #articlePrefix + 1)
	local poster, part = f[4], whole(f[5])
	if posted and scores[i] and f[5] and not part then
		return 'corrupt ' .. member .. ' field karma ' .. quote(f[5]) .. ' is not a whole number'
	end
	if posted and scores[i] then
		articles[#articles + 1] = {member, tonumber(walked[2 * i]), ups, downs, tonumber(scores[i])}
	else
		skipped = skipped + 1
	end
	if posted and scores[i] and string.sub(member, 1, #articlePrefix) == articlePrefix then
		if poster then
			local key = postsPrefix .. poster
			_, bad = try('ZSCORE', key, member)
			if bad then
				return bad
			end
			posts[#posts + 1] = {key, walked[2 * i], member}
			if karma then
				local new
				new, bad = karmaCounted(votedPrefix .. id, downvotedPrefix .. id, poster, ups, downs, part)
				if bad then
					return bad
				end
				parts[#parts + 1] = {member, poster, new, new - (part or 0)}
			end
		end
		if links and f[6] then
			linked[#linked + 1] = {posted, id, linkKey(f[6])}
		end
	end
end

-- The links, the oldest article first, and of those posted at one time the
-- lowest id (the walk gives them in the order of their keys, where
-- article:10 comes before article:9). Each link's holder: the article the
-- index names, if it exists; else the oldest that shares the link, if it
-- exists and is older than the article met; else the article met. Every
-- other article met with the link shares it.
table.sort(linked, function(x, y)
	if x[1] ~= y[1] then
		return x[1] < y[1]
	end
	return #x[2] < #y[2] or #x[2] == #y[2] and x[2] < y[2]
end)
local holders, setHolders = {}, {} -- each link key's holder as this step leaves it; those to write
local joins, joined, leaves = {}, {}, {} -- members of linkshares: to add (and as a set), to take out
for _, l in ipairs(linked) do
	local posted, id, key = l[1], l[2], l[3]
	local member = not string.find(key, '\0', 1, true) and shareOf(key, posted, id)
	local holder = holders[key]
	if member and holder == nil then
		local field = redis.call('HGET', links, key)
		holder = holderOf(field)
		if holder and holder ~= id and redis.call('EXISTS', articlePrefix .. holder) == 0 then
			holder = nil -- gone, and its link free
		end
		if not holder then
			local first, firstID = firstShare(shared, key)
			if first and first < member and redis.call('EXISTS', articlePrefix .. firstID) == 1 then
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

local texts = {} -- each value's text, written once: net votes repeat
for i, index in ipairs(orders.index) do
	local args = {}
	for _, art in ipairs(articles) do
		local member, posted, ups, downs, score = art[1], art[2], art[3], art[4], art[5]
		if not after[i] or posted > after[i] then
			local v = value(orders.kind[i], posted, ups, downs, score)
			local text = texts[v] or number(v)
			texts[v] = text
			args[#args + 1] = text
			args[#args + 1] = member
		end
	end
	for j = 1, #args, 1000 do
		redis.call('ZADD', index, unpack(args, j, math.min(j + 999, #args)))
	end
end
for _, p in ipairs(posts) do
	redis.call('ZADD', p[1], p[2], p[3])
end
for _, p in ipairs(parts) do
	redis.call('HSET', p[1], 'karma', string.format('%d', p[3]))
	redis.call('ZINCRBY', karma, p[4], p[2])
end
local linkFields = {}
for key, holder in pairs(setHolders) do
	linkFields[#linkFields + 1], linkFields[#linkFields + 2] = key, holder
end
if #linkFields > 0 then
	redis.call('HSET', links, unpack(linkFields))
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
local found, named = '0', {}
if #duplicates > 0 then
	found = redis.call('HINCRBY', progress, 'duplicates', #duplicates)
	local dupFields = {}
	for i, d in ipairs(duplicates) do
		if found - #duplicates + i <= maxDuplicates then
			dupFields[#dupFields + 1], dupFields[#dupFields + 2] = 'duplicate:' .. d[1], d[2]
			named[#named + 1], named[#named + 2] = d[1], d[2]
		end
	end
	if #dupFields > 0 then
		redis.call('HSET', progress, unpack(dupFields))
	end
	found = tostring(found)
end
if nextFrom == '' then
	redis.call('HSET', progress, 'run', run, 'phase', 'groups', 'from', '', 'scan', '0')
else
	redis.call('HSET', progress, 'run', run, 'phase', 'orders', 'from', nextFrom)
end
return {nextFrom, tostring(redis.call('HINCRBY', progress, 'articles', #articles)),
	tostring(redis.call('HINCRBY', progress, 'skipped', skipped)), tostring(redis.call('HINCRBY', progress, 'steps', 1)),
	found, unpack(named)}
