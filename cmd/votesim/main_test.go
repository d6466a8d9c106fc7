package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// small is a run small enough for a test that still has every part: three
// days, interesting articles, background and down-votes, groups, and a
// cutoff short enough to refuse some votes.
func small() Config {
	return Config{
		Days: 3, PerDay: 60, Interesting: 6, InterestingVotes: 40,
		Background: 2, DownShare: 0.3, Weight: 86400.0 / 40, Cutoff: 20 * time.Hour,
		Seed: 7, Groups: []string{"news", "tech"}, Sample: 30 * time.Minute, Top: 20, Workers: 4,
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

// model plays a plan in memory, with no Redis, by the book's rules: the
// score is the posting time plus W for each net vote, a user holds one vote
// per article, votes cast at or after the cutoff are refused, and the top
// is the highest scores, ties broken by member name, highest first, as
// ZREVRANGE does. It returns how many samples each post was in the top.
func model(c Config, p plan) (samples []int, closed int) {
	samples = make([]int, len(p.posts))
	score := make([]int64, len(p.posts))
	held := map[[2]string]voting.Direction{}
	member := func(i int) string { return "article:" + strconv.Itoa(i+1) }
	w := int64(c.Weight)
	posted, voted := 0, 0
	for at := c.Sample; at <= c.end(); at += c.Sample {
		for ; posted < len(p.posts) && p.posts[posted].at < at; posted++ {
			score[posted] = int64(p.posts[posted].at/time.Second) + int64(c.Start.Unix()) + w
			held[[2]string{strconv.Itoa(posted), p.posts[posted].poster}] = voting.Up
		}
		for ; voted < len(p.votes) && p.votes[voted].at < at; voted++ {
			v := p.votes[voted]
			if at >= p.posts[v.post].at+c.Cutoff {
				closed++
				continue
			}
			key := [2]string{strconv.Itoa(v.post), v.user}
			score[v.post] += w * (value(v.dir) - value(held[key]))
			held[key] = v.dir
		}
		order := make([]int, posted)
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool {
			i, j := order[a], order[b]
			if score[i] != score[j] {
				return score[i] > score[j]
			}
			return member(i) > member(j)
		})
		for _, i := range order[:min(c.Top, len(order))] {
			samples[i]++
		}
	}
	return samples, closed
}

func value(d voting.Direction) int64 {
	switch d {
	case voting.Up:
		return 1
	case voting.Down:
		return -1
	}
	return 0
}

// runOnMiniredis runs c through the library on a fresh miniredis.
func runOnMiniredis(t *testing.T, c Config, ranks bool) (plan, *result) {
	t.Helper()
	mr := miniredis.RunT(t)
	clock := &simClock{start: c.Start}
	mr.SetTime(clock.now())
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }}
	t.Cleanup(func() { pool.Close() })
	open := func(pageSize int) *voting.Store {
		s, err := voting.New(pool, voting.WithVoteWeight(c.Weight), voting.WithCutoff(c.Cutoff),
			voting.WithPageSize(pageSize), voting.WithClock(clock.now))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := stores{write: open(25), site: open(25), top: open(c.Top), all: open(voting.MaxPageSize)}
	p := makePlan(c)
	h := hooks{advance: func(d time.Duration) { mr.FastForward(d); mr.SetTime(clock.now()) }}
	r, err := run(context.Background(), c, p, s, clock, h, ranks)
	if err != nil {
		t.Fatal(err)
	}
	return p, r
}

func TestRunAgreesWithTheModel(t *testing.T) {
	for _, even := range []bool{false, true} {
		c := small()
		c.EvenSpread = even
		p, r := runOnMiniredis(t, c, false)
		want, closed := model(c, p)
		if !reflect.DeepEqual(r.samples, want) {
			for i := range want {
				if r.samples[i] != want[i] {
					t.Errorf("even=%v: post %d (%q at %v) was in the top %d times, the model says %d",
						even, i, p.posts[i].title, p.posts[i].at, r.samples[i], want[i])
				}
			}
		}
		if r.closed != closed || closed == 0 {
			t.Errorf("even=%v: %d votes refused, the model says %d (and some should be)", even, r.closed, closed)
		}
		if r.posts != 3*60 || r.votes != len(p.votes) {
			t.Errorf("even=%v: %d posts and %d votes, want %d and %d", even, r.posts, r.votes, 180, len(p.votes))
		}
		if got, wantSum := summarize(c, p, r.samples), summarize(c, p, want); got != wantSum {
			t.Errorf("even=%v: summary %+v, the model's %+v", even, got, wantSum)
		}
	}
}

func TestPlanFollowsTheParameters(t *testing.T) {
	c := small()
	p := makePlan(c)
	if again := makePlan(c); !reflect.DeepEqual(p, again) {
		t.Fatal("the same seed gave two plans")
	}
	c2 := c
	c2.Seed++
	if other := makePlan(c2); reflect.DeepEqual(p.votes, other.votes) {
		t.Error("another seed gave the same votes")
	}
	interesting, upvotes := 0, map[int]int{}
	for i, a := range p.posts {
		if day := int(a.at / day); a.at < 0 || day >= c.Days {
			t.Errorf("post %d at %v is outside the run", i, a.at)
		}
		if i > 0 && a.at < p.posts[i-1].at {
			t.Errorf("post %d is out of order", i)
		}
		if len(a.groups) < 1 || len(a.groups) > 2 {
			t.Errorf("post %d is in %d groups", i, len(a.groups))
		}
		if a.interesting {
			interesting++
		}
	}
	if interesting != c.Days*c.Interesting {
		t.Errorf("%d interesting posts, want %d", interesting, c.Days*c.Interesting)
	}
	for _, v := range p.votes {
		a := p.posts[v.post]
		if v.at <= a.at || v.at >= a.at+day || v.at >= c.end() {
			t.Errorf("vote at %v on a post of %v is outside its first day or the run", v.at, a.at)
		}
		if a.interesting {
			if v.dir != voting.Up {
				t.Errorf("interesting post %d got a %v vote", v.post, v.dir)
			}
			upvotes[v.post]++
		}
	}
	for i, a := range p.posts {
		if a.interesting && a.at+day <= c.end() && upvotes[i] != c.InterestingVotes {
			t.Errorf("interesting post %d got %d votes, want %d", i, upvotes[i], c.InterestingVotes)
		}
	}
}

// With every vote evenly spaced and no background votes, an interesting
// article's score stays at the current time + W through its first day and
// the top is easy to work out by hand.
func TestEvenSpreadHoldsTheClaim(t *testing.T) {
	c := small()
	c.EvenSpread, c.Background, c.Cutoff = true, 0, 7*day
	p, r := runOnMiniredis(t, c, false)
	s := summarize(c, p, r.samples)
	if s.measured != 6 || s.stayed != 6 {
		t.Errorf("summary %+v: want all 6 watched articles to stay a day", s)
	}
	if !strings.Contains(verdict(c, s), "held") || strings.Contains(verdict(c, s), "NOT") {
		t.Errorf("verdict %q", verdict(c, s))
	}
}

func TestMainEndToEnd(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "ranks.csv")
	args := []string{"-days", "2", "-per-day", "40", "-interesting", "4", "-votes", "20", "-weight", "4320",
		"-top", "10", "-sample", "1h", "-front", "3", "-seed", "3", "-csv", csvPath}
	if addr := os.Getenv("VOTING_REDIS_ADDR"); addr != "" {
		args = append(args, "-redis", addr)
	}
	var stdout, stderr bytes.Buffer
	if code := runMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"votesim: 2 days of 40 articles a day, 4 of them interesting",
		"Front page at the end of day 1 (2026-01-02 00:00 UTC)",
		"Front page at the end of day 2 (2026-01-03 00:00 UTC)",
		"interesting articles watched           4 (posted 0h00m to 24h00m",
		"2.00 round trips each",
		"The book's claim",
		"Ranks of the interesting articles, hour by hour: " + csvPath,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A write is one round trip; the first use of each script, by each
	// goroutine that races to it, sends the script too.
	m := regexp.MustCompile(`writes \(posts and votes\) .* ([0-9.]+) round trips each`).FindStringSubmatch(out)
	if m == nil {
		t.Errorf("no round trips per write in:\n%s", out)
	} else if perWrite, _ := strconv.ParseFloat(m[1], 64); perWrite < 1 || perWrite > 1.05 {
		t.Errorf("%v round trips per write, want 1 (and a few script loads)", perWrite)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr (no terminal, so no progress bar): %q", stderr.String())
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(records[0], []string{"hour", "article", "title", "age_hours", "rank"}) {
		t.Errorf("CSV header %v", records[0])
	}
	for _, rec := range records[1:] {
		hour, _ := strconv.Atoi(rec[0])
		rank, err := strconv.Atoi(rec[4])
		if hour < 1 || hour > 48 || err != nil || rank < 1 || rank > 80 || !strings.HasPrefix(rec[2], "Interesting story") {
			t.Errorf("CSV row %v", rec)
		}
	}
	if len(records) < 40 {
		t.Errorf("CSV has %d rows, want one per interesting article per hour", len(records))
	}
}

func TestMainRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-days", "1"},
		{"-interesting", "2000"},
		{"-sample", "7m"},
		{"-down-share", "1.5"},
		{"-nosuchflag"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := runMain(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if stderr.Len() == 0 {
			t.Errorf("%v: nothing said on stderr", args)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runMain(context.Background(), []string{"-redis", "127.0.0.1:1"}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "redis at 127.0.0.1:1") {
		t.Errorf("unreachable server: exit %d, stderr %q", code, stderr.String())
	}
}
