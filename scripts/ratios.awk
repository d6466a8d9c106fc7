# Reads `go test -bench` output and prints, for each benchmark on the real
# server, the median ns/op, and the ratios that scripts/bench reports:
# library / book, library / PING, and for the growth benchmarks each size
# against the smallest.

function median(name,    n, i, j, t, v) {
	n = split(samples[name], v, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
	if (n % 2) return v[(n + 1) / 2]
	return (v[n / 2] + v[n / 2 + 1]) / 2
}

function us(ns) { return sprintf("%.1f", ns / 1000) }

/^Benchmark.*\/redis/ {
	# The overhead and parallel benchmarks have their own tables
	# (overhead.awk).
	if ($1 ~ /^Benchmark(Overhead|Parallel)\//) next
	name = $1
	sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++)
		if ($(i + 1) == "ns/op") {
			if (!(name in samples)) order[++count] = name
			samples[name] = samples[name] " " $i
		}
}

END {
	ping = median("BenchmarkPing/redis")
	printf "%-58s %10s %10s %8s %8s\n", "benchmark (µs/op, medians)", "library", "book", "lib/book", "lib/PING"
	printf "%-58s %10s %10s %8s %8s\n", "BenchmarkPing/redis", us(ping), "", "", "1.00"
	for (k = 1; k <= count; k++) {
		name = order[k]
		if (name == "BenchmarkPing/redis" || name ~ /\/book$/ || name ~ /\/Growth\//) continue
		lib = median(name)
		other = name
		sub(/\/library$/, "/book", other)
		label = name
		sub(/\/library$/, "", label)
		if (other != name && (other in samples)) {
			book = median(other)
			printf "%-58s %10s %10s %8.2f %8.2f\n", label, us(lib), us(book), lib / book, lib / ping
		} else if (name !~ /^BenchmarkGrowth/) {
			printf "%-58s %10s %10s %8s %8.2f\n", label, us(lib), "", "", lib / ping
		}
	}
	growth = 0
	for (k = 1; k <= count; k++) {
		name = order[k]
		if (name !~ /^BenchmarkGrowth/) continue
		if (!growth++) printf "\n%-58s %10s %12s\n", "growth (µs/op, medians)", "", "vs 1,000"
		base = name
		sub(/articles=[0-9]+/, "articles=1000", base)
		printf "%-58s %10s %12.2f\n", name, us(median(name)), median(name) / median(base)
	}
}
