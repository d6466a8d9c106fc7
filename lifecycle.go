package voting

// This file holds what a site needs around the votes: deleting an article,
// counting a listing, and a user's history of votes.

import (
	"context"
	"fmt"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// DeleteArticle removes an article in one atomic step: its hash, its voter
// sets, its entry in every kept index (site and group, cached listings
// included), its group memberships, its record of its groups and its
// entries in its voters' histories. Afterwards every method treats the id as
// unknown. It returns an error wrapping ErrNotFound if there is no such
// article: no hash, no score and no posting time. The script's work grows
// with the article's groups times the kept orders and, with user
// histories, with its voters (a ZREM from each one's history while voting
// is open).
//
// An article written by the book's own code has no record of its groups;
// DeleteArticle then looks for it in every group this package has put an
// article in or Reindex has found (the set groupnames:), one SISMEMBER per
// group, as it does for an article posted in no group. A voter's history
// loses the article at once while voting on it is open; after that the
// voter sets that name the voters are gone, and UserHistory leaves the
// article out, and drops it, when it meets it. The id is not given out
// again.
func (s *Store) DeleteArticle(ctx context.Context, articleID string) error {
	if err := checkID(articleID); err != nil {
		return err
	}
	k := s.keys
	member := k.articleHash(articleID)
	keys := make([]string, 0, 7+len(s.extra))
	keys = append(keys, member, k.scoreIndex(), k.timeIndex(), k.votedSet(articleID), k.downvotedSet(articleID),
		k.groupRecord(articleID), k.groupNames())
	for _, x := range s.extra {
		keys = append(keys, x.key)
	}
	livePrefix, historyPrefix := "", ""
	if s.live {
		livePrefix = k.livePrefix()
	}
	if s.history > 0 {
		historyPrefix = k.historyPrefix()
	}
	args := make([]any, 0, 5+len(s.kept))
	args = append(args, member, k.groupSet(""), k.prefix, livePrefix, historyPrefix)
	for _, o := range s.kept {
		args = append(args, orders[o].key)
	}
	return s.articleScript(ctx, deleteScript, "delete article "+articleID, articleID, keys, args)
}

// CountArticles returns how many articles a listing of the order holds
// across the site, for a page count ("page 3 of 40"): the size of the
// order's index, one the Store keeps. A top-of-window order's count is that
// window's, at the moment of the call by the Store's clock, trimmed first
// as a listing is. It takes one round trip, O(1) on the server (a window
// long unlisted may take a few more, each a bounded trim).
func (s *Store) CountArticles(ctx context.Context, order Order) (int64, error) {
	if _, err := s.checkOrder(order); err != nil {
		return 0, err
	}
	n, err := s.count(ctx, s.siteListing(order))
	if err != nil {
		return 0, fmt.Errorf("voting: count articles by %v: %w", order, err)
	}
	return n, nil
}

// CountGroupArticles returns how many articles a group's listing of the
// order holds, as CountArticles does for the site. With live groups
// (WithLiveGroups) it is the size of the group's live index, exact for
// every order. Without them it is the size of the group's set, which is
// what the book's group listings by ByScore and ByTime hold; a
// top-of-window order then gives an error wrapping ErrInvalid, since only a
// live index knows a group's window.
func (s *Store) CountGroupArticles(ctx context.Context, group string, order Order) (int64, error) {
	if err := checkGroup(group); err != nil {
		return 0, err
	}
	spec, err := s.checkOrder(order)
	if err != nil {
		return 0, err
	}
	var n int64
	switch {
	case s.live:
		n, err = s.count(ctx, s.liveListing(group, order))
	case spec.window > 0:
		return 0, invalid("counting a group's listing by %s needs live groups: give New WithLiveGroups()", spec.name)
	default:
		err = s.session(ctx, func(c redis.Conn) error {
			var err error
			n, err = redis.Int64(do(ctx, c, "SCARD", s.keys.groupSet(group)))
			return wrongType(err, s.keys.groupSet(group), "SCARD")
		})
	}
	if err != nil {
		return 0, fmt.Errorf("voting: count group %s by %v: %w", group, order, err)
	}
	return n, nil
}

// count is the size of l's index; a top-of-window index is trimmed first.
func (s *Store) count(ctx context.Context, l listing) (int64, error) {
	var n int64
	err := s.session(ctx, func(c redis.Conn) error {
		var reply any
		var err error
		if l.spec.window > 0 {
			reply, err = s.windowRead(ctx, c, l, command{"ZCARD", []any{l.index}})
		} else {
			reply, err = do(ctx, c, "ZCARD", l.index)
		}
		n, err = redis.Int64(reply, err)
		return wrongType(err, l.index, "ZCARD")
	})
	return n, err
}

// wrongType words Redis's WRONGTYPE error for cmd on key as ErrCorrupt,
// naming the key; other errors pass as they are.
func wrongType(err error, key, cmd string) error {
	if rerr, ok := err.(redis.Error); ok && strings.HasPrefix(string(rerr), "WRONGTYPE") {
		return fmt.Errorf("%w: %s is of the wrong type for %s", ErrCorrupt, key, cmd)
	}
	return err
}
