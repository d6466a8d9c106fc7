package voting

// This file holds the reads of articles: one (Article), or many in one
// round trip (Articles, and fetch, which every listing reads its page's
// articles with).

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// Article returns one article, with its groups, in one round trip. It
// returns an error wrapping ErrNotFound if there is no such article.
func (s *Store) Article(ctx context.Context, articleID string) (a Article, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "article "+idText(articleID))
		}
	}()
	if err := checkID(articleID); err != nil {
		return Article{}, err
	}
	return s.article(ctx, articleID)
}

// article reads the article of a well-formed id, as Article does.
func (s *Store) article(ctx context.Context, articleID string) (Article, error) {
	member := s.keys.ArticleHash(articleID)
	cmds := []rconn.Command{
		{Name: "HMGET", Args: append([]any{member}, articleFields...)},
		{Name: "ZSCORE", Args: []any{s.keys.ScoreIndex(), member}},
		{Name: "SMEMBERS", Args: []any{s.keys.GroupRecord(articleID)}},
	}
	replies, err := s.rc.CheckedPipeline(ctx, cmds)
	if err != nil {
		return Article{}, err
	}
	a, ok, err := parseArticle([]byte(articleID), replies[0], replies[1])
	if err != nil {
		return Article{}, err
	}
	if !ok {
		return Article{}, ErrNotFound
	}
	if a.Groups, err = redis.Strings(replies[2], nil); err != nil {
		return Article{}, err
	}
	sort.Strings(a.Groups)
	return a, nil
}

// Articles returns the articles of the ids, with their groups, in the order
// given, in one round trip whatever their number: each id's hash and record
// of its groups, and the scores in
// commands of at most a thousand ids, so that no rconn.Command holds Redis for
// long. An id with no article is left out, as is one whose stored fields
// do not parse (which Article reports as ErrCorrupt), as listings leave
// them out; an id given twice is returned twice. A malformed id is an
// error wrapping ErrInvalid, before anything is sent.
func (s *Store) Articles(ctx context.Context, ids ...string) (articles []Article, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("read %d articles", len(ids)))
		}
	}()
	for _, id := range ids {
		if err := checkID(id); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 {
		return []Article{}, nil
	}
	page := make([]any, len(ids))
	for i, id := range ids {
		page[i] = []byte(s.keys.ArticleHash(id))
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		articles, _, err = s.fetch(c, page, false, true)
		return err
	})
	return articles, err
}

// parseArticle reads an article from its id, its HMGET of articleFields and
// its score. ok is false if the article is gone: no hash (no time field) or
// no score. An error, wrapping ErrCorrupt, names what does not parse,
// which includes a score that is not finite (JSON cannot carry it).
func parseArticle(id []byte, fields, score any) (a Article, ok bool, err error) {
	unsound := func(what string, err error) (Article, bool, error) {
		return Article{}, false, errs.Corruptf("%s: %v", what, err)
	}
	vals, err := redis.Values(fields, nil)
	if err != nil {
		return unsound("hash", err)
	}
	if len(vals) != len(articleFields) {
		return unsound("hash", fmt.Errorf("HMGET gave %d fields, want %d", len(vals), len(articleFields)))
	}
	if vals[nTexts+2] == nil || score == nil {
		return Article{}, false, nil
	}
	// The id, the text fields, the link, the poster, the time and the
	// score are read from one string, so that an article costs one
	// allocation for them all.
	var parts [nTexts + 5][]byte
	parts[0] = id
	size := len(id)
	for i := range nTexts + 4 {
		v := score
		if i < nTexts+3 {
			v = vals[i]
		}
		b, ok := v.([]byte)
		if v != nil && !ok {
			return unsound(articleFieldNames[i], fmt.Errorf("unexpected %T", v))
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
	var field [nTexts + 5]string
	for i, b := range parts {
		field[i], text = text[:len(b)], text[len(b):]
	}
	a = Article{ID: field[0], Link: field[nTexts+1], Poster: field[nTexts+2]}
	for i := range nTexts {
		*a.text(i) = field[i+1]
	}
	if a.Posted, err = schema.ParseUnixSeconds(field[nTexts+3]); err != nil {
		return unsound("field time", err)
	}
	if a.RankingScore, err = strconv.ParseFloat(field[nTexts+4], 64); err != nil {
		return unsound("score", err)
	}
	if math.IsInf(a.RankingScore, 0) || math.IsNaN(a.RankingScore) {
		return unsound("score", fmt.Errorf("%q is not finite", field[nTexts+4]))
	}
	if a.Upvotes, err = schema.ParseCount(vals[nTexts+3]); err != nil {
		return unsound("field votes", err)
	}
	if a.Downvotes, err = schema.ParseCount(vals[nTexts+4]); err != nil {
		return unsound("field downvotes", err)
	}
	if a.Comments, err = schema.ParseCount(vals[nTexts+5]); err != nil {
		return unsound("field comments", err)
	}
	a.Points = a.Upvotes - a.Downvotes
	return a, true, nil
}

// fetch reads the articles of an index page in one pipelined round trip,
// keeping their order. page is a ZREVRANGE reply: members, or with
// withScores members and their scores; without scores fetch reads each
// article's score from the score index too. A member that is not an article
// of the namespace, whose hash or score is gone, or whose fields or score do
// not parse (a score that is not finite among them) is skipped: one bad
// record does not break a listing, nor its encoding as JSON. gone holds the
// members of the page whose article is gone (no hash or no score), as the
// page gave them. With withGroups it reads each article's record of its
// groups in the same round trip, into Article.Groups.
func (s *Store) fetch(c rconn.Link, page []any, withScores, withGroups bool) (articles []Article, gone []any, err error) {
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
	reads := len(cmds)
	if withGroups {
		for _, e := range entries {
			cmds = append(cmds, rconn.Command{Name: "SMEMBERS", Args: []any{s.keys.GroupRecord(string(e.id))}})
		}
	}
	replies, err := c.Pipeline(cmds)
	if err != nil {
		return nil, nil, err
	}
	groups := replies[reads:]
	replies = replies[:reads]
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
		if ok && err == nil && withGroups {
			// A record of the wrong type is skipped, as a hash that does
			// not parse is.
			a.Groups, err = redis.Strings(groups[i], nil)
			sort.Strings(a.Groups)
		}
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
