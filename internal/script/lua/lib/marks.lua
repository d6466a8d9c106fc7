-- lib/marks.lua: the marks of built indexes (indexed:). The loader
-- (script.go) puts before each script the functions of the library it uses,
-- and those they use.

-- builtAmong reads which of fields (of indexes a write cannot keep) the hash
-- indexed: marks as built or being built (internal/schema/marks.go), so that the write can
-- take those marks away; with no fields it checks the hash's type alone, for
-- a write that marks it. It gives the fields marked, and a reply to return
-- if the hash is unsound. A missing hash, the rule where no Store keeps more
-- than the book's indexes, costs one EXISTS: with no marks there is nothing
-- to take away, and so nothing to write.
local function builtAmong(indexed, fields)
	if #fields == 0 then
		local _, bad = try('HLEN', indexed)
		return {}, bad
	end
	if redis.call('EXISTS', indexed) == 0 then
		return {} -- no marks to take away, and none written
	end
	local got, bad = try('HMGET', indexed, unpack(fields))
	if bad then
		return nil, bad
	end
	local marked = {}
	for i, field in ipairs(fields) do
		if got[i] then
			marked[#marked + 1] = field
		end
	end
	return marked
end

-- indexedCount reads the count of the articles the library has indexed
-- (the field articles of indexed:, internal/schema/marks.go), which a post
-- adds one to and a deletion takes one from: a listing of an index that
-- may not be built compares it with the time index's size, so that
-- articles another writer posted are noticed. It gives the count (0 for
-- none), and a reply to return if it is no integer.
local function indexedCount(indexed)
	local n, bad = try('HGET', indexed, 'articles')
	if bad then
		return nil, bad
	end
	if n and not string.match(n, '^%-?%d+$') then
		return nil, 'corrupt ' .. indexed .. ' counts ' .. quote(n) .. ' articles'
	end
	return tonumber(n) or 0
end

-- complete reads whether the index whose field of indexed: is field holds
-- every article of the namespace (internal/schema/marks.go): an empty
-- namespace's does (its time index, byTime, has no article); another's
-- must be marked built, and the count of the articles the library has
-- indexed must be the time index's size, since an article another writer
-- posted (the book's code, an older release) is in no index beyond the
-- book's. It gives the answer, and a reply to return if a key is unsound.
local function complete(indexed, field, byTime)
	local got, bad = try('HMGET', indexed, field, 'articles')
	if bad then
		return nil, bad
	end
	local size
	size, bad = try('ZCARD', byTime)
	if bad then
		return nil, bad
	end
	return size == 0 or got[1] == '1' and tonumber(got[2] or '0') == size
end
