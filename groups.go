package voting

// This file holds the groups (topics): adding an article to groups and
// taking it out, an article's groups, and a group's listing and count, live
// or the book's cached intersection.

import (
	"context"
	"strconv"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// AddToGroups adds an article to groups in one atomic step. It returns an
// error wrapping ErrNotFound, and adds nothing, if there is no such article
// (none that Article finds), and one wrapping ErrInvalid, adding nothing,
// if the article would then be in more than MaxGroups groups. At least one
// group must be given; the package doc's Input section has the rules for
// group names.
func (s *Store) AddToGroups(ctx context.Context, articleID string, groups ...string) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "add article "+idText(articleID)+" to groups")
		}
	}()
	if groups, err = checkGroupChange(articleID, groups); err != nil {
		return err
	}
	now := s.now()
	st, err := script.ReadStatus(s.writeReply(s.writeWith(ctx, func(ns *state) (any, error) {
		if ns.live {
			if err := schema.CheckClock(now); err != nil {
				return nil, err
			}
		}
		return s.rc.Run(ctx, s.addGroupsCall(ns, articleID, groups, now).Eval())
	})))
	if err != nil {
		return err
	}
	switch st.Word {
	case script.ReplyOK:
		return nil
	case script.ReplyTooMany:
		return errs.Invalidf("article %s would be in %s groups, more than MaxGroups (%d)", articleID, st.Detail, MaxGroups)
	}
	return st.Err()
}

// addGroupsCall is add_groups.lua's run for a change of groups.
func (s *Store) addGroupsCall(ns *state, articleID string, groups []string, now time.Time) script.Call {
	k := s.keys
	member := k.ArticleHash(articleID)
	var live []Order
	var indexes []string
	livePrefix := ""
	if ns.live {
		live, indexes, livePrefix = ns.kept, ns.indexes, k.LivePrefix()
	}
	a := script.AddGroups{
		Hash: member, ByScore: k.ScoreIndex(), Record: k.GroupRecord(articleID), Trimmed: k.TrimmedHash(),
		Sizes: k.GroupSizes(), Indexed: k.IndexedHash(), Config: k.Settings(), Indexes: indexes,

		Member: member, Gen: ns.gen, GroupPrefix: k.GroupSet(""), LivePrefix: livePrefix, MaxGroups: MaxGroups,
		Orders: scriptOrdersAt(live, now), Groups: groups, Unbuilt: ns.groupUnbuilt,
	}
	return a.Call()
}

// RemoveFromGroups takes an article out of groups in one atomic step, and
// out of the groups' listings at once: their live indexes and the book's
// cached listings, of every order, whatever the namespace keeps. The
// article need not exist any more, so that groups can be cleaned up; a group
// the article is not in is left as it is. At least one group must be given,
// and at most MaxGroups.
func (s *Store) RemoveFromGroups(ctx context.Context, articleID string, groups ...string) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "remove article "+idText(articleID)+" from groups")
		}
	}()
	if groups, err = checkGroupChange(articleID, groups); err != nil {
		return err
	}
	st, err := script.ReadStatus(s.rc.Run(ctx, s.removeGroupsCall(articleID, groups).Eval()))
	if err != nil || st.Word == script.ReplyOK {
		return err
	}
	return st.Err()
}

// removeGroupsCall is remove_groups.lua's run for a change of groups.
func (s *Store) removeGroupsCall(articleID string, groups []string) script.Call {
	k := s.keys
	// A group's listings: its live indexes and the book's cached listings,
	// from which the article leaves at once too, so that none lists it, or
	// keeps it after a deletion, until it expires. Every order's: the
	// cached listings are of any order a Store lists by.
	r := script.RemoveGroups{Record: k.GroupRecord(articleID), Sizes: k.GroupSizes(),
		Member: k.ArticleHash(articleID), GroupPrefix: k.GroupSet(""), CachePrefix: k.Prefix(), LivePrefix: k.LivePrefix(),
		Orders: scriptOrders(Orders()), Groups: groups}
	return r.Call()
}

// checkGroupChange checks an article id and the groups of a group change:
// at least one, at most MaxGroups distinct names. It gives the names, each
// once.
func checkGroupChange(articleID string, groups []string) ([]string, error) {
	if err := checkID(articleID); err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, errs.Invalidf("no groups given")
	}
	return distinctGroups(groups)
}

// A GroupSize is a group and how many articles it holds (Groups).
type GroupSize struct {
	Name     string `json:"name"`
	Articles int64  `json:"articles"`
}

// Groups returns a page of the namespace's groups that hold an article,
// the largest first (ties in reverse order of name), each with its number
// of articles, for a sidebar: kept exact, in the same atomic step, by every
// post, group change and deletion. A group that empties leaves the list.
// It pages as Paging says, and gives next for a page read by cursor. It
// takes one round trip, O(log n + page size) on the server. Groups the
// book's own code filled are counted when Reindex runs.
func (s *Store) Groups(ctx context.Context, p Paging) (groups []GroupSize, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "list groups")
		}
	}()
	w, err := s.paging(p, groupsList, "")
	if err != nil {
		return nil, "", err
	}
	if w.past {
		return []GroupSize{}, "", nil
	}
	l := plainListing(s.keys.GroupSizes())
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var page []any
		page, next, err = s.entries(c, l, w, groupsList, "", "", nil)
		if err != nil {
			return err
		}
		groups = make([]GroupSize, 0, len(page)/2)
		for i := 0; i+1 < len(page); i += 2 {
			name, _ := page[i].([]byte)
			value, _ := page[i+1].([]byte)
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil {
				return errs.Corruptf("%s gives group %q the size %q", l.index, name, value)
			}
			groups = append(groups, GroupSize{Name: string(name), Articles: n})
		}
		return nil
	})
	return groups, next, err
}

// CountGroups returns how many groups hold an article, the number Groups's
// pages hold together, in one round trip.
func (s *Store) CountGroups(ctx context.Context) (n int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "count groups")
		}
	}()
	key := s.keys.GroupSizes()
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var err error
		n, err = redis.Int64(c.Do("ZCARD", key))
		return errs.WrongType(err, key, "ZCARD")
	})
	return n, err
}
