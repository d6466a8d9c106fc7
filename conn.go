package voting

// This file holds the round trips: how a Store takes a connection, runs a
// script and sends a pipeline while honouring a context over any redis.Conn.
// Connections from a *redis.Pool take the context itself; connections that
// offer only redis.ConnWithTimeout (a cluster client's, for example) get the
// context's deadline as their timeout; plain connections have the context
// checked before each round trip.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// A Pool hands out connections to Redis; a Store closes each connection it
// takes. A *redis.Pool satisfies it, and so does a cluster client such as
// *redisc.Cluster. If the pool also has a method
//
//	GetContext(ctx context.Context) (redis.Conn, error)
//
// as *redis.Pool does, the Store uses it, so that waiting for a free
// connection honours the context.
type Pool interface {
	Get() redis.Conn
}

type contextPool interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

// conn takes a connection from the pool. The caller closes it.
func (s *Store) conn(ctx context.Context) (redis.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p, ok := s.pool.(contextPool); ok {
		return p.GetContext(ctx)
	}
	c := s.pool.Get()
	if err := c.Err(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// release gives a connection back to the pool. Its error is not the
// caller's: a pooled connection reports on Close only a failure that the
// operation has already returned, or none.
func release(c redis.Conn) { _ = c.Close() }

// do runs one command in one round trip, honouring ctx as far as c allows.
func do(ctx context.Context, c redis.Conn, cmd string, args ...any) (reply any, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer func() { err = contextError(ctx, err) }()
	switch cc := c.(type) {
	case redis.ConnWithContext:
		return cc.DoContext(ctx, cmd, args...)
	case redis.ConnWithTimeout:
		if d, ok := timeLeft(ctx); ok {
			return cc.DoWithTimeout(d, cmd, args...)
		}
	}
	return c.Do(cmd, args...)
}

// receive reads one pipelined reply, honouring ctx as far as c allows.
func receive(ctx context.Context, c redis.Conn) (reply any, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer func() { err = contextError(ctx, err) }()
	switch cc := c.(type) {
	case redis.ConnWithContext:
		return cc.ReceiveContext(ctx)
	case redis.ConnWithTimeout:
		if d, ok := timeLeft(ctx); ok {
			return cc.ReceiveWithTimeout(d)
		}
	}
	return c.Receive()
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

// A command is one command of a pipeline.
type command struct {
	name string
	args []any
}

// pipeline sends cmds in one round trip and returns their replies in order.
// A Redis error reply to one command is returned in its place in replies, not
// as err; err is for the connection and the context.
func pipeline(ctx context.Context, c redis.Conn, cmds []command) (replies []any, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, cmd := range cmds {
		if err := c.Send(cmd.name, cmd.args...); err != nil {
			return nil, err
		}
	}
	if err := c.Flush(); err != nil {
		return nil, err
	}
	replies = make([]any, len(cmds))
	for i := range cmds {
		reply, err := receive(ctx, c)
		var rerr redis.Error
		if errors.As(err, &rerr) {
			replies[i] = rerr
			continue
		}
		if err != nil {
			return nil, err
		}
		replies[i] = reply
	}
	return replies, nil
}

// run evaluates a script by its hash, sending the source only when the
// server does not have it yet (after a restart or SCRIPT FLUSH). That is one
// round trip per call once the script is loaded.
func run(ctx context.Context, c redis.Conn, s *script, keys []string, args ...any) (any, error) {
	evalArgs := make([]any, 0, 2+len(keys)+len(args))
	evalArgs = append(evalArgs, s.hash, len(keys))
	for _, k := range keys {
		evalArgs = append(evalArgs, k)
	}
	evalArgs = append(evalArgs, args...)
	reply, err := do(ctx, c, "EVALSHA", evalArgs...)
	var rerr redis.Error
	if errors.As(err, &rerr) && strings.HasPrefix(string(rerr), "NOSCRIPT") {
		evalArgs[0] = s.src
		reply, err = do(ctx, c, "EVAL", evalArgs...)
	}
	return reply, err
}
