-- lib/values.lua: ranking values: what an index of each kind holds. The
-- loader (script.go) puts before each script the functions of the library
-- it uses, and those they use.

-- controversy is Reddit's, of u up-votes and d down-votes: (u + d) raised
-- to min(u, d) / max(u, d), and 0 when either is 0.
local function controversy(u, d)
	if u <= 0 or d <= 0 then
		return 0
	end
	return (u + d) ^ (math.min(u, d) / math.max(u, d))
end

-- hot is Reddit's hot ranking of an article posted at t with net votes s:
-- sign(s) x log10(max(|s|, 1)) + (t - 1134028003) / 45000.
local function hot(t, s)
	local sign = 0
	if s > 0 then
		sign = 1
	elseif s < 0 then
		sign = -1
	end
	return sign * math.log10(math.max(math.abs(s), 1)) + (t - 1134028003) / 45000
end

-- best is the lower bound of the Wilson score interval of the share of up
-- votes u among u + d, with z = 1.281551565545, as Reddit's "best"; 0 with
-- no vote.
local function best(u, d)
	local n = u + d
	if n <= 0 then
		return 0
	end
	local z, p = 1.281551565545, u / n
	return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)
end

-- value is an article's entry in an index of the given kind, from its
-- posting time, up-votes, down-votes and score: the one place that says
-- what each kind of index holds (orders.go names the kind of each order).
-- A post, a vote and Reindex all ask it; a kind it does not know is an
-- error, never a default.
local function value(kind, posted, ups, downs, score)
	if kind == 'score' then
		return score
	elseif kind == 'time' then
		return posted
	elseif kind == 'net' then
		return ups - downs
	elseif kind == 'controversy' then
		return controversy(ups, downs)
	elseif kind == 'hot' then
		return hot(posted, ups - downs)
	elseif kind == 'best' then
		return best(ups, downs)
	end
	error('voting: unknown index kind ' .. quote(tostring(kind)))
end
