package voting

// This file holds the listings beneath a Query (query.go): a page of an
// index read by number, how many articles an index holds, the book's cached
// intersection of a group with an index; and how a listing reads its index: with the read of its mark, so that an index not built is
// ErrNotIndexed, and for a top-of-window order (TopDay to TopYear) after
// the trim of the articles that have aged out of the window, lazily, in
// bounded steps (a mark in trimmed: says how far each window's index has
// been trimmed).

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// A listing is an index that pages are read from: the site's index of an
// order, or a group's live index of it.
type listing struct {
	order Order
	spec  *schema.OrderSpec
	index string
	// byTime and field are, for a top-of-window order, the time index the
	// window is trimmed along (the site's, or the group's live one) and the
	// field of its mark in trimmed:.
	byTime, field string
	// built is the field of indexed: that says whether the index is built
	// (internal/schema/marks.go); "" for one always built.
	built string
	// kind is the kind of index (schema.Indexes) of a listing that is no
	// order's: "karma", "links"; "" for an order's.
	kind string
	// live is set for a group's live index, whose listing falls back to
	// the book's where it is not built.
	live bool
}

// recheck is err, or for an error that says l is not built, the error of
// l's kind or order no longer kept, if the namespace's settings read afresh
// say so: a Store goes by the settings it read last until a write or this
// reads them again, and StopKeeping by another Store takes the index's mark
// away.
func (s *Store) recheck(ctx context.Context, err error, l listing) error {
	if errors.Is(err, errs.ErrNotIndexed) {
		// Someone must build it: the Store's builder, unless another
		// Store's holds the lease (WithAutoReindex).
		s.build.ensure(false)
	}
	if l.live || !errors.Is(err, errs.ErrNotIndexed) {
		return err // a live listing not built falls back to the book's
	}
	st, rerr := s.reload(ctx)
	if rerr != nil {
		return err
	}
	if l.kind != "" {
		if !st.kinds[l.kind] {
			ix, _ := schema.IndexNamed(l.kind)
			if slices.Contains(s.asked.kinds, l.kind) {
				return stoppedSince(l.kind, ix.Option+"()")
			}
			return errs.Invalidf("the namespace no longer keeps %s: give a Store %s() to add it", l.kind, ix.Option)
		}
		return err
	}
	if _, kerr := s.kept(st, l.order); kerr != nil {
		return kerr
	}
	return err
}

func (s *Store) siteListing(o Order) listing {
	return listing{order: o, spec: &schema.Orders[o], index: s.keys.Index(int(o)), byTime: s.keys.TimeIndex(),
		field: schema.MarkField(&schema.Orders[o], ""), built: schema.BuildField(int(o), false)}
}

func (s *Store) liveListing(group string, o Order) listing {
	return listing{order: o, spec: &schema.Orders[o], index: s.keys.LiveIndex(group, int(o)),
		byTime: s.keys.LiveIndex(group, int(ByTime)), field: schema.MarkField(&schema.Orders[o], group), built: schema.BuildField(int(o), true),
		live: true}
}

// list reads the articles of one page of l, from start to stop, in two
// round trips: the page of ids, trimmed to its window first for a
// top-of-window order, then the articles.
func (s *Store) list(ctx context.Context, l listing, start, stop int64, withGroups bool) ([]Article, error) {
	if _, _, err := s.checkOrder(ctx, l.order); err != nil {
		return nil, err
	}
	key := ""
	if s.cached(l) {
		key = fmt.Sprintf("page %s %d %d %t", l.index, start, stop, withGroups)
	}
	return viaCache(ctx, s, key, cloneArticles, func() ([]Article, error) { return s.readPage(ctx, l, start, stop, withGroups) })
}

// readPage reads the page of l from start to stop from Redis.
func (s *Store) readPage(ctx context.Context, l listing, start, stop int64, withGroups bool) ([]Article, error) {
	var articles []Article
	err := s.rc.Session(ctx, func(c rconn.Link) error {
		// By score, the page's scores come with it; in any other order,
		// fetch reads them from the score index.
		withScores := l.order == ByScore
		read := rconn.Command{Name: "ZREVRANGE", Args: append(make([]any, 0, 4), l.index, start, stop)}
		if withScores {
			read.Args = append(read.Args, "WITHSCORES")
		}
		page, err := redis.Values(s.read(c, l, read))
		if err != nil {
			return err
		}
		articles, _, err = s.fetch(c, page, withScores, withGroups)
		return err
	})
	return articles, s.recheck(ctx, err, l)
}

// read sends read, a read of l's index, and returns its reply. Before it,
// in the same round trip, go what the read needs: for a window, the script
// that trims the index to the window (Redis runs the read right after it,
// so that the read sees exactly the articles within the window, and no
// reply passes through Lua; if more is left to trim than one step takes,
// read runs the lot again); and for an index that may not be built, the
// read of its mark and of whether the namespace has an article (the trim
// script reads both for a window), so that a listing of an index not built
// is ErrNotIndexed, not a page that leaves articles out.
func (s *Store) read(c rconn.Link, l listing, read rconn.Command) (any, error) {
	if l.spec.Window == 0 && l.built == "" {
		reply, err := c.DoCommand(read)
		return reply, errs.WrongType(err, l.index, read.Name)
	}
	for {
		// The index's mark; for a window, the trim script reads it before
		// it writes anything.
		var first rconn.Command
		if l.spec.Window > 0 {
			cut, err := s.windowCut(l.spec)
			if err != nil {
				return nil, err
			}
			first = s.trimCall(l, cut).Eval().Command()
		} else {
			first = rconn.Command{Name: "HMGET", Args: []any{s.keys.IndexedHash(), l.built, schema.CountField}}
		}
		var cmds []rconn.Command
		if l.spec.Window > 0 {
			cmds = []rconn.Command{first, read}
		} else {
			// An empty namespace's indexes are complete, marked or not.
			cmds = []rconn.Command{first, {Name: "ZCARD", Args: []any{s.keys.TimeIndex()}}, read}
		}
		replies, err := c.Pipeline(cmds)
		if err != nil {
			return nil, err
		}
		built := true
		if l.spec.Window > 0 {
			if rconn.NoScript(replies[0]) {
				// Redis does not have the script yet: run it once on its
				// own, which sends its source, then read again.
				if err := s.trimWindow(c, l); err != nil {
					return nil, err
				}
				continue
			}
			done, err := trimmed(c.Context(), replies[0], nil)
			if err != nil {
				return nil, err
			}
			if !done {
				continue
			}
			st, _ := script.ReadStatus(replies[0], nil)
			built = st.Word != script.ReplyNotIndexed
		} else {
			got, err := redis.Strings(replies[0], nil)
			if err != nil {
				return nil, errs.WrongType(err, s.keys.IndexedHash(), "HMGET")
			}
			articles, err := redis.Int64(replies[1], nil)
			if err != nil {
				return nil, errs.WrongType(err, s.keys.TimeIndex(), "ZCARD")
			}
			built = schema.Complete(got[0], got[1], articles)
			replies = replies[1:]
		}
		if !built {
			return nil, schema.NotIndexed(l.built)
		}
		if rerr, ok := replies[1].(redis.Error); ok {
			return nil, errs.WrongType(rerr, l.index, read.Name)
		}
		return replies[1], nil
	}
}

// count is the size of l's index; a window's index is trimmed first.
func (s *Store) count(ctx context.Context, l listing) (int64, error) {
	if _, _, err := s.checkOrder(ctx, l.order); err != nil {
		return 0, err
	}
	key := ""
	if s.cached(l) {
		key = "count " + l.index
	}
	return viaCache(ctx, s, key, func(n int64) int64 { return n }, func() (int64, error) {
		var n int64
		err := s.rc.Session(ctx, func(c rconn.Link) error {
			var err error
			n, err = redis.Int64(s.read(c, l, rconn.Command{Name: "ZCARD", Args: []any{l.index}}))
			return err
		})
		return n, s.recheck(ctx, err, l)
	})
}

// cached reports whether the client-side cache keeps l's pages and count:
// those of an index without a window, whose pages change only when a key
// changes, not with the time.
func (s *Store) cached(l listing) bool {
	return s.cache != nil && l.spec != nil && l.spec.Window == 0 && l.kind == ""
}

// viaCache is the reply of read, from the client-side cache under key if it is
// there, else read from Redis and kept under key unless anything changed
// as it was read. What the cache holds is the cache's: the caller gets a
// copy. With no key read alone is called; with no cache live, its reply
// is not kept.
func viaCache[T any](ctx context.Context, s *Store, key string, copy func(T) T, read func() (T, error)) (T, error) {
	if key == "" {
		return read()
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, errs.NotSent(err)
	}
	gen, live := s.cache.Begin()
	if v, ok := s.cache.Get(key); ok { // a hit, or a miss counted
		return copy(v.(T)), nil
	}
	v, err := read()
	if err == nil && live {
		s.cache.Put(key, copy(v), gen)
	}
	return v, err
}

// cloneArticles is a copy of a page that shares nothing a caller may
// change with it.
func cloneArticles(page []Article) []Article {
	out := slices.Clone(page)
	for i := range out {
		if out[i].Groups != nil {
			out[i].Groups = slices.Clone(out[i].Groups)
		}
	}
	return out
}

// windowCut is the posting time that leaves spec's window now, by the
// Store's clock: an article posted at or before it is out of the window.
// It is "" for an order with no window.
func (s *Store) windowCut(spec *schema.OrderSpec) (string, error) {
	if spec.Window == 0 {
		return "", nil
	}
	now := s.now()
	if err := schema.CheckClock(now); err != nil {
		return "", err
	}
	return spec.Cut(now), nil
}

// trimmed reads the status of a script that trims a window first: done is
// true for ok, and for notindexed (the trim is done, and the index not
// built: the caller that lists it says so); false for more, which asks the
// caller to run the script again, unless ctx has ended; an error for
// anything else.
func trimmed(ctx context.Context, reply any, err error) (done bool, _ error) {
	st, err := script.ReadStatus(reply, err)
	switch {
	case err != nil:
		return false, err
	case st.Word == script.ReplyOK, st.Word == script.ReplyNotIndexed:
		return true, nil
	case st.Word == script.ReplyMore:
		return false, ctx.Err()
	}
	return false, st.Err()
}

// trimCall is trim_window.lua's run for listing l at cut.
func (s *Store) trimCall(l listing, cut string) script.Call {
	t := script.TrimWindow{Window: l.index, ByTime: l.byTime, Trimmed: s.keys.TrimmedHash(), Indexed: s.keys.IndexedHash(),
		Articles: s.keys.TimeIndex(), Field: l.field, Cut: cut, Batch: s.trimBatch, Built: l.built}
	return t.Call()
}

// trimWindow trims a window listing to its window, in steps.
func (s *Store) trimWindow(c rconn.Link, l listing) error {
	for {
		cut, err := s.windowCut(l.spec)
		if err != nil {
			return err
		}
		reply, err := c.Run(s.trimCall(l, cut).Eval())
		if done, err := trimmed(c.Context(), reply, err); done || err != nil {
			return err
		}
	}
}

// cachedGroup runs group_page.lua for a page from start to stop of the
// book's cached group listing of order, or with size for its size, or with
// a point for the page of a cursor after it (the zero point for the first),
// and gives its reply: the page (of a cursor, with its values), or the
// size.
func (s *Store) cachedGroup(c rconn.Link, group string, order Order, start, stop int64, size bool, at *point) (any, error) {
	for {
		cut, err := s.windowCut(&schema.Orders[order])
		if err != nil {
			return nil, err
		}
		cl := s.groupPageCall(group, order, start, stop, cut, size, at)
		reply, err := c.Run(cl.Eval())
		switch reply.(type) {
		case []any, int64:
			return reply, err
		}
		if st, rerr := script.ReadStatus(reply, err); rerr == nil && st.Word == script.ReplyNotIndexed {
			return nil, schema.NotIndexed(schema.BuildField(int(order), false))
		}
		done, err := trimmed(c.Context(), reply, err)
		if err != nil {
			return nil, err
		}
		if done {
			return nil, fmt.Errorf("unexpected reply %v", reply)
		}
	}
}

// groupPageCall is group_page.lua's run for a page from start to stop of
// group's cached listing by order, or with size for its size, or with at
// for the page of a cursor after it (the zero point for the first).
func (s *Store) groupPageCall(group string, order Order, start, stop int64, cut string, size bool, at *point) script.Call {
	k := s.keys
	var stopArg any = stop
	if size {
		stopArg = ""
	}
	cursor, afterValue, afterMember := "", "", ""
	if at != nil {
		cursor = "1"
		if at.member != "" {
			afterValue, afterMember = at.value, k.ArticlePrefix()+at.member
		}
	}
	g := script.GroupPage{
		Cache: k.GroupCache(group, int(order)), Group: k.GroupSet(group), Index: k.Index(int(order)), ByTime: k.TimeIndex(),
		Trimmed: k.TrimmedHash(), Indexed: k.IndexedHash(),

		TTLMillis: s.groupTTL.Milliseconds(), Start: start, Stop: stopArg, Field: schema.MarkField(&schema.Orders[order], ""),
		Cut: cut, Batch: s.trimBatch, Built: schema.BuildField(int(order), false), Cursor: cursor, AfterValue: afterValue,
		AfterMember: afterMember,
	}
	return g.Call()
}

// unordered is the schema.OrderSpec of a listing that is no order's index.
var unordered schema.OrderSpec

// plainListing is the listing of a sorted set that is always complete.
func plainListing(key string) listing {
	return listing{spec: &unordered, index: key}
}

// entries reads the page w of l's index, highest value first, entries and
// their values, and for a page by cursor the cursor of the page after it
// (window.cut, in paging.go). prefix is what the index's members have
// before what a cursor holds of them (a comment's id), so that a cursor
// carries no key of the namespace.
func (s *Store) entries(c rconn.Link, l listing, w window, list, scope, prefix string, within func(value any) bool) (page []any, next string, err error) {
	if w.past {
		return nil, "", nil
	}
	page, err = s.readWindow(c, l, w, prefix)
	if err != nil || w.byNumber {
		return page, "", err
	}
	page, next = w.cut(page, list, scope, prefix, within)
	return page, next, nil
}

// readWindow sends w's read of l's index (read, with what it needs before
// it) and gives the entries and values it read.
func (s *Store) readWindow(c rconn.Link, l listing, w window, prefix string) ([]any, error) {
	read, after := w.read(l.index, prefix)
	reply, err := s.read(c, l, read)
	if rconn.NoScript(err) {
		// Redis does not have the script yet: the read before it ran; run
		// the script once on its own, which sends its source.
		reply, err = c.Run(after.Call().Eval())
	}
	return w.entries(reply, err, l.index, read.Name)
}
