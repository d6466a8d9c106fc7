// Command pgcompare measures this library against PostgreSQL doing the same
// job as Lemmy does it, on the same data, side by side:
//
//	go run ./cmd/pgcompare                  # 100k posts, 1M votes, servers of its own
//	go run ./cmd/pgcompare -posts 2000 -votes 20000 -rounds 2 -duration 500ms
//	go run ./cmd/pgcompare -redis 127.0.0.1:6379 -postgres 'postgres://u@host/db'
//
// Run it from the repository's root or from cmd/pgcompare. Without -redis it
// starts a private redis-server on a free loopback port, with no persistence;
// without -postgres it makes a throwaway PostgreSQL cluster (initdb, as the
// user nobody when run as root) on a free loopback port with
// synchronous_commit=off, and removes it at exit, Ctrl-C included. On servers
// it is given, it works under the key prefix {bench}: and the schema
// pgcompare, refuses to start if they hold data (unless -reset), and removes
// them at exit.
//
// It generates -posts posts over the last six days and -votes distinct votes
// (four in five up) by -voters users, Zipf-skewed over the posts, from -seed;
// loads them through the library's PostArticle and Vote, concurrently, and
// into Postgres with COPY, under the same article ids; and checks that both
// front pages (top by net votes, page 1) start with the same article with
// the same counts, which the generator's own counts confirm, failing if not.
//
// Postgres has Lemmy's schema: post (score, upvotes, downvotes, published,
// hot_rank) and post_like (primary key (post_id, person)); a vote is one
// statement that upserts the like and moves the post's counts and hot rank
// in the same transaction; indexes serve each listing. The library's Store
// keeps ByVotes and ByHot. Like is measured with like: "top" is the library's
// ByVotes against score desc, "new" ByTime against published desc, "hot"
// ByHot against hot_rank desc, Reddit's formula on both sides.
//
// Each operation (a vote; page 1 of top, new and hot, 25 full articles; a
// deep page of top; an article's rank in top) runs at each -clients count
// on each side for -duration, in -rounds rounds whose order rotates, so
// that a drift in the machine's load hits both sides alike. It prints a
// Markdown table of the median ops/s of each side and the ratio library /
// Postgres per round (median and range), and per operation, from a counted
// sequential run: the Redis commands the library sends and Redis runs
// (scripts' commands included, from INFO commandstats), round trips
// (client writes that follow a read, on both sides' sockets), Go
// allocations and client CPU per operation on both sides; and the memory
// each holds for the data: Redis's used_memory against pg_total_relation_size
// of both tables with their indexes, per post and per vote.
//
// Its tests need no server, but TestRunSmall, which runs the whole program
// at a tiny scale on servers of its own when PGCOMPARE_SERVERS=1 is set.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcompare:", err)
		os.Exit(1)
	}
}

// config is the command's flags.
type config struct {
	redisAddr, postgresDSN, pgBin string
	posts, votes, voters          int
	clients                       []int
	rounds                        int
	duration                      time.Duration
	seed                          uint64
	loaders, counted              int
	reset                         bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	c := config{clients: []int{1, 16}}
	fs := flag.NewFlagSet("pgcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.redisAddr, "redis", "", "a running Redis `host:port` (default: start a private redis-server)")
	fs.StringVar(&c.postgresDSN, "postgres", "", "a running PostgreSQL's `DSN` (default: start a throwaway cluster)")
	fs.StringVar(&c.pgBin, "pgbin", "", "the `directory` of initdb and pg_ctl (default: PATH, then /usr/lib/postgresql/*/bin)")
	fs.IntVar(&c.posts, "posts", 100_000, "posts to load")
	fs.IntVar(&c.votes, "votes", 1_000_000, "distinct votes to load, Zipf-skewed over the posts")
	fs.IntVar(&c.voters, "voters", 100_000, "users who cast them, drawn uniformly")
	fs.Func("clients", "comma-separated `counts` of concurrent clients (default 1,16)", func(s string) error {
		var err error
		c.clients, err = parseClients(s)
		return err
	})
	fs.IntVar(&c.rounds, "rounds", 5, "rounds, each running every operation at every client count on both sides")
	fs.DurationVar(&c.duration, "duration", 2*time.Second, "how long each operation runs on a side in a round")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the generated data")
	fs.IntVar(&c.loaders, "load-clients", 16, "concurrent clients that load the library")
	fs.IntVar(&c.counted, "count", 300, "operations in each counted run (commands, round trips, allocations, CPU)")
	fs.BoolVar(&c.reset, "reset", false, "delete what an earlier run left under {bench}: and in schema pgcompare first")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.posts < 2 || c.posts > 1<<31-1:
		return c, fmt.Errorf("-posts must be at least 2")
	case c.voters < 1 || c.voters > 1<<31-1:
		return c, fmt.Errorf("-voters must be positive")
	case c.votes < 0 || int64(c.votes) > int64(c.posts)*int64(c.voters)/2:
		return c, fmt.Errorf("-votes must be from 0 to half of -posts x -voters, the distinct votes there can be")
	case c.rounds < 1 || c.duration <= 0 || c.loaders < 1 || c.counted < 1:
		return c, fmt.Errorf("-rounds, -duration, -load-clients and -count must be positive")
	}
	return c, nil
}

// maxClients bounds -clients: each client holds a connection to each
// server, and Postgres allows a hundred by default.
const maxClients = 64

// parseClients reads a comma-separated list of distinct client counts,
// as -clients takes it: "1,16".
func parseClients(s string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxClients {
			return nil, fmt.Errorf("client count %q: want a number from 1 to %d", f, maxClients)
		}
		if slices.Contains(counts, n) {
			return nil, fmt.Errorf("client count %d given twice", n)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	started := time.Now()
	// Every clean-up runs, in reverse, whatever ends the run: an error, the
	// end, or Ctrl-C, which cancels ctx.
	var cleanups []func() error
	defer func() {
		for _, f := range slices.Backward(cleanups) {
			if cerr := f(); cerr != nil {
				fmt.Fprintln(stderr, "pgcompare: clean-up:", cerr)
			}
		}
	}()

	givenRedis, givenPostgres := c.redisAddr != "", c.postgresDSN != ""
	if !givenRedis {
		addr, stop, err := startRedis(ctx)
		if err != nil {
			return err
		}
		cleanups = append(cleanups, stop)
		c.redisAddr = addr
		logf("started redis-server on %s", addr)
	}
	if !givenPostgres {
		dsn, stop, err := startPostgres(ctx, c.pgBin)
		if err != nil {
			return err
		}
		cleanups = append(cleanups, stop)
		c.postgresDSN = dsn
		logf("started a PostgreSQL cluster: %s", dsn)
	}
	users := slices.Max(c.clients) + 1 // the last is the counted runs' user
	lib, err := openLibrary(ctx, c.redisAddr, users+c.loaders, givenRedis, c.reset)
	if err != nil {
		return err
	}
	cleanups = append(cleanups, lib.close)
	pg, err := openPostgres(ctx, c.postgresDSN, users+2, givenPostgres, c.reset)
	if err != nil {
		return err
	}
	cleanups = append(cleanups, pg.close)

	logf("generating %d posts and %d votes by %d voters (seed %d)", c.posts, c.votes, c.voters, c.seed)
	d, err := generate(c.seed, c.posts, c.votes, c.voters, time.Now())
	if err != nil {
		return err
	}
	t := time.Now()
	if err := lib.load(ctx, d, c.loaders, logf); err != nil {
		return fmt.Errorf("load the library: %w", err)
	}
	libLoad := time.Since(t)
	tg, err := newTargets(d, lib.ids, users)
	if err != nil {
		return err
	}
	t = time.Now()
	if err := pg.load(ctx, d, tg.pgIDs); err != nil {
		return fmt.Errorf("load Postgres: %w", err)
	}
	pgLoad := time.Since(t)
	logf("loaded: the library in %v, Postgres in %v", libLoad.Round(time.Second/10), pgLoad.Round(time.Second/10))
	same, err := checkFrontPages(ctx, d, lib, pg)
	if err != nil {
		return err
	}
	logf("%s", same)

	b, err := newBench(ctx, lib, pg, tg)
	if err != nil {
		return err
	}
	cleanups = append(cleanups, b.close)
	r := report{
		clients: c.clients,
		deep:    tg.deep,
		mem:     memory{redisPosts: lib.memPosts, redisVotes: lib.memVotes, pgPost: pg.sizePost, pgLike: pg.sizeLike, posts: d.posts, votes: len(d.votes)},
	}
	if err := b.measure(ctx, c, &r, logf); err != nil {
		return err
	}
	r.header = []string{
		"`" + strings.Join(append([]string{"go run ./cmd/pgcompare"}, args...), " ") + "`",
		"",
		fmt.Sprintf("%d posts, %d votes by %d voters (Zipf s=%v v=%v, seed %d); %s.", d.posts, len(d.votes), c.voters, zipfS, zipfV, c.seed, same),
		fmt.Sprintf("%d rounds of %v per operation, client count and side, in rotating order; %d operations a counted run.", c.rounds, c.duration, c.counted),
		fmt.Sprintf("Redis %s (%s); PostgreSQL %s (%s, synchronous_commit=off); Go %s, %d CPUs; %s.",
			lib.version, c.redisAddr, pg.version, pg.where, runtime.Version(), runtime.NumCPU(), time.Now().Format("2006-01-02")),
		fmt.Sprintf("Loaded the library in %v (%d clients), Postgres in %v (COPY, then indexes); whole run %v.",
			libLoad.Round(time.Second/10), c.loaders, pgLoad.Round(time.Second/10), time.Since(started).Round(time.Second)),
	}
	if givenRedis {
		r.header = append(r.header, "Redis was given, not started: commands run count any other client's too, and used_memory any other data's.")
	}
	writeReport(stdout, r)
	return nil
}
