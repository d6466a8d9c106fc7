-- lib/journal.lua: reads that may be refused, and the undo journal of
-- writes that may be. The loader (script.go) puts before each script the
-- functions of the library it uses, and those they use.

-- refused is the reply for a command Redis refused: a corrupt status for a
-- key of the wrong type, naming the key, else Redis's own error (an ACL's
-- NOPERM, say).
local function refused(cmd, key, r)
	if string.find(r.err, 'WRONGTYPE', 1, true) then
		return 'corrupt ' .. key .. ' is of the wrong type for ' .. cmd
	end
	return r
end

-- try runs a read. If Redis refuses it, it gives nil and the reply the
-- script must return before it writes anything.
local function try(cmd, key, ...)
	local r = redis.pcall(cmd, key, ...)
	if type(r) == 'table' and r.err then
		return nil, refused(cmd, key, r)
	end
	return r
end

-- The journal: for each write made through it so far, what undoes it, four
-- entries a write (the command, the key, the member, and the old score of
-- a moved entry or false), kept flat so that a write costs no table; made
-- by the first such write.
local journal

-- undo runs the journal's inverses, newest first, and empties it.
local function undo()
	for i = #(journal or {}) - 3, 1, -4 do
		local cmd, key, member, old = journal[i], journal[i + 1], journal[i + 2], journal[i + 3]
		if old then
			redis.call(cmd, key, 'XX', string.format('%.17g', old), member)
		else
			redis.call(cmd, key, member)
		end
	end
	journal = nil
end

-- unproven runs a write to key, which no read has proven of the right type.
-- If Redis refuses it, it undoes the journal and gives nil and the reply to
-- return; else it gives the write's reply. The caller journals the inverse.
local function unproven(cmd, key, ...)
	local r = redis.pcall(cmd, key, ...)
	if type(r) == 'table' and r.err then
		undo()
		return nil, refused(cmd, key, r)
	end
	return r
end

-- journalled records what undoes a write: cmd on key and member, and with
-- old the score to set back.
local function journalled(cmd, key, member, old)
	journal = journal or {}
	local n = #journal
	journal[n + 1], journal[n + 2], journal[n + 3], journal[n + 4] = cmd, key, member, old or false
end

-- add puts a new entry, member with the score x, in the sorted set key;
-- undone by removing it, if it was not there. It gives the reply to return
-- if Redis refuses it.
local function add(key, x, member)
	local r, bad = unproven('ZADD', key, x, member)
	if r == 1 then
		journalled('ZREM', key, member)
	end
	return bad
end

-- move sets the score of member in the sorted set key from old (a number)
-- to new (its text), if the set holds member at all (ZADD XX); undone by
-- setting it back. It gives the reply to return if Redis refuses it.
local function move(key, member, new, old)
	local r = redis.pcall('ZADD', key, 'XX', new, member)
	if type(r) == 'table' and r.err then
		undo()
		return refused('ZADD', key, r)
	end
	journalled('ZADD', key, member, old)
end

-- enter puts member in the sorted set key with the score 0, if it is not
-- there (ZADD NX); undone by taking it out. It gives the reply to return
-- if Redis refuses it.
local function enter(key, member)
	local r, bad = unproven('ZADD', key, 'NX', 0, member)
	if r == 1 then
		journalled('ZREM', key, member)
	end
	return bad
end

-- join adds member to the set key; undone by taking it out, if it was not
-- there. It gives the reply to return if Redis refuses it, and whether
-- member joined.
local function join(key, member)
	local r, bad = unproven('SADD', key, member)
	if r == 1 then
		journalled('SREM', key, member)
	end
	return bad, r == 1
end
