-- lib/settings.lua: the namespace's settings (settings:, the voting
-- package's settings.go). The loader (script.go) puts before each script
-- the functions of the library it uses, and those they use.

-- staleSettings checks, first of all a write's reads, that the namespace's
-- settings are still of the generation gen, for which the caller made the
-- write's arguments (which indexes it keeps, the vote's weight, the
-- cutoff): it gives 'settings' if they are not, and the caller reads them
-- again and makes the write anew, so that no write keeps fewer indexes
-- than the namespace keeps, or scores by another formula.
local function staleSettings(settings, gen)
	local now, bad = try('HGET', settings, 'gen')
	if bad then
		return bad
	end
	if now ~= gen then
		return 'settings'
	end
end
