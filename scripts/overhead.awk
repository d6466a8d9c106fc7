# Reads `go test -bench` output of BenchmarkOverhead, BenchmarkParallel and
# BenchmarkPing on the real server (as scripts/bench writes it: the same
# benchmarks once per round, the rounds one after the other) and prints the
# library's overhead against a replay of its own commands through plain
# redigo, and the parallel throughputs against the server's ceiling.
#
# Figures are medians across the rounds. A ratio is the median of the
# rounds' own ratios: the k-th result of one benchmark is set against the
# k-th of the other, which ran in the same round, seconds apart, so that a
# slow spell of a shared machine falls on both. "spread" is the lowest and
# highest of those per-round ratios.

function median(list,    n, i, j, t, v) {
	n = split(list, v, " ")
	if (n == 0) return ""
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
	if (n % 2) return v[(n + 1) / 2] + 0
	return (v[n / 2] + v[n / 2 + 1]) / 2
}

function lowest(list,    n, i, v, m) {
	n = split(list, v, " ")
	m = v[1] + 0
	for (i = 2; i <= n; i++) if (v[i] + 0 < m) m = v[i] + 0
	return m
}

function highest(list,    n, i, v, m) {
	n = split(list, v, " ")
	m = v[1] + 0
	for (i = 2; i <= n; i++) if (v[i] + 0 > m) m = v[i] + 0
	return m
}

# all(name, unit): every round's value, as a list.
function all(name, unit,    k, out) {
	out = ""
	for (k = 1; k <= rounds[name]; k++)
		if ((name, unit, k) in val) out = out " " val[name, unit, k]
	return out
}

# ratios(a, b, unit): each round's a / b, as a list.
function ratios(a, b, unit,    k, n, out, x, y) {
	out = ""
	n = rounds[a] < rounds[b] ? rounds[a] : rounds[b]
	for (k = 1; k <= n; k++) {
		if (!((a, unit, k) in val) || !((b, unit, k) in val)) continue
		x = val[a, unit, k]; y = val[b, unit, k]
		if (y + 0 != 0) out = out " " (x / y)
	}
	return out
}

# perPing(a, unit): each round's a against that round's PING.
function perPing(a, unit,    k, n, out, p) {
	out = ""
	p = "BenchmarkPing/redis"
	n = rounds[a] < rounds[p] ? rounds[a] : rounds[p]
	for (k = 1; k <= n; k++)
		if (((a, unit, k) in val) && ((p, "ns/op", k) in val) && val[p, "ns/op", k] + 0 != 0)
			out = out " " (val[a, unit, k] / val[p, "ns/op", k])
	return out
}

function fmtnum(x, digits) {
	if (x == "") return "-"
	return sprintf("%." digits "f", x)
}

function spread(list) {
	if (list == "") return "-"
	return sprintf("%.2f-%.2f", lowest(list), highest(list))
}

# The issue's targets: a vote within 15% of plain redigo, a page within 20%.
function target(op) {
	if (op == "Vote") return 1.15
	if (op ~ /^(GetArticles|GetGroupArticles)\//) return 1.20
	return ""
}

/^Benchmark(Overhead|Parallel|Ping)\/redis/ {
	name = $1
	sub(/-[0-9]+$/, "", name)
	if (!(name in rounds)) order[++count] = name
	k = ++rounds[name]
	for (i = 3; i < NF; i++)
		if ($(i + 1) ~ /\/(op|s)$/ && $i ~ /^[0-9.e+-]+$/)
			val[name, $(i + 1), k] = $i
}

END {
	ping = "BenchmarkPing/redis"
	nrounds = rounds[ping]
	printf "\nOverhead: the library against a replay of its own commands through plain redigo (real server, %d rounds)\n", nrounds
	printf "(µs per operation and allocs/op are medians; lib/rep and the PING columns medians of per-round ratios)\n"
	printf "%-22s %9s %9s %8s %11s %7s %7s %7s %8s %8s %s\n",
		"operation", "lib µs", "replay µs", "lib/rep", "spread", "lib", "replay", "allocs", "lib/PING", "rep/PING", "target"
	printf "%-22s %9s %9s %8s %11s %7s %7s %7s %8s %8s %s\n",
		"", "", "", "", "", "allocs", "allocs", "ratio", "", "", "(lib/rep)"
	if (ping in rounds)
		printf "%-22s %9s %9s %8s %11s %7s %7s %7s %8s %8s\n", "PING (the floor)", fmtnum(median(all(ping, "ns/op")) / 1000, 1), "", "", "", fmtnum(median(all(ping, "allocs/op")), 0), "", "", "1.00", ""
	for (c = 1; c <= count; c++) {
		lib = order[c]
		if (lib !~ /^BenchmarkOverhead\/.*\/library$/) continue
		rep = lib
		sub(/\/library$/, "/replay", rep)
		if (!(rep in rounds)) continue
		op = lib
		sub(/^BenchmarkOverhead\/redis\//, "", op)
		sub(/\/library$/, "", op)
		r = ratios(lib, rep, "ns/op")
		ratio = median(r)
		la = median(all(lib, "allocs/op")); ra = median(all(rep, "allocs/op"))
		goal = target(op)
		verdict = ""
		if (goal != "" && ratio != "") verdict = sprintf("%.2f %s", goal, ratio <= goal ? "met" : "NOT met")
		printf "%-22s %9s %9s %8s %11s %7s %7s %7s %8s %8s %s\n", op,
			fmtnum(median(all(lib, "ns/op")) / 1000, 1), fmtnum(median(all(rep, "ns/op")) / 1000, 1),
			fmtnum(ratio, 2), spread(r), fmtnum(la, 0), fmtnum(ra, 0),
			(ra + 0 > 0 ? fmtnum(la / ra, 1) : "-"),
			fmtnum(median(perPing(lib, "ns/op")), 2), fmtnum(median(perPing(rep, "ns/op")), 2), verdict
	}

	printf "\nOverhead in CPU time per operation (µs, medians): the client (this process, the kernel's share of its\n"
	printf "round trips included) and the server (INFO cpu), which should be alike for both: they do the same work\n"
	printf "%-22s %9s %9s %8s %11s %9s %9s %8s\n", "operation", "client lib", "replay", "lib/rep", "spread", "server lib", "replay", "lib/rep"
	for (c = 1; c <= count; c++) {
		lib = order[c]
		if (lib !~ /^BenchmarkOverhead\/.*\/library$/) continue
		rep = lib
		sub(/\/library$/, "/replay", rep)
		if (!(rep in rounds)) continue
		op = lib
		sub(/^BenchmarkOverhead\/redis\//, "", op)
		sub(/\/library$/, "", op)
		r = ratios(lib, rep, "client-us/op")
		printf "%-22s %9s %9s %8s %11s %9s %9s %8s\n", op,
			fmtnum(median(all(lib, "client-us/op")), 1), fmtnum(median(all(rep, "client-us/op")), 1),
			fmtnum(median(r), 2), spread(r),
			fmtnum(median(all(lib, "server-us/op")), 1), fmtnum(median(all(rep, "server-us/op")), 1),
			fmtnum(median(ratios(lib, rep, "server-us/op")), 2)
	}

	printf "\nParallel: 16 goroutines, operations per second (medians); the ceiling sends the same commands in pipelines\n"
	printf "of 64 operations from 16 connections. \"ceiling busy\" is the server's CPU share during the ceiling run:\n"
	printf "near 1 means the server, not the client, set it.\n"
	printf "(lib/rep, lib/ceil and rep/ceil are throughput ratios: the library's ops/s as a fraction of the other's)\n"
	printf "%-14s %10s %10s %10s %8s %11s %8s %8s %8s %8s\n", "operation", "library", "replay", "ceiling", "lib/rep", "spread", "lib/ceil", "rep/ceil", "ceiling", "allocs"
	printf "%-14s %10s %10s %10s %8s %11s %8s %8s %8s %8s\n", "", "ops/s", "ops/s", "ops/s", "", "", "", "", "busy", "lib/rep"
	for (c = 1; c <= count; c++) {
		lib = order[c]
		if (lib !~ /^BenchmarkParallel\/.*\/library$/) continue
		base = lib
		sub(/\/library$/, "", base)
		rep = base "/replay"; ceil = base "/ceiling"
		op = base
		sub(/^BenchmarkParallel\/redis\//, "", op)
		r = ratios(lib, rep, "ops/s")
		busy = ""
		if (ceil in rounds) {
			b = ""
			for (k = 1; k <= rounds[ceil]; k++)
				if (((ceil, "server-us/op", k) in val) && ((ceil, "ops/s", k) in val))
					b = b " " (val[ceil, "server-us/op", k] * val[ceil, "ops/s", k] / 1e6)
			busy = median(b)
		}
		la = median(all(lib, "allocs/op")); ra = median(all(rep, "allocs/op"))
		printf "%-14s %10s %10s %10s %8s %11s %8s %8s %8s %8s\n", op,
			fmtnum(median(all(lib, "ops/s")), 0), fmtnum(median(all(rep, "ops/s")), 0), fmtnum(median(all(ceil, "ops/s")), 0),
			fmtnum(median(r), 2), spread(r),
			fmtnum(median(ratios(lib, ceil, "ops/s")), 2), fmtnum(median(ratios(rep, ceil, "ops/s")), 2),
			fmtnum(busy, 2), (ra + 0 > 0 ? fmtnum(la / ra, 1) : "-")
	}
}
