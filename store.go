package voting

// This file holds the Store: its configuration, New, and what a Store tells
// of itself.

import (
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// A Store is one namespace of articles in Redis. It holds no state of its own
// beyond its configuration, so any number of Stores, in any number of
// processes, may serve the same namespace at once.
type Store struct {
	pool     Pool
	keys     keys
	weight   float64
	cutoff   time.Duration
	pageSize int
	groupTTL time.Duration
	now      func() time.Time
	tagged   bool // the prefix has a hash tag, as Redis Cluster needs

	// keeps says which orders the Store keeps an index for; extra are the
	// kept indexes beyond the book's two, in the order of the table, as
	// the post and vote scripts take them.
	keeps [len(orders)]bool
	extra []keptIndex
	// kept are the kept orders, in the order of the table.
	kept []Order
	// live is whether the Store keeps live group indexes (WithLiveGroups).
	live bool
	// history is how long a user's history keeps a vote (WithUserHistory);
	// 0 for no history.
	history time.Duration
	// voteExtra are the vote script's last arguments: the number of extra,
	// what each holds, and with live groups the live indexes' prefix and
	// the key and kind of each kept order a vote moves.
	voteExtra []any
	// trimBatch is how many aged-out articles a listing takes out of a
	// top-of-window index in one step.
	trimBatch int
	// reindexBatch is how many articles one step of Reindex indexes.
	reindexBatch int

	// voteArgs are the vote script's last arguments, the same for every
	// vote: the cutoff in seconds, then the score changes for a net vote
	// change of -2..2. They are made once, as interface values, since
	// putting a string in one allocates.
	voteArgs [6]any
}

// New returns a Store that takes its connections from pool. With no options
// it uses the book's key layout and numbers. An invalid option value gives an
// error wrapping ErrInvalid.
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
		return nil, fmt.Errorf("%w: pool is nil", ErrInvalid)
	}
	cfg := defaultConfig()
	for _, opt := range opts {
		opt(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Store{
		pool:     pool,
		keys:     newKeys(cfg.prefix),
		weight:   cfg.weight,
		cutoff:   cfg.cutoff,
		pageSize: cfg.pageSize,
		groupTTL: cfg.groupTTL,
		now:      cfg.now,
		tagged:   hasHashTag(cfg.prefix),

		trimBatch:    defaultTrimBatch,
		reindexBatch: defaultReindexBatch,
	}
	s.keeps, s.extra = keptOrders(cfg.orders, s.keys)
	s.kept = s.Orders()
	s.live = cfg.live
	s.history = cfg.history
	s.voteExtra = append(s.voteExtra, len(s.extra))
	for _, x := range s.extra {
		s.voteExtra = append(s.voteExtra, string(orders[x.order].holds))
	}
	s.voteExtra = append(s.voteExtra, s.history.Milliseconds())
	if s.live {
		s.voteExtra = append(s.voteExtra, s.keys.livePrefix())
		for _, o := range s.kept {
			if spec := &orders[o]; spec.holds != holdsTime {
				s.voteExtra = append(s.voteExtra, spec.key, string(spec.holds))
			}
		}
	}
	s.voteArgs[0] = formatFloat(s.cutoff.Seconds())
	for net := -2; net <= 2; net++ {
		s.voteArgs[3+net] = formatFloat(float64(net) * s.weight)
	}
	// A cluster client's connections must be bound to a slot, and then every
	// key must share the prefix's hash tag. A *redis.Pool is no cluster
	// client, and its Get would dial, so only other pools are asked.
	if _, ok := pool.(*redis.Pool); !ok {
		c := pool.Get()
		_, cluster := c.(binder)
		release(c)
		if cluster {
			if err := s.checkClusterPrefix(); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// PageSize returns the number of articles in a full listing page.
func (s *Store) PageSize() int { return s.pageSize }

// Cutoff returns how long an article takes votes: voting on an article a
// closes at a.Posted.Add(s.Cutoff()).
func (s *Store) Cutoff() time.Duration { return s.cutoff }

// LiveGroups reports whether the Store keeps live group indexes
// (WithLiveGroups).
func (s *Store) LiveGroups() bool { return s.live }

// HistoryTime returns how long a user's history keeps a vote
// (WithUserHistory); 0 if the Store keeps no history.
func (s *Store) HistoryTime() time.Duration { return s.history }

// checkClusterPrefix refuses a prefix without a hash tag on Redis Cluster,
// where the keys of one operation must share a slot.
func (s *Store) checkClusterPrefix() error {
	if !s.tagged {
		return invalid("prefix %q has no hash tag such as {news}: on Redis Cluster every key of a Store must share one slot", s.keys.prefix)
	}
	return nil
}
