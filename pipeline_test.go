package voting_test

// Tests of auto-pipelining (WithAutoPipelining): votes of many goroutines
// shared on a few connections land exactly as without it, keep their
// deadlines against a server that stops answering, and outlive a broken
// shared connection.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/gomodule/redigo/redis"
)

// isCluster reports whether e runs on Redis Cluster, where every call
// takes a connection of its own.
func (e *env) isCluster() bool {
	_, ok := e.pool.(*redis.Pool)
	return !ok
}

// pipelined is a Store on e's namespace with auto-pipelining, closed when
// the test ends.
func pipelined(e *env, opts ...voting.Option) (*voting.Store, *rconn.Pipes) {
	e.t.Helper()
	s := e.with(opts...)
	e.t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Settings(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return s, voting.SharedConns(s)
}

// sharedEnv is an env with n articles posted and a Store whose shared
// connections are both live; the test is skipped on a cluster.
func sharedEnv(t *testing.T, n int) (*env, []string, *voting.Store, *rconn.Pipes) {
	t.Helper()
	e := newEnv(t)
	if e.isCluster() {
		t.Skip("no shared connections on a cluster")
	}
	ids := postMany(e, n)
	s, ps := pipelined(e)
	overlap(e, s, ps, ids[0])
	return e, ids, s, ps
}

// overlap has goroutines vote at once until both shared connections are
// live, or fails the test after 30 s.
func overlap(e *env, s *voting.Store, ps *rconn.Pipes, id string) {
	e.t.Helper()
	var n atomic.Int64
	if !waitFor(func() bool {
		together(16, func(g int) {
			_ = s.Vote(context.Background(), fmt.Sprintf("warm%d", n.Add(1)), id, voting.Up)
		})
		return ps.Live() == 2
	}) {
		e.t.Fatalf("%d shared connections live after 30 s of overlapping votes, want 2", ps.Live())
	}
}

func TestAutoPipeliningKeepsEveryVote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	ids := postMany(e, 8) // article i has 1 + i%7 up-votes
	s, ps := pipelined(e)
	if ps == nil {
		t.Fatal("auto-pipelining is off by default")
	}
	const goroutines, votes = 32, 60
	// Each user votes up; every third then switches to down, and every
	// fifth of those takes the vote back.
	ups, downs := make([]atomic.Int64, len(ids)), make([]atomic.Int64, len(ids))
	together(goroutines, func(g int) {
		for i := range votes {
			a, user := (g+i)%len(ids), fmt.Sprintf("pv%d-%d", g, i)
			dirs := []voting.Direction{voting.Up}
			if i%3 == 0 {
				dirs = append(dirs, voting.Down)
				if i%5 == 0 {
					dirs = append(dirs, voting.None)
				}
			}
			for _, dir := range dirs {
				if err := s.Vote(ctx, user, ids[a], dir); err != nil {
					t.Errorf("Vote(%s, %s, %v): %v", user, ids[a], dir, err)
					return
				}
			}
			switch dirs[len(dirs)-1] {
			case voting.Up:
				ups[a].Add(1)
			case voting.Down:
				downs[a].Add(1)
			}
		}
	})
	for i, id := range ids {
		a, err := e.store.Article(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(1+i%7) + ups[i].Load(); a.Upvotes != want || a.Downvotes != downs[i].Load() {
			t.Errorf("article %s: %d up, %d down; want %d, %d", id, a.Upvotes, a.Downvotes, want, downs[i].Load())
		}
	}
	if shared := ps.Shared(); e.isCluster() && shared != 0 || !e.isCluster() && shared == 0 {
		t.Errorf("%d votes went on shared connections (cluster: %v)", shared, e.isCluster())
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	off, ps := pipelined(e, voting.WithAutoPipelining(false))
	if ps != nil {
		t.Fatal("WithAutoPipelining(false) left shared connections")
	}
	if err := off.Vote(ctx, "late", ids[0], voting.Up); err != nil {
		t.Fatal(err)
	}
}

// Comment votes share the connections as article votes do, with karma
// kept: every vote is counted, and the karma with it.
func TestAutoPipeliningKeepsEveryCommentVote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, voting.WithKarma())
	a := e.post("alice", "discussed")
	var ids []string
	for i := range 4 {
		ids = append(ids, e.comment(fmt.Sprintf("poster%d", i), a, "", "a comment"))
	}
	s, ps := pipelined(e, voting.WithKarma())
	const goroutines, votes = 32, 40
	var ups, downs [4]atomic.Int64
	together(goroutines, func(g int) {
		for i := range votes {
			c, user := (g+i)%len(ids), fmt.Sprintf("cv%d-%d", g, i)
			dir := voting.Up
			if i%3 == 0 {
				dir = voting.Down
			}
			if err := s.VoteComment(ctx, user, ids[c], dir); err != nil {
				t.Errorf("VoteComment(%s, %s, %v): %v", user, ids[c], dir, err)
				return
			}
			if dir == voting.Up {
				ups[c].Add(1)
			} else {
				downs[c].Add(1)
			}
		}
	})
	for i, id := range ids {
		c, err := e.store.Comment(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Upvotes != 1+ups[i].Load() || c.Downvotes != downs[i].Load() {
			t.Errorf("comment %s: %d up, %d down; want %d, %d", id, c.Upvotes, c.Downvotes, 1+ups[i].Load(), downs[i].Load())
		}
		if k := commentKarmaOf(t, e.store, c.Poster); k != ups[i].Load()-downs[i].Load() {
			t.Errorf("%s's comment karma = %d, want %d", c.Poster, k, ups[i].Load()-downs[i].Load())
		}
	}
	if shared := ps.Shared(); e.isCluster() && shared != 0 || !e.isCluster() && shared == 0 {
		t.Errorf("%d comment votes went on shared connections (cluster: %v)", shared, e.isCluster())
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// A broken shared connection fails the calls waiting on it, or they are
// sent on a connection of their own; the next overlapping votes dial
// again. Every vote acknowledged is in Redis.
func TestAutoPipeliningOutlivesABrokenConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, ids, s, ps := sharedEnv(t, 4)
	var acked sync.Map
	var failed atomic.Int64
	together(16, func(g int) {
		for i := range 50 {
			if g == 0 && i == 10 {
				ps.Break()
			}
			user := fmt.Sprintf("b%d-%d", g, i)
			if err := s.Vote(ctx, user, ids[i%3], voting.Up); err != nil {
				failed.Add(1)
				continue
			}
			acked.Store(user, ids[i%3])
		}
	})
	// Shared connections are dialled again: overlapping votes go on them.
	var more atomic.Int64
	if !waitFor(func() bool {
		before := ps.Shared()
		together(16, func(int) {
			_ = s.Vote(ctx, fmt.Sprintf("again%d", more.Add(1)), ids[3], voting.Up)
		})
		return ps.Shared() > before
	}) {
		t.Error("no vote went on a shared connection within 5 s of the break")
	}
	n := 0
	acked.Range(func(user, id any) bool {
		n++
		dirs, err := e.store.UserVotes(ctx, user.(string), id.(string))
		if err != nil || dirs[0] != voting.Up {
			t.Errorf("%s's acknowledged vote on %s: %v, %v", user, id, dirs, err)
		}
		return true
	})
	t.Logf("%d votes acknowledged, %d failed with the break", n, failed.Load())
	if n < 16*50-int(failed.Load()) {
		t.Errorf("%d votes acknowledged of %d that did not fail", n, 16*50-failed.Load())
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// voteCalls are n up-votes by user(i) on ids in turn, with deadlines of
// 25 to 100 ms, each accepting what alsoOK does.
func voteCalls(s *voting.Store, ids []string, n int, user func(int) string, alsoOK func(error) bool) []timedCall {
	calls := make([]timedCall, n)
	for i := range calls {
		calls[i] = timedCall{name: "Vote", deadline: time.Duration(i%4+1) * 25 * time.Millisecond, alsoOK: alsoOK, call: func(ctx context.Context) error {
			return s.Vote(ctx, user(i), ids[i%len(ids)], voting.Up)
		}}
	}
	return calls
}

// On a server frozen with SIGSTOP, votes on shared connections end by
// their deadlines, or by the Store's timeout when their context has none;
// once it runs again, votes land and the namespace is whole. The votes
// with deadlines go through a Store whose timeout is a minute, so that one
// that ignored its deadline would show as hung, not end by the timeout.
func TestAutoPipeliningBoundsVotesToAFrozenServer(t *testing.T) {
	srv := startServer(t)
	const limit = 300 * time.Millisecond
	e := newEnvPool(t, stockedPool(t, srv.addr, redis.DialReadTimeout(5*time.Second)), "")
	ids := postMany(e, 3)
	s, ps := pipelined(e, voting.WithTimeout(time.Minute))
	overlap(e, s, ps, ids[0])
	timed, pt := pipelined(e, voting.WithTimeout(limit))
	overlap(e, timed, pt, ids[0])

	thaw := srv.freeze()
	jobs := voteCalls(s, ids, 48, func(i int) string { return fmt.Sprintf("f%d", i) }, brokenByTheTimeout)
	shared := ps.Shared()
	runBounded(t, jobs, 16)
	if ps.Shared() == shared {
		t.Error("no vote to the frozen server went on a shared connection")
	}
	// With no deadline, the Store's timeout ends each call: by about the
	// timeout, which a load of 10 on two cores delays by much less than
	// the bound here, while a vote the timeout did not end would never
	// return.
	sharedTimed := pt.Shared()
	var mu sync.Mutex
	var slowest time.Duration
	together(16, func(g int) {
		begun := time.Now()
		done := make(chan error, 1)
		go func() { done <- timed.Vote(context.Background(), fmt.Sprintf("nd%d", g), ids[g%3], voting.Up) }()
		select {
		case err := <-done:
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("a vote with no deadline to a frozen server: %v, want os.ErrDeadlineExceeded", err)
			}
			mu.Lock()
			slowest = max(slowest, time.Since(begun))
			mu.Unlock()
		case <-time.After(limit + 10*time.Second):
			t.Errorf("a vote with no deadline has not returned after %v, with the timeout %v", time.Since(begun), limit)
		}
	})
	t.Logf("the slowest vote with no deadline returned after %v, the timeout %v", slowest, limit)
	if pt.Shared() == sharedTimed {
		t.Error("no vote with no deadline went on a shared connection")
	}
	thaw()
	overlap(e, s, ps, ids[1])
	if err := s.Vote(context.Background(), "after", ids[2], voting.Up); err != nil {
		t.Fatalf("a vote after the thaw: %v", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// Close ends the shared connections; the Store goes on, each call on a
// connection of its own.
func TestAutoPipeliningCloses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, ids, s, ps := sharedEnv(t, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ps.Live() != 0 {
		t.Fatalf("%d shared connections live after Close", ps.Live())
	}
	shared := ps.Shared()
	together(8, func(g int) {
		if err := s.Vote(ctx, fmt.Sprintf("c%d", g), ids[1], voting.Up); err != nil {
			t.Error(err)
		}
	})
	if ps.Shared() != shared {
		t.Errorf("%d votes went on shared connections after Close", ps.Shared()-shared)
	}
	if a, err := e.store.Article(ctx, ids[1]); err != nil || a.Upvotes != 2+8 {
		t.Errorf("after Close: %+v, %v; want 10 up-votes", a, err)
	}
}

// Shared connections that cannot bound a read (a pool of wrapped
// connections offering only redis.Conn) are read without a bound: the
// votes land, each bounded by its own wait.
func TestAutoPipeliningOnConnectionsWithoutTimeouts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	if e.isCluster() {
		t.Skip("no shared connections on a cluster")
	}
	base := e.redis()
	id := e.post("alice", "target")
	pool := plainPool(base)
	defer pool.Close()
	s, err := voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ps := voting.SharedConns(s)
	together(32, func(g int) {
		for i := range 20 {
			if err := s.Vote(ctx, fmt.Sprintf("w%d-%d", g, i), id, voting.Up); err != nil {
				t.Errorf("Vote through connections without timeouts: %v", err)
				return
			}
		}
	})
	if ps.Shared() == 0 {
		t.Error("no vote went on a shared connection")
	}
	if a, err := e.store.Article(ctx, id); err != nil || a.Upvotes != 1+32*20 {
		t.Errorf("Article = %+v, %v; want %d up-votes", a, err, 1+32*20)
	}
}

// A stallProxy forwards connections to a Redis server until stall, then
// stops reading what clients send, as a server that stops reading its
// sockets does: the clients' writes fill the small socket buffers and
// block. Replies already on their way still reach the clients.
type stallProxy struct {
	t       *testing.T
	addr    string
	stalled atomic.Bool
	resume  chan struct{}
	release func()
}

func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return errors.Join(err, serr)
	}}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{t: t, addr: ln.Addr().String(), resume: make(chan struct{})}
	p.release = sync.OnceFunc(func() {
		p.stalled.Store(false)
		close(p.resume)
	})
	t.Cleanup(func() {
		ln.Close()
		p.release()
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			go func() { // replies
				defer client.Close()
				_, _ = io.Copy(client, server)
			}()
			go func() { // commands
				defer server.Close()
				buf := make([]byte, 1024)
				for {
					if p.stalled.Load() {
						<-p.resume
					}
					n, err := client.Read(buf)
					if n > 0 {
						if _, werr := server.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

// stall stops the proxy reading its clients, until release; a proxy
// stalls once.
func (p *stallProxy) stall() (release func()) {
	p.stalled.Store(true)
	return p.release
}

// smallWrites dials with a small socket send buffer, so that a write to a
// peer that stops reading blocks after a few kilobytes.
var smallWrites = redis.DialNetDial(func(network, addr string) (net.Conn, error) {
	c, err := net.Dial(network, addr)
	if err != nil {
		return nil, err
	}
	if err := c.(*net.TCPConn).SetWriteBuffer(4096); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
})

// brokenByTheTimeout accepts a vote failed by a shared connection that
// Redis left unanswered for the timeout.
func brokenByTheTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// landedOrBroken accepts a vote that landed before Redis stopped reading,
// or that waited behind one the shared connection's limit ran out on.
func landedOrBroken(err error) bool { return err == nil || errors.Is(err, os.ErrDeadlineExceeded) }

// When Redis stops reading, a shared connection's write blocks on a full
// socket; the votes queued behind it, and the one writing, still end by
// their deadlines, and the shared connections recover once Redis reads
// again.
func TestAutoPipeliningBoundsVotesToAServerThatStopsReading(t *testing.T) {
	srv := startServer(t)
	proxy := newStallProxy(t, srv.addr)
	// A minute's timeout, so that a vote that ignored its deadline would
	// show as hung, not end by the timeout.
	e := newEnvPool(t, stockedPool(t, proxy.addr, smallWrites, redis.DialReadTimeout(5*time.Second)), "")
	ids := postMany(e, 3)
	s, ps := pipelined(e, voting.WithTimeout(time.Minute))
	overlap(e, s, ps, ids[0])

	release := proxy.stall()
	long := func(i int) string { return fmt.Sprintf("%04d%s", i, strings.Repeat("x", 90)) } // to fill the sockets
	jobs := voteCalls(s, ids, 800, long, landedOrBroken)
	shared := ps.Shared()
	runBounded(t, jobs, 32)
	if ps.Shared() == shared {
		t.Error("no vote went on a shared connection")
	}
	release()
	overlap(e, s, ps, ids[1])
	if err := s.Vote(context.Background(), "after", ids[2], voting.Up); err != nil {
		t.Fatalf("a vote once Redis reads again: %v", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// Every caller gets its own call's reply: many goroutines vote at once on
// shared connections, half on an article and half on one that does not
// exist, and each vote gets its own outcome, nil or ErrNotFound.
func TestAutoPipeliningAnswersEachCallerItsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, ids, s, ps := sharedEnv(t, 1)
	missing := "999999"
	shared := ps.Shared()
	before, err := e.store.Article(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	together(32, func(g int) {
		for i := range 40 {
			id, want := ids[0], error(nil)
			if (g+i)%2 == 1 {
				id, want = missing, voting.ErrNotFound
			}
			if err := s.Vote(ctx, fmt.Sprintf("own%d-%d", g, i), id, voting.Up); !errors.Is(err, want) || (want == nil) != (err == nil) {
				t.Errorf("a vote on %s: %v; want %v", id, err, want)
				return
			}
		}
	})
	if ps.Shared() == shared {
		t.Error("no vote went on a shared connection")
	}
	if a, err := e.store.Article(ctx, ids[0]); err != nil || a.Upvotes != before.Upvotes+32*20 {
		t.Errorf("Article = %+v, %v; want %d up-votes", a, err, before.Upvotes+32*20)
	}
}

// evalshaCalls is how many EVALSHA the server has run.
func evalshaCalls(t *testing.T, srv *server) int64 {
	t.Helper()
	text, err := redis.String(srv.admin("INFO", "commandstats"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(text, "\r\n") {
		if stats, ok := strings.CutPrefix(line, "cmdstat_evalsha:"); ok {
			var calls int64
			if _, err := fmt.Sscanf(stats, "calls=%d,", &calls); err != nil {
				t.Fatalf("cmdstat_evalsha %q: %v", stats, err)
			}
			return calls
		}
	}
	return 0
}

// Shared connections that break while a frozen server has read none of
// the calls they sent fail those calls, and do not send them again on a
// connection of their own, where each would wait out the timeout once more
// and run twice: once the server runs again, it has run each of 32 votes
// in flight at most once.
func TestAutoPipeliningSendsNoCallTwice(t *testing.T) {
	srv := startServer(t)
	const limit = 300 * time.Millisecond
	e := newEnvPool(t, srv.pool(), "")
	ids := postMany(e, 3)
	s, ps := pipelined(e, voting.WithTimeout(limit))
	overlap(e, s, ps, ids[0])
	before := evalshaCalls(t, srv)

	thaw := srv.freeze()
	defer thaw()
	shared := ps.Shared()
	done := make(chan struct{})
	go func() {
		defer close(done)
		together(32, func(g int) {
			err := s.Vote(context.Background(), fmt.Sprintf("twice%d", g), ids[g%3], voting.Up)
			if err == nil || errors.Is(err, voting.ErrNotSent) {
				t.Errorf("a vote to a frozen server: %v; want an error, the vote sent", err)
			}
		})
	}()
	if !waitFor(func() bool { return ps.InFlight() == 32 }) {
		t.Fatalf("%d votes in flight, want 32", ps.InFlight())
	}
	ps.Break()
	<-done
	if ps.Shared() == shared {
		t.Error("no vote went on a shared connection")
	}
	thaw()
	// The server runs what it had read before the connections closed,
	// calls sent again among it: at most the 32 votes (one the writer had
	// taken when the connection broke may not have been written).
	ran := evalshaCalls(t, srv)
	for settled := time.Now(); time.Since(settled) < 300*time.Millisecond; time.Sleep(10 * time.Millisecond) {
		if n := evalshaCalls(t, srv); n != ran {
			ran, settled = n, time.Now()
		}
	}
	if ran-before > 32 {
		t.Errorf("the server ran %d scripts for 32 votes, want at most 32: sent calls were sent again", ran-before)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// Shared connections whose reads have no bound of their own (a pool of
// connections with no read timeout, wrapped so that they offer no timed
// read, as a tracing wrapper may), to a frozen server: a vote with no
// deadline that waits on one returns by the Store's timeout, its own
// wait's timer failing the connection. Votes on connections of their own,
// which nothing can bound there, return once the server runs again.
func TestAutoPipeliningTimesVotesWithoutADeadline(t *testing.T) {
	srv := startServer(t)
	const limit = 300 * time.Millisecond
	pool := &redis.Pool{MaxIdle: 64, Dial: func() (redis.Conn, error) {
		c, err := redis.Dial("tcp", srv.addr) // no read timeout
		if err != nil {
			return nil, err
		}
		return plainConn{c}, nil
	}}
	e := newEnvPool(t, pool, "")
	ids := postMany(e, 3)
	s, ps := pipelined(e, voting.WithTimeout(limit))
	overlap(e, s, ps, ids[0])

	thaw := srv.freeze()
	defer thaw()
	var alone sync.WaitGroup
	for g := range 8 { // the votes in flight that take connections of their own
		alone.Add(1)
		go func() {
			defer alone.Done()
			if err := s.Vote(context.Background(), fmt.Sprintf("alone%d", g), ids[0], voting.Up); err != nil {
				t.Errorf("a vote on a connection of its own, once the server ran again: %v", err)
			}
		}()
	}
	if !waitFor(func() bool { return ps.InFlight() == 8 }) {
		t.Fatalf("%d votes in flight, want the 8 on connections of their own", ps.InFlight())
	}
	returned := make(chan error, 24)
	for g := range 24 {
		go func() { returned <- s.Vote(context.Background(), fmt.Sprintf("shared%d", g), ids[1], voting.Up) }()
	}
	// Generous: the timeout is 300 ms; a vote not back in 5 s has no bound.
	bound := time.After(5 * time.Second)
	for range 24 {
		select {
		case err := <-returned:
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("a shared vote with no deadline to a frozen server: %v, want os.ErrDeadlineExceeded", err)
			}
		case <-bound:
			t.Fatalf("shared votes with no deadline had not returned 5 s after the %v timeout", limit)
		}
	}
	thaw()
	alone.Wait()
}

// A queue's last place is taken, and no more: more than twice a queue's
// calls to a frozen server, some on shared connections and the rest,
// refused by full queues, on connections of their own, all return by the
// timeout, and so does Close, since the writer never blocks on a full
// queue.
func TestAutoPipeliningFillsItsQueues(t *testing.T) {
	srv := startServer(t)
	const limit = 300 * time.Millisecond
	e := newEnvPool(t, srv.pool(), "")
	ids := postMany(e, 3)
	// Closed by the test itself: a Close that hangs must fail it, not hang
	// its clean-up.
	s := e.with(voting.WithTimeout(limit))
	ps := voting.SharedConns(s)
	const queue = 8
	ps.SetQueueLen(queue) // no shared connection is dialled yet
	overlap(e, s, ps, ids[0])

	thaw := srv.freeze()
	defer thaw()
	done := make(chan struct{})
	go func() {
		defer close(done)
		together(8+2*2*queue+8, func(g int) { // alone, two full queues, more
			err := s.Vote(context.Background(), fmt.Sprintf("full%d", g), ids[g%3], voting.Up)
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("a vote to a frozen server: %v, want os.ErrDeadlineExceeded", err)
			}
		})
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("votes and Close had not returned 10 s after the %v timeout", limit)
	}
}

// Close leaves none of the Store's connections open: not those of its
// shared connections, those broken before included, nor its cache's.
func TestCloseLeavesNoConnectionOpen(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, srv.pool(), "")
	ids := postMany(e, 2)
	const name = "voting-close-test"
	pool := srv.pool(redis.DialClientName(name))
	defer pool.Close()
	s, err := voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithClientCache(8))
	if err != nil {
		t.Fatal(err)
	}
	ps := voting.SharedConns(s)
	overlap(e, s, ps, ids[0])
	ps.Break()
	overlap(e, s, ps, ids[1])
	if _, _, err := s.List(ctx, voting.Query{Paging: voting.Paging{Page: 1}}); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return s.CacheStats().Live }) {
		t.Fatalf("the cache is not live: %v", s.CacheStats().Err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	pool.Close() // the connections the calls gave back
	open := func() []string {
		list, err := redis.String(srv.admin("CLIENT", "LIST"))
		if err != nil {
			t.Fatal(err)
		}
		var named []string
		for _, line := range strings.Split(list, "\n") {
			if strings.Contains(line, " name="+name+" ") {
				named = append(named, line)
			}
		}
		return named
	}
	if !waitFor(func() bool { return len(open()) == 0 }) {
		t.Fatalf("after Close, the Store's connections still open:\n%s", strings.Join(open(), "\n"))
	}
	// The Store is kept: a connection it left open is not closed by the
	// garbage collector's finalizer of the socket.
	runtime.KeepAlive(s)
}
