package voting

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// An Article is one posted article as stored in its hash, with its score.
type Article struct {
	ID        string // "7" for the hash article:7
	Title     string
	Link      string
	Poster    string
	Posted    time.Time // posting time, in UTC
	Score     float64   // Posted in Unix seconds + W x (Votes - Downvotes)
	Votes     int64     // up-votes, the poster's own included (the book's "votes")
	Downvotes int64
}

// articleFields are the hash fields an Article is read from, in the order
// parseArticle takes them.
var articleFields = []any{"title", "link", "poster", "time", "votes", "downvotes"}

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
	keys := []string{k.counter(), k.scoreIndex(), k.timeIndex()}
	for _, g := range groups {
		keys = append(keys, k.group(g))
	}
	posted := unixSeconds(now)
	score := float64(now.UnixMicro())/1e6 + s.weight

	reply, err := redis.String(s.script(ctx, postScript, keys,
		k.articlePrefix(), k.votedPrefix(), k.downvotedPrefix(), title, link, poster, posted,
		formatFloat(score), s.cutoff.Milliseconds()))
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
	a, ok, err := parseArticle(articleID, replies[0], replies[1])
	if err != nil {
		return Article{}, err
	}
	if !ok {
		return Article{}, fmt.Errorf("%w: article %s", ErrNotFound, articleID)
	}
	return a, nil
}

// GetArticles returns a page of articles across the site, highest score or
// newest first. Pages count from 1; a page past the end is empty. It takes two
// round trips to Redis whatever the page size.
func (s *Store) GetArticles(ctx context.Context, page int, order Order) ([]Article, error) {
	start, stop, past, err := s.pageRange(page, order)
	if err != nil {
		return nil, err
	}
	if past {
		return []Article{}, nil
	}
	var articles []Article
	err = s.session(ctx, func(c redis.Conn) error {
		members, err := redis.Strings(do(ctx, c, "ZREVRANGE", s.keys.index(order), start, stop))
		if err != nil {
			return err
		}
		articles, err = s.fetch(ctx, c, members)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("voting: list articles %v: %w", order, err)
	}
	return articles, nil
}

// pageRange checks page and order and gives the page's ZREVRANGE bounds.
// past reports a page so far on that its bounds overflow: past any index's
// end, so empty.
func (s *Store) pageRange(page int, order Order) (start, stop int64, past bool, err error) {
	if err := checkOrder(order); err != nil {
		return 0, 0, false, err
	}
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

// fetch reads the articles of index members in one pipelined round trip,
// keeping their order. A member that is not an article of the namespace,
// whose hash or score is gone, or whose fields do not parse is skipped: one
// bad record does not break a listing.
func (s *Store) fetch(ctx context.Context, c redis.Conn, members []string) ([]Article, error) {
	ids := make([]string, 0, len(members))
	cmds := make([]command, 0, len(members)+1)
	zmscore := make([]any, 1, len(members)+1)
	zmscore[0] = s.keys.scoreIndex()
	for _, m := range members {
		id, ok := s.keys.articleID(m)
		if !ok || checkID(id) != nil {
			continue
		}
		ids = append(ids, id)
		cmds = append(cmds, command{"HMGET", append([]any{m}, articleFields...)})
		zmscore = append(zmscore, m)
	}
	if len(ids) == 0 {
		return []Article{}, nil
	}
	cmds = append(cmds, command{"ZMSCORE", zmscore})
	replies, err := pipeline(ctx, c, cmds)
	if err != nil {
		return nil, err
	}
	scores, err := redis.Values(replies[len(ids)], nil)
	if err != nil {
		return nil, err
	}
	if len(scores) != len(ids) {
		return nil, fmt.Errorf("ZMSCORE gave %d scores for %d members", len(scores), len(ids))
	}
	articles := make([]Article, 0, len(ids))
	for i, id := range ids {
		if a, ok, err := parseArticle(id, replies[i], scores[i]); ok && err == nil {
			articles = append(articles, a)
		}
	}
	return articles, nil
}

// parseArticle reads an article from its HMGET of articleFields and its
// score. ok is false if the article is gone: no hash (no time field) or no
// score. An error, wrapping ErrCorrupt, names what does not parse.
func parseArticle(id string, fields, score any) (a Article, ok bool, err error) {
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
	str := func(v any) string { s, _ := redis.String(v, nil); return s }
	a = Article{ID: id, Title: str(vals[0]), Link: str(vals[1]), Poster: str(vals[2])}
	if a.Posted, err = parseUnixSeconds(str(vals[3])); err != nil {
		return corrupt("field time", err)
	}
	if a.Score, err = redis.Float64(score, nil); err != nil {
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
