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
// each shared connection has a writer goroutine, which sends the commands
// callers hand it, all that have gathered while it last wrote, with one
// flush, and a reader goroutine, which reads the replies, in order, and
// hands each to its caller. Callers do no I/O: a caller waits for its reply
// no longer than its context and the round-trip limit allow, even when
// Redis stops reading and the writer's flush blocks on a full socket. The
// reader breaks the connection if Redis leaves a command unanswered for
// the limit, which ends a blocked write too, and fails every call that
// waits on it, as a connection of a call's own does. A call whose wait
// ends before the writer has taken it is never written (pipe says how the
// two agree), so that a caller told its vote was not sent can vote again
// without the first landing after the second.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/gomodule/redigo/redis"
)

// Dialer gives a connection of the Client's own, held until Close.
type Dialer func(ctx context.Context) (redis.Conn, error)

// Pipes are the shared connections of a Client's auto-pipelined calls.
type Pipes struct {
	dial  Dialer
	limit time.Duration
	// queueLen bounds the calls one shared connection has in flight.
	queueLen int

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
	return &Pipes{dial: dial, limit: limit, queueLen: queueLen, pipes: make([]*pipe, n), dialing: make([]bool, n)}
}

// SetQueueLen sets how many calls one shared connection has in flight at
// most, for tests that fill a queue; before the first call.
func (ps *Pipes) SetQueueLen(n int) { ps.queueLen = n }

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
	ps.pipes[i] = newPipe(conn, ps.limit, ps.queueLen)
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

// InFlight is the number of calls of RunShared in flight now.
func (ps *Pipes) InFlight() int64 { return ps.inflight.Load() }

// Idle reports whether no call is on its way on a shared connection: none
// handed to a writer and not yet sent or refused, none sent and waiting for
// its reply.
func (ps *Pipes) Idle() bool {
	ps.mu.Lock()
	pipes := append([]*pipe(nil), ps.pipes...)
	ps.mu.Unlock()
	for _, p := range pipes {
		if p != nil && !p.idle() {
			return false
		}
	}
	return true
}

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

// queueLen bounds the calls one shared connection has in flight (Pipes
// may be given another for tests); a call that finds it full takes a
// connection of its own.
const queueLen = 4096

// A pipe is one shared connection. Callers hand their commands to its
// writer and wait for their replies; no caller does I/O, so that none
// waits past its context for a write Redis does not take.
//
// A caller and the writer agree on whether a call is sent through the
// call's state, which each moves once from pending: the writer to sent,
// right before it writes the call's bytes, unless the call's context has
// ended; the caller to abandoned, when its wait ends first. A call
// abandoned is never written, and its caller knows it (errs.ErrNotSent);
// a call sent may have landed, whatever its caller is told.
type pipe struct {
	conn  redis.Conn
	limit time.Duration

	// mu guards pending, writing, unanswered and err, and orders a call's
	// place in queue (taken under mu) with err: once err is set no call
	// joins queue.
	mu         sync.Mutex
	pending    []*call // handed to the writer, not yet sent
	writing    bool    // the writer is sending or will look at pending again
	unanswered int     // sent and not yet answered: in queue, or being read
	err        error   // why the pipe takes no more calls
	failed     atomic.Bool
	// untimed is set once the connection turns out unable to bound a read
	// (a pooled one whose underlying connection cannot): the reader then
	// reads without a bound, and a caller whose wait runs out the limit
	// fails the pipe.
	untimed atomic.Bool

	kick  chan struct{} // wakes the writer
	queue chan *call    // sent, in order, waiting for their replies
	stop  chan struct{}
	once  sync.Once
	done  chan struct{} // closed when the reader ends
	wdone chan struct{} // closed when the writer ends
}

func newPipe(conn redis.Conn, limit time.Duration, queueLen int) *pipe {
	p := &pipe{
		conn: conn, limit: limit,
		kick: make(chan struct{}, 1), queue: make(chan *call, queueLen),
		stop: make(chan struct{}), done: make(chan struct{}), wdone: make(chan struct{}),
	}
	go p.read()
	go p.write()
	return p
}

// A call is one command handed to a pipe, waiting for its reply.
type call struct {
	ctx   context.Context
	args  []any
	state atomic.Int32
	reply any
	err   error
	done  chan struct{}
}

// A call's states.
const (
	pending   int32 = iota // handed to the writer, not written
	sent                   // taken by the writer to write: it may land
	abandoned              // never to be written
)

// abandon gives c up unless the writer has taken it; it reports whether
// c is never to be written.
func (c *call) abandon() bool {
	return c.state.CompareAndSwap(pending, abandoned) || c.state.Load() == abandoned
}

func (p *pipe) dead() bool { return p.failed.Load() }

func (p *pipe) timed() bool { return p.limit > 0 && !p.untimed.Load() }

// errRefused is a shared connection's refusal of a command it did not
// send: the call may take a connection of its own.
var errRefused = errors.New("the shared connection took no more calls")

// errClosed ends a pipe's reader on Close.
var errClosed = errors.New("the shared connection was closed")

// send hands an EVALSHA of args to the writer and returns the call to
// wait on, or errRefused if the pipe takes no more calls.
func (p *pipe) send(ctx context.Context, args []any) (*call, error) {
	c := &call{ctx: ctx, args: args, done: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, errRefused
	}
	p.pending = append(p.pending, c)
	if !p.writing {
		p.writing = true
		p.wake()
	}
	return c, nil
}

func (p *pipe) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// write sends what callers hand it, all that has gathered at once, with
// one flush, until the pipe fails or closes.
func (p *pipe) write() {
	defer close(p.wdone)
	var batch []*call
	for range p.kick {
		for {
			p.mu.Lock()
			batch, p.pending = p.pending, batch[:0]
			if len(batch) == 0 {
				p.writing = false
				stop := p.err != nil
				p.mu.Unlock()
				if stop {
					return
				}
				break
			}
			p.mu.Unlock()
			wrote := false
			for _, c := range batch {
				if !p.take(c) {
					continue
				}
				if err := p.conn.Send("EVALSHA", c.args...); err != nil {
					// The reader's next read fails, and fails every
					// call queued; the calls after c are refused.
					p.fail(err)
					continue
				}
				wrote = true
			}
			if wrote {
				if err := p.conn.Flush(); err != nil {
					p.fail(err)
				}
			}
			clear(batch)
		}
	}
}

// take decides, right before the writer writes c, whether it does: not if
// c's caller has given it up or c's context has ended (c is then
// abandoned, and its caller told so by its context), nor once the pipe
// takes no more calls or its queue is full (c then ends with errRefused).
// A call taken is sent, and joins queue.
func (p *pipe) take(c *call) bool {
	if ended(c.ctx) != nil {
		c.state.CompareAndSwap(pending, abandoned)
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil || len(p.queue) >= cap(p.queue) {
		if c.state.CompareAndSwap(pending, abandoned) {
			c.err = errRefused
			close(c.done)
		}
		return false
	}
	if !c.state.CompareAndSwap(pending, sent) {
		return false
	}
	p.queue <- c
	p.unanswered++
	return true
}

// fail marks the pipe failed with err and closes its connection, which
// ends a write blocked on a server that stopped reading, and the reader's
// wait; it returns at once.
func (p *pipe) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.failed.Store(true)
	p.mu.Unlock()
	p.conn.Close()
	p.wake()
}

// wait is c's reply, waited for as long as ctx and the limit allow. A wait
// that ends before the writer has taken c abandons it: its error wraps
// errs.ErrNotSent.
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
		err := contextError(ctx, ctx.Err())
		if c.abandon() {
			return nil, errs.NotSent(err)
		}
		return nil, err
	case <-expired:
		err := fmt.Errorf("no reply from Redis within %v (WithTimeout): %w", p.limit, os.ErrDeadlineExceeded)
		if !p.timed() {
			p.fail(err) // the reader cannot bound its read: this call does
		}
		if c.abandon() {
			return nil, errs.NotSent(err)
		}
		return nil, err
	}
}

// read hands each reply to its call, in order, until the connection fails
// or the pipe closes; then it fails every call still queued and closes the
// connection.
func (p *pipe) read() {
	defer close(p.done)
	var err error
	for err == nil {
		c := p.next()
		if c == nil {
			err = errClosed
			continue
		}
		var reply any
		if p.timed() {
			reply, err = redis.ReceiveWithTimeout(p.conn, p.limit)
			if unsupported(err) {
				p.untimed.Store(true)
			}
		}
		if !p.timed() {
			reply, err = p.conn.Receive()
		}
		var rerr redis.Error
		switch {
		case errors.As(err, &rerr):
			c.reply, c.err, err = nil, rerr, nil // Redis's answer, not a failure
		case err != nil:
			err = p.cause(err)
			c.err = err
		default:
			c.reply = reply
		}
		p.answered(c)
	}
	p.fail(err)
	// No call joins queue once the pipe has failed.
	for {
		select {
		case c := <-p.queue:
			c.err = fmt.Errorf("the shared connection failed before the reply: %w", err)
			p.answered(c)
		default:
			return
		}
	}
}

// answered ends c, sent, with what it has been given: it is no longer on
// its way.
func (p *pipe) answered(c *call) {
	p.mu.Lock()
	p.unanswered--
	p.mu.Unlock()
	close(c.done)
}

// cause is why a read failed with err: the pipe's failure, if a caller
// or the writer failed it first (closing the connection under the read),
// else err.
func (p *pipe) cause(err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil && p.err != errClosed {
		return p.err
	}
	return err
}

// next is the next call queued, waited for; nil once the pipe is closed
// and every call sent has been taken. Close stops calls joining queue
// before it closes stop, so that a queue found empty after stop stays so.
func (p *pipe) next() *call {
	select {
	case c := <-p.queue:
		return c
	case <-p.stop:
		select {
		case c := <-p.queue:
			return c
		default:
			return nil
		}
	}
}

// close stops the pipe once the calls sent have their replies; calls
// handed to the writer but not sent end with errRefused. If the replies
// do not come within the limit, it closes the connection under them.
func (p *pipe) close() {
	p.mu.Lock()
	if p.err == nil {
		p.err = errClosed
	}
	p.mu.Unlock()
	p.wake()
	p.once.Do(func() { close(p.stop) })
	t := time.NewTimer(p.limit + time.Second)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.fail(errClosed)
		<-p.done
	}
	<-p.wdone
}

// idle reports whether no call is on its way: none handed to the writer
// and not yet taken or refused, none sent and waiting for its reply.
func (p *pipe) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.writing && len(p.pending) == 0 && p.unanswered == 0
}

// RunShared runs the script make gives, made once the command's place is
// had. With Pipes, when more than shareAbove calls of RunShared are in
// flight, its own included, it sends it on a shared connection; otherwise,
// or when no shared connection is live, on a connection of its own as Run
// does. A call a shared connection refuses before it sends it, and a
// script Redis does not have yet, are sent again on a connection of its
// own; a call sent and not answered never is. A call that ends before its
// command is written fails with an error wrapping errs.ErrNotSent.
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
	if err := ended(ctx); err != nil {
		return nil, errs.NotSent(err)
	}
	e, err := make()
	if err != nil {
		return nil, err
	}
	c, err := p.send(ctx, e.Args)
	if err != nil {
		return s.Run(ctx, e)
	}
	reply, err = p.wait(ctx, c)
	switch {
	case errors.Is(err, errRefused):
		return s.Run(ctx, e)
	case errors.Is(err, errs.ErrNotSent):
		return nil, err
	}
	ps.shared.Add(1)
	if s.Wrote != nil && (e.Writes == nil || e.Writes(reply, err)) {
		s.Wrote()
	}
	if NoScript(err) {
		return s.Run(ctx, e)
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
