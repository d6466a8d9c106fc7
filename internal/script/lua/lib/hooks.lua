-- lib/hooks.lua: the hooks of the kinds of index a write keeps beside the
-- orders (internal/schema/indexes.go). A kind's file of the library
-- defines, for each event that writes it, its hook <kind>On<Event> (a
-- post, a vote, an edit, a deletion, a step of Reindex's walk), and the
-- fields of the article's hash its hooks read, <kind>Fields. The loader
-- (script.go) writes each event's table of hooks, on<Event>, a {kind,
-- hook, fields} per kind in the order of the kinds, with always set for an
-- event whose hooks run whatever the Store keeps (an edit's and a
-- deletion's: another Store of the namespace may keep what this one does
-- not).
--
-- A script runs the hooks among its reads: each is given the event's table
-- (what the script has read, and the namespace's prefix, from which the
-- kind names its keys) and whether the Store keeps its kind, reads and
-- checks what it needs, and gives its plan: undoable, writes to keys no read
-- has proven (through the journal), run with the script's own; write, the
-- writes that can no longer fail, run with the script's last; each is
-- called with the plan, so that a plan can be a table of what its writes
-- need rather than a function made for the call (the vote is the hot
-- path). Or it gives a reply that the script returns before any write.
-- (The loops count rather than call ipairs: each of its steps is a call.)

-- keptIn reads the kinds a script is sent, n names from ARGV[at + 1], as a
-- set; nil for none, so that a write that keeps none makes no table.
local function keptIn(at, n)
	if n == 0 then
		return nil
	end
	local kept = {}
	for i = at + 1, at + n do
		kept[ARGV[i]] = true
	end
	return kept
end

-- runs reports whether the event's hook h runs: its kind is kept, or the
-- event's hooks run always.
local function runs(hooks, h, kept)
	return hooks.always or kept ~= nil and kept[h[1]] == true
end

-- hashFields gives base and, after it, each field of the article's hash
-- that a hook of the event that runs reads: the fields the script asks the
-- hash for (a field named twice is read twice, which costs less than a
-- table to find it).
local function hashFields(hooks, kept, base)
	local list, n = {}, #base
	for i = 1, n do
		list[i] = base[i]
	end
	for i = 1, #hooks do
		local h = hooks[i]
		local fields = h[3]
		if fields and runs(hooks, h, kept) then
			for j = 1, #fields do
				n = n + 1
				list[n] = fields[j]
			end
		end
	end
	return list
end

-- byName gives the values of an HMGET of fields by their names (false for
-- a field the hash lacks).
local function byName(fields, values)
	local t = {}
	for i = 1, #fields do
		t[fields[i]] = values[i]
	end
	return t
end

-- planned runs the hooks of the event that run, with the event's table e,
-- and gives their plans; or nil and a reply to return, before any write.
local function planned(hooks, kept, e)
	local plans, n = {}, 0
	for i = 1, #hooks do
		local h = hooks[i]
		if runs(hooks, h, kept) then
			local plan, bad = h[2](e, kept ~= nil and kept[h[1]] == true)
			if bad then
				return nil, bad
			end
			if plan then
				n = n + 1
				plans[n] = plan
			end
		end
	end
	return plans
end

-- undoable runs the plans' writes to keys no read has proven, through the
-- journal; it gives the reply to return if Redis refuses one, all undone.
local function undoable(plans)
	for i = 1, #plans do
		local plan = plans[i]
		if plan.undoable then
			local bad = plan.undoable(plan)
			if bad then
				return bad
			end
		end
	end
end

-- written runs the plans' last writes.
local function written(plans)
	for i = 1, #plans do
		local plan = plans[i]
		if plan.write then
			plan.write(plan)
		end
	end
end
