package voting

// This file holds the listings: a page of articles in an order, across the
// site or within a group, and how many articles a listing holds.

import (
	"context"
	"fmt"
	"math"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// GetArticles returns a page of articles across the site, in the given
// order: one the Store keeps (ByScore, ByTime and those given to
// WithOrders; another gives an error wrapping ErrInvalid). Pages count from
// 1; a page past the end is empty. A page of a top-of-window order holds
// only articles posted within the window by the Store's clock. A page of an
// index that does not hold every article yet (an order kept since after
// articles were posted, until Reindex builds it) is an error wrapping
// ErrNotIndexed, not a short page. It takes two
// round trips to Redis whatever the page size; a top-of-window page may take
// more when many articles have aged out of the window since it was last
// listed, each step a bounded one.
func (s *Store) GetArticles(ctx context.Context, page int, order Order) ([]Article, error) {
	start, stop, past, err := s.pageRange(page, order)
	if err != nil || past {
		return emptyPage(err, "list articles by "+order.String())
	}
	articles, err := s.list(ctx, s.siteListing(order), start, stop)
	if err != nil {
		return nil, failed(err, "list articles by "+order.String())
	}
	return articles, nil
}

// emptyPage is a listing's answer before any round trip: its error, as op's,
// or an empty page.
func emptyPage(err error, op string) ([]Article, error) {
	if err != nil {
		return nil, failed(err, op)
	}
	return []Article{}, nil
}

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
	// (built.go); "" for one always built.
	built string
}

func (s *Store) siteListing(o Order) listing {
	return listing{order: o, spec: &schema.Orders[o], index: s.keys.Index(int(o)), byTime: s.keys.TimeIndex(),
		field: schema.MarkField(&schema.Orders[o], ""), built: schema.BuildField(int(o), false)}
}

func (s *Store) liveListing(group string, o Order) listing {
	return listing{order: o, spec: &schema.Orders[o], index: s.keys.LiveIndex(group, int(o)),
		byTime: s.keys.LiveIndex(group, int(ByTime)), field: schema.MarkField(&schema.Orders[o], group), built: schema.BuildField(int(o), true)}
}

// list reads the articles of one page of l, from start to stop, in two
// round trips: the page of ids, trimmed to its window first for a
// top-of-window order, then the articles.
func (s *Store) list(ctx context.Context, l listing, start, stop int64) ([]Article, error) {
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
		articles, _, err = s.fetch(c, page, withScores)
		return err
	})
	return articles, err
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
		reply, err := c.Do(read.Name, read.Args...)
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
			first = rconn.Command{Name: "EVALSHA", Args: s.trimCall(l, cut).Eval().Args}
		} else {
			first = rconn.Command{Name: "HGET", Args: []any{s.keys.IndexedHash(), l.built}}
		}
		var cmds []rconn.Command
		if l.spec.Window > 0 {
			cmds = []rconn.Command{first, read}
		} else {
			// An empty namespace's indexes are complete, marked or not.
			cmds = []rconn.Command{first, {Name: "EXISTS", Args: []any{s.keys.TimeIndex()}}, read}
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
			mark, err := redis.String(replies[0], nil)
			if err != nil && err != redis.ErrNil {
				return nil, errs.WrongType(err, s.keys.IndexedHash(), "HGET")
			}
			articles, _ := redis.Int(replies[1], nil)
			built = mark == schema.BuiltYes || articles == 0
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

// pageRange checks page and order and gives the page's ZREVRANGE bounds.
// past reports a page so far on that its bounds overflow: past any index's
// end, so empty.
func (s *Store) pageRange(page int, order Order) (start, stop int64, past bool, err error) {
	if _, err = s.checkOrder(order); err != nil {
		return 0, 0, false, err
	}
	return s.pageBounds(page)
}

// pageBounds checks page and gives its bounds, as pageRange does.
func (s *Store) pageBounds(page int) (start, stop int64, past bool, err error) {
	if page < 1 {
		return 0, 0, false, errs.Invalidf("page %d is before page 1", page)
	}
	size := int64(s.pageSize)
	if int64(page-1) > (math.MaxInt64-size)/size {
		return 0, 0, true, nil
	}
	start = int64(page-1) * size
	return start, start + size - 1, false, nil
}

// fetch reads the articles of an index page in one pipelined round trip,
// keeping their order. page is a ZREVRANGE reply: members, or with
// withScores members and their scores; without scores fetch reads each
// article's score from the score index too. A member that is not an article
// of the namespace, whose hash or score is gone, or whose fields or score do
// not parse (a score that is not finite among them) is skipped: one bad
// record does not break a listing, nor its encoding as JSON. gone holds the
// members of the page whose article is gone (no hash or no score), as the
// page gave them.
func (s *Store) fetch(c rconn.Link, page []any, withScores bool) (articles []Article, gone []any, err error) {
	step := 1
	if withScores {
		step = 2
	}
	n := len(page) / step
	if n == 0 {
		return []Article{}, nil, nil
	}
	prefix := s.keys.ArticlePrefix()
	entries := make([]pageEntry, 0, n)
	cmds := make([]rconn.Command, 0, n+1)
	// The HMGETs' arguments, then ZMSCORE's, share one allocation, and each
	// member goes in as the reply gave it, already an interface value.
	args := make([]any, 0, n*(1+len(articleFields))+(n+maxScoresPerCommand-1)/maxScoresPerCommand+n)
	for i := 0; i+step <= len(page); i += step {
		member, ok := page[i].([]byte)
		if !ok || len(member) <= len(prefix) || string(member[:len(prefix)]) != prefix ||
			checkIDBytes(member[len(prefix):]) != nil {
			continue
		}
		e := pageEntry{id: member[len(prefix):], member: page[i]}
		if withScores {
			e.score = page[i+1]
		}
		entries = append(entries, e)
		at := len(args)
		args = append(append(args, page[i]), articleFields...)
		cmds = append(cmds, rconn.Command{Name: "HMGET", Args: args[at:len(args):len(args)]})
	}
	if len(entries) == 0 {
		return []Article{}, nil, nil
	}
	if !withScores {
		// ZMSCOREs of at most maxScoresPerCommand members each, so that no
		// one rconn.Command holds Redis for long, however many articles.
		hmgets := len(cmds)
		for from := 0; from < hmgets; from += maxScoresPerCommand {
			at := len(args)
			args = append(args, s.keys.ScoreIndex())
			for _, cmd := range cmds[from:min(from+maxScoresPerCommand, hmgets)] {
				args = append(args, cmd.Args[0])
			}
			cmds = append(cmds, rconn.Command{Name: "ZMSCORE", Args: args[at:len(args):len(args)]})
		}
	}
	replies, err := c.Pipeline(cmds)
	if err != nil {
		return nil, nil, err
	}
	if !withScores {
		i := 0
		for _, reply := range replies[len(entries):] {
			scores, err := redis.Values(reply, nil)
			if err != nil {
				return nil, nil, errs.WrongType(err, s.keys.ScoreIndex(), "ZMSCORE")
			}
			for _, score := range scores {
				if i < len(entries) {
					entries[i].score = score
				}
				i++
			}
		}
		if i != len(entries) {
			return nil, nil, fmt.Errorf("ZMSCORE gave %d scores for %d members", i, len(entries))
		}
	}
	articles = make([]Article, 0, len(entries))
	for i, e := range entries {
		a, ok, err := parseArticle(e.id, replies[i], e.score)
		switch {
		case ok && err == nil:
			articles = append(articles, a)
		case !ok && err == nil:
			gone = append(gone, e.member)
		}
	}
	return articles, gone, nil
}

// maxScoresPerCommand is the most members one ZMSCORE of fetch reads: a
// batch of Articles of any size is read in one round trip, in commands of
// bounded work.
const maxScoresPerCommand = 1000

// A pageEntry is an article that fetch reads: its id, its member as the
// page gave it, and its score once known.
type pageEntry struct {
	id     []byte
	member any
	score  any
}

// Rank returns an article's place in the site's listing of the order, one
// the Store keeps, counting from 1, so that a page can say "#3 today": the
// place it would have on a page read at the same moment (a window's index is
// trimmed first, as a listing's is). It returns an error wrapping
// ErrNotFound if the listing does not hold the article (there is no such
// article, or it has aged out of the window). It takes one round trip.
func (s *Store) Rank(ctx context.Context, articleID string, order Order) (rank int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "rank of article "+idText(articleID)+" by "+order.String())
		}
	}()
	if err := checkID(articleID); err != nil {
		return 0, err
	}
	if _, err := s.checkOrder(order); err != nil {
		return 0, err
	}
	l := s.siteListing(order)
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
	return rank, err
}

// CountArticles returns how many articles a listing of the order holds
// across the site, for a page count ("page 3 of 40"): the size of the
// order's index, one the Store keeps. A window order's count is that
// window's, at the moment of the call by the Store's clock, trimmed first
// as a listing is. It takes one round trip, O(1) on the server (a window
// long unlisted may take a few more, each a bounded trim).
func (s *Store) CountArticles(ctx context.Context, order Order) (int64, error) {
	if _, err := s.checkOrder(order); err != nil {
		return 0, failed(err, "count articles by "+order.String())
	}
	n, err := s.count(ctx, s.siteListing(order))
	if err != nil {
		return 0, failed(err, "count articles by "+order.String())
	}
	return n, nil
}

// count is the size of l's index; a window's index is trimmed first.
func (s *Store) count(ctx context.Context, l listing) (int64, error) {
	var n int64
	err := s.rc.Session(ctx, func(c rconn.Link) error {
		var err error
		n, err = redis.Int64(s.read(c, l, rconn.Command{Name: "ZCARD", Args: []any{l.index}}))
		return err
	})
	return n, err
}
