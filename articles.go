package voting

// This file holds an article: Article, how it is posted (PostArticle),
// edited (EditArticle) and read back, one (Article) or many in one round
// trip (Articles, fetch, which every listing reads its page's articles
// with).

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// An Article is one posted article as stored in its hash, with its score.
// It encodes to JSON with camel-case names and its time in RFC 3339, so a
// handler can write it as it is:
//
//	{"id":"7","title":"...","link":"https://...","poster":"alice",
//	 "posted":"2026-11-22T12:00:00Z","points":4,"upvotes":5,"downvotes":1,
//	 "rankingScore":1795437360,"comments":2,"groups":["go"]}
//
// Points is what a site shows beside a title. RankingScore is the book's
// score, which orders ByScore: a time, not a count of votes.
type Article struct {
	ID     string    `json:"id"` // "7" for the hash article:7
	Title  string    `json:"title"`
	Link   string    `json:"link"`
	Poster string    `json:"poster"`
	Posted time.Time `json:"posted"` // posting time, in UTC
	// Points is Upvotes - Downvotes, the net votes a site shows.
	Points int64 `json:"points"`
	// Upvotes counts up-votes, the poster's own included (the book's
	// "votes" field); Downvotes counts down-votes.
	Upvotes   int64 `json:"upvotes"`
	Downvotes int64 `json:"downvotes"`
	// RankingScore is the book's score: Posted in Unix seconds + the vote
	// weight x Points (432 a vote by default), so about 1.8e9 today.
	RankingScore float64 `json:"rankingScore"`
	// Comments counts the article's comments that are not deleted
	// (PostComment), read with the article at no cost of its own.
	Comments int64 `json:"comments"`
	// Groups are the names of the groups the article is in, sorted: filled
	// by Article and Articles, and by List when Query.WithGroups is set;
	// nil (and left out of JSON) otherwise. An article the book's own code
	// posted has no record of its groups until Reindex builds one.
	Groups []string `json:"groups,omitempty"`
}

// An articleText is a text field of an article's hash that no index
// reads, which the scripts store and set as they are (their list texts):
// a post stores it, Article returns it, an edit sets it. A new one is a row
// of articleTexts, a field of Article and its place (Article.text), and an
// argument of PostArticle and EditArticle.
type articleText struct {
	field string             // the hash's field; Article.text gives its place
	check func(string) error // its rule (validate.go)
}

// articleTexts are an article's text fields that no index reads.
var articleTexts = [...]articleText{
	{"title", checkTitle},
}

// text is the place in a of its text field i, that of articleTexts[i]. (A
// method, not a function of the table's, so that an Article read from a
// page stays off the heap.)
func (a *Article) text(i int) *string {
	switch articleTexts[i].field {
	case "title":
		return &a.Title
	}
	panic("voting: no place in an Article for the text field " + articleTexts[i].field)
}

// nTexts is how many there are; the fields an Article is read from are
// theirs, then the link, the poster, the time, the up-votes and the
// down-votes (articleFields).
const nTexts = len(articleTexts)

// articleFields are the hash fields an Article is read from, in the order
// parseArticle takes them; articleFieldNames are those it reads as text,
// and the score after them, as its errors name them.
var articleFields, articleFieldNames = func() ([]any, []string) {
	fields := make([]any, 0, nTexts+5)
	names := make([]string, 0, nTexts+4)
	for _, t := range articleTexts {
		fields, names = append(fields, t.field), append(names, "field "+t.field)
	}
	fields = append(fields, "link", "poster", "time", "votes", "downvotes", "comments")
	return fields, append(names, "field link", "field poster", "field time", "score")
}()

// checkTexts checks the text fields of a, each by its rule, and gives them
// as a script takes them.
func checkTexts(a *Article) ([]script.Text, error) {
	texts := make([]script.Text, nTexts)
	for i, t := range articleTexts {
		v := *a.text(i)
		if err := t.check(v); err != nil {
			return nil, err
		}
		texts[i] = script.Text{Name: t.field, Value: v}
	}
	return texts, nil
}

// PostArticle posts an article by poster, counts the poster's up-vote, and
// adds it to the given groups and to the poster's articles (Query.User),
// all in one atomic step. It returns the new article's id. With
// WithUniqueLinks, a link another article has is refused with an error
// wrapping ErrDuplicate that names it, and nothing is written.
//
// The title is 1 to MaxTitleLen characters, the link an absolute http or
// https URL of at most MaxLinkLen bytes, the poster a user id, and the
// groups at most MaxGroups distinct group names (a name given twice counts
// once): the package doc's Input section has the rules in full.
func (s *Store) PostArticle(ctx context.Context, poster, title, link string, groups ...string) (id string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "post article")
		}
	}()
	if err := checkText("poster", poster, MaxUserLen); err != nil {
		return "", err
	}
	texts, err := checkTexts(&Article{Title: title})
	if err != nil {
		return "", err
	}
	if err := checkLink(link); err != nil {
		return "", err
	}
	groups, err = distinctGroups(groups)
	if err != nil {
		return "", err
	}
	now := s.now()
	if err := schema.CheckClock(now); err != nil {
		return "", err
	}
	st, err := script.ReadStatus(s.writeReply(s.write(ctx, func(ns *state) script.Call {
		return s.postCall(ns, poster, texts, link, groups, now)
	})))
	if err != nil {
		return "", err
	}
	switch st.Word {
	case script.ReplyOK:
		return st.Detail, nil
	case script.ReplyTaken:
		return "", errs.Corruptf("the counter %s is behind existing data: %s exists", s.keys.Counter(), st.Detail)
	case script.ReplyFull:
		return "", fmt.Errorf("the counter %s is at the largest id", s.keys.Counter())
	}
	return "", st.Err()
}

// postCall is post.lua's run for a post.
func (s *Store) postCall(ns *state, poster string, texts []script.Text, link string, groups []string, now time.Time) script.Call {
	k := s.keys
	livePrefix := ""
	if ns.live {
		livePrefix = k.LivePrefix()
	}
	p := script.Post{
		Counter: k.Counter(), Trimmed: k.TrimmedHash(), Sizes: k.GroupSizes(), Indexed: k.IndexedHash(),
		Posts: k.UserPosts(poster), Config: k.Settings(), Indexes: ns.indexes, History: k.UserHistory(poster),

		Gen: ns.gen, Prefix: k.Prefix(), ArticlePrefix: k.ArticlePrefix(), VotedPrefix: k.VotedPrefix(), DownvotedPrefix: k.DownvotedPrefix(),
		RecordPrefix: k.RecordPrefix(), GroupPrefix: k.GroupSet(""), LivePrefix: livePrefix,
		Texts: texts, Link: link, Poster: poster, Posted: schema.UnixSeconds(now),
		Score: schema.FormatFloat(float64(now.UnixMicro())/1e6 + ns.weight), CutoffMillis: ns.cutoff.Milliseconds(),
		HistoryMillis: ns.history.Milliseconds(), Kinds: ns.hooked,
		Orders: scriptOrdersAt(ns.kept, now), Groups: groups, Built: ns.postBuilt, Unbuilt: ns.postUnbuilt,
	}
	return p.Call()
}

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

// EditArticle sets an article's title and link, by the rules of a post
// (the package doc's Input section), in one atomic step: its score, votes,
// groups and index entries are untouched. It returns an error wrapping
// ErrNotFound, and writes nothing, if there is no such article (none that
// Article finds). A new link frees the old one; with WithUniqueLinks, a
// link another article has is refused with an error wrapping ErrDuplicate
// that names it, and nothing is written.
func (s *Store) EditArticle(ctx context.Context, articleID, title, link string) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "edit article "+idText(articleID))
		}
	}()
	if err := checkID(articleID); err != nil {
		return err
	}
	texts, err := checkTexts(&Article{Title: title})
	if err != nil {
		return err
	}
	if err := checkLink(link); err != nil {
		return err
	}
	k := s.keys
	member := k.ArticleHash(articleID)
	st, err := script.ReadStatus(s.writeReply(s.write(ctx, func(ns *state) script.Call {
		e := script.Edit{Hash: member, ByScore: k.ScoreIndex(), Config: k.Settings(),
			Member: member, ID: articleID, Gen: ns.gen, Texts: texts, Link: link, Prefix: k.Prefix(), Kinds: ns.hooked}
		return e.Call()
	})))
	if err != nil || st.Word == script.ReplyOK {
		return err
	}
	return st.Err()
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
