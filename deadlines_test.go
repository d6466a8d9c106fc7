package voting_test

// Tests of the round trips (internal/rconn): how many each operation takes, and
// how a context or deadline bounds them over each kind of connection, in
// pipelines, while dialing, and against a server that never answers or is
// frozen.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
	"github.com/gomodule/redigo/redis"
)

func TestRoundTrips(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	counter := roundtrip.New(e.redis())
	s, err := voting.New(counter, voting.WithClock(e.clock.Now), voting.WithPrefix(e.prefix))
	if err != nil {
		t.Fatal(err)
	}
	ids := postMany(e, 30)
	for _, id := range ids {
		if err := e.store.AddToGroups(ctx, id, "all"); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		max  int64
		call func() error
	}{
		{"PostArticle", 1, func() error {
			_, err := s.PostArticle(ctx, "alice", "counted", "https://example.com/", "all", "other")
			return err
		}},
		{"Vote", 1, func() error { return s.Vote(ctx, "bob", ids[0], voting.Up) }},
		{"Vote switch", 1, func() error { return s.Vote(ctx, "bob", ids[0], voting.Down) }},
		{"AddToGroups", 1, func() error { return s.AddToGroups(ctx, ids[1], "a", "b", "c") }},
		{"RemoveFromGroups", 1, func() error { return s.RemoveFromGroups(ctx, ids[1], "a", "b") }},
		{"Article", 1, func() error { _, err := s.Article(ctx, ids[2]); return err }},
		{"Rank", 1, func() error { _, err := s.Rank(ctx, ids[2], voting.Query{Order: voting.ByScore}); return err }},
		{"EditArticle", 1, func() error { return s.EditArticle(ctx, ids[2], "edited", "https://example.com/e") }},
		{"Articles of 25", 1, func() error { _, err := s.Articles(ctx, ids[:25]...); return err }},
		{"UserVotes", 1, func() error { _, err := s.UserVotes(ctx, "bob", ids[:25]...); return err }},
		{"GetArticles by score", 2, func() error { return full(s.GetArticles(ctx, 1, voting.ByScore)) }},
		{"GetArticles by time", 2, func() error { return full(s.GetArticles(ctx, 1, voting.ByTime)) }},
		{"GetGroupArticles cold", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.ByScore)) }},
		{"GetGroupArticles warm", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.ByScore)) }},
		{"GetGroupArticles cold by time", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.ByTime)) }},
		{"List after a cursor, the first page", 2, func() error {
			page, _, err := s.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: ""}})
			return full(page, err)
		}},
		{"List after a cursor, a cursor's page", 2, func() error {
			_, next, err := s.List(ctx, voting.Query{Order: voting.ByTime, Paging: voting.Paging{After: ""}})
			if err != nil {
				return err
			}
			counter.Reset()
			page, _, err := s.List(ctx, voting.Query{Order: voting.ByTime, Paging: voting.Paging{After: next}})
			if err == nil && len(page) == 0 {
				err = fmt.Errorf("the second page is empty")
			}
			return err
		}},
		{"List(group) after a cursor, a cursor's page", 2, func() error {
			_, next, err := s.List(ctx, voting.Query{Group: "all", Order: voting.ByScore, Paging: voting.Paging{After: ""}})
			if err != nil {
				return err
			}
			counter.Reset()
			_, _, err = s.List(ctx, voting.Query{Group: "all", Order: voting.ByScore, Paging: voting.Paging{After: next}})
			return err
		}},
	}
	// The first use of each script loads it: one round trip more.
	for _, tt := range tests {
		if err := tt.call(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
	}
	e.do("DEL", e.key("score:all"), e.key("time:all"))
	for _, tt := range tests {
		counter.Reset()
		if err := tt.call(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if n := counter.Trips(); n > tt.max || n < 1 {
			t.Errorf("%s took %d round trips, want at most %d", tt.name, n, tt.max)
		}
	}
	if !e.exists(e.key("score:all")) || !e.exists(e.key("time:all")) {
		t.Error("the group listings left no cache")
	}
}

// TestRoundTripsOfIndexesThatMayNotBeBuilt: a listing or count of an index
// that may not be built reads its mark in the round trip of its page.
func TestRoundTripsOfIndexesThatMayNotBeBuilt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	counter := roundtrip.New(e.redis())
	s, err := voting.New(counter, voting.WithClock(e.clock.Now), voting.WithPrefix(e.prefix),
		voting.WithOrders(voting.ByVotes, voting.TopWeek), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}
	e.store = s
	for _, id := range postMany(e, 30) {
		if err := s.AddToGroups(ctx, id, "all"); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		max  int64
		call func() error
	}{
		{"GetArticles by votes", 2, func() error { return full(s.GetArticles(ctx, 1, voting.ByVotes)) }},
		{"GetArticles by top-week", 2, func() error { return full(s.GetArticles(ctx, 1, voting.TopWeek)) }},
		{"GetGroupArticles live", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.ByScore)) }},
		{"GetGroupArticles live by top-week", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.TopWeek)) }},
		{"Count by votes", 1, func() error { _, err := s.Count(ctx, voting.Query{Order: voting.ByVotes}); return err }},
		{"Count(group) live by votes", 1, func() error { _, err := s.Count(ctx, voting.Query{Group: "all", Order: voting.ByVotes}); return err }},
	}
	for _, tt := range tests {
		if err := tt.call(); err != nil { // loads the scripts
			t.Fatalf("%s: %v", tt.name, err)
		}
		counter.Reset()
		if err := tt.call(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if n := counter.Trips(); n > tt.max || n < 1 {
			t.Errorf("%s took %d round trips, want at most %d", tt.name, n, tt.max)
		}
	}
}

// full checks that a listing gave a full page of 25.
func full(articles []voting.Article, err error) error {
	if err == nil && len(articles) != voting.DefaultPageSize {
		return errors.New("the page is not full")
	}
	return err
}

func TestScriptsReloadAfterScriptFlush(t *testing.T) {
	e := newEnv(t)
	if e.real() {
		t.Skip("SCRIPT FLUSH would touch every user of the shared server")
	}
	id := e.post("alice", "before")
	e.do("SCRIPT", "FLUSH")
	e.vote("bob", id, voting.Up)
	e.do("SCRIPT", "FLUSH")
	if _, err := e.store.GetGroupArticles(ctx, "none", 1, voting.ByScore); err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.article(id))["votes"]; got != "2" {
		t.Errorf("votes = %s, want 2", got)
	}
}

// timeoutConn offers only redis.ConnWithTimeout, as a cluster client's
// connections do, and records the timeouts it is given.
type timeoutConn struct {
	redis.Conn
	timeouts *[]time.Duration
	mu       *sync.Mutex
}

func (c timeoutConn) record(d time.Duration) {
	c.mu.Lock()
	*c.timeouts = append(*c.timeouts, d)
	c.mu.Unlock()
}

func (c timeoutConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	c.record(d)
	return redis.DoWithTimeout(c.Conn, d, cmd, args...)
}

func (c timeoutConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	c.record(d)
	return redis.ReceiveWithTimeout(c.Conn, d)
}

// plainConn offers only redis.Conn.
type plainConn struct{ redis.Conn }

// wrapPool hands out the pool's connections wrapped by wrap, without the
// pool's GetContext.
type wrapPool struct {
	pool *redis.Pool
	wrap func(redis.Conn) redis.Conn
}

func (p wrapPool) Get() redis.Conn { return p.wrap(p.pool.Get()) }

// connKinds gives a Store over each kind of connection, all on pool.
func connKinds(t *testing.T, pool *redis.Pool, prefix string, timeouts *[]time.Duration) map[string]*voting.Store {
	var mu sync.Mutex
	pools := map[string]voting.Pool{
		"context": pool,
		"timeout": wrapPool{pool, func(c redis.Conn) redis.Conn { return timeoutConn{c, timeouts, &mu} }},
		"plain":   wrapPool{pool, func(c redis.Conn) redis.Conn { return plainConn{c} }},
	}
	stores := map[string]*voting.Store{}
	for name, p := range pools {
		s, err := voting.New(p, voting.WithPrefix(prefix), voting.WithOrders(voting.Orders()...))
		if err != nil {
			t.Fatal(err)
		}
		stores[name] = s
	}
	// And one with live groups, whose group calls take other paths.
	live, err := voting.New(pools["timeout"], voting.WithPrefix(prefix), voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}
	stores["timeout, live groups"] = live
	return stores
}

// calls are one call of every method, for context tests; for a Store that
// keeps the top of the week, its listings and Reindex too.
func calls(s *voting.Store, id string) map[string]func(context.Context) error {
	all := map[string]func(context.Context) error{
		"PostArticle": func(ctx context.Context) error {
			_, err := s.PostArticle(ctx, "alice", "t", "https://example.com/", "g")
			return err
		},
		"Vote":             func(ctx context.Context) error { return s.Vote(ctx, "bob", id, voting.Up) },
		"AddToGroups":      func(ctx context.Context) error { return s.AddToGroups(ctx, id, "g") },
		"RemoveFromGroups": func(ctx context.Context) error { return s.RemoveFromGroups(ctx, id, "g") },
		"Article":          func(ctx context.Context) error { _, err := s.Article(ctx, id); return err },
		"UserVotes":        func(ctx context.Context) error { _, err := s.UserVotes(ctx, "bob", id); return err },
		"GetArticles":      func(ctx context.Context) error { _, err := s.GetArticles(ctx, 1, voting.ByScore); return err },
		"GetGroupArticles": func(ctx context.Context) error {
			_, err := s.GetGroupArticles(ctx, "g", 1, voting.ByScore)
			return err
		},
	}
	all["DeleteArticle"] = func(ctx context.Context) error {
		id, err := s.PostArticle(ctx, "alice", "to delete", "https://example.com/", "g")
		if err != nil {
			return err
		}
		return s.DeleteArticle(ctx, id)
	}
	all["CountArticles"] = func(ctx context.Context) error {
		_, err := s.Count(ctx, voting.Query{Order: voting.ByScore})
		return err
	}
	all["Rank"] = func(ctx context.Context) error {
		_, err := s.Rank(ctx, id, voting.Query{Order: voting.ByTime})
		return err
	}
	all["GetArticlesAfter"] = func(ctx context.Context) error {
		_, _, err := s.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: ""}})
		return err
	}
	all["GetGroupArticlesAfter"] = func(ctx context.Context) error {
		_, _, err := s.List(ctx, voting.Query{Group: "g", Order: voting.ByScore, Paging: voting.Paging{After: ""}})
		return err
	}
	all["CountGroupArticles"] = func(ctx context.Context) error {
		_, err := s.Count(ctx, voting.Query{Group: "g", Order: voting.ByTime})
		return err
	}
	all["Articles"] = func(ctx context.Context) error { _, err := s.Articles(ctx, id, id); return err }
	all["EditArticle"] = func(ctx context.Context) error { return s.EditArticle(ctx, id, "edited", "https://example.com/e") }
	all["PostComment and VoteComment"] = func(ctx context.Context) error {
		c, err := s.PostComment(ctx, "alice", id, "", "a comment")
		if err != nil {
			return err
		}
		return s.VoteComment(ctx, "bob", c, voting.Down)
	}
	all["Comments by old"] = func(ctx context.Context) error {
		_, _, err := s.Comments(ctx, id, voting.CommentQuery{Order: voting.CommentsByOld, Paging: voting.Paging{Size: 2}})
		return err
	}
	all["Thread"] = func(ctx context.Context) error { _, _, err := s.Thread(ctx, id, voting.ThreadQuery{}); return err }
	if voting.View(s).UserHistory > 0 {
		all["UserHistory"] = func(ctx context.Context) error {
			_, err := two(s.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
			return err
		}
		all["CountUserHistory"] = func(ctx context.Context) error { _, err := s.CountUserHistory(ctx, "bob"); return err }
	}
	if slices.Contains(voting.View(s).Orders, voting.TopWeek) {
		all["GetArticles top-week"] = func(ctx context.Context) error {
			_, err := s.GetArticles(ctx, 1, voting.TopWeek)
			return err
		}
		all["GetGroupArticles top-week"] = func(ctx context.Context) error {
			_, err := s.GetGroupArticles(ctx, "g", 1, voting.TopWeek)
			return err
		}
		all["Reindex"] = s.Reindex
		if voting.View(s).LiveGroups {
			all["CountGroupArticles top-week"] = func(ctx context.Context) error {
				_, err := s.Count(ctx, voting.Query{Group: "g", Order: voting.TopWeek})
				return err
			}
		}
	}
	return all
}

func TestCanceledContextWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "target")
	var timeouts []time.Duration
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	expired, cancel2 := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel2()
	before := e.dump()
	for kind, s := range connKinds(t, e.redis(), e.prefix, &timeouts) {
		for name, call := range calls(s, id) {
			if err := call(canceled); !errors.Is(err, context.Canceled) {
				t.Errorf("%s over %s conn with a canceled context = %v, want context.Canceled", name, kind, err)
			}
			if err := call(expired); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s over %s conn past the deadline = %v, want context.DeadlineExceeded", name, kind, err)
			}
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("calls with a dead context wrote:\nbefore %s\nafter  %s", before, after)
	}
	if active, idle := e.redis().ActiveCount(), e.redis().IdleCount(); active != idle {
		t.Errorf("%d connections active, %d idle: some were not given back", active, idle)
	}
}

func TestDeadlineBoundsEachConnKind(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "target")
	var timeouts []time.Duration
	for kind, s := range connKinds(t, e.redis(), e.prefix, &timeouts) {
		for name, call := range calls(s, id) {
			dctx, cancel := context.WithTimeout(ctx, time.Minute)
			// The Stores differ in their indexes, so a listing of one may
			// find it not built: an answer all the same.
			if err := call(dctx); err != nil && !errors.Is(err, voting.ErrNotIndexed) {
				t.Errorf("%s over %s conn: %v", name, kind, err)
			}
			cancel()
		}
	}
	if len(timeouts) == 0 {
		t.Fatal("no timeout reached the timeout-only connections")
	}
	for _, d := range timeouts {
		if d <= 0 || d > time.Minute {
			t.Errorf("timeout %v is not the context's remaining minute", d)
		}
	}
	if active, idle := e.redis().ActiveCount(), e.redis().IdleCount(); active != idle {
		t.Errorf("%d connections active, %d idle: some were not given back", active, idle)
	}
}

// silentServer accepts connections and never answers.
func silentServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return ln.Addr().String()
}

// TestDeadlineEndsCallsToAServerThatNeverAnswers: each call, on a
// connection of its own, waits for its deadline at the same time as the
// others.
func TestDeadlineEndsCallsToAServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	addr := silentServer(t)
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	defer pool.Close()
	var timeouts []time.Duration
	stores := connKinds(t, pool, "", &timeouts)
	delete(stores, "plain") // a plain connection has no way to stop waiting
	var wg sync.WaitGroup
	for kind, s := range stores {
		for name, call := range calls(s, "1") {
			wg.Go(func() {
				dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
				begun := time.Now()
				if err := call(dctx); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%s over %s conn = %v, want context.DeadlineExceeded", name, kind, err)
				}
				if waited := time.Since(begun); waited > 10*time.Second {
					t.Errorf("%s over %s conn waited %v past a 100ms deadline", name, kind, waited)
				}
			})
		}
	}
	wg.Wait()
}

// TestTimeoutEndsCallsWithNoDeadline: a call whose context has no deadline
// waited forever on a server that does not answer (one paused with
// SIGSTOP). The Store's timeout bounds each of its round trips, whether the
// context can be cancelled or not, and the error says what happened.
func TestTimeoutEndsCallsWithNoDeadline(t *testing.T) {
	t.Parallel()
	addr := silentServer(t)
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	defer pool.Close()
	const timeout = 100 * time.Millisecond
	var timeouts []time.Duration
	var mu sync.Mutex
	pools := map[string]voting.Pool{
		"context": pool,
		"timeout": wrapPool{pool, func(c redis.Conn) redis.Conn { return timeoutConn{c, &timeouts, &mu} }},
	}
	cancelable, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for kind, p := range pools {
		s, err := voting.New(p, voting.WithTimeout(timeout), voting.WithOrders(voting.TopWeek))
		if err != nil {
			t.Fatal(err)
		}
		for name, call := range calls(s, "1") {
			for cname, cctx := range map[string]context.Context{"background": context.Background(), "cancelable": cancelable} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					done := make(chan error, 1)
					go func() { done <- call(cctx) }()
					select {
					case err := <-done:
						if !errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
							!strings.Contains(err.Error(), "no reply from Redis within 100ms (WithTimeout)") {
							t.Errorf("%s over %s conn, %s context = %v; want the timeout's error", name, kind, cname, err)
						}
					case <-time.After(10 * time.Second):
						t.Errorf("%s over %s conn, %s context still waits after 10s with a timeout of %v", name, kind, cname, timeout)
					}
				}()
			}
		}
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(timeouts) == 0 {
		t.Fatal("no timeout reached the timeout-only connections")
	}
	for _, d := range timeouts {
		if d != timeout {
			t.Errorf("a round trip waited up to %v, want the Store's %v", d, timeout)
		}
	}
}

// TestPoolOfWrappedConnsWorks: a *redis.Pool whose Dial wraps its
// connections (tracing, metrics) in one with neither a timeout nor a
// context read refuses DoWithTimeout and DoContext before it sends
// anything; every call still works, through a plain Do, with any context.
// plainPool is a pool whose connections come from base wrapped in
// plainConn: they offer only redis.Conn, no timeout or context reads.
func plainPool(base *redis.Pool) *redis.Pool {
	return &redis.Pool{Dial: func() (redis.Conn, error) {
		c := base.Get()
		if err := c.Err(); err != nil {
			return nil, err
		}
		return plainConn{c}, nil
	}}
}

func TestPoolOfWrappedConnsWorks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.redis() // a Redis Cluster needs connections it can bind
	id := e.post("alice", "target", "g")
	pool := plainPool(base)
	defer pool.Close()
	s, err := voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	deadline, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cancelable, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	for cname, cctx := range map[string]context.Context{"background": ctx, "deadline": deadline, "cancelable": cancelable} {
		for name, call := range calls(s, id) {
			if err := call(cctx); err != nil {
				t.Errorf("%s with a %s context through a pool of wrapped connections: %v", name, cname, err)
			}
		}
	}
}

// A Store waits DefaultTimeout, 5s, for a round trip unless told otherwise;
// a negative timeout is refused.
func TestTimeoutDefault(t *testing.T) {
	t.Parallel()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return nil, errors.New("no dialing in this test") }}
	for _, tc := range []struct {
		opts []voting.Option
		want time.Duration
	}{{nil, 5 * time.Second}, {[]voting.Option{voting.WithTimeout(0)}, 0}, {[]voting.Option{voting.WithTimeout(time.Minute)}, time.Minute}} {
		s, err := voting.New(pool, tc.opts...)
		if err != nil || s.Timeout() != tc.want {
			t.Errorf("New(%d options).Timeout() = %v, %v; want %v", len(tc.opts), s.Timeout(), err, tc.want)
		}
	}
	if _, err := voting.New(pool, voting.WithTimeout(-time.Second)); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("WithTimeout(-1s): %v; want ErrInvalid", err)
	}
}

// TestDeadlineDuringTheDialWrapsDeadlineExceeded: a deadline that ends while
// the pool dials gave the dialer's "i/o timeout", which errors.Is could not
// tell from any other network failure.
func TestDeadlineDuringTheDialWrapsDeadlineExceeded(t *testing.T) {
	t.Parallel()
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

// A timedCall is one call with a deadline of its own.
type timedCall struct {
	name     string
	deadline time.Duration
	call     func(context.Context) error
	// alsoOK accepts other errors, or none, from a call that returns
	// within its deadline.
	alsoOK func(error) bool
}

// lateBy is how long past its deadline a call may return: the time a
// goroutine may wait for a CPU on a machine of two cores under a load
// average of 10, with margin (at a load of 8 a call was seen back 316 ms
// late, at 11 766 ms: a goroutine's wait for the scheduler, not the
// library's). hang is how long a call may take before it is reported as
// hung. The Stores of the tests that use them wait for Redis up to
// ignoredDeadline, so that a call that ignored its deadline, on a server
// that does not answer, shows as hung, far past both.
const lateBy, hang, ignoredDeadline = 5 * time.Second, 20 * time.Second, time.Minute

// runBounded runs calls, parallel at a time, and fails the test for each
// call that does not return within its deadline + lateBy with an error
// wrapping context.DeadlineExceeded. A call not back within hang is
// reported as hung and left behind (it ends when its server answers or
// goes away); after 4 calls late or hung, the rest are not started.
func runBounded(t *testing.T, calls []timedCall, parallel int) {
	t.Helper()
	var mu sync.Mutex
	failures := map[string][]string{}
	slow := 0                // calls late or hung
	var latest time.Duration // how late the latest call returned
	fail := func(kind, msg string) {
		mu.Lock()
		failures[kind] = append(failures[kind], msg)
		if kind != "error" {
			slow++
		}
		mu.Unlock()
	}
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	started := 0
	for _, c := range calls {
		mu.Lock()
		stop := slow >= 4
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
				took := time.Since(begun)
				mu.Lock()
				latest = max(latest, took-c.deadline)
				mu.Unlock()
				if took > c.deadline+lateBy {
					fail("late", fmt.Sprintf("%s returned %v after its %v deadline", c.name, took-c.deadline, c.deadline))
				}
				if !errors.Is(err, context.DeadlineExceeded) && !(c.alsoOK != nil && c.alsoOK(err)) {
					fail("error", fmt.Sprintf("%s with a %v deadline = %v, want context.DeadlineExceeded", c.name, c.deadline, err))
				}
			case <-time.After(hang):
				fail("hung", fmt.Sprintf("%s with a %v deadline had not returned after %v", c.name, c.deadline, hang))
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls; the latest returned %v past its deadline", started, latest)
	for kind, msgs := range failures {
		t.Errorf("%d of %d calls %s, for example:", len(msgs), started, map[string]string{
			"late": "returned late", "error": "gave the wrong error", "hung": "hung",
		}[kind])
		for _, m := range msgs[:min(len(msgs), 5)] {
			t.Error("  " + m)
		}
	}
	if started < len(calls) {
		t.Errorf("stopped after %d of %d calls: too many late or hung", started, len(calls))
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
			calls[i] = timedCall{name: "Article", deadline: d, call: article}
		} else {
			calls[i] = timedCall{name: "UserVotes", deadline: d, call: votes}
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

// TestDeadlineBoundsPipelinesToASilentServer: a context that ends after a
// pipeline is flushed, before its replies are read, ends the call by its
// deadline, and the connection does not go back to the pool with replies
// unread (the pool's Close would wait for them with no timeout).
func TestDeadlineBoundsPipelinesToASilentServer(t *testing.T) {
	t.Parallel()
	pool := stockedPool(t, silentServer(t)) // no read timeout
	defer pool.Close()
	s, err := voting.New(pool, voting.WithOrders(voting.Orders()...), voting.WithTimeout(ignoredDeadline))
	if err != nil {
		t.Fatal(err)
	}
	jobs := spreadCalls(s, "1", 3000)
	for name, call := range calls(s, "1") {
		for _, d := range []time.Duration{0, 10 * time.Microsecond, 30 * time.Microsecond, 60 * time.Microsecond, 100 * time.Microsecond} {
			jobs = append(jobs, timedCall{name: name, deadline: d, call: call})
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

// TestDeadlineBoundsCallsToAFrozenServer: on a real server frozen with
// SIGSTOP every call ends by its deadline, and once the server runs again
// the same pool gives right answers, no stale replies.
func TestDeadlineBoundsCallsToAFrozenServer(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, stockedPool(t, srv.addr, redis.DialReadTimeout(ignoredDeadline)), "", voting.WithTimeout(ignoredDeadline))
	id := e.post("alice", "frozen", "g")
	if id != pipelineIDs[0] {
		t.Fatalf("first id = %s, want %s", id, pipelineIDs[0])
	}
	e.vote("bob", id, voting.Down)
	want := voting.Article{
		ID: id, Title: "frozen", Link: "https://example.com/frozen", Poster: "alice",
		Posted: start, Upvotes: 1, Downvotes: 1, RankingScore: unix(start), Groups: []string{"g"},
	}
	wantDirs := make([]voting.Direction, len(pipelineIDs))
	for i := range wantDirs {
		wantDirs[i] = voting.None
	}
	wantDirs[0] = voting.Down
	check := func(when string) {
		t.Helper()
		together(8, func(int) {
			for i := 0; i < 5; i++ {
				a, err := e.store.Article(ctx, id)
				if err != nil || !reflect.DeepEqual(a, want) {
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

	thaw := srv.freeze()
	var jobs []timedCall
	for i := 0; i < 4; i++ {
		jobs = append(jobs,
			timedCall{name: "Article", deadline: 50 * time.Millisecond, call: func(ctx context.Context) error { _, err := e.store.Article(ctx, id); return err }},
			timedCall{name: "UserVotes", deadline: 50 * time.Millisecond, call: func(ctx context.Context) error {
				_, err := e.store.UserVotes(ctx, "bob", pipelineIDs...)
				return err
			}})
	}
	runBounded(t, jobs, len(jobs))
	runBounded(t, spreadCalls(e.store, id, 1000), 4)
	thaw()
	check("after the thaw")
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// cancelConn offers only redis.Conn, as plainConn does, records the
// commands sent through it, Do's and Send's, and after each Do calls after
// with the command and its error (to cancel a context, say).
type cancelConn struct {
	redis.Conn
	sent  *sentLog
	after func(cmd string, err error)
}

func (c cancelConn) Do(cmd string, args ...any) (any, error) {
	c.sent.add(cmd)
	reply, err := c.Conn.Do(cmd, args...)
	c.after(cmd, err)
	return reply, err
}

func (c cancelConn) Send(cmd string, args ...any) error {
	c.sent.add("Send " + cmd)
	return c.Conn.Send(cmd, args...)
}

// sentLog is the commands a cancelConn has sent.
type sentLog struct {
	mu   sync.Mutex
	cmds []string
}

func (l *sentLog) add(cmd string) {
	l.mu.Lock()
	l.cmds = append(l.cmds, cmd)
	l.mu.Unlock()
}

func (l *sentLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	cmds := l.cmds
	l.cmds = nil
	return cmds
}

// cancelStore is a Store of e's namespace over plain connections that call
// after after each Do, and the log of what they send.
func cancelStore(t *testing.T, e *env, after func(cmd string, err error)) (*voting.Store, *sentLog) {
	t.Helper()
	sent := &sentLog{}
	p := wrapPool{e.redis(), func(c redis.Conn) redis.Conn { return cancelConn{c, sent, after} }}
	s, err := voting.New(p, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	// Its first call reads the namespace's settings: the tests count the
	// round trips of the calls after it.
	if _, err := s.Settings(context.Background()); err != nil {
		t.Fatal(err)
	}
	sent.take()
	return s, sent
}

// A plain connection cannot be interrupted, so the context is checked before
// each round trip: a listing whose context ends after its first round trip
// must not send its second.
func TestPlainConnStopsBetweenRoundTrips(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	e.post("alice", "listed", "g")
	var cancel context.CancelFunc
	s, sent := cancelStore(t, e, func(string, error) {
		if cancel != nil {
			cancel()
		}
	})
	lists := []struct {
		name  string
		first string // the first round trip's command
		call  func(context.Context) ([]voting.Article, error)
	}{
		{"GetArticles", "ZREVRANGE", func(ctx context.Context) ([]voting.Article, error) {
			return s.GetArticles(ctx, 1, voting.ByScore)
		}},
		{"GetGroupArticles", "EVALSHA", func(ctx context.Context) ([]voting.Article, error) {
			return s.GetGroupArticles(ctx, "g", 1, voting.ByTime)
		}},
	}
	for _, l := range lists {
		// Uncancelled, the listing takes its two round trips (and loads its
		// script, so that the first round trip below is one EVALSHA).
		if got, err := l.call(ctx); err != nil || len(got) != 1 {
			t.Fatalf("%s = %v, %v; want the one article", l.name, got, err)
		}
		// A pipeline is Sends, then the empty command that flushes them and
		// reads their replies.
		if cmds := sent.take(); len(cmds) < 3 || !strings.HasPrefix(cmds[len(cmds)-2], "Send ") || cmds[len(cmds)-1] != "" {
			t.Fatalf("%s sent %q, want a pipeline after the page of ids", l.name, cmds)
		}

		var cctx context.Context
		cctx, cancel = context.WithCancel(ctx)
		got, err := l.call(cctx)
		cancel = nil
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s, its context canceled after the first round trip, = %v, %v; want context.Canceled", l.name, got, err)
		}
		if cmds := sent.take(); !reflect.DeepEqual(cmds, []string{l.first}) {
			t.Errorf("%s, its context canceled after the first round trip, sent %v; want only [%s]", l.name, cmds, l.first)
		}
	}
}

// After SCRIPT FLUSH a script takes two round trips: EVALSHA, answered
// NOSCRIPT, then EVAL. A context that ends in between must stop the EVAL:
// the vote is then not applied.
func TestPlainConnStopsBeforeEvalAfterNoscript(t *testing.T) {
	e := newEnv(t)
	if e.real() {
		t.Skip("SCRIPT FLUSH would touch every user of the shared server")
	}
	id := e.post("alice", "target")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, sent := cancelStore(t, e, func(cmd string, err error) {
		if cmd == "EVALSHA" && err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			cancel()
		}
	})
	e.do("SCRIPT", "FLUSH")
	before := e.dump()
	err := s.Vote(cctx, "bob", id, voting.Up)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Vote, its context canceled on NOSCRIPT, = %v; want context.Canceled", err)
	}
	if cmds := sent.take(); !reflect.DeepEqual(cmds, []string{"EVALSHA"}) {
		t.Errorf("Vote, its context canceled on NOSCRIPT, sent %v; want only [EVALSHA]", cmds)
	}
	if after := e.dump(); after != before {
		t.Errorf("a canceled vote was applied:\nbefore %s\nafter  %s", before, after)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", id); err != nil || dirs[0] != voting.None {
		t.Errorf("bob's vote after a canceled Vote = %v, %v; want none", dirs, err)
	}
}

// methodConn offers both redis.ConnWithTimeout and redis.ConnWithContext,
// as a *redis.Pool's connections do, and records which of their methods a
// Store uses.
type methodConn struct {
	redis.Conn
	log *methodLog
}

type methodLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *methodLog) add(name string) {
	l.mu.Lock()
	l.calls = append(l.calls, name)
	l.mu.Unlock()
}

func (l *methodLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	calls := l.calls
	l.calls = nil
	return calls
}

func (c methodConn) Do(cmd string, args ...any) (any, error) {
	c.log.add("Do")
	return c.Conn.Do(cmd, args...)
}

func (c methodConn) Flush() error {
	c.log.add("Flush")
	return c.Conn.Flush()
}

func (c methodConn) Receive() (any, error) {
	c.log.add("Receive")
	return c.Conn.Receive()
}

func (c methodConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	c.log.add("DoWithTimeout")
	return redis.DoWithTimeout(c.Conn, d, cmd, args...)
}

func (c methodConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	c.log.add("ReceiveWithTimeout")
	return redis.ReceiveWithTimeout(c.Conn, d)
}

func (c methodConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.log.add("DoContext")
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c methodConn) ReceiveContext(ctx context.Context) (any, error) {
	c.log.add("ReceiveContext")
	return redis.ReceiveContext(c.Conn, ctx)
}

// TestContextCostsNoGoroutinePerCommand: redigo's DoContext and
// ReceiveContext start a goroutine a call. A deadline is served by the
// connection's timeouts alone, and so is a context that can never end,
// bounded by the Store's timeout, or not at all with none; a context with
// no deadline uses them at most once per round trip.
func TestContextCostsNoGoroutinePerCommand(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "target", "g")
	log := &methodLog{}
	pool := wrapPool{e.redis(), func(c redis.Conn) redis.Conn { return methodConn{c, log} }}
	deadline, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cancelable, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	onlyTimeouts := func(calls []string) bool { return count(calls, "DoContext", "ReceiveContext", "Do", "Receive") == 0 }
	for _, timeout := range []time.Duration{voting.DefaultTimeout, 0} {
		s, err := voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithTimeout(timeout))
		if err != nil {
			t.Fatal(err)
		}
		never, neverWant := onlyTimeouts, "only DoWithTimeout and ReceiveWithTimeout"
		if timeout == 0 {
			never = func(calls []string) bool {
				return count(calls, "DoContext", "ReceiveContext", "DoWithTimeout", "ReceiveWithTimeout") == 0
			}
			neverWant = "only Do and Receive"
		}
		for name, call := range calls(s, id) {
			if err := call(ctx); err != nil { // loads the scripts
				t.Fatalf("%s: %v", name, err)
			}
			log.take()
			for _, tc := range []struct {
				ctx     context.Context
				allowed func(calls []string) bool
				want    string
			}{
				{deadline, onlyTimeouts, "only DoWithTimeout and ReceiveWithTimeout"},
				{cancelable, func(calls []string) bool {
					return count(calls, "DoWithTimeout", "ReceiveWithTimeout") == 0 &&
						count(calls, "DoContext", "ReceiveContext") <= count(calls, "DoContext", "Flush")
				}, "at most one DoContext or ReceiveContext a round trip"},
				{ctx, never, neverWant},
			} {
				if err := call(tc.ctx); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if calls := log.take(); len(calls) == 0 || !tc.allowed(calls) {
					t.Errorf("%s with timeout %v used %v; want %s", name, timeout, calls, tc.want)
				}
			}
		}
	}
}

// count counts the calls that are one of names.
func count(calls []string, names ...string) int {
	n := 0
	for _, c := range calls {
		for _, name := range names {
			if c == name {
				n++
			}
		}
	}
	return n
}

// TestTimeoutBoundsTheWaitForAConnection: the wait for a connection of a
// capped pool (MaxActive, Wait) is part of the call, and a call whose
// context has no deadline, or a later one, waited for it forever. The
// Store's timeout bounds that wait as it bounds a round trip, and the
// error says so.
func TestTimeoutBoundsTheWaitForAConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.redis()
	id := e.post("alice", "target", "g")
	pool := &redis.Pool{MaxActive: 1, Wait: true, Dial: func() (redis.Conn, error) {
		c := base.Get()
		return c, c.Err()
	}}
	defer pool.Close()
	const timeout = 200 * time.Millisecond
	s, err := voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	held := pool.Get() // the pool's one connection
	if _, err := held.Do("PING"); err != nil {
		t.Fatal(err)
	}
	cancelable, cancel := context.WithCancel(ctx)
	defer cancel()
	later, cancel2 := context.WithTimeout(ctx, time.Hour)
	defer cancel2()
	// Every call at once, each waiting for the one connection.
	var wg sync.WaitGroup
	for cname, cctx := range map[string]context.Context{"background": ctx, "cancelable": cancelable, "later deadline": later} {
		for name, call := range calls(s, id) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				done := make(chan error, 1)
				began := time.Now()
				go func() { done <- call(cctx) }()
				select {
				case err := <-done:
					if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "no connection from the pool within 200ms (WithTimeout)") {
						t.Errorf("%s with a %s context = %v; want the timeout's error", name, cname, err)
					}
					if waited := time.Since(began); waited < timeout {
						t.Errorf("%s with a %s context gave up after %v, before the timeout", name, cname, waited)
					}
				case <-time.After(5 * time.Second):
					t.Errorf("%s with a %s context still waits for a connection after 5s, with a timeout of %v", name, cname, timeout)
				}
			}()
		}
	}
	wg.Wait()
	held.Close()
	if _, err := s.Article(ctx, id); err != nil {
		t.Errorf("Article once the connection is free: %v", err)
	}
}

// TestTimeoutLeavesADialToThePool: a pool with Wait and a connection to
// spare dials one, in as long as its own Dial takes (a TLS handshake and
// AUTH over a slow link may take longer than a round trip): the Store's
// timeout bounds only the wait for a connection that another call holds.
// The dial takes longer than the timeout, and the timeout is long enough
// for the round trips after it on a busy machine.
func TestTimeoutLeavesADialToThePool(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.redis()
	const timeout, dial = 2 * time.Second, 2500 * time.Millisecond
	for _, tc := range []struct {
		name      string
		maxActive int
		deadline  time.Duration // 0 for a context with none
	}{{"a spare connection", 10, 0}, {"a spare connection, a later deadline", 10, 20 * time.Second}, {"no cap", 0, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// MaxIdle: the call's round trips after its first reuse the
			// connection dialed.
			pool := &redis.Pool{Wait: true, MaxActive: tc.maxActive, MaxIdle: 1, DialContext: func(ctx context.Context) (redis.Conn, error) {
				select {
				case <-time.After(dial):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				c := base.Get()
				return c, c.Err()
			}}
			defer pool.Close()
			s, err := voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithTimeout(timeout))
			if err != nil {
				t.Fatal(err)
			}
			cctx, cancel := context.WithCancel(ctx)
			if tc.deadline > 0 {
				cctx, cancel = context.WithTimeout(ctx, tc.deadline)
			}
			defer cancel()
			if _, err := s.PostArticle(cctx, "alice", "t", "https://example.com/x"); err != nil {
				t.Errorf("PostArticle through a pool that dials in %v, with a timeout of %v: %v", dial, timeout, err)
			}
		})
	}
}
