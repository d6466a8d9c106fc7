// Package roundtrip counts, and on request records, the round trips that go
// through a redigo pool, for the tests, the benchmarks and the simulation of
// package voting.
package roundtrip

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
)

// A Pool hands out a *redis.Pool's connections and counts their round trips:
// each command sent with Do, DoWithTimeout or DoContext, and each Flush of a
// pipeline, is one. While Record is on it also records every command and
// reply.
//
// Its connections are redis.ConnWithTimeout and redis.ConnWithContext, and
// the pool has GetContext, each delegating to the *redis.Pool's own, so that
// code which type-switches on them (as package voting does) takes the same
// path through a Pool as through the bare *redis.Pool.
type Pool struct {
	pool      *redis.Pool
	trips     atomic.Int64
	recording atomic.Bool

	mu  sync.Mutex
	log []*Trip
}

// New counts the round trips through pool.
func New(pool *redis.Pool) *Pool { return &Pool{pool: pool} }

// Trips returns the round trips counted so far.
func (p *Pool) Trips() int64 { return p.trips.Load() }

// Reset sets the count back to zero.
func (p *Pool) Reset() { p.trips.Store(0) }

// Record starts recording every round trip, forgetting any recorded before.
func (p *Pool) Record() {
	p.mu.Lock()
	p.log = nil
	p.mu.Unlock()
	p.recording.Store(true)
}

// Recorded stops recording and returns the round trips recorded since
// Record, in the order they were sent.
func (p *Pool) Recorded() []Trip {
	p.recording.Store(false)
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Trip, len(p.log))
	for i, t := range p.log {
		out[i] = *t
		out[i].Replies = append([]any(nil), t.Replies...)
	}
	p.log = nil
	return out
}

// Get returns a counting connection.
func (p *Pool) Get() redis.Conn { return &conn{Conn: p.pool.Get(), p: p} }

// GetContext returns a counting connection, waiting no longer than ctx.
func (p *Pool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, p: p}, nil
}

// A Command is one command as it was sent, its arguments copied.
type Command struct {
	Name string
	Args []any
}

// String writes the command as redis-cli would take it, with arguments in
// Go syntax.
func (c Command) String() string {
	var b strings.Builder
	b.WriteString(c.Name)
	for _, a := range c.Args {
		if s, ok := a.([]byte); ok {
			a = string(s)
		}
		fmt.Fprintf(&b, " %#v", a)
	}
	return b.String()
}

// A Trip is one round trip: the commands sent together and the replies read
// for them.
type Trip struct {
	// Via is the method that sent it: "Do", "DoWithTimeout" or
	// "DoContext" for a command sent on its own, or "Flush" for a
	// pipeline of Sends, flushed by Flush or by a Do of the empty
	// command.
	Via string
	// Commands are the commands sent. A Do after Sends sends them all.
	Commands []Command
	// Replies are the replies read, copied, in order; a Redis error
	// reply is its redis.Error. For a Do after Sends it is Do's one reply.
	Replies []any
	// Reads are the methods that read each reply: "Receive",
	// "ReceiveWithTimeout", "ReceiveContext" or the Do method of the
	// empty command after Sends, or Via.
	Reads []string
	// Err is the first error other than a Redis error reply, if any.
	Err error
}

// Pipelined reports whether the trip was sent with Send and Flush.
func (t Trip) Pipelined() bool { return t.Via == "Flush" }

type conn struct {
	redis.Conn
	p *Pool

	// While recording: the commands sent and not yet flushed, and the
	// trip the next Receive reads a reply of.
	pending []Command
	last    *Trip
}

func (c *conn) Do(cmd string, args ...any) (any, error) {
	return c.do("Do", cmd, args, func() (any, error) { return c.Conn.Do(cmd, args...) })
}

func (c *conn) DoWithTimeout(timeout time.Duration, cmd string, args ...any) (any, error) {
	return c.do("DoWithTimeout", cmd, args, func() (any, error) { return redis.DoWithTimeout(c.Conn, timeout, cmd, args...) })
}

func (c *conn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	return c.do("DoContext", cmd, args, func() (any, error) { return redis.DoContext(c.Conn, ctx, cmd, args...) })
}

// do counts and logs a round trip of a Do method, via. The empty command
// flushes the commands sent before it and reads all their replies, as one
// []any: a pipeline, logged as a Flush whose replies via read.
func (c *conn) do(via, cmd string, args []any, call func() (any, error)) (any, error) {
	c.p.trips.Add(1)
	if cmd == "" {
		t := c.sent("Flush", "", nil)
		reply, err := call()
		if replies, ok := reply.([]any); ok && err == nil {
			for _, r := range replies {
				c.read(t, via, r, nil)
			}
		} else {
			c.read(t, via, reply, err)
		}
		return reply, err
	}
	t := c.sent(via, cmd, args)
	reply, err := call()
	c.read(t, via, reply, err)
	return reply, err
}

func (c *conn) Send(cmd string, args ...any) error {
	if c.p.recording.Load() {
		c.pending = append(c.pending, Command{cmd, copyArgs(args)})
	}
	return c.Conn.Send(cmd, args...)
}

func (c *conn) Flush() error {
	c.p.trips.Add(1)
	c.last = c.sent("Flush", "", nil)
	err := c.Conn.Flush()
	c.failed(c.last, err)
	return err
}

func (c *conn) Receive() (any, error) {
	reply, err := c.Conn.Receive()
	c.read(c.last, "Receive", reply, err)
	return reply, err
}

func (c *conn) ReceiveWithTimeout(timeout time.Duration) (any, error) {
	reply, err := redis.ReceiveWithTimeout(c.Conn, timeout)
	c.read(c.last, "ReceiveWithTimeout", reply, err)
	return reply, err
}

func (c *conn) ReceiveContext(ctx context.Context) (any, error) {
	reply, err := redis.ReceiveContext(c.Conn, ctx)
	c.read(c.last, "ReceiveContext", reply, err)
	return reply, err
}

// sent logs a round trip of the pending commands and cmd, if recording, and
// returns it; nil if not recording.
func (c *conn) sent(via, cmd string, args []any) *Trip {
	if !c.p.recording.Load() {
		c.pending = nil
		return nil
	}
	t := &Trip{Via: via, Commands: c.pending}
	c.pending = nil
	if cmd != "" {
		t.Commands = append(t.Commands, Command{cmd, copyArgs(args)})
	}
	c.p.mu.Lock()
	c.p.log = append(c.p.log, t)
	c.p.mu.Unlock()
	return t
}

// read logs a reply of t, if t is being recorded.
func (c *conn) read(t *Trip, via string, reply any, err error) {
	if t == nil {
		return
	}
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if rerr, ok := err.(redis.Error); ok {
		reply, err = rerr, nil
	}
	if err != nil {
		if t.Err == nil {
			t.Err = err
		}
		return
	}
	t.Replies = append(t.Replies, copyReply(reply))
	t.Reads = append(t.Reads, via)
}

// failed logs a failure to send t, if t is being recorded.
func (c *conn) failed(t *Trip, err error) {
	if t == nil || err == nil {
		return
	}
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if t.Err == nil {
		t.Err = err
	}
}

// copyArgs copies args, and each []byte in them, since a caller may reuse
// them once the command is sent.
func copyArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			a = append([]byte(nil), b...)
		}
		out[i] = a
	}
	return out
}

// copyReply copies a reply's byte slices and arrays.
func copyReply(reply any) any {
	switch r := reply.(type) {
	case []byte:
		return append([]byte(nil), r...)
	case []any:
		out := make([]any, len(r))
		for i, v := range r {
			out[i] = copyReply(v)
		}
		return out
	}
	return reply
}
