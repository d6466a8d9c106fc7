package voting

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// An Article is one posted article as stored in its hash, with its score.
// It encodes to JSON with lower-case names and its time in RFC 3339, so a
// handler can write it as it is:
//
//	{"id":"7","title":"...","link":"https://...","poster":"alice",
//	 "posted":"2026-11-22T12:00:00Z","score":1795435632,"votes":1,"downvotes":0}
type Article struct {
	ID        string    `json:"id"` // "7" for the hash article:7
	Title     string    `json:"title"`
	Link      string    `json:"link"`
	Poster    string    `json:"poster"`
	Posted    time.Time `json:"posted"` // posting time, in UTC
	Score     float64   `json:"score"`  // Posted in Unix seconds + W x (Votes - Downvotes)
	Votes     int64     `json:"votes"`  // up-votes, the poster's own included (the book's "votes")
	Downvotes int64     `json:"downvotes"`
}

// articleFields are the hash fields an Article is read from, in the order
// parseArticle takes them; articleFieldNames are the same as strings, and
// the score after them.
var (
	articleFields     = []any{"title", "link", "poster", "time", "votes", "downvotes"}
	articleFieldNames = [...]string{"field title", "field link", "field poster", "field time", "score"}
)

// PostArticle posts an article by poster, counts the poster's up-vote, and
// adds it to the given groups, all in one atomic step. It returns the new
// article's id.
//
// The title is 1 to MaxTitleLen characters, the link an absolute http or
// https URL of at most MaxLinkLen bytes, the poster a user id (see Vote).
func (s *Store) PostArticle(ctx context.Context, poster, title, link string, groups ...string) (id string, err error) {
	if err := checkText("poster", poster, MaxUserLen); err != nil {
		return "", err
	}
	if err := checkText("title", title, MaxTitleLen); err != nil {
		return "", err
	}
	if err := checkLink(link); err != nil {
		return "", err
	}
	if err := checkGroups(groups); err != nil {
		return "", err
	}
	now := s.now()
	if err := checkClock(now); err != nil {
		return "", err
	}
	k := s.keys
	// The indexes beyond the book's two: the kept orders', then, with live
	// groups, each group's of each kept order.
	indexes := len(s.extra)
	if s.live {
		indexes += len(groups) * len(s.kept)
	}
	keys := make([]string, 0, 6+indexes+len(groups))
	keys = append(keys, k.counter(), k.scoreIndex(), k.timeIndex(), k.trimmedHash())
	posted := unixSeconds(now)
	score := float64(now.UnixMicro())/1e6 + s.weight
	args := make([]any, 0, 12+3*indexes+len(groups))
	args = append(args, k.articlePrefix(), k.votedPrefix(), k.downvotedPrefix(), title, link, poster, posted,
		formatFloat(score), s.cutoff.Milliseconds(), k.recordPrefix(), indexes)
	for _, x := range s.extra {
		keys = append(keys, x.key)
	}
	args = s.extraArgs(args, now)
	if s.live {
		for _, g := range groups {
			for _, o := range s.kept {
				keys = append(keys, k.liveIndex(g, o))
				args = indexArgs(args, &orders[o], g, now)
			}
		}
	}
	keys = append(keys, k.groupNames())
	args = append(args, s.history.Milliseconds())
	if s.history > 0 {
		keys = append(keys, k.userHistory(poster))
	}
	for _, g := range groups {
		keys = append(keys, k.groupSet(g))
		args = append(args, g)
	}

	reply, err := redis.String(s.script(ctx, postScript, keys, args...))
	if err != nil {
		return "", fmt.Errorf("voting: post article: %w", err)
	}
	word, detail, _ := strings.Cut(reply, " ")
	switch word {
	case replyOK:
		return detail, nil
	case replyTaken:
		return "", fmt.Errorf("%w: post article: the counter %s is behind existing data: %s exists", ErrCorrupt, k.counter(), detail)
	case replyFull:
		return "", fmt.Errorf("voting: post article: the counter %s is at the largest id", k.counter())
	}
	return "", scriptError("post article", word, detail)
}

// Article returns one article. It returns an error wrapping ErrNotFound if
// there is no such article.
func (s *Store) Article(ctx context.Context, articleID string) (Article, error) {
	if err := checkID(articleID); err != nil {
		return Article{}, err
	}
	member := s.keys.articleHash(articleID)
	replies, err := s.pipeline(ctx, []command{
		{"HMGET", append([]any{member}, articleFields...)},
		{"ZSCORE", []any{s.keys.scoreIndex(), member}},
	})
	if err != nil {
		return Article{}, fmt.Errorf("voting: article %s: %w", articleID, err)
	}
	a, ok, err := parseArticle([]byte(articleID), replies[0], replies[1])
	if err != nil {
		return Article{}, err
	}
	if !ok {
		return Article{}, fmt.Errorf("%w: article %s", ErrNotFound, articleID)
	}
	return a, nil
}

// GetArticles returns a page of articles across the site, in the given
// order: one the Store keeps (ByScore, ByTime and those given to
// WithOrders; another gives an error wrapping ErrInvalid). Pages count from
// 1; a page past the end is empty. A page of a top-of-window order holds
// only articles posted within the window by the Store's clock. It takes two
// round trips to Redis whatever the page size; a top-of-window page may take
// more when many articles have aged out of the window since it was last
// listed, each step a bounded one.
func (s *Store) GetArticles(ctx context.Context, page int, order Order) ([]Article, error) {
	_, start, stop, past, err := s.pageRange(page, order)
	if err != nil {
		return nil, err
	}
	if past {
		return []Article{}, nil
	}
	articles, err := s.list(ctx, s.siteListing(order), start, stop)
	if err != nil {
		return nil, fmt.Errorf("voting: list articles by %v: %w", order, err)
	}
	return articles, nil
}

// A listing is an index that pages are read from: the site's index of an
// order, or a group's live index of it.
type listing struct {
	order Order
	spec  *orderSpec
	index string
	// byTime and field are, for a top-of-window order, the time index the
	// window is trimmed along (the site's, or the group's live one) and the
	// field of its mark in trimmed:.
	byTime, field string
}

func (s *Store) siteListing(o Order) listing {
	return listing{order: o, spec: &orders[o], index: s.keys.index(o), byTime: s.keys.timeIndex(), field: markField(&orders[o], "")}
}

func (s *Store) liveListing(group string, o Order) listing {
	return listing{order: o, spec: &orders[o], index: s.keys.liveIndex(group, o),
		byTime: s.keys.liveIndex(group, ByTime), field: markField(&orders[o], group)}
}

// list reads the articles of one page of l, from start to stop, in two
// round trips: the page of ids, trimmed to its window first for a
// top-of-window order, then the articles.
func (s *Store) list(ctx context.Context, l listing, start, stop int64) ([]Article, error) {
	var articles []Article
	err := s.session(ctx, func(c redis.Conn) error {
		// By score, the page's scores come with it; in any other order,
		// fetch reads them from the score index.
		withScores := l.order == ByScore
		var page []any
		var err error
		switch {
		case withScores:
			page, err = redis.Values(do(ctx, c, "ZREVRANGE", l.index, start, stop, "WITHSCORES"))
		case l.spec.window > 0:
			page, err = s.windowPage(ctx, c, l, start, stop)
		default:
			page, err = redis.Values(do(ctx, c, "ZREVRANGE", l.index, start, stop))
		}
		if err != nil {
			return err
		}
		articles, _, err = s.fetch(ctx, c, page, withScores)
		return err
	})
	return articles, err
}

// defaultTrimBatch is how many aged-out articles one script takes out of a
// top-of-window index at most: about a millisecond of Redis's time.
const defaultTrimBatch = 500

// windowCut is the posting time that leaves spec's window now, by the
// Store's clock: an article posted at or before it is out of the window.
// It is "" for an order with no window.
func (s *Store) windowCut(spec *orderSpec) (string, error) {
	if spec.window == 0 {
		return "", nil
	}
	now := s.now()
	if err := checkClock(now); err != nil {
		return "", err
	}
	return spec.cut(now), nil
}

// cut is the posting time that leaves a top-of-window order's window at
// now: an article posted at or before it is out.
func (spec *orderSpec) cut(now time.Time) string { return unixSeconds(now.Add(-spec.window)) }

// extraArgs appends, for each index the Store keeps beyond the book's two,
// what the post and Reindex scripts take of it (see indexArgs).
func (s *Store) extraArgs(args []any, now time.Time) []any {
	for _, x := range s.extra {
		args = indexArgs(args, &orders[x.order], "", now)
	}
	return args
}

// indexArgs appends what the post and Reindex scripts take of an index of
// spec's order, the site's for group "" or else that group's live index:
// what it holds, the field of its mark in trimmed: and its window's cut at
// now ("" and "" for an order with no window).
func indexArgs(args []any, spec *orderSpec, group string, now time.Time) []any {
	cut := ""
	if spec.window > 0 {
		cut = spec.cut(now)
	}
	return append(args, string(spec.holds), markField(spec, group), cut)
}

// trimReply is what a listing does with a trim script's answer other than
// ok: nothing for "more" (run it again, unless ctx has ended), an error for
// anything else.
func trimReply(ctx context.Context, word string, spec *orderSpec) error {
	if word == replyMore {
		return ctx.Err()
	}
	word, detail, _ := strings.Cut(word, " ")
	return scriptError("list by "+spec.name, word, detail)
}

// trimming runs a script that trims a top-of-window index first (or, for
// an order with no window, does not), again while it answers that more is
// left to trim, and returns the page of ids it gives, or nil for a script
// that answers ok. args gives the script's arguments for the window's cut.
func (s *Store) trimming(ctx context.Context, c redis.Conn, sc *script, keys []string,
	args func(cut string) []any, spec *orderSpec) ([]any, error) {
	for {
		cut, err := s.windowCut(spec)
		if err != nil {
			return nil, err
		}
		reply, err := run(ctx, c, sc, keys, args(cut)...)
		if err != nil {
			return nil, err
		}
		if page, ok := reply.([]any); ok {
			return page, nil
		}
		word, err := redis.String(reply, nil)
		if err != nil {
			return nil, err
		}
		if word == replyOK {
			return nil, nil
		}
		if err := trimReply(ctx, word, spec); err != nil {
			return nil, err
		}
	}
}

// windowPage reads a page of a top-of-window listing, trimmed to the
// window first.
func (s *Store) windowPage(ctx context.Context, c redis.Conn, l listing, start, stop int64) ([]any, error) {
	reply, err := s.windowRead(ctx, c, l, command{"ZREVRANGE", []any{l.index, start, stop}})
	if err != nil {
		return nil, err
	}
	return redis.Values(reply, nil)
}

// windowRead sends read, a read of a top-of-window listing's index, right
// after the script that trims the index to the window, in one round trip:
// Redis runs the one right after the other, so that read sees exactly the
// articles within the window, and no reply passes through Lua. It returns
// read's reply.
func (s *Store) windowRead(ctx context.Context, c redis.Conn, l listing, read command) (any, error) {
	keys := []string{l.index, l.byTime, s.keys.trimmedHash()}
	for {
		cut, err := s.windowCut(l.spec)
		if err != nil {
			return nil, err
		}
		replies, err := pipeline(ctx, c, []command{
			{"EVALSHA", evalArgs(windowTrimScript, keys, l.field, cut, s.trimBatch)},
			read,
		})
		if err != nil {
			return nil, err
		}
		if noScript(replies[0]) {
			// Redis does not have the script yet: run it once on its own,
			// which sends its source, then read again.
			if err := s.trimWindow(ctx, c, l); err != nil {
				return nil, err
			}
			continue
		}
		word, err := redis.String(replies[0], nil)
		if err != nil {
			return nil, err
		}
		if word == replyOK {
			if rerr, ok := replies[1].(redis.Error); ok {
				if strings.HasPrefix(string(rerr), "WRONGTYPE") {
					return nil, fmt.Errorf("%w: %s is of the wrong type for %s", ErrCorrupt, l.index, read.name)
				}
				return nil, rerr
			}
			return replies[1], nil
		}
		if err := trimReply(ctx, word, l.spec); err != nil {
			return nil, err
		}
	}
}

// trimWindow trims a top-of-window listing to its window, in steps.
func (s *Store) trimWindow(ctx context.Context, c redis.Conn, l listing) error {
	_, err := s.trimming(ctx, c, windowTrimScript, []string{l.index, l.byTime, s.keys.trimmedHash()},
		func(cut string) []any { return []any{l.field, cut, s.trimBatch} }, l.spec)
	return err
}

// pageRange checks page and order and gives the order's row and the page's
// ZREVRANGE bounds. past reports a page so far on that its bounds overflow:
// past any index's end, so empty.
func (s *Store) pageRange(page int, order Order) (spec *orderSpec, start, stop int64, past bool, err error) {
	if spec, err = s.checkOrder(order); err != nil {
		return nil, 0, 0, false, err
	}
	start, stop, past, err = s.pageBounds(page)
	return spec, start, stop, past, err
}

// pageBounds checks page and gives its bounds, as pageRange does.
func (s *Store) pageBounds(page int) (start, stop int64, past bool, err error) {
	if page < 1 {
		return 0, 0, false, invalid("page %d is before page 1", page)
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
// of the namespace, whose hash or score is gone, or whose fields do not
// parse is skipped: one bad record does not break a listing. gone holds the
// members of the page whose article is gone (no hash or no score), as the
// page gave them.
func (s *Store) fetch(ctx context.Context, c redis.Conn, page []any, withScores bool) (articles []Article, gone []any, err error) {
	step := 1
	if withScores {
		step = 2
	}
	n := len(page) / step
	if n == 0 {
		return []Article{}, nil, nil
	}
	prefix := s.keys.articlePrefix()
	entries := make([]pageEntry, 0, n)
	cmds := make([]command, 0, n+1)
	// The HMGETs' arguments, then ZMSCORE's, share one allocation, and each
	// member goes in as the reply gave it, already an interface value.
	args := make([]any, 0, n*(1+len(articleFields))+1+n)
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
		cmds = append(cmds, command{"HMGET", args[at:len(args):len(args)]})
	}
	if len(entries) == 0 {
		return []Article{}, nil, nil
	}
	if !withScores {
		at := len(args)
		args = append(args, s.keys.scoreIndex())
		for _, cmd := range cmds {
			args = append(args, cmd.args[0])
		}
		cmds = append(cmds, command{"ZMSCORE", args[at:]})
	}
	replies, err := pipeline(ctx, c, cmds)
	if err != nil {
		return nil, nil, err
	}
	if !withScores {
		scores, err := redis.Values(replies[len(entries)], nil)
		if err != nil {
			return nil, nil, wrongType(err, s.keys.scoreIndex(), "ZMSCORE")
		}
		if len(scores) != len(entries) {
			return nil, nil, fmt.Errorf("ZMSCORE gave %d scores for %d members", len(scores), len(entries))
		}
		for i := range entries {
			entries[i].score = scores[i]
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

// A pageEntry is an article that fetch reads: its id, its member as the
// page gave it, and its score once known.
type pageEntry struct {
	id     []byte
	member any
	score  any
}

// parseArticle reads an article from its id, its HMGET of articleFields and
// its score. ok is false if the article is gone: no hash (no time field) or
// no score. An error, wrapping ErrCorrupt, names what does not parse.
func parseArticle(id []byte, fields, score any) (a Article, ok bool, err error) {
	corrupt := func(what string, err error) (Article, bool, error) {
		return Article{}, false, fmt.Errorf("%w: article %s: %s: %v", ErrCorrupt, id, what, err)
	}
	vals, err := redis.Values(fields, nil)
	if err != nil {
		return corrupt("hash", err)
	}
	if len(vals) != len(articleFields) {
		return corrupt("hash", fmt.Errorf("HMGET gave %d fields, want %d", len(vals), len(articleFields)))
	}
	if vals[3] == nil || score == nil {
		return Article{}, false, nil
	}
	// The id, the text fields, the time and the score are read from one
	// string, so that an article costs one allocation for them all.
	parts := [6][]byte{id}
	size := len(id)
	for i, v := range [...]any{vals[0], vals[1], vals[2], vals[3], score} {
		b, ok := v.([]byte)
		if v != nil && !ok {
			return corrupt(articleFieldNames[i], fmt.Errorf("unexpected %T", v))
		}
		parts[i+1] = b
		size += len(b)
	}
	var all strings.Builder
	all.Grow(size)
	for _, b := range parts {
		all.Write(b)
	}
	text := all.String()
	var field [6]string
	for i, b := range parts {
		field[i], text = text[:len(b)], text[len(b):]
	}
	a = Article{ID: field[0], Title: field[1], Link: field[2], Poster: field[3]}
	if a.Posted, err = parseUnixSeconds(field[4]); err != nil {
		return corrupt("field time", err)
	}
	if a.Score, err = strconv.ParseFloat(field[5], 64); err != nil {
		return corrupt("score", err)
	}
	if a.Votes, err = parseCount(vals[4]); err != nil {
		return corrupt("field votes", err)
	}
	if a.Downvotes, err = parseCount(vals[5]); err != nil {
		return corrupt("field downvotes", err)
	}
	return a, true, nil
}
