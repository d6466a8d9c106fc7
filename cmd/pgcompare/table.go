package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// A report is what a run measured.
type report struct {
	header  []string // lines above the tables: the data, the machine, the check
	clients []int
	deep    int // the deep page of top
	// rates are the ops/s of each round, by operation, client count (as
	// clients lists them) and side.
	rates [numOps][][2][]float64
	costs [numOps][2]cost
	mem   memory
}

// A cost is what one call of an operation takes, on one side.
type cost struct {
	sent, run float64 // Redis commands the library sends, and Redis runs (scripts' included)
	trips     float64 // round trips
	allocs    float64 // Go allocations
	cpu       time.Duration
}

// memory is what the stores hold for the data after the load.
type memory struct {
	redisPosts, redisVotes int64 // used_memory's growth from the posts, then the votes
	pgPost, pgLike         int64 // pg_total_relation_size of post and of post_like
	posts, votes           int
}

// pgSplit divides Postgres's bytes between the posts and the votes as
// Redis's are: post, and the posters' own likes' share of post_like (a
// post's own up-vote is part of posting it, in the library too), for the
// posts; the rest of post_like for the votes.
func (m memory) pgSplit() (posts, votes int64) {
	rows := int64(m.posts + m.votes)
	own := m.pgLike * int64(m.posts) / rows
	return m.pgPost + own, m.pgLike - own
}

// writeReport writes r as Markdown: the header, the table of operations,
// and the table of memory.
func writeReport(w io.Writer, r report) {
	for _, h := range r.header {
		fmt.Fprintln(w, h)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| operation | clients | library ops/s | Postgres ops/s | library / Postgres, median (range) | Redis commands a call, sent / run | round trips, library / Postgres | allocations, library / Postgres | client CPU µs, library / Postgres |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for k := range numOps {
		for ci, n := range r.clients {
			lib, pg := r.rates[k][ci][libSide], r.rates[k][ci][pgSide]
			rs := ratios(lib, pg)
			row := []string{opKind(k).name(r.deep), fmt.Sprint(n), fmt.Sprintf("%.0f", median(lib)), fmt.Sprintf("%.0f", median(pg)), ratioCell(rs)}
			if ci == 0 {
				l, p := r.costs[k][libSide], r.costs[k][pgSide]
				row = append(row, count(l.sent)+" / "+count(l.run), count(l.trips)+" / "+count(p.trips),
					count(l.allocs)+" / "+count(p.allocs), micros(l.cpu)+" / "+micros(p.cpu))
			} else {
				row = append(row, "", "", "", "")
			}
			fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
		}
	}
	fmt.Fprintln(w)
	m := r.mem
	pgPosts, pgVotes := m.pgSplit()
	libTotal, pgTotal := m.redisPosts+m.redisVotes, m.pgPost+m.pgLike
	fmt.Fprintln(w, "| memory after the load | for the posts | for the votes | total | a post | a vote |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
	fmt.Fprintf(w, "| library: Redis used_memory | %s | %s | %s | %s | %s |\n", mb(m.redisPosts), mb(m.redisVotes), mb(libTotal),
		per(m.redisPosts, m.posts), per(m.redisVotes, m.votes))
	fmt.Fprintf(w, "| Postgres: post and post_like, with indexes | %s | %s | %s | %s | %s |\n", mb(pgPosts), mb(pgVotes), mb(pgTotal),
		per(pgPosts, m.posts), per(pgVotes, m.votes))
	fmt.Fprintf(w, "| library / Postgres | %s | %s | %s | | |\n", quotient(m.redisPosts, pgPosts), quotient(m.redisVotes, pgVotes), quotient(libTotal, pgTotal))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands sent are those the library's Store gives redigo; run, those INFO commandstats counts, each script's commands among them. "+
		"A round trip is a client write that follows a read. Allocations and client CPU are this process's over sequential calls, "+
		"GC included. Postgres's post_like holds the posters' own likes too: their share is counted with the posts, as the library counts a poster's "+
		"own up-vote in posting. MB are 10^6 bytes; a post's and a vote's bytes are the columns before divided by their numbers.")
}

// ratioCell writes ratios as their median and range.
func ratioCell(rs []float64) string {
	if len(rs) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", median(rs), slices.Min(rs), slices.Max(rs))
}

// count writes a number of things a call: whole where it is within
// rounding of whole, else to a tenth.
func count(x float64) string {
	if math.Abs(x-math.Round(x)) < 0.05 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

func micros(d time.Duration) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond))
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func per(n int64, things int) string {
	if things == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f B", float64(n)/float64(things))
}

func quotient(a, b int64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
