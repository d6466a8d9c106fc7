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
// live, or fails the test after 5 s.
func overlap(e *env, s *voting.Store, ps *rconn.Pipes, id string) {
	e.t.Helper()
	var n atomic.Int64
	if !waitFor(func() bool {
		together(16, func(g int) {
			_ = s.Vote(context.Background(), fmt.Sprintf("warm%d", n.Add(1)), id, voting.Up)
		})
		return ps.Live() == 2
	}) {
		e.t.Fatalf("%d shared connections live after 5 s of overlapping votes, want 2", ps.Live())
	}
}

func TestAutoPipeliningKeepsEveryVote(t *testing.T) {
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
// once it runs again, votes land and the namespace is whole.
func TestAutoPipeliningBoundsVotesToAFrozenServer(t *testing.T) {
	srv := startServer(t)
	const limit = 300 * time.Millisecond
	e := newEnvPool(t, stockedPool(t, srv.addr, redis.DialReadTimeout(5*time.Second)), "")
	ids := postMany(e, 3)
	s, ps := pipelined(e, voting.WithTimeout(limit))
	overlap(e, s, ps, ids[0])

	thaw := srv.freeze()
	jobs := voteCalls(s, ids, 48, func(i int) string { return fmt.Sprintf("f%d", i) }, nil)
	shared := ps.Shared()
	runBounded(t, jobs, 16)
	if ps.Shared() == shared {
		t.Error("no vote to the frozen server went on a shared connection")
	}
	// With no deadline, the Store's timeout ends each call.
	together(16, func(g int) {
		begun := time.Now()
		err := s.Vote(context.Background(), fmt.Sprintf("nd%d", g), ids[g%3], voting.Up)
		if took := time.Since(begun); took > limit+250*time.Millisecond {
			t.Errorf("a vote with no deadline returned after %v, over the %v timeout", took, limit)
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a vote with no deadline to a frozen server: %v, want os.ErrDeadlineExceeded", err)
		}
	})
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
	const limit = 300 * time.Millisecond
	e := newEnvPool(t, stockedPool(t, proxy.addr, smallWrites, redis.DialReadTimeout(5*time.Second)), "")
	ids := postMany(e, 3)
	s, ps := pipelined(e, voting.WithTimeout(limit))
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
