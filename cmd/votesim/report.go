package main

// This file holds what a person reads: the header, the daily front pages,
// the summary with its verdict, the progress bar and the CSV of ranks.

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

func printHeader(w io.Writer, c Config, p plan, where string) {
	spread := "at random times"
	if c.EvenSpread {
		spread = "evenly spaced"
	}
	fmt.Fprintf(w, "votesim: %d days of %d articles a day, %d of them interesting (%d up-votes each over its first day, %s)\n",
		c.Days, c.PerDay, c.Interesting, c.InterestingVotes, spread)
	fmt.Fprintf(w, "         ordinary articles get 0-%.0f votes, %.0f%% of them down; W = %v; cutoff %v; seed %d\n",
		2*c.Background, 100*c.DownShare, c.Weight, c.Cutoff, c.Seed)
	fmt.Fprintf(w, "         %d posts and %d votes, the top %d read every %v, on %s\n",
		len(p.posts), len(p.votes), c.Top, c.Sample, where)
}

func printFront(w io.Writer, c Config, f frontPage, rows int) {
	if rows <= 0 {
		return
	}
	fmt.Fprintf(w, "\nFront page at the end of day %d (%s)\n", f.day, c.Start.Add(time.Duration(f.day)*day).Format("2006-01-02 15:04 MST"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tscore\tup\tdown\tage\t   title")
	for _, r := range f.rows {
		if r.rank > rows {
			break
		}
		a := r.article
		mark := " "
		if r.interesting {
			mark = "*"
		}
		fmt.Fprintf(tw, "%d\t%.0f\t%d\t%d\t%s\t %s %s\n", r.rank, a.RankingScore, a.Upvotes, a.Downvotes, hours(r.age), mark, a.Title)
	}
	tw.Flush()
}

// hours writes a duration as hours and minutes.
func hours(d time.Duration) string {
	d = d.Truncate(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func printSummary(w io.Writer, c Config, s summary, r *result, writeTrips, readTrips int64) {
	from, to := c.window()
	fmt.Fprintf(w, "\nSummary\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "  %s\t"+format+"\n", append([]any{label}, args...)...)
	}
	line("interesting articles watched", "%d (posted %s to %s, each watched for a day or more)", s.measured, hours(from), hours(to))
	if s.measured > 0 {
		line(fmt.Sprintf("stayed in the top %d for 24 h or more", c.Top), "%d of %d (%.0f%%)", s.stayed, s.measured, 100*float64(s.stayed)/float64(s.measured))
		line(fmt.Sprintf("time in the top %d, median / minimum", c.Top), "%s / %s", hours(s.median), hours(s.min))
	}
	line(fmt.Sprintf("ordinary articles ever in the top %d", c.Top), "%d of %d", s.ordinary, s.ordinaryAll)
	writes := r.posts + r.votes
	line("writes (posts and votes)", "%d in %v, %s/s with %d voting goroutines, %.2f round trips each",
		writes, r.writeTime.Round(time.Millisecond), perSecond(writes, r.writeTime), c.Workers, float64(writeTrips)/float64(max(writes, 1)))
	line("listings read", "%d in %v, %s/s, %.2f round trips each",
		r.listings, r.listTime.Round(time.Millisecond), perSecond(r.listings, r.listTime), float64(readTrips)/float64(max(r.listings, 1)))
	if r.closed > 0 {
		line("votes refused, voting closed", "%d", r.closed)
	}
	line("Redis round trips", "%d", writeTrips+readTrips)
	line("wall time", "%v", r.runTime.Round(time.Millisecond))
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, verdict(c, s))
}

func perSecond(n int, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(n)/d.Seconds(), 'f', 0, 64)
}

// verdict says plainly whether the book's claim held.
func verdict(c Config, s summary) string {
	claim := fmt.Sprintf("interesting articles stay in the top %d for at least a day", c.Top)
	switch {
	case s.measured == 0:
		return "No interesting article could be watched for a day: the claim (" + claim + ") was not tested."
	case s.stayed == s.measured:
		return fmt.Sprintf("The book's claim held: all %d watched interesting articles stayed in the top %d for at least a day.", s.measured, c.Top)
	}
	return fmt.Sprintf("The book's claim did NOT hold for these parameters: %d of %d interesting articles left the top %d in under a day (the shortest stay was %s).",
		s.measured-s.stayed, s.measured, c.Top, hours(s.min))
}

// progressBar draws the share done on a terminal.
func progressBar(w io.Writer, c Config) func(float64, time.Duration) {
	const width = 40
	last := -1
	return func(done float64, at time.Duration) {
		n := int(done * width)
		if n == last {
			return
		}
		last = n
		fmt.Fprintf(w, "\r[%s%s] %3.0f%%  day %d %s", strings.Repeat("#", n), strings.Repeat(".", width-n),
			100*done, 1+int(at/day), c.Start.Add(at).Format("15:04"))
	}
}

// writeCSV writes one row for each interesting article at each simulated
// hour: hour, article id, hours since posting, rank by score (empty before
// the article is posted).
func writeCSV(path string, c Config, p plan, r *result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	cw.Write([]string{"hour", "article", "title", "age_hours", "rank"})
	for h, ranks := range r.ranks {
		at := time.Duration(h+1) * time.Hour
		for i, a := range p.posts {
			if !a.interesting || a.at >= at {
				continue
			}
			cw.Write([]string{
				strconv.Itoa(h + 1), r.ids[i], a.title,
				strconv.FormatFloat((at - a.at).Hours(), 'f', 2, 64), strconv.Itoa(ranks[i]),
			})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
