package voting

// This file holds Profile: what the namespace knows of one user, read in
// one round trip.

import (
	"context"
	"fmt"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// A Profile is what the namespace knows of a user (Profile).
type Profile struct {
	User string `json:"user"`
	// Posts and Comments count the user's articles and their comments that
	// are not deleted (Query.User, UserComments).
	Posts    int64 `json:"posts"`
	Comments int64 `json:"comments"`
	// Votes counts the votes the user's history keeps (CountUserHistory):
	// those cast within the namespace's history time, their posts' own
	// up-votes among them; 0 in a namespace that keeps no history.
	Votes int64 `json:"votes"`
	// Karma and CommentKarma are the user's karma and comment karma
	// (WithKarma), when KarmaKept: the namespace keeps karma and has
	// counted it for every article and comment. Otherwise they are 0,
	// where Karma would answer ErrInvalid or ErrNotIndexed.
	Karma        int64 `json:"karma"`
	CommentKarma int64 `json:"commentKarma"`
	KarmaKept    bool  `json:"karmaKept"`
}

// Profile reads what the namespace knows of user in one round trip: the
// counts of their articles, comments and (WithUserHistory) votes, and
// (WithKarma) their karma and comment karma; so that a site's user page
// tells a user with no karma from one it has never seen. It returns an
// error wrapping ErrNotFound for a user the namespace knows nothing of:
// one with no article, no comment and no karma, and no vote in a history
// kept (a user who has only voted is unknown in a namespace that keeps no
// history, and once their votes leave it), and ErrInvalid for a malformed
// user id.
func (s *Store) Profile(ctx context.Context, user string) (p Profile, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("profile of user %q", user))
		}
	}()
	if err := checkUser(user); err != nil {
		return Profile{}, err
	}
	ns, err := s.state(ctx)
	if err != nil {
		return Profile{}, err
	}
	now := s.now()
	if ns.history > 0 {
		if err := schema.CheckClock(now); err != nil {
			return Profile{}, err
		}
	}
	k := s.keys
	cmds := []rconn.Command{
		{Name: "ZCARD", Args: []any{k.UserPosts(user)}},
		{Name: "ZCARD", Args: []any{k.UserComments(user)}},
	}
	if ns.history > 0 {
		cmds = append(cmds, rconn.Command{Name: "ZCOUNT", Args: []any{k.UserHistory(user), keptSince(now, ns.history), "+inf"}})
	}
	karma := ns.kinds["karma"]
	if karma {
		cmds = append(cmds,
			rconn.Command{Name: "ZSCORE", Args: []any{k.Whole(schema.KarmaPart), user}},
			rconn.Command{Name: "ZSCORE", Args: []any{k.CommentKarma(), user}},
			rconn.Command{Name: "HMGET", Args: []any{k.IndexedHash(), schema.MarkOf("karma"), schema.CountField}},
			rconn.Command{Name: "ZCARD", Args: []any{k.TimeIndex()}})
	}
	replies, err := s.rc.CheckedPipeline(ctx, cmds)
	if err != nil {
		return Profile{}, err
	}
	p.User = user
	known := false
	counts := []*int64{&p.Posts, &p.Comments}
	if ns.history > 0 {
		counts = append(counts, &p.Votes)
	}
	for i, n := range counts {
		if *n, err = redis.Int64(replies[i], nil); err != nil {
			return Profile{}, err
		}
		known = known || *n > 0
	}
	if karma {
		r := replies[len(counts):]
		var marks []string
		var articles int64
		if marks, err = redis.Strings(r[2], nil); err != nil {
			return Profile{}, err
		}
		if articles, err = redis.Int64(r[3], nil); err != nil {
			return Profile{}, err
		}
		known = known || r[0] != nil || r[1] != nil
		p.KarmaKept = schema.Complete(marks[0], marks[1], articles)
		for i, to := range []*int64{&p.Karma, &p.CommentKarma} {
			if r[i] != nil && p.KarmaKept {
				if *to, err = parseKarma(r[i], user); err != nil {
					return Profile{}, err
				}
			}
		}
	}
	if !known {
		return Profile{}, errs.NotFound(fmt.Sprintf("user %q", user))
	}
	return p, nil
}
