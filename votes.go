package voting

// This file holds the votes: Direction, Vote and UserVotes.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// A Direction is a user's vote on an article: Up, Down or None. Its text
// and JSON forms are "up", "down" and "none".
//
// The zero Direction is none of them: it is a direction never given, such as
// the field of a JSON body whose name was misspelt, and Vote refuses it with
// ErrInvalid rather than take a vote back. Take a vote back with None.
type Direction int

const (
	// Up is an up-vote: it adds the vote weight to the score.
	Up Direction = iota + 1
	// Down is a down-vote: it takes the vote weight off the score.
	Down
	// None is no vote: voting None takes a vote back, and UserVotes gives
	// it for an article the user has not voted on.
	None
)

// valid reports whether d is Up, Down or None.
func (d Direction) valid() bool { return d >= Up && d <= None }

// String returns "up", "down" or "none".
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
// writes it: "up", "down" or "none". Case does not matter. Any other name,
// "" included, gives an error wrapping ErrInvalid.
func ParseDirection(name string) (Direction, error) {
	for _, d := range [...]Direction{Up, Down, None} {
		if strings.EqualFold(name, d.String()) {
			return d, nil
		}
	}
	return 0, errs.Invalidf("unknown vote direction %q: want up, down or none (voting.Up, Down or None)", name)
}

// MarshalText writes the direction's name, as String does. The zero
// Direction and any other that is not Up, Down or None is an error.
func (d Direction) MarshalText() ([]byte, error) {
	if err := checkDirection(d); err != nil {
		return nil, err
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

// checkDirection refuses the zero Direction, as not given, and any other
// that is not Up, Down or None.
func checkDirection(d Direction) error {
	switch {
	case d == 0:
		return errs.Invalidf("no vote direction given: want Up, Down or None (in text and JSON up, down or none; None takes a vote back)")
	case !d.valid():
		return errs.Invalidf("unknown vote direction %d", int(d))
	}
	return nil
}

// UserVotes returns user's vote on each of the articles, in order, in one
// round trip. An article that does not exist gives None. Once voting on an
// article has closed (its voter sets have expired) the vote is read from
// the user's history if the namespace keeps one (WithUserHistory), while the
// history holds it, and is None otherwise.
func (s *Store) UserVotes(ctx context.Context, user string, articleIDs ...string) (dirs []Direction, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("votes of user %q", user))
		}
	}()
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
		size += len(s.keys.VotedPrefix()) + len(s.keys.DownvotedPrefix()) + 2*len(id)
	}
	names.Grow(size)
	for _, id := range articleIDs {
		names.WriteString(s.keys.VotedPrefix())
		names.WriteString(id)
		names.WriteString(s.keys.DownvotedPrefix())
		names.WriteString(id)
	}
	all := names.String()
	userArg := any(user)
	args := make([]any, 0, 4*len(articleIDs))
	cmds := make([]rconn.Command, 0, 2*len(articleIDs))
	for _, id := range articleIDs {
		for _, prefix := range [2]string{s.keys.VotedPrefix(), s.keys.DownvotedPrefix()} {
			var key string
			key, all = all[:len(prefix)+len(id)], all[len(prefix)+len(id):]
			at := len(args)
			args = append(args, key, userArg)
			cmds = append(cmds, rconn.Command{Name: "SISMEMBER", Args: args[at:len(args):len(args)]})
		}
	}
	ns, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	var now time.Time
	if ns.history > 0 {
		// The history's entries of the articles, and their scores, to tell
		// a closed article that is still there: ZMSCOREs of at most
		// maxScoresPerCommand members each, so that no one rconn.Command holds
		// Redis for long, however many articles.
		now = s.now()
		history, index := s.keys.UserHistory(user), s.keys.ScoreIndex()
		for from := 0; from < len(articleIDs); from += maxScoresPerCommand / 2 {
			batch := articleIDs[from:min(from+maxScoresPerCommand/2, len(articleIDs))]
			entries := make([]any, 1, 1+2*len(batch))
			entries[0] = history
			for _, id := range batch {
				member := s.keys.ArticleHash(id)
				entries = append(entries, "up:"+member, "down:"+member)
			}
			cmds = append(cmds, rconn.Command{Name: "ZMSCORE", Args: entries})
		}
		for from := 0; from < len(articleIDs); from += maxScoresPerCommand {
			batch := articleIDs[from:min(from+maxScoresPerCommand, len(articleIDs))]
			scores := make([]any, 1, 1+len(batch))
			scores[0] = index
			for _, id := range batch {
				scores = append(scores, s.keys.ArticleHash(id))
			}
			cmds = append(cmds, rconn.Command{Name: "ZMSCORE", Args: scores})
		}
	}
	replies, err := s.rc.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	return s.readUserVotes(user, articleIDs, cmds, replies, now, ns.history)
}

// readUserVotes reads UserVotes' replies: two SISMEMBERs per article, then
// with a history the ZMSCOREs of its entries and of the articles' scores.
func (s *Store) readUserVotes(user string, articleIDs []string, cmds []rconn.Command, replies []any, now time.Time,
	history time.Duration) ([]Direction, error) {
	var entries, scores []any
	if history > 0 {
		n := 2 * len(articleIDs)
		for i, reply := range replies[n:] {
			values, err := redis.Values(reply, nil)
			if err != nil {
				return nil, errs.WrongType(err, cmds[n+i].Args[0].(string), "ZMSCORE")
			}
			if len(entries) < n {
				entries = append(entries, values...)
			} else {
				scores = append(scores, values...)
			}
		}
		if len(entries) != n || len(scores) != len(articleIDs) {
			return nil, fmt.Errorf("ZMSCORE gave %d and %d scores for %d articles", len(entries), len(scores), len(articleIDs))
		}
	}
	since := now.Add(-history)
	dirs := make([]Direction, len(articleIDs))
	for i := range articleIDs {
		dirs[i] = None
		for j, dir := range [2]Direction{Up, Down} {
			is, err := redis.Bool(replies[2*i+j], nil)
			if err != nil {
				set := s.keys.VotedSet(articleIDs[i])
				if dir == Down {
					set = s.keys.DownvotedSet(articleIDs[i])
				}
				return nil, errs.WrongType(err, set, "SISMEMBER")
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
			at, err := schema.ParseScoreSeconds(string(b))
			if err != nil {
				return nil, errs.Corruptf("%s: %v", s.keys.UserHistory(user), err)
			}
			if at.After(since) {
				dirs[i] = dir
			}
		}
	}
	return dirs, nil
}
