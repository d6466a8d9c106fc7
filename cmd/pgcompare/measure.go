package main

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
	"github.com/jackc/pgx/v5/pgxpool"
)

// An opKind is one measured operation.
type opKind int

const (
	opVote opKind = iota // a vote that changes the user's vote: new, or a switch
	opTop                // page 1 of top (net votes), 25 full articles
	opNew                // page 1 of new
	opHot                // page 1 of hot
	opDeep               // a deep page of top: 200, or the last
	opRank               // an article's rank in top, drawn uniformly
	// The library with its client-side cache (WithClientCache), Postgres
	// as above.
	opTopCached // page 1 of top
	opNewCached // page 1 of new
	opHotCached // page 1 of hot
	opMixed100  // page 1 of top, every 100th call a vote instead
	opMixed10   // page 1 of top, every 10th call a vote instead
	numOps
)

// name is the operation's name in the table, with the deep page's number.
func (k opKind) name(deep int) string {
	return [numOps]string{"vote", "top, page 1", "new, page 1", "hot, page 1",
		fmt.Sprintf("top, page %d", deep), "an article's rank in top",
		"top, page 1, client cache", "new, page 1, client cache", "hot, page 1, client cache",
		"top, page 1, a vote every 100th call, client cache", "top, page 1, a vote every 10th call, client cache"}[k]
}

// mixedVoter is the suffix of the voters' names of the mixed operation
// that votes on every every-th call: each mixed operation's voters are
// their own, so that their votes and vote's never meet.
func mixedVoter(every int) string { return fmt.Sprintf("-every%d", every) }

// mixed is the operation that calls vote on every every-th call and page
// otherwise; the votes count on from 0, apart from vote's own.
func mixed(every int, vote, page doFunc) doFunc {
	return func(ctx context.Context, client, i int) error {
		if i%every == every-1 {
			return vote(ctx, client, i/every)
		}
		return page(ctx, client, i)
	}
}

// A side is the library's or Postgres's.
type side int

const (
	libSide side = iota
	pgSide
)

func (s side) String() string { return [2]string{"the library", "Postgres"}[s] }

// A doFunc is an operation as a client calls it: its i-th call, i counting
// on from run to run.
type doFunc func(ctx context.Context, client, i int) error

// parallel runs do for 0 to n-1 on workers goroutines, each calling it
// with its number, and returns the first error, after which no call starts.
func parallel(ctx context.Context, n, workers int, do func(ctx context.Context, worker, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := do(ctx, w, i); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// traffic counts round trips across the connections it dials: a write
// that follows a read, or opens the connection, starts one. Both
// protocols here answer each request before the client sends the next
// (a pipeline is one write), so this counts the waits for the server.
type traffic struct{ trips atomic.Int64 }

func (t *traffic) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc := &tripConn{Conn: c, t: t}
	tc.read.Store(true)
	return tc, nil
}

type tripConn struct {
	net.Conn
	t    *traffic
	read atomic.Bool // the last I/O was a read
}

func (c *tripConn) Write(b []byte) (int, error) {
	if c.read.Swap(false) {
		c.t.trips.Add(1)
	}
	return c.Conn.Write(b)
}

func (c *tripConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.read.Store(true)
	}
	return n, err
}

// A bench runs the operations on both sides.
type bench struct {
	// ops are on the plain clients, for the timed and allocation runs;
	// counted are the same on counting clients, for the commands and
	// round trips.
	ops, counted [numOps][2]doFunc
	// next is each client's next call of each operation on each side, so
	// that a client's votes keep alternating from run to run.
	next  [numOps][2][]int
	users int
	deep  int // the deep page's number, for messages
	lib   *library
	// sent counts the commands the counting Store sends; libTrips and
	// pgTrips the round trips of the counting clients.
	sent              atomic.Int64
	libTrips, pgTrips traffic
	redisPool         *redis.Pool
	pgPool            *pgxpool.Pool
	// cached and countedCached are Stores with a client-side cache, on the
	// plain pool and on the counting one.
	cached, countedCached *voting.Store
}

func newBench(ctx context.Context, lib *library, pg *postgres, t *targets) (*bench, error) {
	b := &bench{users: len(t.users), deep: t.deep, lib: lib}
	b.redisPool = newRedisPool(lib.addr, 2, b.libTrips.dial)
	store, err := voting.New(commandPool{pool: b.redisPool, sent: &b.sent}, storeOptions()...)
	if err != nil {
		b.close()
		return nil, err
	}
	if b.pgPool, err = connectPostgres(ctx, pg.dsn, 2, b.pgTrips.dial); err != nil {
		b.close()
		return nil, err
	}
	for _, c := range []struct {
		s    **voting.Store
		pool voting.Pool
	}{{&b.cached, lib.pool}, {&b.countedCached, commandPool{pool: b.redisPool, sent: &b.sent}}} {
		if *c.s, err = voting.New(c.pool, storeOptions(voting.WithClientCache(cachePages))...); err == nil {
			err = awaitCache(ctx, *c.s, &b.sent)
		}
		if err != nil {
			b.close()
			return nil, err
		}
	}
	lo, po := libraryOps(lib.store, b.cached, t), postgresOps(pg.pool, t)
	lc, pc := libraryOps(store, b.countedCached, t), postgresOps(b.pgPool, t)
	for k := range numOps {
		b.ops[k] = [2]doFunc{lo[k], po[k]}
		b.counted[k] = [2]doFunc{lc[k], pc[k]}
		b.next[k] = [2][]int{make([]int, b.users), make([]int, b.users)}
	}
	return b, nil
}

// cachePages is the client-side cache's size: every page measured fits.
const cachePages = 64

// awaitCache waits until store's client-side cache serves a page read
// again, and so is subscribed: a read, then one that adds no command to
// those sent counts (sent counts the counting pool's, none on another
// pool, where the wait is one read more than it needs).
func awaitCache(ctx context.Context, store *voting.Store, sent *atomic.Int64) error {
	q := voting.Query{Order: voting.ByVotes, Paging: voting.Paging{Page: 1, Size: pageSize}}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, _, err := store.List(ctx, q); err != nil {
			return err
		}
		before := sent.Load()
		if _, _, err := store.List(ctx, q); err != nil {
			return err
		}
		if sent.Load() == before {
			return nil
		}
	}
	return fmt.Errorf("the client-side cache served no page within 10 s")
}

func (b *bench) close() error {
	for _, s := range []*voting.Store{b.cached, b.countedCached} {
		if s != nil {
			s.Close()
		}
	}
	b.redisPool.Close()
	if b.pgPool != nil {
		b.pgPool.Close()
	}
	return nil
}

// measure warms both sides up, runs the rounds and the counted runs, and
// fills r's rates and costs.
func (b *bench) measure(ctx context.Context, c config, r *report, logf func(string, ...any)) error {
	warm := max(c.duration/4, 100*time.Millisecond)
	logf("warming up: each operation on each side for %v at %d clients", warm, slices.Max(c.clients))
	for k := range numOps {
		for s := range 2 {
			if _, err := b.timed(ctx, opKind(k), side(s), slices.Max(c.clients), warm); err != nil {
				return err
			}
		}
	}
	nc := len(c.clients)
	for k := range numOps {
		r.rates[k] = make([][2][]float64, nc)
	}
	for round := range c.rounds {
		logf("round %d of %d", round+1, c.rounds)
		for _, st := range schedule(int(numOps)*nc, c.rounds, round) {
			k, ci := opKind(st.unit/nc), st.unit%nc
			rate, err := b.timed(ctx, k, st.side, c.clients[ci], c.duration)
			if err != nil {
				return err
			}
			r.rates[k][ci][st.side] = append(r.rates[k][ci][st.side], rate)
		}
	}
	logf("counted runs: %d calls of each operation on each side", c.counted)
	for k := range numOps {
		for s := range 2 {
			var err error
			if r.costs[k][s], err = b.cost(ctx, opKind(k), side(s), c.counted); err != nil {
				return err
			}
		}
	}
	return nil
}

// timed runs clients clients of k on s for d, and gives the calls a second.
func (b *bench) timed(ctx context.Context, k opKind, s side, clients int, d time.Duration) (float64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	do, next := b.ops[k][s], b.next[k][s]
	var calls atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for c := range clients {
		wg.Go(func() {
			i := next[c]
			defer func() { calls.Add(int64(i - next[c])); next[c] = i }()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if err := do(ctx, c, i); err != nil {
					cancel(err)
					return
				}
				i++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return 0, fmt.Errorf("%s on %s: %w", k.name(b.deep), s, err)
	}
	return float64(calls.Load()) / elapsed.Seconds(), nil
}

// cost measures k on s by n sequential calls of the counted runs' user:
// allocations and CPU on the plain clients, then commands and round
// trips on the counting ones.
func (b *bench) cost(ctx context.Context, k opKind, s side, n int) (cost, error) {
	client := b.users - 1
	next := b.next[k][s]
	calls := func(do doFunc, n int) error {
		for range n {
			if err := do(ctx, client, next[client]); err != nil {
				return fmt.Errorf("%s on %s: %w", k.name(b.deep), s, err)
			}
			next[client]++
		}
		return nil
	}
	var c cost
	var m0, m1 runtime.MemStats
	if err := calls(b.ops[k][s], 10); err != nil {
		return c, err
	}
	runtime.ReadMemStats(&m0)
	cpu0, cpuOK := cpuTime()
	if err := calls(b.ops[k][s], n); err != nil {
		return c, err
	}
	cpu1, _ := cpuTime()
	runtime.ReadMemStats(&m1)
	c.allocs = float64(m1.Mallocs-m0.Mallocs) / float64(n)
	if cpuOK {
		c.cpu = (cpu1 - cpu0) / time.Duration(n)
	}

	// Warm the counting clients (connections, prepared statements, loaded
	// scripts) first.
	if err := calls(b.counted[k][s], 10); err != nil {
		return c, err
	}
	trips := [2]*traffic{&b.libTrips, &b.pgTrips}[s]
	trips.trips.Store(0)
	b.sent.Store(0)
	var run0 int64
	if s == libSide {
		var err error
		if run0, err = b.lib.commandCalls(ctx); err != nil {
			return c, err
		}
	}
	if err := calls(b.counted[k][s], n); err != nil {
		return c, err
	}
	c.trips = float64(trips.trips.Load()) / float64(n)
	if s == libSide {
		run1, err := b.lib.commandCalls(ctx)
		if err != nil {
			return c, err
		}
		c.sent = float64(b.sent.Load()) / float64(n)
		c.run = float64(run1-run0-1) / float64(n) // less the first INFO
	}
	return c, nil
}

// A step of a round runs one unit (an operation at a client count) on one
// side.
type step struct {
	unit int
	side side
}

// schedule is round's order of units units, each on both sides in a row:
// the rounds start at units spread over the list, and odd rounds run
// Postgres first, so that a drift in the machine's load falls on both
// sides and on every operation alike.
func schedule(units, rounds, round int) []step {
	shift := round * units / rounds
	first := side(round % 2)
	steps := make([]step, 0, 2*units)
	for i := range units {
		u := (i + shift) % units
		steps = append(steps, step{u, first}, step{u, 1 - first})
	}
	return steps
}

// median is the middle of xs, or the mean of the middle two; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratios are a[i] / b[i], for the rounds both have.
func ratios(a, b []float64) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}
