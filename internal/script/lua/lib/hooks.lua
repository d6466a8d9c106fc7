-- lib/hooks.lua: the hooks of the kinds of index a write keeps beside the
-- orders (internal/schema/indexes.go), for articles and comments alike. A
-- kind's file of the library defines, for each event that writes it, its
-- hook <kind>On<Event> (a post, a vote, an edit, a deletion, a step of
-- Reindex's walk) for articles, and <kind>OnComment<Event> (a post, a
-- vote, a deletion, a purge of a deleted article's comments, a step of
-- Reindex's walk of the comments) for comments: a kind that covers both
-- kinds of item gives the two the same function where they do the same,
-- and an event's table says which kind of item it writes (comment). The
-- loader (script.go) writes each event's table of hooks, on<Event>, for
-- the kinds the namespace keeps (a script has a variant for each set of
-- them, and every Store writes by the namespace's settings): for each
-- hook, its kind and the hook, two entries of the table, and in its field
-- fields the fields of the item's hash the hooks read (the kinds'
-- Fields); false if no hook runs.
--
-- A script runs the hooks among its reads: each is given the event's table
-- (what the script has read, and the namespace's prefix, from which the
-- kind names its keys), reads and checks what it needs, and gives its plan: undoable, writes to keys no read
-- has proven (through the journal), run with the script's own; write, the
-- writes that can no longer fail, run with the script's last; each is
-- called with the plan, so that a plan can be a table of what its writes
-- need rather than a function made for the call (the vote is the hot
-- path). Or it gives a reply that the script returns before any write.
-- (The loops count rather than call ipairs: each of its steps is a call.)

-- hookFields gives base and, after it, the fields of the article's hash
-- that the hooks (an event's table, or false) read: the fields the script
-- asks the hash for, and byName's names after base.
local function hookFields(hooks, base)
	if not hooks then
		return base
	end
	local list, n, fields = {}, #base, hooks.fields
	for i = 1, n do
		list[i] = base[i]
	end
	for i = 1, #fields do
		list[n + i] = fields[i]
	end
	return list
end

-- byName gives the values of the hooks' fields (hooks.fields) by their
-- names, from an HMGET's values, which hold them after skip others (false
-- for a field the hash lacks). It is an empty table for no hooks.
local function byName(hooks, values, skip)
	local t = {}
	if hooks then
		local fields = hooks.fields
		for i = 1, #fields do
			t[fields[i]] = values[skip + i]
		end
	end
	return t
end

-- planned runs the hooks (an event's table, or false) with the event's
-- table e, and gives their plans; or nil and a reply to return, before any
-- write.
local function planned(hooks, e)
	local plans, n = {}, 0
	if not hooks then
		return plans
	end
	for i = 1, #hooks, 2 do
		local plan, bad = hooks[i + 1](e)
		if bad then
			return nil, bad
		end
		if plan then
			n = n + 1
			plans[n] = plan
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

-- ready runs the hooks (an event's table, or false) with the event's table
-- e (planned), and at once their plans' writes to keys no read has proven
-- (undoable): for a script whose reads are done. It gives the plans; or
-- nil and a reply to return, all undone.
local function ready(hooks, e)
	local plans, bad = planned(hooks, e)
	if not bad then
		bad = undoable(plans)
	end
	if bad then
		return nil, bad
	end
	return plans
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
