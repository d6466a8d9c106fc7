package voting

// This file holds the index of active users (WithActiveUsers): the option,
// and ActiveUsers and LastActive, which read it. What keeps it is its row
// of schema.Indexes and its hooks, internal/script/lua/lib/active.lua.

import (
	"context"
	"fmt"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// WithActiveUsers keeps the index of active users: each user who has
// posted an article or a comment, with the latest time they posted one,
// which ActiveUsers counts and LastActive reads (as Lemmy counts a site's
// users active in the last day, week or month). A post of either moves its
// poster's time on; a deletion leaves it. A namespace that adds it to
// articles and comments already posted answers ErrNotIndexed until
// Reindex has walked them. StopKeeping(ctx, WithActiveUsers()) removes it.
func WithActiveUsers() IndexOption { return keepKind("active") }

// activeListing is the index of active users, read as a listing is, so
// that a read of it not built for every item yet is ErrNotIndexed.
func (s *Store) activeListing() listing {
	ix, _ := schema.IndexNamed("active")
	return listing{spec: &unordered, index: s.keys.Whole(ix.Parts[0].Key), built: ix.Mark, kind: ix.Name}
}

// ActiveUsers returns the number of users who have posted an article or a
// comment at since or later (WithActiveUsers), in one round trip. It
// returns an error wrapping ErrInvalid if the namespace does not keep the
// index, and one wrapping ErrNotIndexed if items were written without it
// and Reindex has not walked them yet.
func (s *Store) ActiveUsers(ctx context.Context, since time.Time) (n int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("users active since %v", since))
		}
	}()
	return readActive(ctx, s, func(c rconn.Link, l listing) (int64, error) {
		return redis.Int64(s.read(c, l, rconn.Command{Name: "ZCOUNT", Args: []any{l.index, schema.UnixSeconds(since), "+inf"}}))
	})
}

// LastActive returns when user last posted an article or a comment
// (WithActiveUsers), in one round trip; the zero time for a user who has
// posted neither. Its errors are ActiveUsers'.
func (s *Store) LastActive(ctx context.Context, user string) (at time.Time, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("last activity of user %q", user))
		}
	}()
	if err := checkUser(user); err != nil {
		return time.Time{}, err
	}
	return readActive(ctx, s, func(c rconn.Link, l listing) (time.Time, error) {
		text, err := redis.String(s.read(c, l, rconn.Command{Name: "ZSCORE", Args: []any{l.index, user}}))
		if err == redis.ErrNil {
			return time.Time{}, nil
		}
		if err != nil {
			return time.Time{}, err
		}
		t, err := schema.ParseScoreSeconds(text)
		if err != nil {
			return time.Time{}, errs.Corruptf("%s gives user %q the time %q", l.index, user, text)
		}
		return t, nil
	})
}

// readActive runs read on the index of active users, in a namespace that
// keeps it.
func readActive[T any](ctx context.Context, s *Store, read func(c rconn.Link, l listing) (T, error)) (T, error) {
	var out T
	if err := s.keepsKind(ctx, "active"); err != nil {
		return out, err
	}
	l := s.activeListing()
	err := s.rc.Session(ctx, func(c rconn.Link) (err error) {
		out, err = read(c, l)
		return err
	})
	return out, s.recheck(ctx, err, l)
}
