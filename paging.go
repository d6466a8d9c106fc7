package voting

// This file holds the paging engine every list of the Store pages by:
// Paging, which page of a list to read (by number or after a cursor, of a
// size), checked into a window; the read of a window of an index, highest
// value first, entries and their values; and the cut of what it read to a
// page, with the cursor of the page after it. It reads nothing itself:
// listings.go sends the reads, with what each index needs before them.

import (
	"fmt"
	"math"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// Paging says which page of a list to read. Every list the Store gives
// (List, Groups, TopPosters, TopCommenters, UserHistory, Comments,
// UserComments) takes one and pages the same way:
// by number (Page), or after a cursor (After) that the call for the page
// before returned as next, with Size items a page.
//
// Numbered pages suit a page count ("page 3 of 40", with Count); cursors
// suit a walk through a list that moves under it (by votes, posts,
// articles aging out of a window): a walk by cursor lists exactly once
// each item whose entry did not move during the walk, where numbered pages
// skip or repeat items that move across a page's edge. Both cost the same
// round trips.
type Paging struct {
	// Page is the number of the page, counting from 1; a page past the end
	// is empty. A numbered page gives next "": the following page is
	// Page+1. 0 reads by cursor.
	Page int
	// After is the cursor that the call for the page before returned as
	// next; "" (with Page 0) for the first page. A page read by cursor
	// gives next, the cursor of the page after it, "" after the last. A
	// cursor is opaque, URL-safe text. One that does not parse, or that
	// another list gave, is an error wrapping ErrInvalid, as is a cursor
	// given with a Page.
	After string
	// Size is how many items the page holds, from 1 to MaxPageSize; 0 for
	// the Store's page size (WithPageSize).
	Size int
}

// A window is a checked Paging: a page by number, with its ZREVRANGE
// bounds (past for one so far on that they overflow), or by cursor, after
// the point at; of size items.
type window struct {
	size        int
	byNumber    bool
	start, stop int64
	past        bool
	at          point
}

// paging checks p for the list named list (an order's name, or one of the
// lists' names in cursors.go) of scope (a group or user; "" for none).
func (s *Store) paging(p Paging, list, scope string) (window, error) {
	w := window{size: p.Size}
	if w.size == 0 {
		w.size = s.pageSize
	}
	switch {
	case p.Size < 0 || p.Size > MaxPageSize:
		return window{}, errs.Invalidf("page size %d is outside 1..%d", p.Size, MaxPageSize)
	case p.Page < 0:
		return window{}, errs.Invalidf("page %d is before page 1", p.Page)
	case p.Page > 0 && p.After != "":
		return window{}, errs.Invalidf("page %d and a cursor: give one or the other", p.Page)
	case p.Page > 0:
		w.byNumber = true
		w.start, w.stop, w.past = pageBounds(p.Page, w.size)
		return w, nil
	}
	var err error
	w.at, err = parseCursor(p.After, list, scope)
	return w, err
}

// pageBounds gives the ZREVRANGE bounds of page (from 1) of size items;
// past reports a page so far on that they overflow: past any list's end.
func pageBounds(page, size int) (start, stop int64, past bool) {
	n := int64(size)
	if int64(page-1) > (math.MaxInt64-n)/n {
		return 0, 0, true
	}
	start = int64(page-1) * n
	return start, start + n - 1, false
}

// read is the command that reads w of index, highest value first, entries
// and their values: by number, from w's start to its stop; by cursor, one
// entry more than the page holds, to tell whether a page follows, from the
// start for the zero point, else after the point's member, prefix before
// it, in after.lua; after is then that script's arguments (its Call sends
// its source, for a Redis that does not have it yet), and zero otherwise.
func (w window) read(index, prefix string) (read rconn.Command, after script.After) {
	switch {
	case w.byNumber:
		return rconn.Command{Name: "ZREVRANGE", Args: []any{index, w.start, w.stop, "WITHSCORES"}}, after
	case w.at.member == "":
		return rconn.Command{Name: "ZREVRANGE", Args: []any{index, 0, w.size, "WITHSCORES"}}, after
	}
	after = script.After{Index: index, Score: w.at.value, Member: prefix + w.at.member, Size: w.size + 1}
	return after.Call().Eval().Command(), after
}

// entries checks reply, to w's read (named name) of index, and gives its
// entries and their values.
func (w window) entries(reply any, err error, index, name string) ([]any, error) {
	if w.byNumber {
		return redis.Values(reply, err)
	}
	page, err := script.ReadList(reply, err)
	if err != nil {
		return nil, errs.WrongType(err, index, name)
	}
	if len(page)%2 != 0 {
		return nil, fmt.Errorf("a page of %d replies, not entries and values", len(page))
	}
	return page, nil
}

// cut cuts page, entries and their values that w's read by cursor gave, to
// w's size, and gives the cursor of the page after it in the list of
// scope, if the one more entry read tells that one follows and its value
// is within the list (within nil: every value is). prefix is what the
// index's members have before what a cursor holds of them.
func (w window) cut(page []any, list, scope, prefix string, within func(value any) bool) ([]any, string) {
	if len(page)/2 > w.size && within != nil && !within(page[2*w.size+1]) {
		page = page[:2*w.size] // the one more is past the list's end
	}
	page, last := cutPage(page, w.size, prefix)
	if last == nil {
		return page, ""
	}
	return page, makeCursor(list, scope, *last)
}

// cutPage cuts page, entries and their values one more than size may
// hold, to size entries, and gives the point of its last entry, prefix
// taken off its member, if the one more tells that a page follows.
func cutPage(page []any, size int, prefix string) ([]any, *point) {
	if len(page)/2 <= size {
		return page, nil
	}
	last := 2 * (size - 1)
	member, _ := page[last].([]byte)
	value, _ := page[last+1].([]byte)
	return page[:2*size], &point{string(value), strings.TrimPrefix(string(member), prefix)}
}

// membersOf is the members of page, entries and their values as
// WITHSCORES gives them.
func membersOf(page []any) []any {
	members := make([]any, 0, len(page)/2)
	for i := 0; i < len(page); i += 2 {
		members = append(members, page[i])
	}
	return members
}
