-- lib/reindex.lua: a run of Reindex. The loader (script.go) puts before
-- each script the functions of the library it uses, and those they use.

-- ownRun gives a reply to return unless progress, the hash of Reindex's
-- run, is of the run named run: 'superseded' if it is another's (or none),
-- or one naming it if it is of the wrong type.
local function ownRun(progress, run)
	local current, bad = try('HGET', progress, 'run')
	if bad then
		return bad
	end
	if current ~= run then
		return 'superseded'
	end
end
