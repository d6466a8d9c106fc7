package voting

// This file holds the Store: its configuration, New, and what a Store tells
// of itself.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/tracking"

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

// A Store is one namespace of articles in Redis. It holds no state of its own
// beyond its configuration, the namespace's settings as it last read them
// (Settings), which every write checks in Redis, and with WithClientCache
// pages that no write has changed since it read them; so any number of
// Stores, in any number of processes, may serve the same namespace at once.
type Store struct {
	rc       rconn.Client
	keys     schema.Keys
	pageSize int
	groupTTL time.Duration
	now      func() time.Time

	// asked are the options the Store was given; cur what it goes by: the
	// namespace's settings as it last read them (settings.go), nil until
	// its first call.
	asked config
	cur   atomic.Pointer[state]

	// trimBatch is how many aged-out articles a listing takes out of a
	// window's index in one step; reindexBatch how many articles one step of
	// Reindex indexes; historyBatch how many voters' histories one step of
	// DeleteArticle clears; stopBatch how many keys, groups or articles one
	// step of StopKeeping takes.
	trimBatch, reindexBatch, historyBatch, stopBatch int

	// cache is the client-side cache of pages (WithClientCache), nil
	// without one.
	cache *tracking.Cache
	// build runs the Store's background builds (WithAutoReindex), nil
	// without them.
	build *builder
}

// New returns a Store that takes its connections from pool. With no options
// it uses the book's key layout and numbers. An invalid option value, or a
// nil option, gives an error wrapping ErrInvalid. New sends nothing to
// Redis: the Store's first call reads the namespace's settings, writing
// them from the options if the namespace has none (Settings).
//
// On Redis Cluster, through a client whose connections have a
// Bind(keys ...string) error method (such as *redisc.Cluster), the prefix
// must hold a hash tag, as in WithPrefix("{news}:"), so that all the keys of
// the Store share one slot and each operation stays one atomic step; New
// returns an error wrapping ErrInvalid otherwise. To learn whether the pool
// is such a client, New takes one connection from any pool that is not a
// *redis.Pool and gives it back unused.
func New(pool Pool, opts ...Option) (*Store, error) {
	if pool == nil {
		return nil, failed(errs.Invalidf("pool is nil"), "new store")
	}
	cfg := defaultConfig()
	for i, opt := range opts {
		if opt == nil {
			return nil, failed(errs.Invalidf("option %d of %d is nil", i+1, len(opts)), "new store")
		}
		opt.apply(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, failed(err, "new store")
	}
	cfg.orders = slices.DeleteFunc(slices.Clone(cfg.orders), func(o Order) bool { return schema.Orders[o].Always })
	s := &Store{
		keys:     schema.NewKeys(cfg.prefix),
		pageSize: cfg.pageSize,
		groupTTL: cfg.groupTTL,
		now:      cfg.now,
		asked:    cfg,

		trimBatch:    defaultTrimBatch,
		reindexBatch: defaultReindexBatch,
		historyBatch: defaultHistoryBatch,
		stopBatch:    defaultStopBatch,
	}
	s.rc = rconn.Client{Pool: pool, Timeout: cfg.timeout, Bind: s.keys.Counter()}
	// A cluster client's connections must be bound to a slot, and then every
	// key must share the prefix's hash tag. A *redis.Pool is no cluster
	// client, and its Get would dial, so only other pools are asked.
	if !hasHashTag(cfg.prefix) {
		s.rc.Unbound = errs.Invalidf("prefix %q has no hash tag such as {news}: on Redis Cluster every key of a Store must share one slot", cfg.prefix)
		if _, ok := pool.(*redis.Pool); !ok {
			c := pool.Get()
			cluster := rconn.IsCluster(c)
			rconn.Release(c)
			if cluster {
				return nil, failed(s.rc.Unbound, "new store")
			}
		}
	}
	if cfg.autoReindex {
		var err error
		if s.build, err = newBuilder(&s.rc, s.keys.Builder(), buildWorker{left: s.unbuiltLeft, run: s.reindexSteps}); err != nil {
			return nil, failed(err, "new store")
		}
	}
	if cfg.cache > 0 {
		s.cache = tracking.New(ownDialer(pool), cfg.prefix, cfg.cache)
		s.rc.Wrote = s.cache.Invalidate
	}
	// A shared connection is dropped when Redis leaves it unanswered for
	// the timeout: with none, a dead one would never be, so calls take
	// connections of their own.
	if cfg.pipelining && cfg.timeout > 0 {
		s.rc.Pipes = rconn.NewPipes(ownDialer(pool), sharedConns, cfg.timeout)
	}
	return s, nil
}

// sharedConns is how many shared connections auto-pipelining keeps
// (WithAutoPipelining): Redis answers one command at a time, so two keep
// it busy while one connection's replies are read.
const sharedConns = 2

// ownDialer gives a connection the Store holds until Close, for the
// client-side cache's subscription and auto-pipelining's shared
// connections: a *redis.Pool's own dial, so that the pool's connections
// are all left to calls, or any other pool's Get. A Redis Cluster client's
// connection is refused (the cache would hear of one node's keys only),
// and auto-pipelining finds it out itself.
func ownDialer(pool Pool) rconn.Dialer {
	return func(ctx context.Context) (redis.Conn, error) {
		if p, ok := pool.(*redis.Pool); ok {
			switch {
			case p.DialContext != nil:
				return p.DialContext(ctx)
			case p.Dial != nil:
				return p.Dial()
			}
		}
		c := pool.Get()
		if rconn.IsCluster(c) {
			rconn.Release(c)
			return nil, fmt.Errorf("%w: a Redis Cluster client", tracking.ErrUnsupported)
		}
		return c, nil
	}
}

// Close ends what the Store keeps running beside its calls: its background
// build (WithAutoReindex), once its step in flight has ended, giving its
// lease up; the connections auto-pipelining shares (WithAutoPipelining),
// once their calls have their replies; and the subscription and
// connection of its client-side cache (WithClientCache). After Close the
// Store keeps working, each call on a connection of its own, reading every
// page from Redis, and builds nothing in the background. Close may be called more than once, and it always returns nil.
func (s *Store) Close() error {
	s.build.close()
	if s.rc.Pipes != nil {
		s.rc.Pipes.Close()
	}
	if s.cache != nil {
		return s.cache.Close()
	}
	return nil
}

// CacheStats are the counts of a Store's client-side cache
// (WithClientCache) since New, whether it keeps pages now, and if not, why.
type CacheStats struct {
	// Hits are the reads of pages and counts that the cache served with
	// no round trip; Misses the reads of those it keeps that went to
	// Redis, every one of them while it keeps nothing.
	Hits, Misses uint64
	// Invalidations are the times the cache was emptied by word of a
	// write: once for each of the Store's calls that may have written,
	// when it returns, and once for each of Redis's invalidation
	// messages, which tell of the Store's own writes as well as other
	// clients'.
	Invalidations uint64
	// Live reports whether the cache keeps pages now: its subscription to
	// Redis's invalidations is live.
	Live bool
	// Err is why the cache keeps no pages, nil while it does (Live): that
	// the Store has no cache (no WithClientCache); that its subscription
	// starts on the first read, or is being made; the failure of its
	// connection, while it waits to subscribe again; Redis's refusal, for
	// good: an ACL user's NOPERM (docs/operations.md says what the cache
	// needs), the unknown command of a server without client-side
	// caching; a Redis Cluster client; or Close. Redis's own error is
	// wrapped, for errors.As with a redis.Error.
	Err error
}

// errNoCache is CacheStats' Err for a Store without a cache.
var errNoCache = errors.New("voting: client-side cache off: the Store was not given WithClientCache")

// CacheStats returns the counts and state of the Store's client-side cache
// (WithClientCache), with no round trip. A service can export the counts
// and log Err, so that a cache that cannot work is seen.
func (s *Store) CacheStats() CacheStats {
	if s.cache == nil {
		return CacheStats{Err: errNoCache}
	}
	st := s.cache.Stats()
	return CacheStats{Hits: st.Hits, Misses: st.Misses, Invalidations: st.Invalidations, Live: st.Live, Err: st.Err}
}

// Timeout returns the longest a call waits for Redis to answer a round trip
// when its context has no earlier deadline (WithTimeout); 0 for no bound.
func (s *Store) Timeout() time.Duration { return s.rc.Timeout }

// PageSize returns the number of items in a page of a list whose call gives
// no size (WithPageSize).
func (s *Store) PageSize() int { return s.pageSize }

// defaultTrimBatch is how many aged-out articles one script takes out of a
// window's index at most: about a millisecond of Redis's time.
const defaultTrimBatch = 500

// defaultHistoryBatch is how many voters' histories one step of
// DeleteArticle clears: a ZREM each, well under a millisecond of Redis's
// time a step.
const defaultHistoryBatch = 200

// defaultReindexBatch is how many articles one step of Reindex indexes: a
// step sets one entry per kept index for each, under 2 ms of Redis's time
// as a rule with every order kept at 10^6 articles (BENCHMARKS.md).
const defaultReindexBatch = 100

// defaultStopBatch is how many keys, groups or articles one step of
// StopKeeping takes.
const defaultStopBatch = 200
