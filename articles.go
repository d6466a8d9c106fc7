package voting

// This file holds an article: Article, and how it is posted
// (PostArticle) and edited (EditArticle); article_reads.go holds how it is
// read back.

import (
	"context"
	"fmt"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
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
