package voting

// This file holds the options New takes, each with its default, and the
// checks of their values.

import (
	"slices"
	"time"

	"github.com/articlevote/voting/internal/errs"
)

// Defaults of the model, from Redis in Action, chapter 1.
const (
	// DefaultVoteWeight is the score one vote adds: a day in seconds (86,400)
	// divided by the 200 votes that should keep an article on the front page
	// for a day.
	DefaultVoteWeight = 432.0
	// DefaultCutoff is how long after posting an article takes votes.
	DefaultCutoff = 7 * 24 * time.Hour
	// DefaultPageSize is the number of items in a page of a list when a
	// call gives no size.
	DefaultPageSize = 25
	// DefaultGroupCacheTTL is how long a group listing is cached.
	DefaultGroupCacheTTL = 60 * time.Second
	// DefaultTimeout is the longest a call waits for Redis to answer one
	// round trip when its context has no earlier deadline. It is Redis's
	// own threshold for a busy script (busy-reply-threshold, 5 s), past
	// which Redis answers other clients BUSY: far above what any of the
	// Store's round trips takes on a sound server (the slowest, the book's
	// cached listing of a group of a million articles, takes 2.6 s), and
	// short enough that a server that has stopped answering (paused,
	// partitioned, swapping) shows as an error within seconds, not never.
	DefaultTimeout = 5 * time.Second
)

// Limits on option values.
const (
	// MaxPageSize is the largest page size, of a Store (WithPageSize) and
	// of a call (Paging.Size).
	MaxPageSize = 1000
	// MaxVoteWeight is the largest vote weight: a billion seconds, about 32
	// years, a vote. With it a score stays finite whatever the counts, and
	// exact to the second up to a million net votes (below 2^53).
	MaxVoteWeight = 1e9
)

// An Option configures a Store. Options are applied in order by New, which
// rejects the result if any value is out of range.
type Option interface{ apply(*config) }

// An IndexOption is an option of an index a namespace keeps (WithOrders,
// WithLiveGroups, WithUserHistory, WithKarma, WithUniqueLinks,
// WithActiveUsers), which New and StopKeeping both take: New to add the
// index, StopKeeping to stop it.
type IndexOption interface {
	Option
	index()
}

// optionFunc is an Option that sets what it sets in the config.
type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// indexOption is an IndexOption that sets what it sets in the config.
type indexOption func(*config)

func (f indexOption) apply(c *config) { f(c) }
func (indexOption) index()            {}

type config struct {
	prefix   string
	weight   float64
	cutoff   time.Duration
	pageSize int
	groupTTL time.Duration
	now      func() time.Time
	orders   []Order
	history  time.Duration
	timeout  time.Duration
	cache    int
	// pipelining is WithAutoPipelining's, autoReindex WithAutoReindex's:
	// on by default.
	pipelining, autoReindex bool
	// kinds are the kinds of index (schema.Indexes) an option keeps that
	// carry no setting of their own: their names (flagKinds).
	kinds []string
	// given says which of the namespace's settings an option set: only
	// those are checked against the namespace's (settings.go).
	given struct{ weight, cutoff, history, groupTTL bool }
}

func defaultConfig() config {
	return config{
		weight:   DefaultVoteWeight,
		cutoff:   DefaultCutoff,
		pageSize: DefaultPageSize,
		groupTTL: DefaultGroupCacheTTL,
		now:      time.Now,
		timeout:  DefaultTimeout,

		pipelining:  true,
		autoReindex: true,
	}
}

// WithPrefix puts prefix in front of every key and every index member, so
// that several namespaces (sites, communities, tests) share one Redis.
// A prefix of at most MaxPrefixLen bytes of printable characters other than
// spaces; end it with a separator such as ':' to keep keys readable. A prefix
// with a hash tag, such as "{news}:", keeps the namespace in one Redis Cluster
// slot. The default, "", is the book's exact key layout.
//
// A prefix is refused when a key of another namespace could be one of its
// keys: when it contains "history:", "posts:" or "usercomments:" (the history of user
// "score:" under "" would be prefix "history:"'s score index) or ends in
// "deleted:", "down"
// or "live:" (news-downvoted:7, under "news-", would be prefix
// "news-down"'s voted:7).
func WithPrefix(prefix string) Option {
	return optionFunc(func(c *config) { c.prefix = prefix })
}

// WithVoteWeight sets the score one vote is worth, in seconds of freshness.
// It must be positive and at most MaxVoteWeight. The default is
// DefaultVoteWeight (432). It is the namespace's setting (Settings): a
// Store's first call on a namespace with no settings writes it; on one
// whose weight is another, every call of the Store is refused with an
// error wrapping ErrInvalid, and writes nothing. Rescore changes it. A
// Store not given it takes the namespace's.
func WithVoteWeight(points float64) Option {
	return optionFunc(func(c *config) { c.weight, c.given.weight = points, true })
}

// WithCutoff sets how long after posting an article takes votes; after it the
// score is fixed and the voter sets expire. It must be at least a second.
// The default is DefaultCutoff (7 days). It is the namespace's setting, as
// WithVoteWeight is, kept to the millisecond.
func WithCutoff(d time.Duration) Option {
	return optionFunc(func(c *config) { c.cutoff, c.given.cutoff = d, true })
}

// WithPageSize sets how many items a page of a list holds when a call
// gives no size (Paging.Size 0), as GetArticles and GetGroupArticles do not,
// from 1 to MaxPageSize. The default is DefaultPageSize (25).
func WithPageSize(n int) Option {
	return optionFunc(func(c *config) { c.pageSize = n })
}

// WithGroupCacheTTL makes the Store list groups as the book does, through
// the cached intersection of the group with the order's index, and sets how
// long such a listing is kept before it is built again. Zero means no
// cache: every group listing is built fresh. It must not be negative and is
// kept to the millisecond. The default is DefaultGroupCacheTTL (60s).
//
// Without it a Store lists groups from their live indexes where the
// namespace keeps them (WithLiveGroups; a namespace the library creates
// does), and through the cache, for DefaultGroupCacheTTL, where it does
// not. A Store given it (and not WithLiveGroups) that creates a namespace
// makes one without live groups.
func WithGroupCacheTTL(d time.Duration) Option {
	return optionFunc(func(c *config) { c.groupTTL, c.given.groupTTL = d, true })
}

// WithClock sets the clock that gives posting times and decides whether
// voting is closed, for tests and simulations. Expiry of the voter sets and
// of group caches is Redis's own clock. Its readings must lie in the years 1
// to 9999, those JSON can carry (Unix seconds from -62135596800 up to, not
// including, 253402300800, the last microseconds of 9999 aside); PostArticle,
// Vote and the other calls that write by it (a listing of a window trims
// it) return ErrInvalid for one outside, and write nothing. The default is
// time.Now.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *config) { c.now = now })
}

// WithOrders keeps the indexes for these orders, beyond ByScore and ByTime,
// which are always kept, so that listings (List, GetArticles,
// GetGroupArticles) can be read in them. Each kept order costs every post and vote one more write, and
// memory for one more entry per article (docs/operations.md, Memory). The orders kept
// are the namespace's (Settings): a Store given one the namespace lacks adds
// it on its first call, and from then on every Store's writes keep it.
// Articles posted before (or by the book's code) join its index when that
// Store builds it in the background (WithAutoReindex), or Reindex runs;
// until then its listings and counts return an error wrapping
// ErrNotIndexed. StopKeeping stops one. Default: none beyond the
// namespace's, so that a Store of a new namespace costs what the book's
// layout costs.
func WithOrders(orders ...Order) IndexOption {
	return indexOption(func(c *config) { c.orders = append(c.orders, orders...) })
}

// WithLiveGroups keeps a sorted set per group for each kept order, updated
// by every post, vote and group change in the same atomic step, instead of
// the book's cached intersection of a group with an index. A group's listing
// (List, GetGroupArticles) then reads it directly: a group page costs what a site page costs, at any
// size, and is never stale. It costs each post and group change one write
// per group per kept order, each vote one per group per order a vote moves
// (all kept orders but ByTime), and memory for one entry per article per
// group per kept order (docs/operations.md, Memory). Groups written before live groups
// were kept (before a Store added them, or by the book's code) join their live
// indexes when Reindex runs; until then group listings and counts fall
// back to the book's listing. It is the namespace's setting, as WithOrders
// is; a namespace the library creates keeps live groups unless its first
// Store was given WithGroupCacheTTL. StopKeeping stops them.
func WithLiveGroups() IndexOption {
	return keepKind("live")
}

// WithUserHistory keeps, for each user, the articles they voted on and how,
// newest vote first, for d after each vote (UserHistory), a post counting
// as the poster's up-vote: a vote older than d drops out, and a user's
// whole history expires d after their last vote. Once voting on an article
// has closed, UserVotes answers from it. It costs each vote and post a few
// writes to the user's history, and memory for one entry per vote kept (see
// docs/operations.md, Memory). It must be 0 (off, the default) or at least a second, and is
// kept to the millisecond, as Redis keeps a time to live. It is the
// namespace's setting, as WithOrders is: a Store given another time than
// the namespace's is refused, as with WithVoteWeight. StopKeeping, given
// it with any time, stops the histories.
func WithUserHistory(d time.Duration) IndexOption {
	return indexOption(func(c *config) { c.history, c.given.history = d, true })
}

// WithKarma keeps each poster's karma (Karma, TopPosters): the sum, over
// the user's articles, of the up-votes less the down-votes cast by other
// users (the poster's own vote never counts), moved by every vote, switch
// and take-back in the same atomic step, and less an article's part when
// it is deleted. It costs each vote that moves it three commands (a read
// and a write of karma:, and a write of the article's part in its hash),
// each post one, and memory for one entry per poster and a field per
// article (docs/operations.md, Memory). Karma of
// articles written without it (before a Store added it, or by the book's
// code) is counted when Reindex runs; until then Karma and TopPosters
// return an error wrapping ErrNotIndexed. It is the namespace's setting, as
// WithOrders is. Comments' karma is kept apart, the same way (CommentKarma,
// TopCommenters, which answer ErrNotIndexed as Karma does until Reindex
// has counted the comments written without it). StopKeeping stops it.
func WithKarma() IndexOption {
	return keepKind("karma")
}

// WithUniqueLinks refuses a post or an edit whose link another article has
// already, with an error wrapping ErrDuplicate that names that article, and
// keeps the index of links that ArticleByLink reads. Two links are the same
// when they differ only in the case of the ASCII letters of their scheme
// and host, or in their fragment (what follows '#'): schema.LinkKey in the package
// doc's Input section. Deleting an article, or editing its link, frees its
// link. Links of articles written without it (before a Store added it, or by
// the book's code) join the index when Reindex runs, the oldest article of
// a link first; until then ArticleByLink returns an error wrapping
// ErrNotIndexed, and a post may repeat such a link. It is the namespace's
// setting, as WithOrders is. StopKeeping stops it.
func WithUniqueLinks() IndexOption {
	return keepKind("links")
}

// keepKind is the option that keeps the kind of index name, one of
// flagKinds.
func keepKind(name string) IndexOption {
	return indexOption(func(c *config) { c.kinds = append(c.kinds, name) })
}

// keeps reports whether an option asked for the kind of index name, one of
// flagKinds.
func (c config) keeps(name string) bool { return slices.Contains(c.kinds, name) }

// WithTimeout sets the longest a call waits for Redis to answer one round
// trip when its context has no earlier deadline: then the call returns an
// error, for which errors.Is(err, os.ErrDeadlineExceeded) holds, saying
// that Redis did not answer in time, and the connection is dropped. A call
// of several round trips (a window listing that trims in steps, Reindex)
// may take longer in all. It bounds a round trip through the connection's
// read timeout (redis.ConnWithTimeout, as *redis.Pool's and redisc's
// connections have); on a connection without one, only the pool's own
// timeouts bound it. It bounds as well the wait for a connection of a pool
// that makes a call wait (a *redis.Pool with Wait whose MaxActive
// connections are all taken, or any pool with GetContext other than a
// *redis.Pool), whose error says no connection came within the timeout; a
// dial is the pool's to bound (its Dial). Zero means no bound: a call with
// a context that has no deadline waits as long as Redis, or the pool,
// takes. It must not be negative. The default is DefaultTimeout (5s).
func WithTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.timeout = d })
}

// WithClientCache keeps up to pages numbered pages of listings in the
// Store's memory, so that a page read again is served with no round trip,
// as long as nothing in the namespace has changed. Redis tells the Store of
// every change (client-side caching: CLIENT TRACKING in its broadcasting
// mode, Redis 6 and later), and any write empties the cache:
//
//   - A write made through the Store empties it before the call returns,
//     so the Store's next read sees the write.
//   - A write made by any other client empties it when Redis's word of it
//     arrives, a fraction of a millisecond later as a rule. A read begun
//     before that word arrives may still show the page as it was.
//   - A page read while Redis's word of a change was on its way is not
//     kept. While the Store's connection for that word is not subscribed
//     (before its first read, after a failure, which it notices within 3
//     seconds, until it subscribes again), nothing is kept and every read
//     goes to Redis.
//
// The site's and live groups' numbered pages of orders without a window
// (every order but TopDay to TopYear) and their counts (Count) are kept;
// pages by cursor and other lists are always read from Redis. A read
// leaves the cache as it is, a window's page that takes aged-out articles
// out of its index aside. The cache pays off where pages are read far more
// often than anything is written: every vote empties it. Its cost is one
// connection held, taken from a *redis.Pool's Dial (from any other pool's
// Get), a goroutine, and on Redis a message to the Store for each write to
// the namespace. Call Close to end them.
//
// A server without CLIENT TRACKING (Redis before 6, miniredis), an ACL
// user not granted CLIENT ID, CLIENT TRACKING, SUBSCRIBE to the channel
// __redis__:invalidate, UNSUBSCRIBE and PING (docs/operations.md gives the
// line), and a Redis Cluster client leave the cache empty, and the Store
// works without it; CacheStats says so, and why. pages 0, the default,
// keeps no cache; it must be 0 to MaxClientCache.
func WithClientCache(pages int) Option {
	return optionFunc(func(c *config) { c.cache = pages })
}

// WithAutoPipelining(false) turns auto-pipelining off: every call then
// takes a connection of the pool for its round trip, as the book's code
// does. It is on by default: a vote (Vote, VoteComment) that finds more
// than 8 votes of the Store in flight, its own included, sends its script
// on one of two connections the Store shares among such calls, behind the
// other goroutines' commands, and Redis reads and answers them together. At 64
// goroutines and more this saves about a quarter of the server's time a
// vote and gives a third more votes a second (BENCHMARKS.md); a vote that
// finds fewer in flight takes a connection of its own, as without it.
//
// A call sent on a shared connection keeps its guarantees: it is one
// atomic script; it waits for its reply no longer than its context and the
// round-trip limit (WithTimeout) allow; and a connection that Redis leaves
// unanswered for the limit is dropped, failing every call waiting on it,
// as a connection of a call's own is.
//
// A shared connection's writer takes the calls handed to it in turn, and
// checks each call's context right before it writes it. A call whose
// context ends, or whose wait runs out the limit, before the writer has
// taken it is never written, however late the writer gets to it: its
// error wraps ErrNotSent, so a caller knows that a later call of the same
// user cannot be overtaken by it. A call the writer has taken may have
// landed, whatever its caller is told: its context ending, the limit, or
// the connection failing while its command is written or its reply
// awaited give an error without ErrNotSent; such a call is never sent
// again. A call that a shared connection refuses before taking it (the
// connection has failed or is closing, or has the most calls in flight)
// is sent on a connection of its own, with that connection's guarantees.
//
// The shared connections are dialled
// through a *redis.Pool's Dial or DialContext (through any other pool's
// Get, where they stay taken until Close) when votes first overlap. On a
// Redis Cluster client, whose connections must be bound to a call's keys,
// and with WithTimeout(0), where nothing would drop a shared connection
// that Redis stopped answering, every call takes a connection of its own.
func WithAutoPipelining(on bool) Option {
	return optionFunc(func(c *config) { c.pipelining = on })
}

// WithAutoReindex(false) turns off the building of indexes in the
// background, for operators who run Reindex themselves. It is on by
// default: a Store whose first call adds an index to a namespace that
// holds articles (an order, karma, links or live groups the namespace
// lacked, a history, or any index the book's code wrote a namespace
// without), and a Store whose listing answers ErrNotIndexed for an index
// no run has built, runs Reindex in the background, in its bounded steps,
// until every index the namespace keeps is built: then their listings
// answer as any other. Listings of an index being built answer
// ErrNotIndexed, as before.
//
// One Store of a namespace builds at a time, whatever the processes: the
// builder holds a lease in Redis (the key builder:), renewed as the run
// goes on, which another Store takes over, from where the run stands, if
// the builder stops renewing it for 10 seconds (its process died) and one
// of its listings then finds the index not built. Settings reports what
// is not built, how far the run has come and whether a Store builds it;
// Close stops the Store's builder once its step in flight has ended, and
// gives the lease up. A run that fails is tried again after a pause that
// doubles from a second to 30 seconds, and Settings says why it failed.
// Articles another writer posts (the book's code) leave every index
// unbuilt by the count of the articles indexed (see ErrNotIndexed), not
// by their marks: for them Reindex is still the operator's to run.
func WithAutoReindex(on bool) Option {
	return optionFunc(func(c *config) { c.autoReindex = on })
}

// MaxClientCache is the most pages WithClientCache keeps.
const MaxClientCache = 1 << 20

func (c config) validate() error {
	if err := checkPrefix(c.prefix); err != nil {
		return err
	}
	if c.cache < 0 || c.cache > MaxClientCache {
		return errs.Invalidf("client cache of %d pages: want 0 to %d", c.cache, MaxClientCache)
	}
	if !(c.weight > 0) || c.weight > MaxVoteWeight {
		return errs.Invalidf("vote weight %v is outside (0, %g]", c.weight, float64(MaxVoteWeight))
	}
	if c.cutoff < time.Second {
		return errs.Invalidf("cutoff %v is shorter than a second", c.cutoff)
	}
	if c.pageSize < 1 || c.pageSize > MaxPageSize {
		return errs.Invalidf("page size %d is outside 1..%d", c.pageSize, MaxPageSize)
	}
	if c.groupTTL < 0 {
		return errs.Invalidf("group cache TTL %v is negative", c.groupTTL)
	}
	if c.groupTTL > 0 && c.groupTTL < time.Millisecond {
		return errs.Invalidf("group cache TTL %v is under a millisecond", c.groupTTL)
	}
	if c.history < 0 || c.history > 0 && c.history < time.Second {
		return errs.Invalidf("user history %v is negative or under a second", c.history)
	}
	if c.timeout < 0 {
		return errs.Invalidf("timeout %v is negative", c.timeout)
	}
	if c.now == nil {
		return errs.Invalidf("clock is nil")
	}
	for _, o := range c.orders {
		if _, ok := o.spec(); !ok {
			return errs.Invalidf("WithOrders: unknown order %d", int(o))
		}
	}
	return nil
}
