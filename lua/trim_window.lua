-- trim_window.lua: trims from a window's index the articles that have aged
-- out of the window: those posted at or before cut. A listing sends it in
-- one round trip with the read of its page, which Redis runs right after it,
-- so the page holds exactly the articles posted after cut. If more is left
-- to trim than one step takes, so that no step holds Redis for long, it
-- answers 'more' and the caller runs it again.
--
-- KEYS: window, byTime, trimmed
-- ARGV: field, cut, batch
--
-- window is the index (the site's, or a group's live one), byTime the time
-- index of the same articles, field the field of the window's mark in
-- trimmed.

local window, byTime, trimmed = KEYS[1], KEYS[2], KEYS[3]
local field, cut, batch = ARGV[1], ARGV[2], tonumber(ARGV[3])
sent(3, 3)

local members, to, more, bad = agedOut(window, byTime, trimmed, field, cut, batch)
if bad then
	return bad
end
trim(window, trimmed, field, members, to)
if more then
	return 'more'
end
return 'ok'
