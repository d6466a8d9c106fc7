package voting

// This file holds comments: threaded discussion under an article, each
// comment another votable item with a hash, voter sets and an entry in
// its parent's index of each kind of value the comment orders read
// (internal/schema/comments.go). This file holds the model, a Comment and
// the checks of its fields; comment_writes.go holds the writes, each one
// atomic script, comment_reads.go and thread.go the reads, and
// comment_orders.go the orders.

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

const (
	// MaxCommentLen is the longest comment body, in characters.
	MaxCommentLen = 10000
	// MaxCommentDepth is the deepest a reply may be: a comment on the
	// article is at depth 0, a reply to it at 1, and so on.
	MaxCommentDepth = 10000
	// MaxThreadNodes is the most comments Thread returns, all levels
	// together; a ThreadQuery that could ask for more is refused.
	MaxThreadNodes = 2000
	// MaxThreadDepth is the deepest level of replies Thread reads.
	MaxThreadDepth = 10
)

// Defaults of a ThreadQuery's fields left at zero.
const (
	DefaultThreadReplies = 3
	DefaultThreadDepth   = 3
)

// maxTombstoneClimb is how many deleted comments above one that goes, each
// left without a reply, go with it in the same step; more stay, as
// tombstones with no reply, so that the step stays small.
const maxTombstoneClimb = 100

// purgeBatch is how many comments of a deleted article one step takes away.
const purgeBatch = 100

// A Comment is one comment as stored in its hash. A deleted comment that
// has replies stays in its thread as a tombstone: Deleted, with no Poster
// and no Body, its votes and replies as they were.
type Comment struct {
	ID        string `json:"id"`
	ArticleID string `json:"articleId"`
	// ParentID is the comment it replies to; "" for a comment on the
	// article itself.
	ParentID string    `json:"parentId,omitempty"`
	Poster   string    `json:"poster,omitempty"`
	Body     string    `json:"body,omitempty"`
	Posted   time.Time `json:"posted"`
	// Points is Upvotes - Downvotes; Upvotes counts the poster's own.
	Points    int64 `json:"points"`
	Upvotes   int64 `json:"upvotes"`
	Downvotes int64 `json:"downvotes"`
	// Replies counts the comment's direct replies, tombstones included.
	Replies int64 `json:"replies"`
	// Depth is 0 for a comment on the article, 1 for a reply to one...
	Depth   int64 `json:"depth"`
	Deleted bool  `json:"deleted,omitempty"`
}

// commentFields are the hash fields a Comment is read from, in the order
// parseComment takes them.
var commentFields = []any{"article", "parent", "poster", "body", "time", "votes", "downvotes", "replies", "depth", "deleted"}

// parseComment reads the HMGET of commentFields of the comment id; ok is
// false for no comment.
func parseComment(id string, reply any) (c Comment, ok bool, err error) {
	vals, err := redis.Strings(reply, nil)
	if err != nil || len(vals) != len(commentFields) {
		return Comment{}, false, errs.Corruptf("comment %s: HMGET gave %v, %v", id, reply, err)
	}
	values, _ := redis.Values(reply, nil)
	if values[4] == nil {
		return Comment{}, false, nil
	}
	unsound := func(field string, err error) (Comment, bool, error) {
		return Comment{}, false, errs.Corruptf("comment %s field %s: %v", id, field, err)
	}
	c = Comment{ID: id, ArticleID: vals[0], ParentID: vals[1], Poster: vals[2], Body: vals[3], Deleted: vals[9] == "1"}
	if c.Posted, err = schema.ParseUnixSeconds(vals[4]); err != nil {
		return unsound("time", err)
	}
	for i, to := range []*int64{&c.Upvotes, &c.Downvotes, &c.Replies, &c.Depth} {
		if *to, err = schema.ParseCount(values[5+i]); err != nil {
			return unsound(commentFields[5+i].(string), err)
		}
	}
	c.Points = c.Upvotes - c.Downvotes
	return c, true, nil
}

// commentKinds are the kinds of the parents' indexes, as the scripts take
// them.
var commentKinds = func() []string {
	kinds := make([]string, len(schema.CommentKinds))
	for i, k := range schema.CommentKinds {
		kinds[i] = string(k)
	}
	return kinds
}()

// checkBody checks a comment's body, which is multi-line text: line
// breaks, tabs and spaces may stand anywhere in it. It refuses only what
// cannot be text (invalid UTF-8, and the C0 control characters, NUL among
// them, but tab, line feed and carriage return), a body with nothing but
// white space, and one over MaxCommentLen characters.
func checkBody(body string) error {
	switch {
	case body == "":
		return errs.Invalidf("comment is empty")
	case !utf8.ValidString(body):
		return errs.Invalidf("comment is not valid UTF-8")
	case strings.TrimSpace(body) == "":
		return errs.Invalidf("comment is blank: it has only white space")
	case utf8.RuneCountInString(body) > MaxCommentLen:
		return errs.Invalidf("comment is longer than %d characters", MaxCommentLen)
	}
	if i := strings.IndexFunc(body, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' }); i >= 0 {
		return errs.Invalidf("comment holds the control character %U at byte %d", rune(body[i]), i)
	}
	return nil
}

// checkParent checks a parent comment id, "" for none.
func checkParent(id string) error {
	if id == "" {
		return nil
	}
	return checkCommentID(id)
}
