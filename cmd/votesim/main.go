// Command votesim simulates a news site on the voting library and checks the
// claim of Redis in Action, chapter 1: with about 1,000 articles a day, the
// ~50 interesting ones that get at least 200 up-votes stay in the top 100 for
// at least a day, because a vote is worth 432 seconds.
//
// With no flags it runs on an embedded Redis (miniredis) with a simulated
// clock and needs nothing installed:
//
//	go run ./cmd/votesim
//
// With -redis it runs the same simulation on a real server, under a fresh
// prefix of its own, and deletes that prefix's keys at the end unless -keep
// is given. It never flushes the server.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
	"github.com/gomodule/redigo/redis"
)

func main() {
	os.Exit(runMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags beyond the model's.
type options struct {
	redisAddr, password, prefix, csvPath string
	keep                                 bool
	front                                int
}

func parseFlags(args []string, stderr io.Writer) (Config, options, error) {
	c := Config{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var o options
	var groups string
	fs := flag.NewFlagSet("votesim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: votesim [flags]\n\nSimulates a news site on the voting library and checks whether the interesting\narticles stay in the top 100 for a day, as Redis in Action claims.\n\n")
		fs.PrintDefaults()
	}
	fs.IntVar(&c.Days, "days", 3, "days of posting to simulate")
	fs.IntVar(&c.PerDay, "per-day", 1000, "articles posted a day")
	fs.IntVar(&c.Interesting, "interesting", 50, "interesting articles a day")
	fs.IntVar(&c.InterestingVotes, "votes", 200, "up-votes an interesting article gets, spread over its first day")
	fs.BoolVar(&c.EvenSpread, "even", false, "space an interesting article's votes evenly over its first day instead of at random times")
	fs.Float64Var(&c.Background, "background", 3, "mean votes an ordinary article gets (0 to twice this, mostly in its first hours)")
	fs.Float64Var(&c.DownShare, "down-share", 0.2, "share of ordinary articles' votes that are down-votes")
	fs.Float64Var(&c.Weight, "weight", voting.DefaultVoteWeight, "score per vote, in seconds")
	fs.DurationVar(&c.Cutoff, "cutoff", voting.DefaultCutoff, "how long after posting an article takes votes")
	fs.Uint64Var(&c.Seed, "seed", 1, "random seed; the same seed gives the same run")
	fs.StringVar(&groups, "groups", "news,tech,science,culture,sports", "comma-separated topics; each article is in one or two")
	fs.DurationVar(&c.Sample, "sample", 15*time.Minute, "how often the top is read (must divide a day)")
	fs.IntVar(&c.Top, "top", 100, "how many articles count as the top")
	fs.IntVar(&c.Workers, "workers", 8, "goroutines casting votes")
	fs.IntVar(&o.front, "front", 10, "rows of the front page to print at the end of each day")
	fs.StringVar(&o.redisAddr, "redis", "", "address of a real Redis `host:port` (default: embedded miniredis)")
	fs.StringVar(&o.password, "password", "", "password for -redis")
	fs.StringVar(&o.prefix, "prefix", "", "key prefix (default: none on miniredis, a fresh votesim:<random>: on -redis)")
	fs.BoolVar(&o.keep, "keep", false, "keep the simulation's keys on -redis")
	fs.StringVar(&o.csvPath, "csv", "", "write every interesting article's rank at each simulated hour to this CSV `file`")
	if err := fs.Parse(args); err != nil {
		return c, o, err
	}
	if fs.NArg() > 0 {
		return c, o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	for _, g := range strings.Split(groups, ",") {
		if g = strings.TrimSpace(g); g != "" {
			c.Groups = append(c.Groups, g)
		}
	}
	if err := c.check(); err != nil {
		return c, o, err
	}
	return c, o, nil
}

// runMain is the whole command, with its streams given, for tests.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "votesim:", err)
		return 2
	}
	if err := simulate(ctx, c, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "votesim:", err)
		return 1
	}
	return 0
}

// backend is where a run's Redis is.
type backend struct {
	pool     *redis.Pool
	where    string
	advance  func(time.Duration)
	groupTTL time.Duration
	cleanup  func() error
}

func connect(ctx context.Context, o *options, clock *simClock) (*backend, error) {
	if o.redisAddr == "" {
		mr := miniredis.NewMiniRedis()
		if err := mr.Start(); err != nil {
			return nil, err
		}
		mr.SetTime(clock.now())
		return &backend{
			pool:  newPool(mr.Addr(), ""),
			where: "embedded Redis (miniredis)",
			advance: func(d time.Duration) {
				mr.FastForward(d)
				mr.SetTime(clock.now())
			},
			groupTTL: voting.DefaultGroupCacheTTL,
			cleanup:  func() error { mr.Close(); return nil },
		}, nil
	}
	if o.prefix == "" {
		b := make([]byte, 4)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		o.prefix = "votesim:" + hex.EncodeToString(b) + ":"
	}
	pool := newPool(o.redisAddr, o.password)
	c, err := pool.GetContext(ctx)
	if err == nil {
		_, err = c.Do("PING")
		c.Close()
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("redis at %s: %w", o.redisAddr, err)
	}
	b := &backend{
		pool:  pool,
		where: fmt.Sprintf("Redis at %s under prefix %q", o.redisAddr, o.prefix),
		// The server's TTLs run on its own clock, far slower than the
		// simulation's, so group listings are built fresh each time.
		groupTTL: 0,
		cleanup:  func() error { return pool.Close() },
	}
	if !o.keep {
		prefix := o.prefix
		b.cleanup = func() error {
			err := deletePrefix(pool, prefix)
			return errors.Join(err, pool.Close())
		}
	}
	return b, nil
}

func newPool(addr, password string) *redis.Pool {
	return &redis.Pool{
		MaxIdle:     32,
		IdleTimeout: time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr, redis.DialPassword(password))
		},
	}
}

// deletePrefix deletes every key under prefix.
func deletePrefix(pool *redis.Pool, prefix string) error {
	c := pool.Get()
	defer c.Close()
	cursor := "0"
	for {
		reply, err := redis.Values(c.Do("SCAN", cursor, "MATCH", prefix+"*", "COUNT", 1000))
		if err != nil {
			return fmt.Errorf("clean up %s*: %w", prefix, err)
		}
		cursor, _ = redis.String(reply[0], nil)
		keys, _ := redis.Strings(reply[1], nil)
		if len(keys) > 0 {
			args := make([]any, len(keys))
			for i, k := range keys {
				args[i] = k
			}
			if _, err := c.Do("UNLINK", args...); err != nil {
				return fmt.Errorf("clean up %s*: %w", prefix, err)
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}

func simulate(ctx context.Context, c Config, o options, stdout, stderr io.Writer) (err error) {
	clock := &simClock{start: c.Start}
	b, err := connect(ctx, &o, clock)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.cleanup()) }()

	writes, reads := roundtrip.New(b.pool), roundtrip.New(b.pool)
	open := func(p voting.Pool, pageSize int) (*voting.Store, error) {
		return voting.New(p, voting.WithPrefix(o.prefix), voting.WithVoteWeight(c.Weight),
			voting.WithCutoff(c.Cutoff), voting.WithPageSize(pageSize),
			voting.WithGroupCacheTTL(b.groupTTL), voting.WithClock(clock.now))
	}
	var s stores
	if s.write, err = open(writes, voting.DefaultPageSize); err != nil {
		return err
	}
	if s.site, err = open(reads, voting.DefaultPageSize); err != nil {
		return err
	}
	if s.top, err = open(reads, c.Top); err != nil {
		return err
	}
	if s.all, err = open(reads, voting.MaxPageSize); err != nil {
		return err
	}
	// Each Store reads the namespace's settings on its first call (the
	// first writes them): read them now, so that the counts of round trips
	// are those of the simulation's calls.
	for _, st := range []*voting.Store{s.write, s.site, s.top, s.all} {
		if _, err := st.Settings(ctx); err != nil {
			return err
		}
	}
	writes.Reset()
	reads.Reset()

	p := makePlan(c)
	printHeader(stdout, c, p, b.where)
	h := hooks{advance: b.advance}
	if isTerminal(stderr) {
		h.progress = progressBar(stderr, c)
	}
	r, err := run(ctx, c, p, s, clock, h, o.csvPath != "")
	if h.progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	for _, f := range r.fronts {
		printFront(stdout, c, f, o.front)
	}
	sum := summarize(c, p, r.samples)
	printSummary(stdout, c, sum, r, writes.Trips(), reads.Trips())
	if o.csvPath != "" {
		if err := writeCSV(o.csvPath, c, p, r); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nRanks of the interesting articles, hour by hour: %s\n", o.csvPath)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
