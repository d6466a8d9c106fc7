// Package rconn holds the round trips of the voting package: how an
// operation takes a connection of its namespace, runs a script and sends a
// pipeline while honouring a context over any redis.Conn.
package rconn

// A context's deadline, or the Client's round-trip limit (WithTimeout) when it
// is earlier, bounds each round trip through the connection's own read
// timeout (redis.ConnWithTimeout, as *redis.Pool's and cluster clients'
// connections have), set once for all of a pipeline's replies: no goroutine
// is started. A context that can be cancelled but has no deadline bounds
// each round trip through redis.ConnWithContext, with the limit as its
// deadline, which redigo serves with a goroutine: one per round trip, not
// one per command. redigo offers no safe
// way to break a pooled connection from another goroutine, so one watcher
// per operation (context.AfterFunc) cannot do it. On any connection the
// context is checked before each round trip: a round trip whose context
// has ended, or whose deadline has passed, sends nothing and fails with an
// error wrapping errs.ErrNotSent, as does a failure to take a connection.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/gomodule/redigo/redis"
)

// A Pool hands out connections to Redis (the voting package's Pool); a
// Client closes each connection it takes. If the pool also has a method
//
//	GetContext(ctx context.Context) (redis.Conn, error)
//
// as *redis.Pool does, the Client uses it, so that waiting for a free
// connection honours the context.
type Pool interface {
	Get() redis.Conn
}

// A Client runs operations on connections of one namespace: it takes each
// from Pool, binds it to the namespace's slot on Redis Cluster, and bounds
// each round trip by the context and Timeout.
type Client struct {
	Pool Pool
	// Timeout bounds each round trip whose context has no earlier
	// deadline (WithTimeout), and the wait for a connection a call finds
	// all taken; 0 for no bound.
	Timeout time.Duration
	// Bind is a key of the namespace, by which a cluster connection is
	// bound to the namespace's slot; Unbound, if not nil, is the error of
	// a namespace whose keys share no slot, returned instead of binding.
	Bind    string
	Unbound error
	// Pipes, if not nil, are the shared connections of RunShared
	// (pipe.go).
	Pipes *Pipes
	// Wrote, if not nil, is called after each round trip that sent a
	// command that may have written, whether or not it succeeded: any
	// command not known to only read, and a script whose Eval does not
	// say from its reply that it wrote nothing (Eval.Writes). The
	// client-side cache empties itself there, so that a write is seen by
	// the next read, and a read leaves it as it is.
	Wrote func()
}

type contextPool interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

// A binder is a connection to a Redis Cluster that must be bound to a slot
// before use, as redisc's are: they route a command by its first argument,
// which for EVALSHA is no key.
type binder interface {
	Bind(keys ...string) error
}

// IsCluster reports whether c is a connection to a Redis Cluster that is
// bound to a slot before use.
func IsCluster(c redis.Conn) bool {
	_, ok := c.(binder)
	return ok
}

// conn takes a connection from the pool and, on a cluster, binds it to the
// namespace's slot. The caller releases it. Its every failure but Unbound
// wraps errs.ErrNotSent: nothing has been sent.
//
// The wait for a connection is part of the call: with a pool that has
// GetContext, the Client's round-trip limit (WithTimeout) bounds it, as it
// bounds a round trip, when the context has no earlier deadline, so that a
// capped pool (MaxActive with Wait) whose connections are all taken cannot
// hold a call forever. A *redis.Pool with a connection to spare hands one
// out or dials one, which its Dial bounds: the limit is not put on that
// dial (a TLS handshake may take longer than a round trip), and only a
// call that finds the pool's connections all taken pays for the timer.
func (s *Client) conn(ctx context.Context) (redis.Conn, error) {
	if err := ended(ctx); err != nil {
		return nil, errs.NotSent(err)
	}
	var c redis.Conn
	if p, ok := s.Pool.(contextPool); ok {
		wait := ctx
		limited := false
		if s.Timeout > 0 && mayWait(s.Pool) {
			if left, hasDeadline := timeLeft(ctx); !hasDeadline || left > s.Timeout {
				var cancel context.CancelFunc
				wait, cancel = context.WithTimeout(ctx, s.Timeout)
				defer cancel()
				limited = true
			}
		}
		var err error
		if c, err = p.GetContext(wait); err != nil {
			if limited && ctx.Err() == nil && wait.Err() != nil {
				return nil, errs.NotSent(fmt.Errorf("no connection from the pool within %v (WithTimeout): %w", s.Timeout, os.ErrDeadlineExceeded))
			}
			return nil, errs.NotSent(contextError(ctx, err)) // a dial cut short by the deadline
		}
	} else {
		c = s.Pool.Get()
	}
	if err := c.Err(); err != nil {
		Release(c)
		return nil, errs.NotSent(contextError(ctx, err))
	}
	if b, ok := c.(binder); ok {
		if s.Unbound != nil {
			Release(c)
			return nil, s.Unbound
		}
		if err := b.Bind(s.Bind); err != nil {
			Release(c)
			return nil, errs.NotSent(err)
		}
	}
	return c, nil
}

// mayWait reports whether taking a connection from pool may wait for one
// to be given back: a *redis.Pool with Wait whose MaxActive connections are
// all taken, or any other pool, which may do as it likes.
func mayWait(pool Pool) bool {
	p, ok := pool.(*redis.Pool)
	return !ok || p.Wait && p.MaxActive > 0 && p.ActiveCount() >= p.MaxActive
}

// maxAttempts bounds how often session runs an operation that Redis
// Cluster redirects.
const maxAttempts = 10

// Session runs op on a connection of the namespace and gives the connection
// back. When Redis Cluster redirects a command (MOVED, ASK) or asks to try
// again (TRYAGAIN), as it does while a slot moves between nodes, it runs op
// again on a fresh connection: the first at once, since a MOVED has taught
// the cluster client where the slot is, later ones after a growing pause.
// Redis refuses such commands before running them, so op's writes are never
// applied twice.
func (s *Client) Session(ctx context.Context, op func(c Link) error) error {
	pause := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		c, err := s.conn(ctx)
		if err != nil {
			return err
		}
		err = op(Link{ctx: ctx, conn: c, limit: s.Timeout, wrote: s.Wrote})
		Release(c)
		if !redirected(err) || attempt == maxAttempts {
			return err
		}
		if attempt > 1 {
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return contextError(ctx, err)
			case <-t.C:
			}
			pause = min(2*pause, 200*time.Millisecond)
		}
	}
}

// redirected reports whether err is Redis Cluster's word that the command
// was not run here or not yet.
func redirected(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := string(rerr)
	return strings.HasPrefix(msg, "MOVED ") || strings.HasPrefix(msg, "ASK ") || strings.HasPrefix(msg, "TRYAGAIN")
}

// Run runs a script in one session and returns its reply.
func (s *Client) Run(ctx context.Context, e Eval) (reply any, err error) {
	err = s.Session(ctx, func(c Link) error {
		reply, err = c.Run(e)
		return err
	})
	return reply, err
}

// Pipeline sends cmds in one round trip of one session.
func (s *Client) Pipeline(ctx context.Context, cmds []Command) (replies []any, err error) {
	err = s.Session(ctx, func(c Link) error {
		replies, err = c.Pipeline(cmds)
		return err
	})
	return replies, err
}

// Release gives a connection back to the pool. Its error is not the
// caller's: a pooled connection reports on Close only a failure that the
// operation has already returned, or none.
func Release(c redis.Conn) { _ = c.Close() }

// A Link is a session's connection with what bounds its round trips: the
// operation's context, and the Client's round-trip limit, 0 for none.
type Link struct {
	ctx   context.Context
	conn  redis.Conn
	limit time.Duration
	wrote func()
}

// readOnly are the commands the library sends that only read; any other
// may write.
var readOnly = map[string]bool{
	"EXISTS": true, "GET": true, "HGET": true, "HGETALL": true, "HMGET": true, "PTTL": true, "SCAN": true,
	"SCARD": true, "SISMEMBER": true, "SMEMBERS": true, "SMISMEMBER": true, "TYPE": true, "ZCARD": true,
	"ZCOUNT": true, "ZMSCORE": true, "ZRANGE": true, "ZRANK": true, "ZREVRANGE": true, "ZREVRANK": true,
	"ZSCAN": true, "ZSCORE": true, "PING": true,
}

// wrote reports whether cmd, answered reply or failed with err, may have
// written.
func (cmd Command) wrote(reply any, err error) bool {
	if cmd.Writes != nil {
		return cmd.Writes(reply, err)
	}
	return !readOnly[cmd.Name]
}

// Context is the operation's context.
func (c Link) Context() context.Context { return c.ctx }

// Do runs one command in one round trip, honouring the context and the
// limit as far as the connection allows. A context that has ended, or
// whose deadline has passed, fails it before anything is sent, with an
// error wrapping errs.ErrNotSent.
func (c Link) Do(cmd string, args ...any) (reply any, err error) {
	return c.do(Command{Name: cmd, Args: args})
}

// DoCommand runs cmd as Do runs a command, with what cmd says of its
// writes.
func (c Link) DoCommand(cmd Command) (reply any, err error) { return c.do(cmd) }

func (c Link) do(cmd Command) (reply any, err error) {
	if err := ended(c.ctx); err != nil {
		return nil, errs.NotSent(err)
	}
	reply, err = c.roundTrip(cmd.Name, cmd.Args...)
	if c.wrote != nil && cmd.wrote(reply, err) {
		c.wrote()
	}
	return reply, err
}

// roundTrip sends cmd (with any commands sent before it) and reads its
// reply, honouring the context and the limit as far as the connection
// allows. With cmd "" it flushes the commands sent before and reads all
// their replies, under one read deadline, as one []any.
//
// A context with a deadline, or one that cannot end, is served by the
// connection's read timeout alone (redis.ConnWithTimeout): the deadline or
// the limit, whichever is earlier. A context that can be cancelled but has
// no deadline is watched through redigo's context read, which starts one
// goroutine, with the limit as its deadline. A connection with neither
// method is bounded only by its own read timeout; so is a pooled one whose
// underlying connection lacks them (redigo's pool then refuses the call
// before sending anything, and the round trip falls back to a plain Do).
//
// It does not give up on a context that has ended before it starts: a reply
// it did not read would stay on the connection, and a pooled connection's
// Close waits for every such reply with no time limit. Instead a connection
// with a context gives up by breaking itself (redigo closes it, and the
// pool then drops it), one with a timeout times out at once and breaks
// itself likewise, and a plain one reads the replies, bounded only by its
// own read timeout.
func (c Link) roundTrip(cmd string, args ...any) (reply any, err error) {
	ctx := c.ctx
	wait, hasDeadline := timeLeft(ctx)
	limited := c.limit > 0 && (!hasDeadline || wait > c.limit)
	if limited {
		wait = c.limit
	}
	defer func() { err = c.failure(err, limited) }()
	// timed reads with the read timeout, if the connection can; done is
	// false if it cannot.
	timed := func() (reply any, done bool, err error) {
		if cc, ok := c.conn.(redis.ConnWithTimeout); ok {
			reply, err := cc.DoWithTimeout(wait, cmd, args...)
			return reply, !unsupported(err), err
		}
		return nil, false, nil
	}
	watch := ctx.Done() != nil && !hasDeadline
	if !watch && (hasDeadline || limited) {
		if reply, done, err := timed(); done {
			return reply, err
		}
	}
	if ctx.Done() != nil {
		if cc, ok := c.conn.(redis.ConnWithContext); ok {
			if limited {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, wait)
				defer cancel()
			}
			if reply, err := cc.DoContext(ctx, cmd, args...); !unsupported(err) {
				return reply, err
			}
		}
		if watch && limited {
			if reply, done, err := timed(); done {
				return reply, err
			}
		}
	}
	return c.conn.Do(cmd, args...)
}

// unsupported reports whether err is redigo's word that a pooled
// connection's underlying connection has no timeout or context read, which
// it gives before sending anything.
func unsupported(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return msg == "redis: connection does not support ConnWithTimeout" || msg == "redis: connection does not support ConnWithContext"
}

// failure words a round trip's error: once the context has ended, an error
// wrapping the context's; a wait cut short by the limit, an error that says
// so and wraps os.ErrDeadlineExceeded.
func (c Link) failure(err error, limited bool) error {
	err = contextError(c.ctx, err)
	if limited && c.ctx.Err() == nil && (errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded)) {
		return fmt.Errorf("no reply from Redis within %v (WithTimeout): %w", c.limit, os.ErrDeadlineExceeded)
	}
	return err
}

// ended is ctx's error once it has ended, or context.DeadlineExceeded once
// its deadline has passed though its timer has not fired yet; nil while a
// round trip may start.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// timeLeft is the time to ctx's deadline, if it has one. It is at least a
// nanosecond, since a zero timeout means none.
func timeLeft(ctx context.Context) (time.Duration, bool) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0, false
	}
	return max(time.Until(deadline), time.Nanosecond), true
}

// contextError makes a failure once ctx is done, or its deadline has come, an
// error wrapping the context's, whatever the connection reported: a read
// timeout set to the deadline may fire before the context's own timer.
func contextError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	cerr := ctx.Err()
	if deadline, ok := ctx.Deadline(); ok && cerr == nil && !time.Now().Before(deadline) {
		cerr = context.DeadlineExceeded
	}
	if cerr == nil || errors.Is(err, cerr) {
		return err
	}
	return fmt.Errorf("%w: %w", cerr, err)
}

// A Command is one command of a pipeline.
type Command struct {
	Name string
	Args []any
	// Writes, if not nil, tells whether the command may have written, as
	// Eval.Writes does; nil for a command that may write unless its name
	// is of one that only reads.
	Writes func(reply any, err error) bool
}

// Pipeline sends cmds in one round trip and returns their replies in order.
// A Redis error reply to one command is returned in its place in replies, not
// as err; err is for the connection, the context, and Redis Cluster's
// redirections. A context that has ended fails it before anything is sent,
// as it does Do.
func (c Link) Pipeline(cmds []Command) (replies []any, err error) {
	if err := ended(c.ctx); err != nil {
		return nil, errs.NotSent(err)
	}
	if c.wrote != nil {
		// A Send that fails may follow commands a full buffer already
		// wrote: without replies, each command is asked with the error.
		defer func() {
			for i, cmd := range cmds {
				reply, rerr := any(nil), err
				if err == nil {
					reply = replies[i]
					if e, ok := reply.(redis.Error); ok {
						reply, rerr = nil, e
					}
				}
				if cmd.wrote(reply, rerr) {
					c.wrote()
					return
				}
			}
		}()
	}
	for _, cmd := range cmds {
		if err := c.conn.Send(cmd.Name, cmd.Args...); err != nil {
			return nil, err
		}
	}
	// From here every reply is read, or the connection is broken (see
	// roundTrip), so that it never goes back to the pool with replies
	// unread. The empty command flushes and reads them all in one go, so
	// that a deadline is set once, not once a reply.
	reply, err := c.roundTrip("")
	if err != nil {
		return nil, err
	}
	replies, ok := reply.([]any)
	if !ok || len(replies) != len(cmds) {
		return nil, fmt.Errorf("a pipeline of %d commands got %T of %d replies", len(cmds), reply, len(replies))
	}
	for _, r := range replies {
		if rerr, ok := r.(redis.Error); ok && redirected(rerr) {
			return nil, rerr
		}
	}
	return replies, nil
}

// An Eval is one run of a script: the arguments of EVALSHA (the script's
// SHA-1, the number of keys, the keys, the arguments), and the script's
// source, for EVAL when Redis does not have it.
type Eval struct {
	Args   []any
	Source string
	// Writes, if not nil, tells whether a run may have written, from its
	// reply, or from err when the round trip failed or Redis answered an
	// error: it is set for a script that never writes, and for one whose
	// reply says whether it wrote. Nil for a script that may write on
	// any run, after which the Client's Wrote is called.
	Writes func(reply any, err error) bool
}

// Command is the run as a command of a pipeline: EVALSHA.
func (e Eval) Command() Command { return Command{Name: "EVALSHA", Args: e.Args, Writes: e.Writes} }

// Run evaluates a script by its hash, sending the source only when the
// server does not have it yet (after a restart or SCRIPT FLUSH). That is one
// round trip per call once the script is loaded.
func (c Link) Run(e Eval) (any, error) {
	reply, err := c.do(e.Command())
	if NoScript(err) {
		e.Args[0] = e.Source
		reply, err = c.do(Command{Name: "EVAL", Args: e.Args, Writes: e.Writes})
	}
	return reply, err
}

// NoScript reports whether err is Redis's word that it does not have a
// script: after a restart or SCRIPT FLUSH.
func NoScript(err any) bool {
	rerr, ok := err.(redis.Error)
	return ok && strings.HasPrefix(string(rerr), "NOSCRIPT")
}

// ReplyError is the first error Redis answered to one of a pipeline's
// commands: a WRONGTYPE worded as errs.ErrCorrupt naming the command's key
// (its first argument), any other wrapped with the command and its key;
// nil if there is none.
func ReplyError(cmds []Command, replies []any) error {
	for i, reply := range replies {
		if err, ok := reply.(redis.Error); ok {
			key := fmt.Sprint(cmds[i].Args[0])
			if b, ok := cmds[i].Args[0].([]byte); ok {
				key = string(b)
			}
			if errs.IsWrongType(err) {
				return errs.WrongType(err, key, cmds[i].Name)
			}
			return fmt.Errorf("%s %s: %w", cmds[i].Name, key, err)
		}
	}
	return nil
}

// CheckedPipeline is Pipeline, with the first error Redis answered to one
// of cmds as err (ReplyError): for the pipelines whose every reply must be
// a value.
func (c Link) CheckedPipeline(cmds []Command) (replies []any, err error) {
	replies, err = c.Pipeline(cmds)
	if err == nil {
		err = ReplyError(cmds, replies)
	}
	return replies, err
}

// CheckedPipeline is Link.CheckedPipeline in one session.
func (s *Client) CheckedPipeline(ctx context.Context, cmds []Command) (replies []any, err error) {
	err = s.Session(ctx, func(c Link) error {
		replies, err = c.CheckedPipeline(cmds)
		return err
	})
	return replies, err
}
