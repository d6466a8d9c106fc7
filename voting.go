package voting

// This file holds the Store: its configuration, New, and what a Store tells
// of itself.

import (
	"math"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

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
// beyond its configuration, so any number of Stores, in any number of
// processes, may serve the same namespace at once.
type Store struct {
	rc       rconn.Client
	keys     schema.Keys
	weight   float64
	cutoff   time.Duration
	pageSize int
	groupTTL time.Duration
	now      func() time.Time

	// keeps says which orders the Store keeps an index for; kept are those
	// orders, in the order of the table (ByScore and ByTime first), and
	// indexes their site indexes' keys, in the same order.
	keeps   [len(schema.Orders)]bool
	kept    []Order
	indexes []string
	// live is whether the Store keeps live group indexes (WithLiveGroups).
	live bool
	// built are the fields of indexed: of the indexes the Store keeps
	// beyond the book's two, unbuilt those of all others, and unbuiltLive
	// those of the live indexes among them (internal/schema/marks.go).
	built, unbuilt, unbuiltLive []string
	// history is how long a user's history keeps a vote (WithUserHistory);
	// 0 for no history.
	history time.Duration
	// kinds says which kinds of index (schema.Indexes) the Store keeps,
	// by name; hooked are those of them whose writes the scripts' hooks
	// make (script.KindsOf): the variant of each script with hooks it runs.
	kinds  map[string]bool
	hooked script.Kinds

	// trimBatch is how many aged-out articles a listing takes out of a
	// window's index in one step; reindexBatch how many articles one step of
	// Reindex indexes; historyBatch how many voters' histories one step of
	// DeleteArticle clears.
	trimBatch, reindexBatch, historyBatch int

	// vote are vote.lua's arguments after the vote's own, the same for
	// every vote, made once: putting a string in an interface allocates;
	// postBuilt and postUnbuilt, likewise, post.lua's lists of marks, and
	// groupUnbuilt add_groups.lua's.
	vote                                 *script.VoteSettings
	postBuilt, postUnbuilt, groupUnbuilt *script.Names
}

// New returns a Store that takes its connections from pool. With no options
// it uses the book's key layout and numbers. An invalid option value, or a
// nil option, gives an error wrapping ErrInvalid.
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
		opt(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, failed(err, "new store")
	}
	s := &Store{
		keys:     schema.NewKeys(cfg.prefix),
		weight:   cfg.weight,
		cutoff:   cfg.cutoff,
		pageSize: cfg.pageSize,
		groupTTL: cfg.groupTTL,
		now:      cfg.now,
		live:     cfg.live,
		history:  cfg.history.Truncate(time.Millisecond),
		kinds:    map[string]bool{"live": cfg.live, "history": cfg.history > 0},

		trimBatch:    defaultTrimBatch,
		reindexBatch: defaultReindexBatch,
		historyBatch: defaultHistoryBatch,
	}
	for _, o := range cfg.orders {
		s.keeps[o] = true
	}
	for i, spec := range schema.Orders {
		if spec.Always || s.keeps[i] {
			s.keeps[i] = true
			s.kept = append(s.kept, Order(i))
			s.indexes = append(s.indexes, s.keys.Index(i))
		}
	}
	for _, name := range cfg.kinds {
		s.kinds[name] = true
	}
	var kept []string
	for _, ix := range schema.Indexes {
		if s.keepsIndex(ix.Name) {
			kept = append(kept, ix.Name)
		}
	}
	s.hooked = script.KindsOf(kept)
	s.built, s.unbuilt, s.unbuiltLive = s.buildFields()
	s.vote = s.voteSettings()
	s.postBuilt, s.postUnbuilt, s.groupUnbuilt = script.NewNames(s.built), script.NewNames(s.unbuilt), script.NewNames(s.unbuiltLive)
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
	return s, nil
}

// Timeout returns the longest a call waits for Redis to answer a round trip
// when its context has no earlier deadline (WithTimeout); 0 for no bound.
func (s *Store) Timeout() time.Duration { return s.rc.Timeout }

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

// Orders returns the orders the Store keeps indexes for, and so can list
// by: ByScore, ByTime and those given to WithOrders, in the order of the
// table.
func (s *Store) Orders() []Order { return append([]Order(nil), s.kept...) }

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

// buildFields gives the fields of indexed: of the indexes s keeps (built),
// karma and the index of links among them,
// and of those it does not (unbuilt), and of those the live ones (the
// indexes a change of groups writes).
func (s *Store) buildFields() (built, unbuilt, unbuiltLive []string) {
	mark := func(ix schema.Index, field string, kept bool) {
		switch {
		case field == "":
		case kept:
			built = append(built, field)
		case ix.PerGroup:
			unbuilt, unbuiltLive = append(unbuilt, field), append(unbuiltLive, field)
		default:
			unbuilt = append(unbuilt, field)
		}
	}
	for _, ix := range schema.Indexes {
		if !ix.PerOrder {
			mark(ix, ix.Mark, s.keepsIndex(ix.Name))
			continue
		}
		for i, spec := range schema.Orders {
			if ix.Mark != "" || !spec.Always {
				mark(ix, ix.Mark+spec.Name, s.keeps[i] && s.keepsIndex(ix.Name))
			}
		}
	}
	return built, unbuilt, unbuiltLive
}

// keepsIndex reports whether the Store keeps the kind of index name
// (schema.Indexes): one that no option keeps, or one whose option it was
// given; the orders' it keeps per order, by keeps.
func (s *Store) keepsIndex(name string) bool {
	ix, _ := schema.IndexNamed(name)
	return ix.Option == "" || name == "orders" || s.kinds[name]
}

// checkOrder refuses an unknown order, and one whose index the Store does
// not keep.
func (s *Store) checkOrder(o Order) (*schema.OrderSpec, error) {
	spec, ok := o.spec()
	if !ok {
		return nil, errs.Invalidf("unknown order %d", int(o))
	}
	if !s.keeps[o] {
		return nil, errs.Invalidf("order %s is not kept by this Store: give New WithOrders(voting.%s)", spec.Name, spec.Ident)
	}
	return spec, nil
}

// voteSettings are vote.lua's arguments after the vote's own: the cutoff
// in seconds, the history's time, the live indexes' prefix, the score's
// change for each net change of votes, the kept orders' keys and kinds, and
// whether karma is kept; made once, with their arguments.
func (s *Store) voteSettings() *script.VoteSettings {
	livePrefix := ""
	if s.live {
		livePrefix = s.keys.LivePrefix()
	}
	change := func(net float64) string { return schema.FormatFloat(net * s.weight) }
	v := &script.VoteSettings{Cutoff: schema.FormatFloat(s.cutoff.Seconds()), HistoryMillis: s.history.Milliseconds(),
		LivePrefix: livePrefix, MinusTwo: change(-2), MinusOne: change(-1), PlusOne: change(1), PlusTwo: change(2),
		Orders: scriptOrders(s.kept), Prefix: s.keys.Prefix(), Kinds: s.hooked}
	v.Args()
	return v
}

// pageBounds checks page and gives its bounds, as pageRange does.
func (s *Store) pageBounds(page int) (start, stop int64, past bool, err error) {
	if page < 1 {
		return 0, 0, false, errs.Invalidf("page %d is before page 1", page)
	}
	size := int64(s.pageSize)
	if int64(page-1) > (math.MaxInt64-size)/size {
		return 0, 0, true, nil
	}
	start = int64(page-1) * size
	return start, start + size - 1, false, nil
}
