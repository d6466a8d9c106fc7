// Package voting is the article-voting system of Redis in Action, chapter 1,
// for Go services: users post articles, vote them up or down, and read them a
// page at a time, by score or by posting time, across the site or within a
// group (topic).
//
// # The model
//
// An article's score is its posting time in Unix seconds plus a weight W for
// each net vote (up-votes minus down-votes). Time moving forward is what
// makes old articles sink; a vote buys W seconds of freshness. The default W
// is 432, a day divided by 200 votes, so an article with 200 votes stays level
// with articles a day younger. The poster's own up-vote counts from the
// start. After the cutoff (a week by default) an article takes no more votes,
// its score is fixed, and its voter sets expire.
//
// # Redis
//
// A Store reads and writes the book's own key layout (see the README), so it
// can serve data written by the book's code and the other way round; WithPrefix
// puts a namespace in front of every key. Each write (posting, a vote, a group
// change) is one Lua script: one atomic step and one round trip, so that a
// score always equals time + W x (up-votes - down-votes), whatever runs
// concurrently. A listing is two round trips whatever the page size: the page
// of ids, then one pipelined batch of the articles.
//
// Redis does not roll a script back, so each script reads and checks all it
// needs first and writes last: an operation does all of its change or none
// of it, and its error says which. Stored data that neither this package nor
// the book's code would write (a time of "abc", a key of the wrong type) is
// refused with ErrCorrupt, and listings skip such articles.
//
// Every method takes a context, honoured as far as the connection allows (see
// Pool), and returns errors that wrap ErrNotFound, ErrVotingClosed,
// ErrInvalid or ErrCorrupt where those apply, for errors.Is. Bad input is
// rejected before anything is sent to Redis. A Store is safe for concurrent
// use.
package voting

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Errors a caller can test for with errors.Is.
var (
	// ErrNotFound is returned for a well-formed article id that has no article.
	ErrNotFound = errors.New("voting: article not found")
	// ErrVotingClosed is returned for a vote on an article past its cutoff.
	ErrVotingClosed = errors.New("voting: voting closed")
	// ErrInvalid is returned for bad input and bad option values. Nothing is
	// written when it is returned.
	ErrInvalid = errors.New("voting: invalid input")
	// ErrCorrupt is returned when stored data is not as this library or the
	// book's code writes it: a field that does not parse, such as a time of
	// "abc", or a key of the wrong type where an operation reads or writes.
	// The error names the key or field. Nothing is written when it is
	// returned; listings skip such articles instead.
	ErrCorrupt = errors.New("voting: corrupt data")
)

// A Direction is a user's vote on an article.
type Direction int

const (
	// None is no vote; voting None takes a vote back.
	None Direction = iota
	// Up is an up-vote: it adds the vote weight to the score.
	Up
	// Down is a down-vote: it takes the vote weight off the score.
	Down
)

// String returns "none", "up" or "down".
func (d Direction) String() string {
	switch d {
	case None:
		return "none"
	case Up:
		return "up"
	case Down:
		return "down"
	}
	return "Direction(" + strconv.Itoa(int(d)) + ")"
}

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
	s.voteExtra = append(s.voteExtra, len(s.extra))
	for _, x := range s.extra {
		s.voteExtra = append(s.voteExtra, string(orders[x.order].holds))
	}
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

// Vote records user's vote on an article. Up and Down cast or switch the
// user's vote (a switch moves the score by twice the weight); None takes it
// back. Voting the way the user already has is no change and no error.
//
// The vote, the article's counters and its score change together in one
// atomic step. Vote returns an error wrapping ErrNotFound exactly when
// Article does, and ErrVotingClosed once the cutoff has passed by the
// Store's clock (read once a connection is had) or the article's voter sets
// have expired on Redis's, whichever comes first, so that no clock skew can
// count a voter twice.
func (s *Store) Vote(ctx context.Context, user, articleID string, dir Direction) error {
	if err := checkUser(user); err != nil {
		return err
	}
	if err := checkID(articleID); err != nil {
		return err
	}
	var word string
	switch dir {
	case Up:
		word = "up"
	case Down:
		word = "down"
	case None:
		word = "none"
	default:
		return invalid("unknown vote direction %d", int(dir))
	}
	k := s.keys
	member := k.articleHash(articleID)
	keys := make([]string, 4, 5+len(s.extra))
	keys[0], keys[1], keys[2], keys[3] = member, k.scoreIndex(), k.votedSet(articleID), k.downvotedSet(articleID)
	for _, x := range s.extra {
		keys = append(keys, x.key)
	}
	if s.live {
		keys = append(keys, k.groupRecord(articleID))
	}
	var reply string
	err := s.session(ctx, func(c redis.Conn) error {
		// The clock is read once the connection is had, as close as it can
		// be to the script's run.
		now := s.now()
		if err := checkClock(now); err != nil {
			return err
		}
		var err error
		args := append(make([]any, 0, 10+len(s.voteExtra)), member, user, word, unixSeconds(now), s.voteArgs[0],
			s.voteArgs[1], s.voteArgs[2], s.voteArgs[3], s.voteArgs[4], s.voteArgs[5])
		reply, err = redis.String(run(ctx, c, voteScript, keys, append(args, s.voteExtra...)...))
		return err
	})
	if err != nil {
		return fmt.Errorf("voting: vote on article %s: %w", articleID, err)
	}
	word, detail, _ := strings.Cut(reply, " ")
	switch word {
	case replyOK, replyUnchanged:
		return nil
	case replyNotFound:
		return fmt.Errorf("%w: article %s", ErrNotFound, articleID)
	case replyClosed:
		return fmt.Errorf("%w: article %s is older than %v", ErrVotingClosed, articleID, s.cutoff)
	}
	return scriptError("vote on article "+articleID, word, detail)
}

// UserVotes returns user's vote on each of the articles, in order, in one
// round trip. An article that does not exist, or whose voting has closed
// (its voter sets have expired), gives None.
func (s *Store) UserVotes(ctx context.Context, user string, articleIDs ...string) ([]Direction, error) {
	if err := checkUser(user); err != nil {
		return nil, err
	}
	for _, id := range articleIDs {
		if err := checkID(id); err != nil {
			return nil, err
		}
	}
	if len(articleIDs) == 0 {
		return []Direction{}, nil
	}
	// The keys are cut from one string and the arguments from one slice,
	// so that a page of arrows costs a few allocations, not a few per id.
	var names strings.Builder
	size := 0
	for _, id := range articleIDs {
		size += len(s.keys.votedPrefix()) + len(s.keys.downvotedPrefix()) + 2*len(id)
	}
	names.Grow(size)
	for _, id := range articleIDs {
		names.WriteString(s.keys.votedPrefix())
		names.WriteString(id)
		names.WriteString(s.keys.downvotedPrefix())
		names.WriteString(id)
	}
	all := names.String()
	userArg := any(user)
	args := make([]any, 0, 4*len(articleIDs))
	cmds := make([]command, 0, 2*len(articleIDs))
	for _, id := range articleIDs {
		for _, prefix := range [2]string{s.keys.votedPrefix(), s.keys.downvotedPrefix()} {
			var key string
			key, all = all[:len(prefix)+len(id)], all[len(prefix)+len(id):]
			at := len(args)
			args = append(args, key, userArg)
			cmds = append(cmds, command{"SISMEMBER", args[at:len(args):len(args)]})
		}
	}
	replies, err := s.pipeline(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("voting: votes of user %q: %w", user, err)
	}
	dirs := make([]Direction, len(articleIDs))
	for i := range articleIDs {
		up, err := redis.Bool(replies[2*i], nil)
		if err != nil {
			return nil, fmt.Errorf("voting: votes of user %q: %w", user, err)
		}
		down, err := redis.Bool(replies[2*i+1], nil)
		if err != nil {
			return nil, fmt.Errorf("voting: votes of user %q: %w", user, err)
		}
		switch {
		case up:
			dirs[i] = Up
		case down:
			dirs[i] = Down
		}
	}
	return dirs, nil
}

// checkClusterPrefix refuses a prefix without a hash tag on Redis Cluster,
// where the keys of one operation must share a slot.
func (s *Store) checkClusterPrefix() error {
	if !s.tagged {
		return invalid("prefix %q has no hash tag such as {news}: on Redis Cluster every key of a Store must share one slot", s.keys.prefix)
	}
	return nil
}
