package voting_test

// Tests of ErrNotSent: a write whose error wraps it never lands, however
// late its connection's writer gets to it, and every failure before a byte
// of a write is sent wraps it, while one after does not.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// A gate holds, while shut, the scripts sent through it (gatedConn).
type gate struct {
	mu     sync.Mutex
	shut   bool
	open   chan struct{}
	held   atomic.Int32 // scripts held now
	passed atomic.Int32 // scripts held, then let through
}

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.shut {
		g.shut, g.open = true, make(chan struct{})
	}
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		g.shut = false
		close(g.open)
	}
}

func (g *gate) pass() {
	if g == nil {
		return
	}
	g.mu.Lock()
	shut, open := g.shut, g.open
	g.mu.Unlock()
	if shut {
		g.held.Add(1)
		<-open
		g.passed.Add(1)
		g.held.Add(-1)
	}
}

// A gatedConn is a connection whose EVALSHA passes a gate first: sent
// with Send, as a shared connection's writer sends it, the gate send; in a
// round trip of its own (Do and its timeout and context reads), as a call
// on a connection of its own sends it, the gate do. The replies of a
// pipeline, read by a round trip of no command, pass the gate replies once
// read. A nil gate is always open.
type gatedConn struct {
	redis.Conn
	send, do, replies *gate
}

func (c gatedConn) Send(cmd string, args ...any) error {
	if cmd == "EVALSHA" {
		c.send.pass()
	}
	return c.Conn.Send(cmd, args...)
}

func (c gatedConn) Do(cmd string, args ...any) (any, error) {
	if cmd == "EVALSHA" {
		c.do.pass()
	}
	return c.Conn.Do(cmd, args...)
}

func (c gatedConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	if cmd == "EVALSHA" {
		c.do.pass()
	}
	reply, err := redis.DoWithTimeout(c.Conn, d, cmd, args...)
	if cmd == "" {
		c.replies.pass()
	}
	return reply, err
}

func (c gatedConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.Conn, d)
}

func (c gatedConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	if cmd == "EVALSHA" {
		c.do.pass()
	}
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c gatedConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

// dialOf is the dial of a *redis.Pool, as a Store's own connections are
// dialled.
func dialOf(p *redis.Pool) func(context.Context) (redis.Conn, error) {
	if p.DialContext != nil {
		return p.DialContext
	}
	return func(context.Context) (redis.Conn, error) { return p.Dial() }
}

// gatedPool is a pool of e's server whose connections pass send and do,
// closed when the test ends.
func gatedPool(e *env, send, do *gate) *redis.Pool {
	dial := dialOf(e.redis())
	p := &redis.Pool{MaxIdle: 64, DialContext: func(ctx context.Context) (redis.Conn, error) {
		c, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		return gatedConn{Conn: c, send: send, do: do}, nil
	}}
	e.t.Cleanup(func() { p.Close() })
	return p
}

// A user's up-vote that waits behind other votes on a shared connection
// whose writer is held, and whose context ends there, is told it was not
// sent; the user's down-vote then succeeds, and once the writer goes on,
// the up-vote is not sent after it: the user's vote stays down. Every
// vote told ErrNotSent is missing, every other one is in Redis.
func TestAVoteNotSentNeverLands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if e.isCluster() {
		t.Skip("no shared connections on a cluster")
	}
	id := e.post("alice", "contested")
	writers, own := &gate{}, &gate{}
	s, err := voting.New(gatedPool(e, writers, own), voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithTimeout(30*time.Second)) // far beyond the test: no reply is awaited that long
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ps := voting.SharedConns(s)
	overlap(e, s, ps, id)

	// Votes pile up, none of them sent, until both writers are held in a
	// write and more than 8 votes are in flight, so that the next vote is
	// shared.
	writers.close()
	defer writers.release()
	own.close()
	defer own.release()
	pileCtx, stopPile := context.WithCancel(context.Background())
	defer stopPile()
	var mu sync.Mutex
	piled := map[string]error{}
	var pile sync.WaitGroup
	for i := 0; writers.held.Load() < 2 || ps.InFlight() <= 8; i++ {
		if i == 400 {
			t.Fatalf("after %d votes, %d writes held and %d votes in flight; want 2 and more than 8", i, writers.held.Load(), ps.InFlight())
		}
		user := fmt.Sprintf("pile%d", i)
		pile.Add(1)
		go func() {
			defer pile.Done()
			err := s.Vote(pileCtx, user, id, voting.Up)
			mu.Lock()
			piled[user] = err
			mu.Unlock()
		}()
		time.Sleep(time.Millisecond)
	}

	upCtx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	err = s.Vote(upCtx, "carol", id, voting.Up)
	cancel()
	if !errors.Is(err, voting.ErrNotSent) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an up-vote whose deadline passed behind a held writer: %v; want ErrNotSent and context.DeadlineExceeded", err)
	}
	// The votes on connections of their own are sent, and land; then the
	// shared ones end with their context.
	own.release()
	if !waitFor(func() bool {
		mu.Lock()
		defer mu.Unlock()
		landed := 0
		for _, err := range piled {
			if err == nil {
				landed++
			}
		}
		return own.held.Load() == 0 && landed == int(own.passed.Load())
	}) {
		t.Fatalf("the %d votes on connections of their own did not all succeed within 5 s: %v", own.passed.Load(), piled)
	}
	stopPile()
	pile.Wait()
	if err := s.Vote(context.Background(), "carol", id, voting.Down); err != nil {
		t.Fatalf("the down-vote after it: %v", err)
	}

	writers.release()
	if !waitFor(ps.Idle) {
		t.Fatal("the shared connections had calls on their way 5 s after the writers went on")
	}
	if dirs, err := e.store.UserVotes(ctx, "carol", id); err != nil || dirs[0] != voting.Down {
		t.Errorf("carol's vote once the writers went on: %v, %v; want down: the up-vote told it failed landed after it", dirs, err)
	}
	sentAndFailed := 0
	for user, err := range piled {
		dirs, verr := e.store.UserVotes(ctx, user, id)
		if verr != nil {
			t.Fatal(verr)
		}
		switch {
		case errors.Is(err, voting.ErrNotSent):
			if dirs[0] != voting.None {
				t.Errorf("%s's vote failed with %v, yet it is in Redis", user, err)
			}
		case err != nil:
			sentAndFailed++
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s's vote: %v; want context.Canceled", user, err)
			}
			fallthrough
		default:
			if dirs[0] != voting.Up {
				t.Errorf("%s's vote (%v) is not in Redis once the writers went on", user, err)
			}
		}
	}
	// Each writer held one vote in its write, which it had taken: those
	// two may have landed (they did), and no other vote failed after it
	// was taken.
	if sentAndFailed != 2 {
		t.Errorf("%d votes of %d failed once their writer had taken them, want the 2 held in a write", sentAndFailed, len(piled))
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// Every failure the Store knows came before any byte of the vote was
// written wraps ErrNotSent, beside its cause; a failure once the vote was
// written does not, and that vote lands.
func TestErrNotSentIsWrappedExactlyWhenNothingWasSent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "voted on")
	refused := errors.New("dial refused")
	cases := []struct {
		name    string
		pool    voting.Pool
		opts    []voting.Option
		ctx     func() (context.Context, context.CancelFunc)
		notSent bool
		cause   error
	}{
		{name: "a context cancelled before the call", pool: e.pool,
			ctx: func() (context.Context, context.CancelFunc) {
				c, cancel := context.WithCancel(ctx)
				cancel()
				return c, cancel
			},
			notSent: true, cause: context.Canceled},
		{name: "a deadline passed before the call", pool: e.pool,
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithDeadline(ctx, time.Now().Add(-time.Second))
			},
			notSent: true, cause: context.DeadlineExceeded},
		{name: "a dial that failed", pool: &redis.Pool{Dial: func() (redis.Conn, error) { return nil, refused }},
			notSent: true, cause: refused},
		{name: "a dial cut short by the deadline", pool: &redis.Pool{DialContext: func(ctx context.Context) (redis.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
			ctx:     func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 20*time.Millisecond) },
			notSent: true, cause: context.DeadlineExceeded},
		{name: "no connection from the pool within the timeout", pool: heldOnly(t, e),
			opts: []voting.Option{voting.WithTimeout(50 * time.Millisecond)}, notSent: true, cause: os.ErrDeadlineExceeded},
		{name: "a vote the server took", pool: e.pool, notSent: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := voting.New(c.pool, append([]voting.Option{voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now)}, c.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			callCtx, cancel := context.Background(), context.CancelFunc(func() {})
			if c.ctx != nil {
				callCtx, cancel = c.ctx()
			}
			defer cancel()
			err = s.Vote(callCtx, "bob-"+c.name, id, voting.Up)
			switch {
			case !c.notSent && err != nil:
				t.Fatalf("Vote: %v", err)
			case c.notSent && (!errors.Is(err, voting.ErrNotSent) || !errors.Is(err, c.cause)):
				t.Fatalf("Vote: %v; want ErrNotSent and %v", err, c.cause)
			}
			dirs, err := e.store.UserVotes(ctx, "bob-"+c.name, id)
			if want := map[bool]voting.Direction{true: voting.None, false: voting.Up}[c.notSent]; err != nil || dirs[0] != want {
				t.Fatalf("the vote in Redis: %v, %v; want %v", dirs, err, want)
			}
		})
	}
}

// heldOnly is a pool of one connection, which the test holds, so that a
// call waits for a connection.
func heldOnly(t *testing.T, e *env) *redis.Pool {
	dial := dialOf(e.redis())
	p := &redis.Pool{MaxActive: 1, Wait: true, DialContext: dial}
	c := p.Get()
	if _, err := c.Do("PING"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		p.Close()
	})
	return p
}

// A vote written to a server that is frozen, whose deadline passes while
// it waits for the reply, may have landed: its error does not wrap
// ErrNotSent, and once the server runs again, it has landed.
func TestAVoteWrittenMayHaveLanded(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, srv.pool(), "")
	id := e.post("alice", "voted on")
	s, _ := pipelined(e)
	e.vote("carol", id, voting.Up) // Redis has the script: the vote is EVALSHA alone
	thaw := srv.freeze()
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	err := s.Vote(dctx, "bob", id, voting.Up)
	cancel()
	thaw()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, voting.ErrNotSent) {
		t.Fatalf("a vote written to a frozen server: %v; want context.DeadlineExceeded without ErrNotSent", err)
	}
	if !waitFor(func() bool {
		dirs, err := e.store.UserVotes(ctx, "bob", id)
		return err == nil && dirs[0] == voting.Up
	}) {
		t.Fatal("the vote written before its deadline passed did not land once the server ran again")
	}
}
