package voting

// This file holds cursor paging, a concept of its own: a page of a listing
// after a cursor, the point in the listing's order where the last page
// ended, so that a walk through a listing that moves under it lists each
// article no write moves once, where numbered pages would skip or repeat
// articles that others' votes move across a page's edge.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// GetArticlesAfter returns the page of articles across the site, in the
// given order (one the namespace keeps), that comes after cursor, and the cursor
// of the page after it. cursor is "" for the first page; the cursor returned
// is "" after the last page. A cursor is opaque, URL-safe text; one that
// does not parse, or that another order's or group's listing gave, is an
// error wrapping ErrInvalid.
//
// A cursor is a point in the listing's order, not a place: however the
// listing moves between two pages (votes, posts, deletions, articles aging
// out of a window), a walk through every page lists exactly once each
// article whose entry did not move during the walk, and no article twice
// unless a vote moved it back across the point. A page takes as many round
// trips as a numbered page, GetArticles.
func (s *Store) GetArticlesAfter(ctx context.Context, order Order, cursor string) (articles []Article, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "list articles by "+order.String()+" after a cursor")
		}
	}()
	if err := knownOrder(order); err != nil {
		return nil, "", err
	}
	at, err := parseCursor(cursor, order, "")
	if err != nil {
		return nil, "", err
	}
	return s.listAfter(ctx, s.siteListing(order), "", at)
}

// GetGroupArticlesAfter is GetArticlesAfter for a group's listing: with
// live groups (WithLiveGroups) its live index of the order, else the book's
// cached listing, which a cursor's point holds its place in when the cache
// is built afresh.
func (s *Store) GetGroupArticlesAfter(ctx context.Context, group string, order Order, cursor string) (articles []Article, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "list group "+group+" by "+order.String()+" after a cursor")
		}
	}()
	if err := checkGroup(group); err != nil {
		return nil, "", err
	}
	if err := knownOrder(order); err != nil {
		return nil, "", err
	}
	at, err := parseCursor(cursor, order, group)
	if err != nil {
		return nil, "", err
	}
	ns, _, err := s.checkOrder(ctx, order)
	if err != nil {
		return nil, "", err
	}
	if ns.liveReads {
		articles, next, err = s.listAfter(ctx, s.liveListing(group, order), group, at)
		if !errors.Is(err, errs.ErrNotIndexed) {
			return articles, next, err
		}
		// Live indexes that lack articles: the book's listing, as
		// GetGroupArticles falls back to.
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		reply, err := s.cachedGroup(c, group, order, 0, int64(s.pageSize), false, &at)
		if err != nil {
			return err
		}
		page, ok := reply.([]any)
		if !ok {
			return fmt.Errorf("unexpected reply %v", reply)
		}
		articles, next, err = s.pageAfter(c, order, group, page)
		return err
	})
	return articles, next, err
}

// listAfter reads the page of l after at in one session: the page's
// entries, one more to tell whether a page follows, then their articles.
func (s *Store) listAfter(ctx context.Context, l listing, group string, at point) (articles []Article, next string, err error) {
	if _, _, err := s.checkOrder(ctx, l.order); err != nil {
		return nil, "", err
	}
	size := s.pageSize
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var read rconn.Command
		var cl script.Call
		if at.member == "" {
			read = rconn.Command{Name: "ZREVRANGE", Args: []any{l.index, 0, size, "WITHSCORES"}}
		} else {
			after := script.After{Index: l.index, Score: at.value, Member: s.keys.ArticlePrefix() + at.member, Size: size + 1}
			cl = after.Call()
			read = rconn.Command{Name: "EVALSHA", Args: cl.Eval().Args}
		}
		reply, err := s.read(c, l, read)
		if rconn.NoScript(err) {
			// Redis does not have the script yet: the read before it ran;
			// run the script once on its own, which sends its source.
			reply, err = c.Run(cl.Eval())
		}
		page, err := script.ReadList(reply, err)
		if err != nil {
			return errs.WrongType(err, l.index, read.Name)
		}
		articles, next, err = s.pageAfter(c, l.order, group, page)
		return err
	})
	return articles, next, s.recheck(ctx, err, l)
}

// pageAfter reads the articles of a page of a cursor: page is up to one
// entry more than a page holds, each with its value; the one more tells
// that a page follows, and next is then the cursor of the page's last
// entry.
func (s *Store) pageAfter(c rconn.Link, order Order, group string, page []any) (articles []Article, next string, err error) {
	size := s.pageSize
	if len(page)%2 != 0 {
		return nil, "", fmt.Errorf("a page of %d replies, not entries and values", len(page))
	}
	if len(page)/2 > size {
		last := 2 * (size - 1)
		member, _ := page[last].([]byte)
		value, _ := page[last+1].([]byte)
		id := strings.TrimPrefix(string(member), s.keys.ArticlePrefix())
		next = makeCursor(order, group, point{string(value), id})
		page = page[:2*size]
	}
	// The page's values are the order's; the articles' scores come from the
	// score index, but for ByScore, whose values they are.
	withScores := order == ByScore
	if !withScores {
		members := make([]any, 0, len(page)/2)
		for i := 0; i < len(page); i += 2 {
			members = append(members, page[i])
		}
		page = members
	}
	articles, _, err = s.fetch(c, page, withScores)
	return articles, next, err
}

// cursorText is how a cursor is written: its fields, joined by newlines
// (no name, group, value or member holds one), in unpadded base64url.
var cursorText = base64.RawURLEncoding

// makeCursor writes the cursor of the point at in group's listing by
// order ("" for the site's).
func makeCursor(order Order, group string, at point) string {
	return cursorText.EncodeToString([]byte(strings.Join([]string{"1", order.String(), group, at.value, at.member}, "\n")))
}

// parseCursor reads a cursor of group's listing by order: the zero point
// for "", else the point it names, checked.
func parseCursor(cursor string, order Order, group string) (point, error) {
	if cursor == "" {
		return point{}, nil
	}
	raw, err := cursorText.DecodeString(cursor)
	fields := strings.Split(string(raw), "\n")
	if err != nil || len(fields) != 5 || fields[0] != "1" {
		return point{}, errs.Invalidf("cursor %q is not one this library writes", cursor)
	}
	if fields[1] != order.String() || fields[2] != group {
		what := "the site's"
		if fields[2] != "" {
			what = "group " + fields[2] + "'s"
		}
		return point{}, errs.Invalidf("cursor %q is of %s listing by %s, not this one", cursor, what, fields[1])
	}
	if !scoreText(fields[3]) {
		return point{}, errs.Invalidf("cursor %q holds no value", cursor)
	}
	if fields[4] == "" {
		return point{}, errs.Invalidf("cursor %q holds no entry", cursor)
	}
	return point{fields[3], fields[4]}, nil
}

// maxScoreText is the longest value a cursor holds, in bytes: Redis writes
// a score in at most 24 (%.17g), and miniredis in a few more.
const maxScoreText = 64

// scoreText reports whether v is a value a cursor may hold: a finite
// number as Redis and miniredis write a score, which both read back as a
// score: an optional '-', decimal digits with an optional fraction, and an
// optional exponent. Go's ParseFloat takes more that Redis refuses (hex,
// underscores, "Inf", "NaN", a sign '+', and a number that underflows to 0,
// as 1e-400), and Redis takes more that a cursor never holds.
func scoreText(v string) bool {
	if v == "" || len(v) > maxScoreText {
		return false
	}
	mantissa, exponent, hasExponent := strings.Cut(strings.ToLower(v), "e")
	mantissa = strings.TrimPrefix(mantissa, "-")
	whole, fraction, hasPoint := strings.Cut(mantissa, ".")
	if exponent != "" && (exponent[0] == '+' || exponent[0] == '-') {
		exponent = exponent[1:]
	}
	if !decimalDigits(whole) || hasPoint && !decimalDigits(fraction) || hasExponent && (!decimalDigits(exponent) || len(exponent) > 3) {
		return false
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(x, 0) {
		return false
	}
	// An underflow: digits other than 0 that read as 0.
	return x != 0 || strings.Trim(whole+fraction, "0") == ""
}

// decimalDigits reports whether s is one or more decimal digits.
func decimalDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// CursorAfter returns the cursor of the page that follows the article in
// the listing of order: the site's or, with group not "", the group's. It
// is the cursor that a page ending with the article gives, so that a
// numbered page (GetArticles, GetGroupArticles) can offer a "more" link
// that goes on by cursor from its last article. It reads the article's
// entry in the listing's values in one round trip: the site's index of the
// order, whose values the site's listing and live group indexes share;
// without live groups, for a group, the book's cached listing, which holds
// each article's value from when it was built, so that the cursor goes on
// with the listing the numbered page came from (the site's index once the
// cache has expired: the next page builds it afresh from those values). It
// returns an error wrapping ErrNotFound if the listing does not hold the
// article (a cache that no longer does, since the article left the group,
// included), and one wrapping ErrInvalid for an order the Store does not
// keep or a malformed id or group.
func (s *Store) CursorAfter(ctx context.Context, order Order, group, articleID string) (cursor string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "cursor after article "+idText(articleID)+" by "+order.String())
		}
	}()
	if err := knownOrder(order); err != nil {
		return "", err
	}
	if group != "" {
		if err := checkGroup(group); err != nil {
			return "", err
		}
	}
	if err := checkID(articleID); err != nil {
		return "", err
	}
	member := s.keys.ArticleHash(articleID)
	cmds := []rconn.Command{{Name: "ZSCORE", Args: []any{s.keys.Index(int(order)), member}}}
	ns, _, err := s.checkOrder(ctx, order)
	if err != nil {
		return "", err
	}
	cached := group != "" && !ns.liveReads
	if cached {
		cache := s.keys.GroupCache(group, int(order))
		cmds = append(cmds, rconn.Command{Name: "ZSCORE", Args: []any{cache, member}}, rconn.Command{Name: "EXISTS", Args: []any{cache}})
	}
	replies, err := s.rc.Pipeline(ctx, cmds)
	if err == nil {
		err = rconn.ReplyError(cmds, replies)
	}
	if err != nil {
		return "", err
	}
	// The cache's value while there is a cache, else the site's.
	value := replies[0]
	if cached && replies[2] != int64(0) {
		value = replies[1]
	}
	text, err := redis.String(value, nil)
	if err == redis.ErrNil {
		return "", ErrNotFound
	}
	if err != nil {
		return "", err
	}
	return makeCursor(order, group, point{text, articleID}), nil
}
