-- trim_window.lua: trims from a window's index the articles that have aged
-- out of the window: those posted at or before cut. A listing sends it in
-- one round trip with the read of its page, which Redis runs right after it,
-- so the page holds exactly the articles posted after cut. If more is left
-- to trim than one step takes, so that no step holds Redis for long, it
-- answers 'more' and the caller runs it again.
--
-- KEYS: window byTime trimmed indexed articles
-- ARGV: field cut batch:num built
-- WRITES: reply
--
-- built is '' for an index always built. The status word is followed by
-- ' wrote' when the script took members out or moved the mark, so that a
-- read that trimmed nothing leaves the client-side cache as it is.
--
-- window is the index (the site's, or a group's live one), byTime the time
-- index of the same articles, field the field of the window's mark in
-- trimmed. built is the index's field in indexed: (internal/schema/marks.go): once the trim
-- is done, the script answers 'notindexed' if the index does not hold every
-- article (complete, lib/marks.lua; articles is the site's time index), so
-- that the listing it goes before answers ErrNotIndexed; it reads that
-- before it writes anything.

local holdsAll, bad = true
if built ~= '' then
	holdsAll, bad = complete(indexed, built, articles)
	if bad then
		return bad
	end
end
local members, to, more
members, to, more, bad = agedOut(window, byTime, trimmed, field, cut, batch)
if bad then
	return bad
end
trim(window, trimmed, field, members, to)
local wrote = ''
if #members > 0 or to then
	wrote = ' wrote'
end
if more then
	return 'more' .. wrote
end
if not holdsAll then
	return 'notindexed' .. wrote
end
return 'ok' .. wrote
