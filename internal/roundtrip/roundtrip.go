// Package roundtrip counts the round trips that go through a redigo pool,
// for the tests, the benchmarks and the simulation of package voting.
package roundtrip

import (
	"context"
	"sync/atomic"

	"github.com/gomodule/redigo/redis"
)

// A Pool hands out a *redis.Pool's connections and counts their round trips:
// each command sent with Do and each Flush of a pipeline is one. It keeps the
// connections' context support and the pool's GetContext.
type Pool struct {
	pool  *redis.Pool
	trips atomic.Int64
}

// New counts the round trips through pool.
func New(pool *redis.Pool) *Pool { return &Pool{pool: pool} }

// Trips returns the round trips counted so far.
func (p *Pool) Trips() int64 { return p.trips.Load() }

// Reset sets the count back to zero.
func (p *Pool) Reset() { p.trips.Store(0) }

// Get returns a counting connection.
func (p *Pool) Get() redis.Conn { return &conn{p.pool.Get(), &p.trips} }

// GetContext returns a counting connection, waiting no longer than ctx.
func (p *Pool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{c, &p.trips}, nil
}

type conn struct {
	redis.Conn
	trips *atomic.Int64
}

func (c *conn) Do(cmd string, args ...any) (any, error) {
	c.trips.Add(1)
	return c.Conn.Do(cmd, args...)
}

func (c *conn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.trips.Add(1)
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *conn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c *conn) Flush() error {
	c.trips.Add(1)
	return c.Conn.Flush()
}
