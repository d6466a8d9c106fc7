package voting

// This file holds the votes: Direction, Vote and UserVotes.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
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

// ParseDirection returns the Direction named name, as Direction.String
// writes it: "up", "down" or "none". Case does not matter. An unknown name
// gives an error wrapping ErrInvalid.
func ParseDirection(name string) (Direction, error) {
	for _, d := range [...]Direction{None, Up, Down} {
		if strings.EqualFold(name, d.String()) {
			return d, nil
		}
	}
	return 0, invalid("unknown vote direction %q: want up, down or none", name)
}

// MarshalText writes the direction's name, as String does; an unknown
// Direction is an error.
func (d Direction) MarshalText() ([]byte, error) {
	if d < None || d > Down {
		return nil, invalid("unknown vote direction %d", int(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads a direction's name as ParseDirection does.
func (d *Direction) UnmarshalText(text []byte) error {
	parsed, err := ParseDirection(string(text))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

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
	keys := make([]string, 4, 6+len(s.extra))
	keys[0], keys[1], keys[2], keys[3] = member, k.scoreIndex(), k.votedSet(articleID), k.downvotedSet(articleID)
	for _, x := range s.extra {
		keys = append(keys, x.key)
	}
	if s.live {
		keys = append(keys, k.groupRecord(articleID))
	}
	if s.history > 0 {
		keys = append(keys, k.userHistory(user))
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
// round trip. An article that does not exist gives None. Once voting on an
// article has closed (its voter sets have expired) the vote is read from
// the user's history if the Store keeps one (WithUserHistory), while the
// history holds it, and is None otherwise.
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
	var now time.Time
	if s.history > 0 {
		// The history's entries of the articles, and their scores, to tell
		// a closed article that is still there.
		now = s.now()
		entries := make([]any, 1, 1+2*len(articleIDs))
		scores := make([]any, 1, 1+len(articleIDs))
		entries[0], scores[0] = s.keys.userHistory(user), s.keys.scoreIndex()
		for _, id := range articleIDs {
			member := s.keys.articleHash(id)
			entries = append(entries, "up:"+member, "down:"+member)
			scores = append(scores, member)
		}
		cmds = append(cmds, command{"ZMSCORE", entries}, command{"ZMSCORE", scores})
	}
	replies, err := s.pipeline(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("voting: votes of user %q: %w", user, err)
	}
	dirs, err := s.readUserVotes(user, articleIDs, replies, now)
	if err != nil {
		return nil, fmt.Errorf("voting: votes of user %q: %w", user, err)
	}
	return dirs, nil
}

// readUserVotes reads UserVotes' replies: two SISMEMBERs per article, then
// with a history the ZMSCOREs of its entries and of the articles' scores.
func (s *Store) readUserVotes(user string, articleIDs []string, replies []any, now time.Time) ([]Direction, error) {
	var entries, scores []any
	if s.history > 0 {
		var err error
		n := 2 * len(articleIDs)
		if entries, err = redis.Values(replies[n], nil); err != nil {
			return nil, wrongType(err, s.keys.userHistory(user), "ZMSCORE")
		}
		if scores, err = redis.Values(replies[n+1], nil); err != nil {
			return nil, wrongType(err, s.keys.scoreIndex(), "ZMSCORE")
		}
		if len(entries) != n || len(scores) != len(articleIDs) {
			return nil, fmt.Errorf("ZMSCORE gave %d and %d scores for %d articles", len(entries), len(scores), len(articleIDs))
		}
	}
	since := now.Add(-s.history)
	dirs := make([]Direction, len(articleIDs))
	for i := range articleIDs {
		for j, dir := range [2]Direction{Up, Down} {
			is, err := redis.Bool(replies[2*i+j], nil)
			if err != nil {
				set := s.keys.votedSet(articleIDs[i])
				if dir == Down {
					set = s.keys.downvotedSet(articleIDs[i])
				}
				return nil, wrongType(err, set, "SISMEMBER")
			}
			if is {
				dirs[i] = dir
			}
		}
		if dirs[i] != None || scores == nil || scores[i] == nil {
			continue
		}
		for j, dir := range [2]Direction{Up, Down} {
			if entries[2*i+j] == nil {
				continue
			}
			b, _ := entries[2*i+j].([]byte)
			at, err := parseScoreSeconds(string(b))
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, s.keys.userHistory(user), err)
			}
			if at.After(since) {
				dirs[i] = dir
			}
		}
	}
	return dirs, nil
}

// A UserVote is one vote in a user's history (UserHistory): the article,
// the direction of the vote and when it was cast.
type UserVote struct {
	Article   Article   `json:"article"`
	Direction Direction `json:"direction"` // Up or Down
	At        time.Time `json:"at"`        // when the vote was cast, in UTC
}

// UserHistory returns a page of the articles user has voted on, newest vote
// first, with the direction of each vote, from the history WithUserHistory
// keeps: the user's own posts are there as up-votes, a vote taken back is
// not, a switched vote is there once, in its new direction and at the time
// of the switch, and a vote older than the history's time has dropped out.
// Pages count from 1 and hold the Store's page size; a page past the end is
// empty. It takes two round trips.
//
// An article deleted after voting on it closed (when its voters could no
// longer be found) is left out, and the history's entry for it removed; the
// page is then read again, so that the next votes take its place and later
// pages do not move, up to three times (so a page may hold fewer votes than
// the page size only after many such deletions). UserHistory gives an error
// wrapping ErrInvalid if the Store keeps no history.
func (s *Store) UserHistory(ctx context.Context, user string, page int) ([]UserVote, error) {
	if s.history == 0 {
		return nil, invalid("the Store keeps no user history: give New WithUserHistory(d)")
	}
	if err := checkUser(user); err != nil {
		return nil, err
	}
	start, _, past, err := s.pageBounds(page)
	if err != nil {
		return nil, err
	}
	if past {
		return []UserVote{}, nil
	}
	key := s.keys.userHistory(user)
	var votes []UserVote
	err = s.session(ctx, func(c redis.Conn) error {
		now := s.now()
		if err := checkClock(now); err != nil {
			return err
		}
		for read := 1; ; read++ {
			var gone []any
			votes, gone, err = s.historyPage(ctx, c, key, start, now)
			if err != nil || len(gone) == 0 {
				return err
			}
			// An article is gone for good (ids are not given out again):
			// drop it from the history, and read the page again, so that
			// the next votes take its place and the later pages do not
			// move under the reader.
			args := make([]any, 0, 1+2*len(gone))
			args = append(args, key)
			for _, m := range gone {
				member := string(m.([]byte))
				args = append(args, "up:"+member, "down:"+member)
			}
			if _, err := do(ctx, c, "ZREM", args...); err != nil {
				return err
			}
			if read == maxHistoryReads {
				return nil
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("voting: history of user %q: %w", user, err)
	}
	return votes, nil
}

// maxHistoryReads bounds how many times UserHistory reads a page that held
// deleted articles.
const maxHistoryReads = 3

// historyPage reads the page of the history key from start, the votes after
// the history's time by now: the votes of the articles there are, in order,
// and the members of those gone.
func (s *Store) historyPage(ctx context.Context, c redis.Conn, key string, start int64, now time.Time) ([]UserVote, []any, error) {
	reply, err := do(ctx, c, "ZREVRANGEBYSCORE", key, "+inf", "("+unixSeconds(now.Add(-s.history)),
		"WITHSCORES", "LIMIT", start, s.pageSize)
	entries, err := redis.ByteSlices(reply, wrongType(err, key, "ZREVRANGEBYSCORE"))
	if err != nil {
		return nil, nil, err
	}
	// Each entry is "up:" or "down:" before the article's member, and the
	// time of the vote.
	members := make([]any, 0, len(entries)/2)
	var dirs []Direction
	var times []time.Time
	for i := 0; i+1 < len(entries); i += 2 {
		word, member, ok := strings.Cut(string(entries[i]), ":")
		dir, err := ParseDirection(word)
		if !ok || err != nil || dir == None {
			continue
		}
		at, err := parseScoreSeconds(string(entries[i+1]))
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %s: %v", ErrCorrupt, key, entries[i], err)
		}
		members = append(members, []byte(member))
		dirs = append(dirs, dir)
		times = append(times, at)
	}
	articles, gone, err := s.fetch(ctx, c, members, false)
	if err != nil {
		return nil, nil, err
	}
	// fetch keeps the page's order and leaves out what it skips, so each
	// article is the next entry of its id.
	votes := make([]UserVote, 0, len(articles))
	prefix := s.keys.articlePrefix()
	for i, m := range members {
		if len(votes) < len(articles) && string(m.([]byte)) == prefix+articles[len(votes)].ID {
			votes = append(votes, UserVote{Article: articles[len(votes)], Direction: dirs[i], At: times[i]})
		}
	}
	return votes, gone, nil
}
