package voting

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/gomodule/redigo/redis"
)

// This file holds the posters' karma (WithKarma): Karma, TopPosters and
// CountPosters; and the commenters', kept apart: CommentKarma and
// TopCommenters.

// A UserKarma is a poster and their karma (TopPosters).
type UserKarma struct {
	User  string `json:"user"`
	Karma int64  `json:"karma"`
}

// karmaListing is the sorted set of the posters' karma, read as a listing
// is, so that a read of karma not counted for every article yet is
// ErrNotIndexed (internal/schema/marks.go).
func (s *Store) karmaListing() listing {
	return listing{spec: &unordered, index: s.keys.Whole(schema.KarmaPart), built: schema.MarkOf("karma"), kind: "karma"}
}

// commentKarmaListing is karmaListing for the commenters' karma, which the
// same runs of Reindex count.
func (s *Store) commentKarmaListing() listing {
	return listing{spec: &unordered, index: s.keys.CommentKarma(), built: schema.MarkOf("karma"), kind: "karma"}
}

// checkKarma refuses a read of karma in a namespace that does not keep it.
func (s *Store) checkKarma(ctx context.Context) error {
	return s.keepsKind(ctx, "karma")
}

// Karma returns user's karma (WithKarma): the sum, over the user's
// articles, of the up-votes less the down-votes cast by other users; 0 for
// a user who has posted nothing. It takes one round trip. It returns an
// error wrapping ErrInvalid if the namespace keeps no karma, and one wrapping
// ErrNotIndexed if articles were written without it and Reindex has not
// counted them yet.
func (s *Store) Karma(ctx context.Context, user string) (karma int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("karma of user %q", user))
		}
	}()
	return s.karmaOf(ctx, s.karmaListing(), user)
}

// CommentKarma returns user's comment karma (WithKarma), kept apart from
// the karma of their articles: the sum, over the user's comments that are
// not deleted, of the up-votes less the down-votes cast by other users; 0
// for a user with no comment. A deleted comment's part leaves the sum. It
// takes one round trip; its errors are Karma's.
func (s *Store) CommentKarma(ctx context.Context, user string) (karma int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("comment karma of user %q", user))
		}
	}()
	return s.karmaOf(ctx, s.commentKarmaListing(), user)
}

// karmaOf reads user's entry in the karma of l.
func (s *Store) karmaOf(ctx context.Context, l listing, user string) (karma int64, err error) {
	if err := checkUser(user); err != nil {
		return 0, err
	}
	if err := s.checkKarma(ctx); err != nil {
		return 0, err
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		reply, err := s.read(c, l, rconn.Command{Name: "ZSCORE", Args: []any{l.index, user}})
		if err != nil || reply == nil {
			return err
		}
		karma, err = parseKarma(reply, user)
		return err
	})
	return karma, s.recheck(ctx, err, l)
}

// parseKarma reads user's karma as Redis writes the score: a whole number.
func parseKarma(reply any, user string) (int64, error) {
	text, err := redis.String(reply, nil)
	if err != nil {
		return 0, err
	}
	x, err := strconv.ParseFloat(text, 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, errs.Corruptf("the karma of user %q, %q, is not a whole number", user, text)
	}
	return int64(x), nil
}

// TopPosters returns a page of the posters with the highest karma
// (WithKarma), highest first, ties in reverse order of name. It pages as
// Paging says, and gives next for a page read by cursor. It takes one
// round trip, O(log n + page size) on the server. Its errors are Karma's.
func (s *Store) TopPosters(ctx context.Context, p Paging) (posters []UserKarma, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "top posters")
		}
	}()
	return s.topKarma(ctx, s.karmaListing(), postersList, p)
}

// TopCommenters is TopPosters for comment karma (CommentKarma): a page of
// the users with a comment, highest comment karma first.
func (s *Store) TopCommenters(ctx context.Context, p Paging) (commenters []UserKarma, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "top commenters")
		}
	}()
	return s.topKarma(ctx, s.commentKarmaListing(), commentersList, p)
}

// topKarma reads a page of the karma of l, whose cursors are of list.
func (s *Store) topKarma(ctx context.Context, l listing, list string, p Paging) (posters []UserKarma, next string, err error) {
	w, err := s.paging(p, list, "")
	if err != nil {
		return nil, "", err
	}
	if err := s.checkKarma(ctx); err != nil {
		return nil, "", err
	}
	if w.past {
		return []UserKarma{}, "", nil
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var page []any
		page, next, err = s.entries(c, l, w, list, "", "", nil)
		if err != nil {
			return err
		}
		posters = make([]UserKarma, 0, len(page)/2)
		for i := 0; i+1 < len(page); i += 2 {
			user, _ := page[i].([]byte)
			k, err := parseKarma(page[i+1], string(user))
			if err != nil {
				return err
			}
			posters = append(posters, UserKarma{User: string(user), Karma: k})
		}
		return nil
	})
	return posters, next, s.recheck(ctx, err, l)
}

// CountPosters returns how many users TopPosters's pages hold together
// (WithKarma): those with an article, in one round trip. Its errors are
// Karma's.
func (s *Store) CountPosters(ctx context.Context) (n int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "count posters")
		}
	}()
	if err := s.checkKarma(ctx); err != nil {
		return 0, err
	}
	l := s.karmaListing()
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var err error
		n, err = redis.Int64(s.read(c, l, rconn.Command{Name: "ZCARD", Args: []any{l.index}}))
		return err
	})
	return n, s.recheck(ctx, err, l)
}
