package voting

// This file holds the cursor, a concept of its own: the point in a list's
// order where a page ended, written as opaque text, so that a walk through a
// list that moves under it lists each item no write moves once, where
// numbered pages would skip or repeat items that others' votes move across
// a page's edge (Paging, in paging.go).

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/articlevote/voting/internal/errs"
)

// The names of the lists that are no order's, as a cursor holds them.
const (
	postsList      = "posts"      // a user's articles
	groupsList     = "groups"     // Groups
	postersList    = "posters"    // TopPosters
	commentersList = "commenters" // TopCommenters
	historyList    = "history"    // a user's votes

	userCommentsList = "user-comments" // a user's comments
	commentsList     = "comments-"     // a parent's comments, before the order's name
)

// cursorText is how a cursor is written: its fields, joined by newlines
// (no name, group, value or member holds one), in unpadded base64url.
var cursorText = base64.RawURLEncoding

// makeCursor writes the cursor of the point at in the list of scope: an
// order's listing, the site's (scope "") or a group's, or one of the
// lists named above, of a user or of none.
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
	case groupsList, postersList, commentersList:
		return "the list of " + list
	case userCommentsList:
		return fmt.Sprintf("the comments of user %q", scope)
	}
	if by, ok := strings.CutPrefix(list, commentsList); ok {
		return fmt.Sprintf("the comments under %s by %s", scope, by)
	}
	if scope != "" {
		return "group " + scope + "'s articles by " + list
	}
	return "the site's articles by " + list
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

// A point is where a cursor's page ended: the value, as Redis writes it,
// and the member of the last entry of the page; the zero point is the
// list's start. A cursor holds the member without the namespace's
// article prefix: the article's id.
type point struct {
	value, member string
}
