package voting_test

// Tests of reliability defects: calls that outlive their deadline, votes
// counted twice at the cutoff, scripts that stop half-way, removed articles
// that come back, group listings out of order, times and ids stored wrong,
// and one bad record breaking every listing. Each test pins one defect; the
// ones that can show on miniredis run there and on a real redis-server.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// A backend is a kind of server a test runs on.
type backend struct {
	name    string
	addr    string // a real server's address; "" for miniredis
	cluster bool   // the suite's Redis Cluster
	skip    string // why this backend cannot run here, if it cannot
}

// open is newEnv on the backend.
func (b backend) open(t testing.TB, opts ...voting.Option) *env {
	t.Helper()
	if b.cluster {
		return newEnv(t, opts...)
	}
	return newEnvOn(t, b.addr, "", opts...)
}

// realBackend is the real server the suite points at (VOTING_REDIS_ADDR or
// VOTING_REDIS_CLUSTER), or else a redis-server of the test's own.
func realBackend(t *testing.T) backend {
	t.Helper()
	if os.Getenv(redisClusterEnv) != "" {
		return backend{name: "cluster", cluster: true}
	}
	b := backend{name: "redis", addr: os.Getenv(redisAddrEnv)}
	if b.addr == "" {
		if _, err := exec.LookPath("redis-server"); err != nil {
			b.skip = "redis-server is not installed (scripts/test installs it): " + err.Error()
		} else {
			b.addr = startServer(t).addr
		}
	}
	return b
}

// onBackends runs test on miniredis and on a real server, each as a
// subtest; on a cluster run, on the cluster only.
func onBackends(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	all := []backend{realBackend(t)}
	if !all[0].cluster {
		all = append([]backend{{name: "miniredis"}}, all...)
	}
	for _, b := range all {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			test(t, b)
		})
	}
}

// A timedCall is one call with a deadline of its own.
type timedCall struct {
	name     string
	deadline time.Duration
	call     func(context.Context) error
}

// runBounded runs calls, parallel at a time, and fails the test for each
// call that does not return within its deadline + 250ms with an error
// wrapping context.DeadlineExceeded. A call not back within 2s is reported
// as hung and left behind (it ends when its server answers or goes away);
// after 4 of those, the rest are not started.
func runBounded(t *testing.T, calls []timedCall, parallel int) {
	t.Helper()
	const slack, hang = 250 * time.Millisecond, 2 * time.Second
	var mu sync.Mutex
	failures := map[string][]string{}
	hung := 0
	fail := func(kind, msg string) {
		mu.Lock()
		failures[kind] = append(failures[kind], msg)
		if kind == "hung" {
			hung++
		}
		mu.Unlock()
	}
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	started := 0
	for _, c := range calls {
		mu.Lock()
		stop := hung >= 4
		mu.Unlock()
		if stop {
			break
		}
		started++
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			dctx, cancel := context.WithTimeout(context.Background(), c.deadline)
			defer cancel()
			begun := time.Now()
			done := make(chan error, 1)
			go func() { done <- c.call(dctx) }()
			select {
			case err := <-done:
				if took := time.Since(begun); took > c.deadline+slack {
					fail("late", fmt.Sprintf("%s returned %v after its %v deadline", c.name, took-c.deadline, c.deadline))
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					fail("error", fmt.Sprintf("%s with a %v deadline = %v, want context.DeadlineExceeded", c.name, c.deadline, err))
				}
			case <-time.After(hang):
				fail("hung", fmt.Sprintf("%s with a %v deadline had not returned after %v", c.name, c.deadline, hang))
			}
		}()
	}
	wg.Wait()
	for kind, msgs := range failures {
		t.Errorf("%d of %d calls %s, for example:", len(msgs), started, map[string]string{
			"late": "returned late", "error": "gave the wrong error", "hung": "hung",
		}[kind])
		for _, m := range msgs[:min(len(msgs), 5)] {
			t.Error("  " + m)
		}
	}
	if started < len(calls) {
		t.Errorf("stopped after %d of %d calls: too many hung", started, len(calls))
	}
}

// pipelineIDs are the ids UserVotes asks about in the deadline tests: 50,
// so that its pipeline takes a while to send.
var pipelineIDs = func() []string {
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return ids
}()

// spreadCalls are n calls of Article(id) and UserVotes of pipelineIDs, in
// turn, with deadlines spread over 0 to 100µs, in a random order.
func spreadCalls(s *voting.Store, id string, n int) []timedCall {
	article := func(ctx context.Context) error { _, err := s.Article(ctx, id); return err }
	votes := func(ctx context.Context) error { _, err := s.UserVotes(ctx, "bob", pipelineIDs...); return err }
	calls := make([]timedCall, n)
	for i := range calls {
		d := time.Duration(i/2%101) * time.Microsecond
		if i%2 == 0 {
			calls[i] = timedCall{"Article", d, article}
		} else {
			calls[i] = timedCall{"UserVotes", d, votes}
		}
	}
	rand.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
	return calls
}

// stockedPool is a pool on addr whose dials hand out connections made ahead
// of time, so that a call's short deadline is spent on its round trip, where
// the window of the hang lies, rather than on dialing. A dial waits for a
// connection no longer than its context.
func stockedPool(t *testing.T, addr string, opts ...redis.DialOption) *redis.Pool {
	t.Helper()
	stock := make(chan redis.Conn, 64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := redis.Dial("tcp", addr, opts...)
				if err != nil {
					select {
					case <-done:
						return
					case <-time.After(10 * time.Millisecond):
						continue
					}
				}
				select {
				case stock <- c:
				case <-done:
					c.Close()
					return
				}
			}
		}()
	}
	t.Cleanup(func() {
		close(done)
		wg.Wait()
		for len(stock) > 0 {
			(<-stock).Close()
		}
	})
	return &redis.Pool{
		MaxIdle: 8,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			select {
			case c := <-stock:
				return c, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
}

// TestDeadlineBoundsPipelinesToASilentServer pins defect 1: a context that
// ends after a pipeline is flushed, before its replies are read, gave the
// connection back with replies unread, and the pool's Close waited for them
// with no timeout.
func TestDeadlineBoundsPipelinesToASilentServer(t *testing.T) {
	pool := stockedPool(t, silentServer(t)) // no read timeout
	defer pool.Close()
	s, err := voting.New(pool, voting.WithOrders(voting.Orders()...))
	if err != nil {
		t.Fatal(err)
	}
	jobs := spreadCalls(s, "1", 3000)
	for name, call := range calls(s, "1") {
		for _, d := range []time.Duration{0, 10 * time.Microsecond, 30 * time.Microsecond, 60 * time.Microsecond, 100 * time.Microsecond} {
			jobs = append(jobs, timedCall{name, d, call})
		}
	}
	runBounded(t, jobs, 4)

	// Every connection is back in the pool or closed, and none that went
	// back idle has replies still to read: reading them would wait forever.
	for deadline := time.Now().Add(2 * time.Second); pool.ActiveCount() != pool.IdleCount() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if active, idle := pool.ActiveCount(), pool.IdleCount(); active != idle {
		t.Errorf("%d connections open, %d of them idle: %d were never given back", active, idle, active-idle)
	}
	idle := pool.IdleCount()
	conns := make([]redis.Conn, idle)
	unread := 0
	for i := range conns {
		conns[i] = pool.Get()
		if _, err := redis.DoWithTimeout(conns[i], 100*time.Millisecond, ""); err != nil {
			unread++
		}
	}
	for _, c := range conns {
		c.Close()
	}
	if unread > 0 {
		t.Errorf("%d of %d idle connections went back to the pool with replies unread", unread, idle)
	}
}

// TestDeadlineBoundsCallsToAFrozenServer pins defect 1 on a real server
// frozen with SIGSTOP: every call ends by its deadline, and once the server
// runs again the same pool gives right answers, no stale replies.
func TestDeadlineBoundsCallsToAFrozenServer(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, stockedPool(t, srv.addr, redis.DialReadTimeout(5*time.Second)), "")
	id := e.post("alice", "frozen", "g")
	if id != pipelineIDs[0] {
		t.Fatalf("first id = %s, want %s", id, pipelineIDs[0])
	}
	e.vote("bob", id, voting.Down)
	want := voting.Article{
		ID: id, Title: "frozen", Link: "https://example.com/frozen", Poster: "alice",
		Posted: start, Score: unix(start), Votes: 1, Downvotes: 1,
	}
	wantDirs := make([]voting.Direction, len(pipelineIDs))
	wantDirs[0] = voting.Down
	check := func(when string) {
		t.Helper()
		together(8, func(int) {
			for i := 0; i < 5; i++ {
				a, err := e.store.Article(ctx, id)
				if err != nil || a != want {
					t.Errorf("%s: Article = %+v, %v; want %+v", when, a, err, want)
				}
				dirs, err := e.store.UserVotes(ctx, "bob", pipelineIDs...)
				if err != nil || !reflect.DeepEqual(dirs, wantDirs) {
					t.Errorf("%s: UserVotes = %v, %v; want %v", when, dirs, err, wantDirs)
				}
			}
		})
	}
	check("before the freeze") // and leaves idle connections in the pool

	t.Cleanup(func() {
		if srv.cmd != nil {
			srv.cmd.Process.Signal(syscall.SIGCONT)
		}
	})
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP: %v", err)
	}
	var jobs []timedCall
	for i := 0; i < 4; i++ {
		jobs = append(jobs,
			timedCall{"Article", 50 * time.Millisecond, func(ctx context.Context) error { _, err := e.store.Article(ctx, id); return err }},
			timedCall{"UserVotes", 50 * time.Millisecond, func(ctx context.Context) error {
				_, err := e.store.UserVotes(ctx, "bob", pipelineIDs...)
				return err
			}})
	}
	runBounded(t, jobs, len(jobs))
	runBounded(t, spreadCalls(e.store, id, 1000), 4)
	if err := srv.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("SIGCONT: %v", err)
	}
	check("after the thaw")
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestVoteWaitingForAConnectionPastTheCutoffCountsOnce pins defect 2: a
// vote that read the clock before the cutoff but ran after it, once the
// voter sets had expired, counted the voter a second time.
func TestVoteWaitingForAConnectionPastTheCutoffCountsOnce(t *testing.T) {
	if os.Getenv(redisClusterEnv) != "" {
		t.Skip("this test needs a *redis.Pool of one connection, not a cluster client")
	}
	addr := os.Getenv(redisAddrEnv)
	if addr == "" {
		addr = startServer(t).addr
	}
	dial := func(ctx context.Context) (redis.Conn, error) {
		return redis.DialContext(ctx, "tcp", addr, redis.DialReadTimeout(5*time.Second))
	}
	// The Store's pool has one connection; the env reads through a pool of
	// its own, since the invariant checker holds two connections at once.
	pool := &redis.Pool{MaxActive: 1, MaxIdle: 1, Wait: true, DialContext: dial}
	t.Cleanup(func() { pool.Close() })
	const cutoff = time.Second
	e := newEnvPool(t, &redis.Pool{MaxIdle: 4, DialContext: dial}, "")
	var err error
	if e.store, err = voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(time.Now), voting.WithCutoff(cutoff)); err != nil {
		t.Fatal(err)
	}
	posted := time.Now()
	id := e.post("alice", "cutoff race")
	e.vote("bob", id, voting.Up)

	// At 0.9s another user of the pool holds its only connection for 0.4s,
	// past the cutoff and the voter sets' expiry, while bob votes again.
	held, released := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(time.Until(posted.Add(900 * time.Millisecond)))
		c := pool.Get()
		c.Do("PING")
		close(held)
		time.Sleep(400 * time.Millisecond)
		c.Close()
	}()
	<-held
	vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = e.store.Vote(vctx, "bob", id, voting.Up)
	cancel()
	<-released
	if err != nil && !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("the repeated vote = %v, want nil or ErrVotingClosed", err)
	}
	if ran := time.Since(posted); ran < cutoff+300*time.Millisecond {
		t.Fatalf("the vote returned %v after posting, before the connection was free: the test proves nothing", ran)
	}
	h := e.hash(e.article(id))
	if h["votes"] != "2" {
		t.Errorf("votes = %q, want 2: bob's up-vote counted twice", h["votes"])
	}
	posting, err := strconv.ParseFloat(h["time"], 64)
	if err != nil {
		t.Fatalf("time %q: %v", h["time"], err)
	}
	if got := e.zscore(e.key("score:"), e.article(id)) - posting; got != 2*voting.DefaultVoteWeight {
		t.Errorf("score - time = %v, want %v (2 votes)", got, 2*voting.DefaultVoteWeight)
	}
	e.clock.set(time.Now())
	e.checkInvariants(voting.DefaultVoteWeight, cutoff)
}

// TestVoteThroughALaggingClockAfterTheSetsExpired pins defect 2 across
// Stores: a Store whose clock lags 3s took votes after the voter sets had
// expired, counting voters again; an expired voter set must close voting
// whatever the clock says.
func TestVoteThroughALaggingClockAfterTheSetsExpired(t *testing.T) {
	const lag = 3 * time.Second
	closedThrough := func(t *testing.T, e *env, lagging *voting.Store, id string) {
		t.Helper()
		before := e.dump()
		for _, v := range []struct {
			user string
			dir  voting.Direction
		}{{"alice", voting.Up}, {"bob", voting.Up}, {"carol", voting.Down}} {
			if err := lagging.Vote(ctx, v.user, id, v.dir); !errors.Is(err, voting.ErrVotingClosed) {
				t.Errorf("%s votes %v through the lagging Store = %v, want ErrVotingClosed", v.user, v.dir, err)
			}
		}
		if after := e.dump(); after != before {
			t.Errorf("votes after the voter sets expired wrote:\nbefore %s\nafter  %s", before, after)
		}
		h := e.hash(e.article(id))
		if h["votes"] != "2" || h["downvotes"] != "" {
			t.Errorf("votes, downvotes = %q, %q; want 2 and none", h["votes"], h["downvotes"])
		}
	}

	t.Run("miniredis", func(t *testing.T) {
		const cutoff = time.Hour
		e := newEnvOn(t, "", "", voting.WithCutoff(cutoff))
		lagging, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithCutoff(cutoff),
			voting.WithClock(func() time.Time { return e.clock.Now().Add(-lag) }))
		if err != nil {
			t.Fatal(err)
		}
		id := e.post("alice", "skewed")
		e.vote("bob", id, voting.Up)
		e.advance(cutoff + time.Second) // expires the voter sets
		if e.exists(e.key("voted:" + id)) {
			t.Fatal("the voter set has not expired")
		}
		closedThrough(t, e, lagging, id)
		e.checkInvariants(voting.DefaultVoteWeight, cutoff)
	})

	b := realBackend(t)
	t.Run(b.name, func(t *testing.T) {
		if b.skip != "" {
			t.Skip(b.skip)
		}
		const cutoff = time.Second
		e := b.open(t, voting.WithClock(time.Now), voting.WithCutoff(cutoff))
		lagging, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithCutoff(cutoff),
			voting.WithClock(func() time.Time { return time.Now().Add(-lag) }))
		if err != nil {
			t.Fatal(err)
		}
		posted := time.Now()
		id := e.post("alice", "skewed")
		e.vote("bob", id, voting.Up)
		time.Sleep(time.Until(posted.Add(cutoff + 200*time.Millisecond)))
		if e.exists(e.key("voted:" + id)) {
			t.Fatal("the voter set has not expired")
		}
		closedThrough(t, e, lagging, id)
		e.clock.set(time.Now())
		e.checkInvariants(voting.DefaultVoteWeight, cutoff)
	})
}

// TestNewRefusesAVoteWeightPastTheMaximum pins defect 3's weights: a weight
// so large that scores overflow or lose their seconds was accepted.
func TestNewRefusesAVoteWeightPastTheMaximum(t *testing.T) {
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return nil, errors.New("no dialing in this test") }}
	for _, w := range []float64{1e308, 2 * voting.MaxVoteWeight, math.Nextafter(voting.MaxVoteWeight, math.Inf(1))} {
		if s, err := voting.New(pool, voting.WithVoteWeight(w)); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("New with weight %g = %v, %v; want ErrInvalid", w, s, err)
		}
	}
	if _, err := voting.New(pool, voting.WithVoteWeight(voting.MaxVoteWeight)); err != nil {
		t.Errorf("New with weight MaxVoteWeight: %v", err)
	}
}

// TestVoteRefusesUnsoundFields pins defect 3's fields: a vote on an article
// whose time, counters or score do not parse as the library writes them
// went ahead (on "inf", "nan", "1e300", "-1") or stopped half-way with a raw
// Lua error; it must write nothing and say which field.
func TestVoteRefusesUnsoundFields(t *testing.T) {
	tests := []struct {
		field, value string
		dir          voting.Direction
	}{
		{"time", "inf", voting.Up},
		{"time", "nan", voting.Up},
		{"time", "1e300", voting.Up},
		{"time", "abc", voting.Up},
		{"time", "", voting.Up},
		{"votes", "abc", voting.Up},
		{"votes", "-1", voting.Up},
		{"votes", "1.5", voting.Up},
		{"downvotes", "x", voting.Down},
	}
	onBackends(t, func(t *testing.T, b backend) {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s=%q", tt.field, tt.value), func(t *testing.T) {
				e := b.open(t)
				id := e.post("alice", "target")
				member := e.article(id)
				old, had := e.hash(member)[tt.field]
				e.do("HSET", member, tt.field, tt.value)
				before := e.dump()
				err := e.store.Vote(ctx, "bob", id, tt.dir)
				switch {
				case !errors.Is(err, voting.ErrCorrupt):
					t.Errorf("Vote on %s %q = %v, want ErrCorrupt", tt.field, tt.value, err)
				case !strings.Contains(err.Error(), tt.field):
					t.Errorf("error %q does not name the field %s", err, tt.field)
				}
				if after := e.dump(); after != before {
					t.Errorf("Vote on %s %q wrote:\nbefore %s\nafter  %s", tt.field, tt.value, before, after)
				}
				if had {
					e.do("HSET", member, tt.field, old)
				} else {
					e.do("HDEL", member, tt.field)
				}
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			})
		}
		t.Run("score=+inf", func(t *testing.T) {
			e := b.open(t)
			id := e.post("alice", "target")
			member, index := e.article(id), e.key("score:")
			old := e.zscore(index, member)
			e.do("ZADD", index, "+inf", member)
			before := e.dump()
			err := e.store.Vote(ctx, "bob", id, voting.Up)
			switch {
			case !errors.Is(err, voting.ErrCorrupt):
				t.Errorf("Vote on a score of +inf = %v, want ErrCorrupt", err)
			case !strings.Contains(err.Error(), index):
				t.Errorf("error %q does not name the key %s", err, index)
			}
			if after := e.dump(); after != before {
				t.Errorf("Vote on a score of +inf wrote:\nbefore %s\nafter  %s", before, after)
			}
			e.do("ZADD", index, old, member)
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	})
}

// TestVoteAndGroupsDoNotBringBackARemovedArticle pins defect 4: an article
// taken out of the indexes (its hash kept) was found by Vote, whose ZINCRBY
// put it back in score: with a score of a vote or so, and by AddToGroups.
func TestVoteAndGroupsDoNotBringBackARemovedArticle(t *testing.T) {
	tests := []struct {
		name    string
		indexes []string
	}{
		{"removed from score: and time:", []string{"score:", "time:"}},
		{"removed from score: only", []string{"score:"}},
	}
	onBackends(t, func(t *testing.T, b backend) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := b.open(t)
				id := e.post("alice", "removed")
				member := e.article(id)
				scores := map[string]float64{}
				for _, index := range tt.indexes {
					scores[index] = e.zscore(e.key(index), member)
					e.do("ZREM", e.key(index), member)
				}
				if _, err := e.store.Article(ctx, id); !errors.Is(err, voting.ErrNotFound) {
					t.Errorf("Article = %v, want ErrNotFound", err)
				}
				before := e.dump()
				for _, v := range []struct {
					user string
					dir  voting.Direction
				}{{"bob", voting.Up}, {"bob", voting.Down}, {"alice", voting.None}} {
					if err := e.store.Vote(ctx, v.user, id, v.dir); !errors.Is(err, voting.ErrNotFound) {
						t.Errorf("%s votes %v = %v, want ErrNotFound", v.user, v.dir, err)
					}
				}
				if err := e.store.AddToGroups(ctx, id, "g"); !errors.Is(err, voting.ErrNotFound) {
					t.Errorf("AddToGroups = %v, want ErrNotFound", err)
				}
				if after := e.dump(); after != before {
					t.Errorf("calls on a removed article wrote:\nbefore %s\nafter  %s", before, after)
				}
				for index, score := range scores {
					e.do("ZADD", e.key(index), score, member)
				}
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			})
		}
	})
}

// TestGroupListingOrdersScoresBelowOne pins defect 5: the group cache, built
// with ZINTERSTORE ... AGGREGATE MAX against the group set's score of 1,
// lifted every score and time below 1 to 1, so such articles were listed in
// member-name order.
func TestGroupListingOrdersScoresBelowOne(t *testing.T) {
	const weight = 1e9
	onBackends(t, func(t *testing.T, b backend) {
		e := b.open(t, voting.WithVoteWeight(weight))
		// Each article gets bob's down-vote, and the last two more, so that
		// with W = 1e9 every score is its time (or less): before 1970, or
		// within its first second, or 2 W below a time of 2026.
		articles := []struct {
			at     time.Time
			groups []string
			downs  int
		}{
			{time.Unix(-1000, 0), []string{"g"}, 1},       // 1: -1000
			{time.Unix(-3000, 0), []string{"g"}, 1},       // 2: -3000
			{time.Unix(-2000, 0), []string{"g"}, 1},       // 3: -2000
			{time.Unix(-1500, 0), nil, 1},                 // 4: -1500, in no group
			{time.Unix(0, 500_000_000), []string{"g"}, 1}, // 5: 0.5
			{start, []string{"g"}, 3},                     // 6: 1795305600 - 2e9
			{time.Unix(-999, 0), []string{"h"}, 1},        // 7: -999, another group
		}
		for i, a := range articles {
			e.clock.set(a.at)
			id := e.post("alice", fmt.Sprintf("article %d", i+1), a.groups...)
			for d := 0; d < a.downs; d++ {
				e.vote([]string{"bob", "carol", "dave"}[d], id, voting.Down)
			}
		}
		wantIDs := map[voting.Order][]string{
			voting.ByScore: {"5", "1", "3", "2", "6"},
			voting.ByTime:  {"6", "5", "1", "3", "2"},
		}
		inGroup := map[string]bool{}
		for _, m := range e.strs("SMEMBERS", e.key("group:g")) {
			inGroup[strings.TrimPrefix(m, e.key("article:"))] = true
		}
		for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
			all, err := e.store.GetArticles(ctx, 1, order)
			if err != nil {
				t.Fatal(err)
			}
			var want []voting.Article
			for _, a := range all {
				if inGroup[a.ID] {
					want = append(want, a)
				}
			}
			got, err := e.store.GetGroupArticles(ctx, "g", 1, order)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(idsOf(got), wantIDs[order]) {
				t.Errorf("group g %v = %v, want %v", order, idsOf(got), wantIDs[order])
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("group g %v:\n got %+v\nwant %+v (the site's listing, filtered)", order, got, want)
			}
		}
		e.checkInvariants(weight, voting.DefaultCutoff)
	})
}

// TestPostArticleStoresFractionalTimesExactly pins defect 6: a fractional
// posting time before 1970 was written a second early ("-1.75" for -0.25).
func TestPostArticleStoresFractionalTimesExactly(t *testing.T) {
	tests := []struct {
		at   time.Time
		want string
	}{
		{time.Unix(-14182940, 500_000_000), "-14182939.5"},
		{time.Unix(-1, 750_000_000), "-0.25"},
		{time.Unix(-2, 999_999_000), "-1.000001"},
		{time.Unix(0, 500_000_000), "0.5"},
		{time.Unix(1795305600, 123_456_000), "1795305600.123456"},
	}
	onBackends(t, func(t *testing.T, b backend) {
		for _, tt := range tests {
			t.Run(tt.want, func(t *testing.T) {
				e := b.open(t)
				e.clock.set(tt.at)
				id := e.post("alice", "when")
				member := e.article(id)
				if got := e.hash(member)["time"]; got != tt.want {
					t.Errorf("time = %q, want %q", got, tt.want)
				}
				a, err := e.store.Article(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if !a.Posted.Equal(tt.at) {
					t.Errorf("Posted = %v, want %v", a.Posted, tt.at.UTC())
				}
				posted, _ := strconv.ParseFloat(tt.want, 64)
				if got := e.zscore(e.key("time:"), member); got != posted {
					t.Errorf("time: = %v, want %v", got, posted)
				}
				if got := e.zscore(e.key("score:"), member); got != posted+voting.DefaultVoteWeight {
					t.Errorf("score: = %v, want %v", got, posted+voting.DefaultVoteWeight)
				}
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			})
		}
	})
}

// TestPostArticleKeepsLargeIdsExact pins defect 7: the script made the new
// id from INCR's reply as a Lua number, rounding ids past 2^53 and turning
// the largest into a negative one.
func TestPostArticleKeepsLargeIdsExact(t *testing.T) {
	onBackends(t, func(t *testing.T, b backend) {
		e := b.open(t)
		for _, tt := range []struct{ counter, want string }{
			{"9007199254740992", "9007199254740993"}, // 2^53: the next id is odd
			{"9007199254740993", "9007199254740994"},
			{"9223372036854775806", "9223372036854775807"}, // the largest int64
		} {
			e.do("SET", e.key("article:"), tt.counter)
			id, err := e.store.PostArticle(ctx, "alice", "big", "https://example.com/big")
			if err != nil || id != tt.want {
				t.Errorf("PostArticle after %s = %q, %v; want %s", tt.counter, id, err, tt.want)
				continue
			}
			if got := e.str("GET", e.key("article:")); got != tt.want {
				t.Errorf("counter = %s, want %s", got, tt.want)
			}
			if got := e.hash(e.article(tt.want)); got["title"] != "big" || got["votes"] != "1" {
				t.Errorf("article:%s = %v, want the new article", tt.want, got)
			}
			a, err := e.store.Article(ctx, tt.want)
			if err != nil || a.ID != tt.want || a.Title != "big" || a.Votes != 1 {
				t.Errorf("Article(%s) = %+v, %v", tt.want, a, err)
			}
		}
		// The counter is at the largest id: no more articles.
		before := e.dump()
		if id, err := e.store.PostArticle(ctx, "alice", "one too many", "https://example.com/more"); err == nil {
			t.Errorf("PostArticle past the largest id = %q, want an error", id)
		}
		if after := e.dump(); after != before {
			t.Errorf("PostArticle past the largest id wrote:\nbefore %s\nafter  %s", before, after)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
}

// TestOneBadRecordDoesNotBreakListings pins defect 8: a field that does not
// parse in one article's hash made every listing holding it fail, and a
// vote on it failed with a raw Lua error, half-written.
func TestOneBadRecordDoesNotBreakListings(t *testing.T) {
	for _, field := range []string{"time", "votes"} {
		t.Run(field, func(t *testing.T) {
			onBackends(t, func(t *testing.T, b backend) {
				e := b.open(t)
				var ids []string
				for i := 1; i <= 3; i++ {
					e.advance(time.Minute)
					ids = append(ids, e.post("alice", fmt.Sprintf("article %d", i), "g"))
				}
				e.vote("bob", ids[0], voting.Up) // by score 1, 3; by time 3, 1
				member := e.article("2")
				old := e.hash(member)[field]
				e.do("HSET", member, field, "abc")

				want := map[voting.Order][]string{voting.ByScore: {"1", "3"}, voting.ByTime: {"3", "1"}}
				for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
					got, err := e.store.GetArticles(ctx, 1, order)
					if err != nil || !reflect.DeepEqual(idsOf(got), want[order]) {
						t.Errorf("GetArticles %v = %v, %v; want %v", order, idsOf(got), err, want[order])
					}
					got, err = e.store.GetGroupArticles(ctx, "g", 1, order)
					if err != nil || !reflect.DeepEqual(idsOf(got), want[order]) {
						t.Errorf("GetGroupArticles %v = %v, %v; want %v", order, idsOf(got), err, want[order])
					}
				}
				_, err := e.store.Article(ctx, "2")
				switch {
				case !errors.Is(err, voting.ErrCorrupt):
					t.Errorf("Article(2) = %v, want ErrCorrupt", err)
				case !strings.Contains(err.Error(), field):
					t.Errorf("Article(2): error %q does not name %s", err, field)
				}
				before := e.dump()
				err = e.store.Vote(ctx, "bob", "2", voting.Up)
				switch {
				case !errors.Is(err, voting.ErrCorrupt):
					t.Errorf("Vote on 2 = %v, want ErrCorrupt", err)
				case !strings.Contains(err.Error(), field):
					t.Errorf("Vote on 2: error %q does not name %s", err, field)
				case strings.Contains(err.Error(), "user_script") || strings.Contains(err.Error(), "script:"):
					t.Errorf("Vote on 2: error %q is a raw Lua error", err)
				}
				if after := e.dump(); after != before {
					t.Errorf("Vote on a bad record wrote:\nbefore %s\nafter  %s", before, after)
				}
				e.do("HSET", member, field, old)
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			})
		})
	}
}

// TestDeadlineDuringTheDialWrapsDeadlineExceeded: a deadline that ends while
// the pool dials gave the dialer's "i/o timeout", which errors.Is could not
// tell from any other network failure.
func TestDeadlineDuringTheDialWrapsDeadlineExceeded(t *testing.T) {
	pool := &redis.Pool{DialContext: func(ctx context.Context) (redis.Conn, error) {
		<-ctx.Done() // a dial that does not connect before the deadline
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	}}
	defer pool.Close()
	s, err := voting.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range calls(s, "1") {
		dctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		err := call(dctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with a dial cut short by the deadline = %v, want context.DeadlineExceeded", name, err)
		}
	}
}
