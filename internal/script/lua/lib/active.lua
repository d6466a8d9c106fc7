-- lib/active.lua: the users active (WithActiveUsers): active:
-- (ACTIVE_PART), each user who has posted an article or a comment, scored
-- with the latest time they posted one (a deletion leaves it). Its hooks
-- (lib/hooks.lua), the same for both kinds of item: a post moves its
-- poster's time on; a step of Reindex's walk of the articles, or of the
-- comments, moves each poster's time on to their item's, so that a run
-- gives each the latest of their items' times.

-- activeWritten writes the plan of a hook: its moves (times and users, as
-- ZADD takes them) in active:, its key, each only forward (GT).
local function activeWritten(plan)
	redis.call('ZADD', plan.key, 'GT', unpack(plan.moves))
end

-- activeMoves is the plan that moves the users of the event e's items
-- (each its poster and posted, the time of its post) on to their items'
-- times; none for no item with a poster; or a reply to return if active:
-- is unsound.
local function activeMoves(e, items)
	local key = e.prefix .. ACTIVE_PART
	local _, bad = try('ZCARD', key)
	if bad then
		return nil, bad
	end
	local moves = {}
	for _, item in ipairs(items) do
		if item.poster then
			moves[#moves + 1], moves[#moves + 2] = item.posted, item.poster
		end
	end
	if #moves > 0 then
		return {write = activeWritten, key = key, moves = moves}
	end
end

-- activeOnPost: the poster's time moves on to the post's (e.posted).
local function activeOnPost(e)
	return activeMoves(e, {e})
end

-- activeOnCommentPost: a comment's post is an article's (activeOnPost).
local activeOnCommentPost = activeOnPost

-- activeOnReindex: each poster of the step's articles (e.articles, of the
-- namespace's own) moves on to the article's time.
local function activeOnReindex(e)
	local items = {}
	for _, a in ipairs(e.articles) do
		items[#items + 1] = {poster = a.own and a.fields.poster, posted = a.posted}
	end
	return activeMoves(e, items)
end

-- activeOnCommentReindex: each poster of the step's comments (e.comments:
-- a tombstone has none) moves on to the comment's time.
local function activeOnCommentReindex(e)
	return activeMoves(e, e.comments)
end
