// Package tracking holds a Store's client-side cache (WithClientCache):
// replies of reads kept in the process's memory, and dropped as soon as
// Redis says a key of the namespace has changed, through its client-side
// caching (CLIENT TRACKING in broadcasting mode, Redis 6 and later).
//
// One connection of the cache's own subscribes to the invalidation channel
// and asks Redis to send to it the name of every key under the namespace's
// prefix that any client writes. Any such message, and any write made
// through the Store itself (Invalidate), empties the cache. A read may be
// kept only if nothing was invalidated between its start (Begin) and its
// end (Put), so that a kept reply is never older than the last
// invalidation the cache has heard of. While the connection is not
// subscribed (before it is, after it fails, on a server or a cluster
// client that does not offer tracking) nothing is kept and every read goes
// to Redis.
package tracking

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Channel is the channel Redis sends invalidations to, for a client using
// RESP2.
const Channel = "__redis__:invalidate"

// A Cache keeps replies by key, up to a number of entries, while its
// subscription is live.
type Cache struct {
	dial   func(context.Context) (redis.Conn, error)
	prefix string
	max    int

	// Ping is how often the subscription is checked, and Retry how long
	// the cache waits before it subscribes again after a failure.
	ping, retry time.Duration

	mu      sync.Mutex
	gen     uint64
	live    bool
	entries map[string]any
	// unsupported is why the server cannot track keys for the cache, once
	// it has said so; the cache then stays empty.
	unsupported error
	// why is why the cache is not live, nil while it is.
	why    error
	closed bool

	hits, misses, invalidations atomic.Uint64
	// conn is the subscribed connection, which sendMu guards the sending
	// on: the pings, and Close's UNSUBSCRIBE.
	conn   redis.Conn
	sendMu sync.Mutex
	// id is the subscribed connection's client ID, 0 when there is none.
	id int64

	start sync.Once
	stop  chan struct{}
	done  chan struct{}
}

// New returns a cache of up to max replies for the keys under prefix, whose
// subscription dial gives the connection of. It starts nothing until its
// first Begin.
func New(dial func(context.Context) (redis.Conn, error), prefix string, max int) *Cache {
	return &Cache{dial: dial, prefix: prefix, max: max, ping: time.Second, retry: time.Second, why: ErrNotStarted,
		entries: make(map[string]any), stop: make(chan struct{}), done: make(chan struct{})}
}

// Errors of Stats: why a cache is not live.
var (
	// ErrNotStarted is a cache's before its first read starts its
	// subscription.
	ErrNotStarted = errors.New("voting: client-side cache not subscribed yet: it subscribes on the Store's first read")
	// ErrSubscribing is a cache's while its connection subscribes.
	ErrSubscribing = errors.New("voting: client-side cache subscribing")
	// ErrClosed is a cache's after Close.
	ErrClosed = errors.New("voting: client-side cache closed")
)

// Stats are a cache's counts since New, whether it keeps replies now, and
// why not (Err).
type Stats struct {
	// Hits are the reads Get served; Misses the reads it did not, which
	// went to Redis, those made while the cache was not live included.
	Hits, Misses uint64
	// Invalidations are the times the cache was emptied by word of a
	// write: once for each write of the Store's own that may have written
	// (Invalidate), and once for each of Redis's invalidation messages,
	// which tell of the Store's own writes too.
	Invalidations uint64
	// Live reports whether the subscription is live and the cache keeps
	// replies.
	Live bool
	// Err is why the cache keeps nothing now, nil while it is live: not
	// started yet, subscribing, the last failure of its connection while
	// it waits to subscribe again, the server's refusal (wrapping
	// ErrUnsupported, with Redis's own error: a NOPERM of an ACL user, an
	// unknown command of a server without tracking), or closed.
	Err error
}

// Stats are the cache's counts and state now.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	live, why := c.live, c.why
	c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Invalidations: c.invalidations.Load(), Live: live, Err: why}
}

// SetTimes sets how often the subscription is checked and how long the
// cache waits to subscribe again after a failure; for tests, before the
// first Begin.
func (c *Cache) SetTimes(ping, retry time.Duration) { c.ping, c.retry = ping, retry }

// Begin starts a read: the generation that Put must be given, and whether
// the cache keeps replies at all now.
func (c *Cache) Begin() (gen uint64, live bool) {
	c.start.Do(func() { go c.subscribe() })
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen, c.live
}

// Get is the reply kept under key, if there is one: a hit, else a miss.
func (c *Cache) Get(key string) (any, bool) {
	c.mu.Lock()
	v, ok := c.entries[key]
	ok = ok && c.live
	c.mu.Unlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return v, ok
}

// Put keeps v under key if nothing was invalidated since the Begin that
// gave gen, and the subscription is live. When the cache is full one entry
// makes room for it.
func (c *Cache) Put(key string, v any, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.gen != gen {
		return
	}
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = v
}

// Invalidate empties the cache, and keeps out any reply of a read that
// began before it: a write's word.
func (c *Cache) Invalidate() {
	c.invalidations.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.invalidate()
}

func (c *Cache) invalidate() {
	c.gen++
	clear(c.entries)
}

// Len is the number of replies kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Live reports whether the subscription is live and the cache keeps
// replies; Unsupported why it never will, if the server said so.
func (c *Cache) Live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

// ID is the client ID of the subscribed connection, 0 while there is none.
func (c *Cache) ID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

// Unsupported is the server's refusal of tracking, nil if it has not
// refused.
func (c *Cache) Unsupported() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unsupported
}

// Close ends the subscription and empties the cache for good. It waits for
// the cache's goroutine to end: at most about Ping once subscribed.
func (c *Cache) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.live = false
	c.why = ErrClosed
	c.invalidate()
	conn := c.conn
	c.mu.Unlock()
	close(c.stop)
	c.start.Do(func() { close(c.done) }) // never started
	if conn != nil {
		// The reply to UNSUBSCRIBE ends the goroutine's wait at once.
		c.sendMu.Lock()
		if err := conn.Send("UNSUBSCRIBE", Channel); err == nil {
			_ = conn.Flush()
		}
		c.sendMu.Unlock()
	}
	<-c.done
	return nil
}

// subscribe keeps the subscription live until Close: it subscribes, reads
// invalidations, and after a failure subscribes again once Retry has
// passed. A server that refuses tracking ends it.
func (c *Cache) subscribe() {
	defer close(c.done)
	for {
		err := c.session()
		c.mu.Lock()
		c.live = false
		c.invalidate()
		if errors.Is(err, ErrUnsupported) {
			c.unsupported = err
		}
		if !c.closed {
			c.why = err
			if err == nil {
				c.why = errors.New("voting: client-side cache: the subscription ended")
			}
		}
		closed := c.closed
		c.mu.Unlock()
		if closed || errors.Is(err, ErrUnsupported) {
			return
		}
		t := time.NewTimer(c.retry)
		select {
		case <-c.stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// ErrUnsupported marks the server's or the client's refusal of what the
// cache needs: a command the server does not know, or that an ACL user
// may not run (NOPERM), or a Redis Cluster client.
var ErrUnsupported = errors.New("voting: client-side cache not supported: the connection cannot track keys")

// session runs one subscription: it takes a connection, turns on tracking
// of the prefix with itself as the receiver of invalidations, subscribes,
// and empties the cache at each invalidation until the connection fails or
// Close ends it. Ended by Close, it unsubscribes and turns tracking off
// before it closes the connection, which may go back to a pool.
func (c *Cache) session() error {
	c.mu.Lock()
	if !c.closed {
		c.why = ErrSubscribing
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), c.wait())
	conn, err := c.dial(ctx)
	cancel()
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	if err := conn.Err(); err != nil {
		return err
	}
	id, err := redis.Int64(redis.DoWithTimeout(conn, c.wait(), "CLIENT", "ID"))
	if err != nil {
		return refusal(err)
	}
	args := []any{"TRACKING", "ON", "REDIRECT", id, "BCAST"}
	if c.prefix != "" {
		args = append(args, "PREFIX", c.prefix)
	}
	if _, err := redis.DoWithTimeout(conn, c.wait(), "CLIENT", args...); err != nil {
		return refusal(err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_, _ = redis.DoWithTimeout(conn, c.wait(), "CLIENT", "TRACKING", "OFF")
		return nil
	}
	c.conn, c.id = conn, id
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.conn, c.id = nil, 0
		c.mu.Unlock()
	}()
	if err := c.send(conn, "SUBSCRIBE", Channel); err != nil {
		return err
	}
	// A PING every Ping keeps a reply coming, so that a connection that
	// stops answering is found within a few of them.
	pingDone := make(chan struct{})
	var pinger sync.WaitGroup
	stopPings := sync.OnceFunc(func() { close(pingDone); pinger.Wait() })
	defer stopPings()
	pinger.Add(1)
	go func() {
		defer pinger.Done()
		t := time.NewTicker(c.ping)
		defer t.Stop()
		for {
			select {
			case <-pingDone:
				return
			case <-t.C:
				if c.send(conn, "PING") != nil {
					return
				}
			}
		}
	}()
	for {
		reply, err := redis.ReceiveWithTimeout(conn, 3*c.ping)
		if err != nil {
			return err
		}
		kind, err := message(reply)
		if err != nil {
			return refusal(err) // SUBSCRIBE or PING refused
		}
		switch kind {
		case "subscribe":
			c.mu.Lock()
			if !c.closed {
				c.live, c.why = true, nil
				c.invalidate()
			}
			c.mu.Unlock()
		case "message":
			c.Invalidate()
		case "unsubscribe":
			// Only Close unsubscribes: tracking goes off before the
			// connection is closed, so that a pool may hand it out again.
			stopPings()
			c.sendMu.Lock()
			defer c.sendMu.Unlock()
			_, err := redis.DoWithTimeout(conn, c.wait(), "CLIENT", "TRACKING", "OFF")
			return err
		}
	}
}

// send sends one command on the subscribed connection, which the pings
// and Close send on too.
func (c *Cache) send(conn redis.Conn, cmd string, args ...any) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if err := conn.Send(cmd, args...); err != nil {
		return err
	}
	return conn.Flush()
}

// wait bounds a round trip of the cache's own connection.
func (c *Cache) wait() time.Duration { return 5*c.ping + 5*time.Second }

// message is the kind of a reply on the subscribed connection:
// "subscribe", "message", "pong", "unsubscribe".
func message(reply any) (kind string, err error) {
	if rerr, ok := reply.(redis.Error); ok {
		return "", rerr
	}
	parts, ok := reply.([]any)
	if !ok || len(parts) < 2 {
		return "", fmt.Errorf("a reply of %T on the invalidation channel", reply)
	}
	b, ok := parts[0].([]byte)
	if !ok {
		return "", fmt.Errorf("a reply of kind %T on the invalidation channel", parts[0])
	}
	return strings.ToLower(string(b)), nil
}

// refusal is err, marked unsupported if it is the server's refusal of a
// command (an unknown command, an ACL's NOPERM) rather than a failure of
// the connection, or a state the server leaves (loading its data, busy
// with a script), after which the cache subscribes again.
func refusal(err error) error {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return err
	}
	for _, passing := range []string{"LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN"} {
		if strings.HasPrefix(string(rerr), passing) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", ErrUnsupported, err)
}
