package rconn

// This file holds auto-pipelining (WithAutoPipelining): a call that finds
// many others of its kind in flight (shareAbove) sends its command on one
// of a few shared connections, behind the commands of other goroutines,
// instead of taking a connection of its own. Redis then reads many
// commands in one read and writes their replies in one write, and the
// client makes one system call for many commands: at many goroutines the
// server's work per command falls by a quarter. A call that finds few in
// flight takes a connection of its own, as without auto-pipelining, so
// that a lone caller, or a few, pay nothing for it.
//
// redigo lets one goroutine send on a connection while another receives:
// a shared connection's senders take turns under a lock, and the last of
// the goroutines queued for the lock flushes what they sent together; one
// goroutine of the connection's own reads the replies, in order, and hands
// each to its caller. A caller waits for its reply no longer than its
// context and the round-trip limit allow; the reader breaks the
// connection if Redis leaves a command unanswered for the limit, failing
// every call that waits on it, as a connection of a call's own does.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Dialer gives a connection of the Client's own, held until Close.
type Dialer func(ctx context.Context) (redis.Conn, error)

// Pipes are the shared connections of a Client's auto-pipelined calls.
type Pipes struct {
	dial  Dialer
	limit time.Duration

	inflight atomic.Int64
	next     atomic.Uint32
	shared   atomic.Int64 // calls sent on a shared connection

	mu      sync.Mutex
	pipes   []*pipe // nil where none is live
	dialing []bool
	closed  bool
	// off is set for good once a connection turns out to be a cluster's,
	// which must be bound for each call's keys.
	off bool
}

// NewPipes returns up to n shared connections, each dialled by dial when
// first needed, whose calls wait for Redis at most limit (0 for no
// bound).
func NewPipes(dial Dialer, n int, limit time.Duration) *Pipes {
	return &Pipes{dial: dial, limit: limit, pipes: make([]*pipe, n), dialing: make([]bool, n)}
}

// pick is a live shared connection, or nil if there is none now; in that
// case it starts dialling one.
func (ps *Pipes) pick() *pipe {
	i := int(ps.next.Add(1)) % len(ps.pipes)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed || ps.off {
		return nil
	}
	if p := ps.pipes[i]; p != nil && !p.dead() {
		return p
	}
	if !ps.dialing[i] {
		ps.dialing[i] = true
		go ps.open(i)
	}
	return nil
}

// open dials the i-th shared connection and starts its reader.
func (ps *Pipes) open(i int) {
	ctx, cancel := context.WithTimeout(context.Background(), max(ps.limit, 5*time.Second))
	conn, err := ps.dial(ctx)
	cancel()
	if err == nil {
		err = conn.Err()
		if err != nil {
			conn.Close()
		}
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.dialing[i] = false
	if err != nil {
		return // the next call that finds others in flight dials again
	}
	if IsCluster(conn) {
		ps.off = true
		conn.Close()
		return
	}
	if ps.closed {
		conn.Close()
		return
	}
	p := &pipe{conn: conn, limit: ps.limit, queue: make(chan *call, queueLen), stop: make(chan struct{}), done: make(chan struct{})}
	ps.pipes[i] = p
	go p.read()
}

// Close ends every shared connection once its calls have their replies.
func (ps *Pipes) Close() {
	ps.mu.Lock()
	ps.closed = true
	pipes := append([]*pipe(nil), ps.pipes...)
	ps.mu.Unlock()
	for _, p := range pipes {
		if p != nil {
			p.close()
		}
	}
}

// Live is the number of shared connections live now.
func (ps *Pipes) Live() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	n := 0
	for _, p := range ps.pipes {
		if p != nil && !p.dead() {
			n++
		}
	}
	return n
}

// Shared is the number of calls sent on a shared connection so far.
func (ps *Pipes) Shared() int64 { return ps.shared.Load() }

// Break closes every shared connection under its calls, as a network
// failure would: for tests.
func (ps *Pipes) Break() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range ps.pipes {
		if p != nil {
			p.conn.Close()
		}
	}
}

// shareAbove is how many calls of RunShared must be in flight, its own
// included, before one goes on a shared connection. Below it, a call on a
// connection of its own is as fast: the hand-over of a reply from the
// shared connection's reader to its caller costs more than the few
// commands Redis would read together save (sharing from the second call
// in flight gave 0.79-0.92x the votes a second at 4 goroutines; from the
// ninth, 1.38x at 64 goroutines: BENCHMARKS.md).
const shareAbove = 8

// queueLen bounds the calls one shared connection has in flight; a call
// that finds it full takes a connection of its own.
const queueLen = 4096

// A pipe is one shared connection.
type pipe struct {
	conn  redis.Conn
	limit time.Duration

	// sendMu orders the senders; waiting counts the goroutines sending or
	// queued to send, so that the last flushes.
	sendMu  sync.Mutex
	waiting atomic.Int64
	err     error // set under sendMu once the connection fails or closes
	failed  atomic.Bool

	queue chan *call
	stop  chan struct{}
	once  sync.Once
	done  chan struct{}
}

// A call is one command sent on a pipe, waiting for its reply.
type call struct {
	reply any
	err   error
	done  chan struct{}
}

func (p *pipe) dead() bool { return p.failed.Load() }

// errNotSent is a shared connection's refusal of a command it did not
// send: the call may take a connection of its own.
var errNotSent = errors.New("the shared connection has failed")

// send sends cmd, and flushes what the senders before it left unless
// other goroutines are queued to send after it, the last of which flushes.
// It returns the call to wait on; errNotSent if it sent nothing (the
// connection had failed or closed, or has as many calls in flight as it
// takes); or the connection's error, after which the command's fate is
// unknown.
func (p *pipe) send(cmd string, args []any) (*call, error) {
	c := &call{done: make(chan struct{})}
	p.waiting.Add(1)
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	last := p.waiting.Add(-1) == 0
	if p.err != nil {
		return nil, errNotSent // close flushed what was sent before
	}
	sent := false
	var err error
	if len(p.queue) < cap(p.queue) {
		if err = p.conn.Send(cmd, args...); err == nil {
			p.queue <- c
			sent = true
		}
	}
	if err == nil && last {
		err = p.conn.Flush()
	}
	if err != nil {
		// redigo has closed the connection: the reader's next read fails,
		// and fails every call queued.
		p.err = err
		p.failed.Store(true)
	}
	switch {
	case !sent:
		return nil, errNotSent
	case err != nil:
		return c, err
	}
	return c, nil
}

// wait is c's reply, waited for as long as ctx and the limit allow.
func (p *pipe) wait(ctx context.Context, c *call) (any, error) {
	var expired <-chan time.Time
	if p.limit > 0 {
		if left, ok := timeLeft(ctx); !ok || left > p.limit {
			t := time.NewTimer(p.limit)
			defer t.Stop()
			expired = t.C
		}
	}
	select {
	case <-c.done:
		return c.reply, c.err
	case <-ctx.Done():
		return nil, contextError(ctx, ctx.Err())
	case <-expired:
		return nil, fmt.Errorf("no reply from Redis within %v (WithTimeout): %w", p.limit, os.ErrDeadlineExceeded)
	}
}

// read hands each reply to its call, in order, until the connection fails
// or closes; then it fails every call still queued and closes the
// connection.
func (p *pipe) read() {
	defer close(p.done)
	var err error
	// timed is whether the connection can bound a read: a pooled one whose
	// underlying connection cannot says so before it reads anything, and
	// is read without a bound, which the callers' own waits keep.
	timed := p.limit > 0
	for err == nil {
		var c *call
		select {
		case c = <-p.queue:
		default:
			select {
			case c = <-p.queue:
			case <-p.stop:
				err = errNotSent
				continue
			}
		}
		var reply any
		if timed {
			reply, err = redis.ReceiveWithTimeout(p.conn, p.limit)
			if unsupported(err) {
				timed = false
			}
		}
		if !timed {
			reply, err = p.conn.Receive()
		}
		var rerr redis.Error
		if errors.As(err, &rerr) {
			c.reply, c.err, err = nil, rerr, nil // Redis's answer, not a failure
		} else {
			c.reply, c.err = reply, err
		}
		close(c.done)
	}
	p.failed.Store(true)
	p.sendMu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.sendMu.Unlock()
	for {
		select {
		case c := <-p.queue:
			c.err = fmt.Errorf("the shared connection failed before the reply: %w", err)
			close(c.done)
		default:
			p.conn.Close()
			return
		}
	}
}

// close stops the reader once the calls queued have their replies.
func (p *pipe) close() {
	p.sendMu.Lock()
	if p.err == nil {
		p.err = errNotSent
		_ = p.conn.Flush() // what the last senders left, if any
	}
	p.sendMu.Unlock()
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

// RunShared runs the script make gives, made once the command's place is
// had. With Pipes, when more than shareAbove calls of RunShared are in
// flight, its own included, it sends it on a shared connection; otherwise, or when no shared connection is
// live, on a connection of its own as Run does. A script Redis does not
// have yet is sent again with its source, on a connection of its own.
func (s *Client) RunShared(ctx context.Context, make func() (Eval, error)) (reply any, err error) {
	ps := s.Pipes
	if ps == nil {
		return s.runAlone(ctx, make)
	}
	n := ps.inflight.Add(1)
	defer ps.inflight.Add(-1)
	if n <= shareAbove {
		return s.runAlone(ctx, make)
	}
	p := ps.pick()
	if p == nil {
		return s.runAlone(ctx, make)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, err := make()
	if err != nil {
		return nil, err
	}
	c, err := p.send("EVALSHA", e.Args)
	if errors.Is(err, errNotSent) {
		return s.runMade(ctx, e)
	}
	if s.Wrote != nil {
		defer s.Wrote()
	}
	ps.shared.Add(1)
	if err != nil {
		return nil, contextError(ctx, err)
	}
	reply, err = p.wait(ctx, c)
	if NoScript(err) {
		return s.runMade(ctx, e)
	}
	return reply, err
}

// runAlone runs the script make gives on a connection of its own, made
// once the connection is had.
func (s *Client) runAlone(ctx context.Context, make func() (Eval, error)) (reply any, err error) {
	err = s.Session(ctx, func(c Link) error {
		e, err := make()
		if err != nil {
			return err
		}
		reply, err = c.Run(e)
		return err
	})
	return reply, err
}

// runMade runs e on a connection of its own.
func (s *Client) runMade(ctx context.Context, e Eval) (any, error) {
	return s.Run(ctx, e)
}
