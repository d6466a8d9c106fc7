package voting_test

// Tests of the round trips: how many each operation takes, and how a
// context bounds them over each kind of connection.

import (
	"context"
	"errors"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
	"github.com/gomodule/redigo/redis"
)

func TestRoundTrips(t *testing.T) {
	e := newEnv(t)
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
		{"UserVotes", 1, func() error { _, err := s.UserVotes(ctx, "bob", ids[:25]...); return err }},
		{"GetArticles by score", 2, func() error { return full(s.GetArticles(ctx, 1, voting.ByScore)) }},
		{"GetArticles by time", 2, func() error { return full(s.GetArticles(ctx, 1, voting.ByTime)) }},
		{"GetGroupArticles cold", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.ByScore)) }},
		{"GetGroupArticles warm", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.ByScore)) }},
		{"GetGroupArticles cold by time", 2, func() error { return full(s.GetGroupArticles(ctx, "all", 1, voting.ByTime)) }},
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
	all["CountArticles"] = func(ctx context.Context) error { _, err := s.CountArticles(ctx, voting.ByScore); return err }
	all["CountGroupArticles"] = func(ctx context.Context) error {
		_, err := s.CountGroupArticles(ctx, "g", voting.ByTime)
		return err
	}
	if s.HistoryTime() > 0 {
		all["UserHistory"] = func(ctx context.Context) error { _, err := s.UserHistory(ctx, "bob", 1); return err }
	}
	if slices.Contains(s.Orders(), voting.TopWeek) {
		all["GetArticles top-week"] = func(ctx context.Context) error {
			_, err := s.GetArticles(ctx, 1, voting.TopWeek)
			return err
		}
		all["GetGroupArticles top-week"] = func(ctx context.Context) error {
			_, err := s.GetGroupArticles(ctx, "g", 1, voting.TopWeek)
			return err
		}
		all["Reindex"] = s.Reindex
		if s.LiveGroups() {
			all["CountGroupArticles top-week"] = func(ctx context.Context) error {
				_, err := s.CountGroupArticles(ctx, "g", voting.TopWeek)
				return err
			}
		}
	}
	return all
}

func TestCanceledContextWritesNothing(t *testing.T) {
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
	e := newEnv(t)
	id := e.post("alice", "target")
	var timeouts []time.Duration
	for kind, s := range connKinds(t, e.redis(), e.prefix, &timeouts) {
		for name, call := range calls(s, id) {
			dctx, cancel := context.WithTimeout(ctx, time.Minute)
			if err := call(dctx); err != nil {
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

func TestDeadlineEndsCallsToAServerThatNeverAnswers(t *testing.T) {
	addr := silentServer(t)
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	defer pool.Close()
	var timeouts []time.Duration
	stores := connKinds(t, pool, "", &timeouts)
	delete(stores, "plain") // a plain connection has no way to stop waiting
	for kind, s := range stores {
		for name, call := range calls(s, "1") {
			dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			begun := time.Now()
			err := call(dctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s over %s conn = %v, want context.DeadlineExceeded", name, kind, err)
			}
			if waited := time.Since(begun); waited > 10*time.Second {
				t.Errorf("%s over %s conn waited %v past a 100ms deadline", name, kind, waited)
			}
		}
	}
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
	return s, sent
}

// A plain connection cannot be interrupted, so the context is checked before
// each round trip: a listing whose context ends after its first round trip
// must not send its second.
func TestPlainConnStopsBetweenRoundTrips(t *testing.T) {
	e := newEnv(t)
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
// connection's timeouts alone; a context with no deadline uses them at most
// once per round trip; a context that can never end, not at all.
func TestContextCostsNoGoroutinePerCommand(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "target", "g")
	log := &methodLog{}
	s, err := voting.New(wrapPool{e.redis(), func(c redis.Conn) redis.Conn { return methodConn{c, log} }},
		voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	deadline, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cancelable, cancel2 := context.WithCancel(ctx)
	defer cancel2()
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
			{deadline, func(calls []string) bool { return count(calls, "DoContext", "ReceiveContext", "Do", "Receive") == 0 },
				"only DoWithTimeout and ReceiveWithTimeout"},
			{cancelable, func(calls []string) bool {
				return count(calls, "DoWithTimeout", "ReceiveWithTimeout") == 0 &&
					count(calls, "DoContext", "ReceiveContext") <= count(calls, "DoContext", "Flush")
			}, "at most one DoContext or ReceiveContext a round trip"},
			{ctx, func(calls []string) bool {
				return count(calls, "DoContext", "ReceiveContext", "DoWithTimeout", "ReceiveWithTimeout") == 0
			},
				"only Do and Receive"},
		} {
			if err := call(tc.ctx); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if calls := log.take(); len(calls) == 0 || !tc.allowed(calls) {
				t.Errorf("%s used %v; want %s", name, calls, tc.want)
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
