package voting

// This file holds the votes: Direction, Vote and UserVotes.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

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
