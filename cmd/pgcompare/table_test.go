package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestWriteReport(t *testing.T) {
	r := report{
		header:  []string{"1000 posts."},
		clients: []int{1, 16},
		deep:    200,
		mem:     memory{redisPosts: 50_000_000, redisVotes: 100_000_000, pgPost: 30_000_000, pgLike: 110_000_000, posts: 100_000, votes: 1_000_000},
	}
	for k := range numOps {
		r.rates[k] = [][2][]float64{
			{{100, 200, 300}, {100, 100, 100}},
			{{1000, 1500}, {2000, 1000}},
		}
		r.costs[k] = [2]cost{{sent: 26, run: 26, trips: 2, allocs: 520.04, cpu: 80 * time.Microsecond}, {trips: 1, allocs: 137.46, cpu: 38400 * time.Nanosecond}}
	}
	var b bytes.Buffer
	writeReport(&b, r)
	out := b.String()
	for _, want := range []string{
		"1000 posts.\n\n| operation | clients | library ops/s | Postgres ops/s |",
		"| vote | 1 | 200 | 100 | 2.00 (1.00–3.00) | 26 / 26 | 2 / 1 | 520 / 137.5 | 80 / 38 |\n| vote | 16 | 1250 | 1500 | 1.00 (0.50–1.50) |  |  |  |  |\n",
		"| top, page 200 | 1 |",
		"| an article's rank in top | 16 |",
		// Postgres's posts: post, and 100k of the 1.1M likes.
		"| library: Redis used_memory | 50.0 MB | 100.0 MB | 150.0 MB | 500 B | 100 B |",
		"| Postgres: post and post_like, with indexes | 40.0 MB | 100.0 MB | 140.0 MB | 400 B | 100 B |",
		"| library / Postgres | 1.25 | 1.00 | 1.07 | | |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n| "); n != 2+2*int(numOps)+5 {
		t.Errorf("%d table lines, want %d:\n%s", n, 2+2*int(numOps)+5, out)
	}
}

func TestCells(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{count(2), "2"}, {count(2.04), "2"}, {count(12.8), "12.8"}, {count(0.5), "0.5"},
		{ratioCell(nil), "n/a"}, {ratioCell([]float64{0.6, 0.7, 0.5}), "0.60 (0.50–0.70)"},
		{micros(0), "n/a"}, {micros(1500 * time.Nanosecond), "2"},
		{per(1000, 0), "n/a"}, {quotient(1, 0), "n/a"}, {mb(1_250_000), "1.2 MB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
