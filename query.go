package voting

// This file holds Query, which list of articles to read (the site's, a
// group's or a user's, in an order), with the calls that take a Query:
// List, Count, Rank and Cursor. Which page of it, Paging, and how a page
// is cut from an index, are paging.go's.

import (
	"context"
	"errors"
	"fmt"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"

	"github.com/gomodule/redigo/redis"
)

// Query says which listing of articles to read, and (for List) which page
// of it: the site's, a group's or a user's, in an order. Its zero value is
// the site's listing by score, the first page by cursor.
type Query struct {
	// Order is the listing's order, one the namespace keeps (Settings):
	// ByScore (the zero value), ByTime, or one of WithOrders. Another is an
	// error wrapping ErrInvalid.
	Order Order
	// Group, if not "", makes it the group's listing.
	Group string
	// User, if not "", makes it the listing of the articles the user has
	// posted, newest first, from the index every post writes: Order must
	// be ByTime, the one order a user's articles are kept in. Articles the
	// book's own code posted join it when Reindex runs. A query may not
	// name both a Group and a User.
	User string
	// WithGroups makes List fill each article's Groups, within the same
	// round trips.
	WithGroups bool
	// Paging is which page List reads; Count, Rank and Cursor ignore it.
	Paging
}

// check checks q's scope and order, before anything is sent.
func (q *Query) check() error {
	switch {
	case q.Group != "" && q.User != "":
		return errs.Invalidf("a query of group %q and user %q: give one or neither", q.Group, q.User)
	case q.User != "":
		if err := checkUser(q.User); err != nil {
			return err
		}
		if q.Order != ByTime {
			return errs.Invalidf("a user's articles are listed by time, not by %s", q.Order)
		}
		return nil
	case q.Group != "":
		if err := checkGroup(q.Group); err != nil {
			return err
		}
	}
	return knownOrder(q.Order)
}

// list and scope are what q's cursors name: the order's name and the group
// ("" for the site), or the user's articles and the user.
func (q *Query) list() (list, scope string) {
	if q.User != "" {
		return postsList, q.User
	}
	return q.Order.String(), q.Group
}

// what says what q lists, for an error's context.
func (q *Query) what() string {
	switch {
	case q.User != "":
		return fmt.Sprintf("the articles of user %q", q.User)
	case q.Group != "":
		return "group " + q.Group + " by " + q.Order.String()
	}
	return "articles by " + q.Order.String()
}

// userListing is the listing of a user's articles, by time.
func (s *Store) userListing(user string) listing {
	return listing{order: ByTime, spec: &unordered, index: s.keys.UserPosts(user)}
}

// List returns a page of the listing q names, and for a page read by
// cursor the cursor of the page after it ("" after the last).
//
// A page of a top-of-window order (TopDay to TopYear) holds only articles
// posted within the window by the Store's clock (of a group listed through
// the book's cache: within it when the cache was built). A page of an index that
// does not hold every article yet (an order kept since after articles were
// posted, until Reindex builds it) is an error wrapping ErrNotIndexed, not
// a short page.
//
// A group's listing is its live index of the order where the namespace
// keeps live groups (WithLiveGroups; a namespace the library creates
// does): exact, in two round trips, as a site page. Elsewhere it is, as in
// the book, the intersection of the group with the order's index, cached
// for the group cache TTL (WithGroupCacheTTL): articles posted, voted on
// or regrouped within that time may be listed in their old places, though
// each article returned is read fresh. Building the cache and reading the
// page are one atomic step, whose Redis time grows with the group's size
// (docs/groups.md).
//
// A group that holds no article and a user who has posted none give an
// empty page, not an error, whether they ever held or posted one or not:
// the library keeps no record of a group beyond its articles (Groups lists
// those that hold one), nor of a user beyond their articles, votes
// (UserHistory) and karma (Karma, 0 for a user with no article).
//
// A page takes two round trips to Redis whatever its size (three for a
// live group that lacks articles, which falls back to the cache); a
// top-of-window page may take more when many articles have aged out of the
// window since it was last listed, each step a bounded one.
func (s *Store) List(ctx context.Context, q Query) (articles []Article, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "list "+q.what())
		}
	}()
	if err := q.check(); err != nil {
		return nil, "", err
	}
	list, scope := q.list()
	w, err := s.paging(q.Paging, list, scope)
	if err != nil {
		return nil, "", err
	}
	if w.past {
		if _, _, err := s.checkOrder(ctx, q.Order); err != nil {
			return nil, "", err
		}
		return []Article{}, "", nil
	}
	switch {
	case q.User != "":
		return s.listPage(ctx, s.userListing(q.User), &q, w)
	case q.Group != "":
		return s.groupPage(ctx, &q, w)
	}
	return s.listPage(ctx, s.siteListing(q.Order), &q, w)
}

// GetArticles returns a page of articles across the site, in the given
// order: List of Query{Order: order, Paging: Paging{Page: page}}, with
// pages of the Store's page size. Page 0 is an error wrapping ErrInvalid.
func (s *Store) GetArticles(ctx context.Context, page int, order Order) ([]Article, error) {
	return s.numbered(ctx, Query{Order: order, Paging: Paging{Page: page}})
}

// GetGroupArticles returns a page of a group's articles in the given
// order: List of Query{Group: group, Order: order, Paging: Paging{Page:
// page}}, with pages of the Store's page size. Page 0 is an error wrapping
// ErrInvalid.
func (s *Store) GetGroupArticles(ctx context.Context, group string, page int, order Order) ([]Article, error) {
	if err := checkGroup(group); err != nil {
		return nil, failed(err, "list group "+group+" by "+order.String())
	}
	return s.numbered(ctx, Query{Group: group, Order: order, Paging: Paging{Page: page}})
}

// numbered lists q's numbered page, refusing page 0 (which List reads as
// the first page by cursor).
func (s *Store) numbered(ctx context.Context, q Query) ([]Article, error) {
	if q.Page == 0 {
		return nil, failed(errs.Invalidf("page 0 is before page 1"), "list "+q.what())
	}
	articles, _, err := s.List(ctx, q)
	return articles, err
}

// listPage reads the page w of l for q.
func (s *Store) listPage(ctx context.Context, l listing, q *Query, w window) ([]Article, string, error) {
	if w.byNumber {
		articles, err := s.list(ctx, l, w.start, w.stop, q.WithGroups)
		return articles, "", err
	}
	return s.listAfter(ctx, l, q, w)
}

// groupPage reads the page w of q's group: from its live index where the
// namespace keeps them, else (or where they lack articles, written by
// another writer or before they were kept) from the book's cached listing,
// as its code lists the group.
func (s *Store) groupPage(ctx context.Context, q *Query, w window) ([]Article, string, error) {
	ns, _, err := s.checkOrder(ctx, q.Order)
	if err != nil {
		return nil, "", err
	}
	if ns.liveReads {
		articles, next, err := s.listPage(ctx, s.liveListing(q.Group, q.Order), q, w)
		if !errors.Is(err, errs.ErrNotIndexed) {
			return articles, next, err
		}
	}
	var articles []Article
	var next string
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		if w.byNumber {
			reply, err := s.cachedGroup(c, q.Group, q.Order, w.start, w.stop, false, nil)
			if err != nil {
				return err
			}
			page, ok := reply.([]any)
			if !ok {
				return fmt.Errorf("unexpected reply %v", reply)
			}
			// The cache's scores may be as old as the cache; fetch reads
			// each article's score afresh.
			articles, _, err = s.fetch(c, page, false, q.WithGroups)
			return err
		}
		reply, err := s.cachedGroup(c, q.Group, q.Order, 0, int64(w.size), false, &w.at)
		if err != nil {
			return err
		}
		page, ok := reply.([]any)
		if !ok {
			return fmt.Errorf("unexpected reply %v", reply)
		}
		// The cache's values may be as old as the cache: fetch reads each
		// article's score afresh.
		articles, next, err = s.pageAfter(c, q, page, w.size, false)
		return err
	})
	return articles, next, err
}

// Count returns how many articles the listing q names holds, for a page
// count ("page 3 of 40"): the size of what List reads its pages from, so
// that a count and the pages it numbers agree. A window order's count is
// that window's at the moment of the call by the Store's clock, trimmed
// first as a listing is. A group's count without live groups is the
// book's cached listing's, built first if it is missing, as a page would
// build it: as old as the cache, as its pages are, and building it is
// O(size of the group) on the server. Otherwise it takes one round trip,
// O(1) on the server (a window long unlisted may take a few more, each a
// bounded trim).
func (s *Store) Count(ctx context.Context, q Query) (n int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "count "+q.what())
		}
	}()
	if err := q.check(); err != nil {
		return 0, err
	}
	switch {
	case q.User != "":
		return s.count(ctx, s.userListing(q.User))
	case q.Group == "":
		return s.count(ctx, s.siteListing(q.Order))
	}
	ns, _, err := s.checkOrder(ctx, q.Order)
	if err != nil {
		return 0, err
	}
	if ns.liveReads {
		n, err := s.count(ctx, s.liveListing(q.Group, q.Order))
		if !errors.Is(err, errs.ErrNotIndexed) {
			return n, err
		}
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		reply, err := s.cachedGroup(c, q.Group, q.Order, 0, 0, true, nil)
		n, _ = reply.(int64)
		return err
	})
	return n, err
}

// Rank returns an article's place in the listing q names, counting from
// 1, so that a page can say "#3 today": the place it would have on a page
// read at the same moment (a window's index is trimmed first, as a
// listing's is). A group's rank is read from its live index, so needs a
// namespace that keeps live groups (an error wrapping ErrInvalid without
// them, and ErrNotIndexed while they lack articles). It returns an error wrapping ErrNotFound if
// the listing does not hold the article (there is no such article, it is
// not in the group, or it has aged out of the window). It takes one round
// trip.
func (s *Store) Rank(ctx context.Context, articleID string, q Query) (rank int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "rank of article "+idText(articleID)+" in "+q.what())
		}
	}()
	if err := checkID(articleID); err != nil {
		return 0, err
	}
	if err := q.check(); err != nil {
		return 0, err
	}
	ns, _, err := s.checkOrder(ctx, q.Order)
	if err != nil {
		return 0, err
	}
	var l listing
	switch {
	case q.User != "":
		l = s.userListing(q.User)
	case q.Group != "":
		if !ns.live {
			return 0, errs.Invalidf("a rank within a group needs live groups: give a Store WithLiveGroups() to add them")
		}
		l = s.liveListing(q.Group, q.Order)
	default:
		l = s.siteListing(q.Order)
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		reply, err := s.read(c, l, rconn.Command{Name: "ZREVRANK", Args: []any{l.index, s.keys.ArticleHash(articleID)}})
		if err != nil {
			return err
		}
		if reply == nil {
			return ErrNotFound
		}
		place, err := redis.Int64(reply, nil)
		rank = place + 1
		return err
	})
	return rank, s.recheck(ctx, err, l)
}

// Cursor returns the cursor of the page that follows the article in the
// listing q names: the cursor that a page ending with the article gives,
// so that a numbered page can offer a "more" link that goes on by cursor
// from its last article. It reads the article's value in the index List
// reads, as List reads it (a window trimmed first), in one round trip: the
// site's index, a user's, or a group's live one; for a group listed
// through the book's cache (and a live one that lacks articles, which
// List falls back from), the cache's, which holds each article's value
// from when it was built, so that the cursor goes on with the listing the
// numbered page came from (the site's index once the cache has expired:
// the next page builds it afresh from those values). It returns an error
// wrapping ErrNotFound if the listing does not hold the article (it is not
// in the group or the window, or left the cache), and ErrNotIndexed, as
// List does, for an index not built.
func (s *Store) Cursor(ctx context.Context, articleID string, q Query) (cursor string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "cursor after article "+idText(articleID)+" in "+q.what())
		}
	}()
	if err := q.check(); err != nil {
		return "", err
	}
	if err := checkID(articleID); err != nil {
		return "", err
	}
	ns, _, err := s.checkOrder(ctx, q.Order)
	if err != nil {
		return "", err
	}
	list, scope := q.list()
	var value string
	switch {
	case q.User != "":
		value, err = s.valueIn(ctx, s.userListing(q.User), articleID)
	case q.Group == "":
		value, err = s.valueIn(ctx, s.siteListing(q.Order), articleID)
	case ns.liveReads:
		value, err = s.valueIn(ctx, s.liveListing(q.Group, q.Order), articleID)
		if !errors.Is(err, errs.ErrNotIndexed) {
			break
		}
		// Live indexes that lack articles: the book's listing, as List
		// falls back to.
		fallthrough
	default:
		value, err = s.cachedValue(ctx, q.Group, q.Order, articleID)
	}
	if err != nil {
		return "", err
	}
	return makeCursor(list, scope, point{value, articleID}), nil
}

// valueIn reads the article's value in l's index, read as a listing reads
// it (a window trimmed first, a mark checked), in one round trip: ErrNotFound
// if l does not hold the article.
func (s *Store) valueIn(ctx context.Context, l listing, articleID string) (value string, err error) {
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		reply, err := s.read(c, l, rconn.Command{Name: "ZSCORE", Args: []any{l.index, s.keys.ArticleHash(articleID)}})
		if err != nil {
			return err
		}
		if reply == nil {
			return ErrNotFound
		}
		value, err = redis.String(reply, nil)
		return err
	})
	return value, s.recheck(ctx, err, l)
}

// cachedValue reads the article's value in the book's cached listing of
// group by order in one round trip: the cache's while there is a cache,
// else the site's index's, for an article of the group; ErrNotFound for
// one the listing does not hold.
func (s *Store) cachedValue(ctx context.Context, group string, order Order, articleID string) (string, error) {
	member := s.keys.ArticleHash(articleID)
	cache := s.keys.GroupCache(group, int(order))
	cmds := []rconn.Command{
		{Name: "ZSCORE", Args: []any{cache, member}},
		{Name: "EXISTS", Args: []any{cache}},
		{Name: "ZSCORE", Args: []any{s.keys.Index(int(order)), member}},
		{Name: "SISMEMBER", Args: []any{s.keys.GroupSet(group), member}},
	}
	replies, err := s.rc.CheckedPipeline(ctx, cmds)
	if err != nil {
		return "", err
	}
	value := replies[0]
	if replies[1] == int64(0) {
		value = nil
		if replies[3] == int64(1) {
			value = replies[2]
		}
	}
	text, err := redis.String(value, nil)
	if err == redis.ErrNil {
		return "", ErrNotFound
	}
	return text, err
}

// listAfter reads the page of l after w's point in one session: the page's
// entries, one more to tell whether a page follows, then their articles.
func (s *Store) listAfter(ctx context.Context, l listing, q *Query, w window) (articles []Article, next string, err error) {
	if _, _, err := s.checkOrder(ctx, l.order); err != nil {
		return nil, "", err
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		page, err := s.readWindow(c, l, w, s.keys.ArticlePrefix())
		if err != nil {
			return err
		}
		articles, next, err = s.pageAfter(c, q, page, w.size, true)
		return err
	})
	return articles, next, s.recheck(ctx, err, l)
}

// pageAfter reads the articles of a page of q's listing by cursor: page is
// up to one entry more than size, each with its value; the one more tells
// that a page follows, and next is then the cursor of the page's last
// entry. fresh says the values are the index's now, not a cache's.
func (s *Store) pageAfter(c rconn.Link, q *Query, page []any, size int, fresh bool) (articles []Article, next string, err error) {
	page, last := cutPage(page, size, s.keys.ArticlePrefix())
	if last != nil {
		list, scope := q.list()
		next = makeCursor(list, scope, *last)
	}
	// The page's values are the order's; the articles' scores come from the
	// score index, but for ByScore, whose values they are when fresh.
	withScores := q.Order == ByScore && fresh
	if !withScores {
		page = membersOf(page)
	}
	articles, _, err = s.fetch(c, page, withScores, q.WithGroups)
	return articles, next, err
}
