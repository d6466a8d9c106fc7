package voting

// This file holds cursor paging, a concept of its own: a page of a listing
// after a cursor, the point in the listing's order where the last page
// ended, so that a walk through a listing that moves under it lists each
// article no write moves once, where numbered pages would skip or repeat
// articles that others' votes move across a page's edge.

import (
	"context"
	"encoding/base64"

	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"

	"github.com/gomodule/redigo/redis"
)

// cursorText is how a cursor is written: its fields, joined by newlines
// (no name, group, value or member holds one), in unpadded base64url.
var cursorText = base64.RawURLEncoding

// makeCursor writes the cursor of the point at in the list of scope: an
// order's listing, the site's (scope "") or a group's, or one of the
// lists named in query.go, of a user or of none.
func makeCursor(list, scope string, at point) string {
	return cursorText.EncodeToString([]byte(strings.Join([]string{"1", list, scope, at.value, at.member}, "\n")))
}

// parseCursor reads a cursor of the list of scope: the zero point for "",
// else the point it names, checked.
func parseCursor(cursor string, list, scope string) (point, error) {
	if cursor == "" {
		return point{}, nil
	}
	raw, err := cursorText.DecodeString(cursor)
	fields := strings.Split(string(raw), "\n")
	if err != nil || len(fields) != 5 || fields[0] != "1" {
		return point{}, errs.Invalidf("cursor %q is not one this library writes", cursor)
	}
	if fields[1] != list || fields[2] != scope {
		return point{}, errs.Invalidf("cursor %q is of %s, not this list", cursor, cursorWhat(fields[1], fields[2]))
	}
	if !scoreText(fields[3]) {
		return point{}, errs.Invalidf("cursor %q holds no value", cursor)
	}
	if fields[4] == "" {
		return point{}, errs.Invalidf("cursor %q holds no entry", cursor)
	}
	return point{fields[3], fields[4]}, nil
}

// cursorWhat names the list of scope a cursor is of, for an error.
func cursorWhat(list, scope string) string {
	switch list {
	case postsList:
		return fmt.Sprintf("the articles of user %q", scope)
	case historyList:
		return fmt.Sprintf("the history of user %q", scope)
	case groupsList, postersList:
		return "the list of " + list
	}
	if scope != "" {
		return "group " + scope + "'s listing by " + list
	}
	return "the site's listing by " + list
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

// Cursor returns the cursor of the page that follows the article in the
// listing q names: the cursor that a page ending with the article gives,
// so that a numbered page can offer a "more" link that goes on by cursor
// from its last article. It reads the article's entry in the listing's
// values in one round trip: the site's index of the order, whose values
// the site's listing and live group indexes share; without live groups,
// for a group, the book's cached listing, which holds each article's value
// from when it was built, so that the cursor goes on with the listing the
// numbered page came from (the site's index once the cache has expired:
// the next page builds it afresh from those values). It returns an error
// wrapping ErrNotFound if the listing does not hold the article (a cache
// that no longer does, since the article left the group, included).
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
	member := s.keys.ArticleHash(articleID)
	index := s.keys.Index(int(q.Order))
	if q.User != "" {
		index = s.keys.UserPosts(q.User)
	}
	cmds := []rconn.Command{{Name: "ZSCORE", Args: []any{index, member}}}
	ns, _, err := s.checkOrder(ctx, q.Order)
	if err != nil {
		return "", err
	}
	cached := q.Group != "" && !ns.liveReads
	if cached {
		cache := s.keys.GroupCache(q.Group, int(q.Order))
		cmds = append(cmds, rconn.Command{Name: "ZSCORE", Args: []any{cache, member}}, rconn.Command{Name: "EXISTS", Args: []any{cache}})
	} else if q.Group != "" {
		// A live group's values are the site's, for the group's articles.
		cmds = append(cmds, rconn.Command{Name: "SISMEMBER", Args: []any{s.keys.GroupSet(q.Group), member}})
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
	switch {
	case cached && replies[2] != int64(0):
		value = replies[1]
	case !cached && q.Group != "" && replies[1] != int64(1):
		value = nil
	}
	text, err := redis.String(value, nil)
	if err == redis.ErrNil {
		return "", ErrNotFound
	}
	if err != nil {
		return "", err
	}
	list, scope := q.list()
	return makeCursor(list, scope, point{text, articleID}), nil
}
