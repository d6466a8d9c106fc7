package voting

// This file holds comments: threaded discussion under an article, each
// comment another votable item with a hash, voter sets and an entry in
// its parent's index of each kind of value the comment orders read
// (internal/schema/comments.go). Posting, voting, editing and deleting are
// each one atomic script; reads are pipelines, a thread's first screen one
// round trip a level.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

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

// A CommentOrder is the order a list of comments is read in. Its text and
// JSON forms are "best", "top", "new", "old" and "controversial".
type CommentOrder int

const (
	// CommentsByBest orders by the lower bound of the Wilson score
	// interval of the up-votes' share, as ByBest and Reddit's "best": the
	// zero CommentOrder.
	CommentsByBest CommentOrder = iota
	// CommentsByTop orders by net votes, most first.
	CommentsByTop
	// CommentsByNew orders by posting time, newest first.
	CommentsByNew
	// CommentsByOld orders by posting time, oldest first.
	CommentsByOld
	// CommentsByControversy orders by Reddit's controversy, as
	// ByControversy.
	CommentsByControversy
)

// spec is o's row of the table, or an error wrapping ErrInvalid.
func (o CommentOrder) spec() (*schema.CommentOrderSpec, error) {
	if o < 0 || int(o) >= len(schema.CommentOrders) {
		return nil, errs.Invalidf("unknown comment order %d", int(o))
	}
	return &schema.CommentOrders[o], nil
}

// String returns the order's name: "best", "top", "new", "old" or
// "controversial".
func (o CommentOrder) String() string {
	if spec, err := o.spec(); err == nil {
		return spec.Name
	}
	return "CommentOrder(" + strconv.Itoa(int(o)) + ")"
}

// ParseCommentOrder returns the comment order named name, as String writes
// it; case does not matter. Any other name is an error wrapping ErrInvalid.
func ParseCommentOrder(name string) (CommentOrder, error) {
	names := make([]string, len(schema.CommentOrders))
	for i, spec := range schema.CommentOrders {
		if strings.EqualFold(name, spec.Name) {
			return CommentOrder(i), nil
		}
		names[i] = spec.Name
	}
	return 0, errs.Invalidf("unknown comment order %q: want one of %s", name, strings.Join(names, ", "))
}

// MarshalText writes the order's name; an unknown order is an error.
func (o CommentOrder) MarshalText() ([]byte, error) {
	spec, err := o.spec()
	if err != nil {
		return nil, err
	}
	return []byte(spec.Name), nil
}

// UnmarshalText reads an order's name as ParseCommentOrder does.
func (o *CommentOrder) UnmarshalText(text []byte) error {
	parsed, err := ParseCommentOrder(string(text))
	if err != nil {
		return err
	}
	*o = parsed
	return nil
}

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

// PostComment posts a comment by poster on an article, or with a parentID
// a reply to that comment, which must be a comment of the same article,
// and returns its id. The comment starts with its poster's up-vote, as an
// article does, and the article's Comments and the parent's Replies count
// it, all in one atomic step. The body is multi-line text, kept as given:
// line breaks (\n or \r\n), tabs and spaces may stand anywhere in it. It
// returns an error wrapping ErrNotFound for no such article, or no such
// parent comment (or a deleted one), and ErrInvalid for a parent on another
// article, a reply deeper than MaxCommentDepth, or a body that is empty,
// blank (white space alone), over MaxCommentLen characters, not valid UTF-8
// or holds a control character below U+0020 other than tab, line feed and
// carriage return; nothing is written then.
func (s *Store) PostComment(ctx context.Context, poster, articleID, parentID, body string) (id string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "comment on article "+idText(articleID))
		}
	}()
	if err := checkUser(poster); err != nil {
		return "", err
	}
	if err := checkID(articleID); err != nil {
		return "", err
	}
	if err := checkParent(parentID); err != nil {
		return "", err
	}
	if err := checkBody(body); err != nil {
		return "", err
	}
	now := s.now()
	if err := schema.CheckClock(now); err != nil {
		return "", err
	}
	k := s.keys
	reply, _, err := s.write(ctx, func(ns *state) script.Call {
		p := script.CommentPost{
			Counter: k.CommentCounter(), Article: k.ArticleHash(articleID), ByScore: k.ScoreIndex(), Config: k.Settings(),
			Thread: k.Thread(articleID), Posts: k.UserComments(poster), Parent: k.CommentHash(parentID),
			Gen: ns.gen, ArticleMember: k.ArticleHash(articleID), ArticleID: articleID, ParentID: parentID,
			CommentPrefix: k.CommentPrefix(), VotedPrefix: k.CommentVotedPrefix(), RepliesPrefix: k.RepliesPrefix(),
			Poster: poster, Body: body, Posted: schema.UnixSeconds(now), CutoffMillis: ns.cutoff.Milliseconds(),
			MaxDepth: MaxCommentDepth, Karma: k.CommentKarma(), KarmaKept: ns.keepsIndex("karma"), Kinds: commentKinds,
		}
		return p.Call()
	})
	st, err := script.ReadStatus(reply, err)
	if err != nil {
		return "", err
	}
	switch {
	case st.Word == script.ReplyOK:
		return st.Detail, nil
	case st.Word == script.ReplyNotFound && st.Detail == "parent":
		return "", errs.NotFound("comment " + parentID)
	case st.Word == "invalid":
		return "", errs.Invalidf("comment %s is on another article", parentID)
	case st.Word == "toodeep":
		return "", errs.Invalidf("a reply to comment %s would be deeper than %d (MaxCommentDepth)", parentID, MaxCommentDepth)
	case st.Word == script.ReplyTaken:
		return "", errs.Corruptf("the counter %s is behind existing data: %s exists", k.CommentCounter(), st.Detail)
	}
	return "", st.Err()
}

// Comment returns the comment of the id, a tombstone included; an error
// wrapping ErrNotFound if there is none.
func (s *Store) Comment(ctx context.Context, commentID string) (c Comment, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "comment "+idText(commentID))
		}
	}()
	if err := checkCommentID(commentID); err != nil {
		return Comment{}, err
	}
	cmds := []rconn.Command{{Name: "HMGET", Args: append([]any{s.keys.CommentHash(commentID)}, commentFields...)}}
	replies, err := s.rc.Pipeline(ctx, cmds)
	if err == nil {
		err = rconn.ReplyError(cmds, replies)
	}
	if err != nil {
		return Comment{}, err
	}
	c, ok, err := parseComment(commentID, replies[0])
	if err == nil && !ok {
		err = errs.NotFound("comment")
	}
	return c, err
}

// VoteComment records user's vote on a comment, as Vote does on an
// article: Up and Down cast or switch it, None takes it back, the same
// again is no change. The comment's counters, its voter sets and its
// entries in its parent's indexes change in one atomic step. It returns an
// error wrapping ErrNotFound for no comment or a deleted one, and
// ErrVotingClosed from the cutoff after the comment was posted (the
// namespace's Cutoff).
func (s *Store) VoteComment(ctx context.Context, user, commentID string, dir Direction) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "vote on comment "+idText(commentID))
		}
	}()
	if err := checkBallot(user, commentID, checkCommentID, dir); err != nil {
		return err
	}
	k := s.keys
	reply, ns, err := s.writeWith(ctx, func(ns *state) (any, error) {
		// Shared as an article's vote is (WithAutoPipelining), the clock
		// read once the connection is had.
		return s.rc.RunShared(ctx, func() (rconn.Eval, error) {
			now := s.now()
			if err := schema.CheckClock(now); err != nil {
				return rconn.Eval{}, err
			}
			v := script.CommentVote{Hash: k.CommentHash(commentID), Voted: k.CommentVoted(commentID), Downvoted: k.CommentDownvoted(commentID),
				Config: k.Settings(), Member: k.CommentHash(commentID), User: user, Dir: dirWords[dir], NowText: schema.UnixSeconds(now),
				Gen: ns.gen, Cutoff: schema.FormatFloat(ns.cutoff.Seconds()), RepliesPrefix: k.RepliesPrefix(),
				Karma: k.CommentKarma(), KarmaKept: ns.keepsIndex("karma"), Kinds: commentKinds}
			return v.Call().Eval(), nil
		})
	})
	st, err := script.ReadStatus(reply, err)
	if err != nil {
		return err
	}
	switch st.Word {
	case script.ReplyOK, script.ReplyUnchanged:
		return nil
	case script.ReplyClosed:
		return errs.Of(errs.ErrVotingClosed, "the comment is older than "+ns.cutoff.String())
	case script.ReplyNotFound:
		return errs.NotFound("comment")
	}
	return st.Err()
}

// UserCommentVotes returns user's vote on each of the comments, in order,
// in one round trip: None for a comment the user has not voted on, or
// that does not exist, or whose voting has closed.
func (s *Store) UserCommentVotes(ctx context.Context, user string, commentIDs ...string) (dirs []Direction, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("comment votes of user %q", user))
		}
	}()
	if err := checkUser(user); err != nil {
		return nil, err
	}
	for _, id := range commentIDs {
		if err := checkCommentID(id); err != nil {
			return nil, err
		}
	}
	cmds := make([]rconn.Command, 0, 2*len(commentIDs))
	for _, id := range commentIDs {
		cmds = append(cmds, rconn.Command{Name: "SISMEMBER", Args: []any{s.keys.CommentVoted(id), user}},
			rconn.Command{Name: "SISMEMBER", Args: []any{s.keys.CommentDownvoted(id), user}})
	}
	dirs = make([]Direction, len(commentIDs))
	if len(cmds) == 0 {
		return dirs, nil
	}
	replies, err := s.rc.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	for i := range commentIDs {
		dirs[i] = None
		for j, dir := range [2]Direction{Up, Down} {
			is, err := redis.Bool(replies[2*i+j], nil)
			if err != nil {
				return nil, errs.WrongType(err, cmds[2*i+j].Args[0].(string), "SISMEMBER")
			}
			if is {
				dirs[i] = dir
			}
		}
	}
	return dirs, nil
}

// EditComment sets a comment's body; nothing else changes. It returns an
// error wrapping ErrNotFound for no comment or a deleted one, and
// ErrInvalid for a body PostComment refuses. The library does not know
// who asks: a site lets the poster alone edit, as it does an article.
func (s *Store) EditComment(ctx context.Context, commentID, body string) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "edit comment "+idText(commentID))
		}
	}()
	if err := checkCommentID(commentID); err != nil {
		return err
	}
	if err := checkBody(body); err != nil {
		return err
	}
	e := script.CommentEdit{Hash: s.keys.CommentHash(commentID), Body: body}
	return s.commentStatus(s.rc.Run(ctx, e.Call().Eval()))
}

// DeleteComment deletes a comment in one atomic step. One with replies
// stays in its thread as a tombstone (Comment.Deleted: no poster, no body,
// its replies kept), as on Reddit; one without replies goes entirely, and
// so does each tombstone above it that it leaves without a reply (up to a
// hundred of them). Either way it leaves its poster's comments
// (UserComments) and the article's count of comments, and with WithKarma
// its part leaves its poster's comment karma (CommentKarma), which the
// poster leaves with their last comment. It returns an error wrapping
// ErrNotFound for no comment or one deleted already.
func (s *Store) DeleteComment(ctx context.Context, commentID string) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "delete comment "+idText(commentID))
		}
	}()
	if err := checkCommentID(commentID); err != nil {
		return err
	}
	k := s.keys
	return s.commentStatus(s.writeReply(s.write(ctx, func(ns *state) script.Call {
		d := script.CommentDelete{Hash: k.CommentHash(commentID), Voted: k.CommentVoted(commentID), Downvoted: k.CommentDownvoted(commentID),
			Config: k.Settings(), Karma: k.CommentKarma(), Gen: ns.gen,
			Member: k.CommentHash(commentID), CommentPrefix: k.CommentPrefix(), VotedPrefix: k.CommentVotedPrefix(),
			DownvotedPrefix: k.CommentDownvotedPrefix(), RepliesPrefix: k.RepliesPrefix(), ArticlePrefix: k.ArticlePrefix(),
			ThreadPrefix: k.ThreadPrefix(), PostsPrefix: k.UserCommentsPrefix(), MaxClimb: maxTombstoneClimb,
			KarmaKept: ns.keepsIndex("karma"), Kinds: commentKinds}
		return d.Call()
	})))
}

// commentStatus is the error of a comment script's status reply.
func (s *Store) commentStatus(reply any, err error) error {
	st, err := script.ReadStatus(reply, err)
	switch {
	case err != nil:
		return err
	case st.Word == script.ReplyOK:
		return nil
	case st.Word == script.ReplyNotFound:
		return errs.NotFound("comment")
	}
	return st.Err()
}

// purgeComments takes away the comments of a deleted article, a batch a
// step, until none is left; purged reports whether there were any.
func (s *Store) purgeComments(ctx context.Context, articleID string) (purged bool, err error) {
	k := s.keys
	step := func(ns *state) script.Call {
		p := script.CommentPurge{Thread: k.Thread(articleID), Config: k.Settings(), Karma: k.CommentKarma(), Gen: ns.gen,
			ArticleName:   schema.ParentName(articleID, ""),
			CommentPrefix: k.CommentPrefix(), VotedPrefix: k.CommentVotedPrefix(), DownvotedPrefix: k.CommentDownvotedPrefix(),
			RepliesPrefix: k.RepliesPrefix(), PostsPrefix: k.UserCommentsPrefix(), Batch: purgeBatch,
			KarmaKept: ns.keepsIndex("karma"), Kinds: commentKinds}
		return p.Call()
	}
	for {
		st, err := script.ReadStatus(s.writeReply(s.write(ctx, step)))
		if err != nil {
			return purged, err
		}
		left, err := strconv.Atoi(st.Word)
		if err != nil {
			return purged, st.Err()
		}
		purged = purged || st.Detail != "0"
		if left == 0 {
			return purged, nil
		}
		if err := ctx.Err(); err != nil {
			return purged, err
		}
	}
}

// CommentQuery says which comments Comments reads: an article's comments
// on the article itself, or with a Parent the replies of that comment, in
// an order, a page at a time.
type CommentQuery struct {
	// Parent, if not "", is the comment whose replies are read; it must be
	// a comment of the article.
	Parent string
	// Order is the order; the zero value is CommentsByBest.
	Order CommentOrder
	Paging
}

// commentList is the name of a list of comments in cursors.
func commentList(spec *schema.CommentOrderSpec) string { return commentsList + spec.Name }

// Comments returns a page of the comments on an article (with q.Parent,
// the replies to that comment) in q's order, tombstones in their places,
// and for a page by cursor the cursor of the next. It takes two round
// trips. It returns an error wrapping ErrNotFound for no such article or
// parent comment, and ErrInvalid for a parent on another article.
func (s *Store) Comments(ctx context.Context, articleID string, q CommentQuery) (comments []Comment, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "comments of article "+idText(articleID))
		}
	}()
	if err := checkID(articleID); err != nil {
		return nil, "", err
	}
	if err := checkParent(q.Parent); err != nil {
		return nil, "", err
	}
	spec, err := q.Order.spec()
	if err != nil {
		return nil, "", err
	}
	parent := schema.ParentName(articleID, q.Parent)
	w, err := s.paging(q.Paging, commentList(spec), parent)
	if err != nil {
		return nil, "", err
	}
	index := s.keys.Replies(spec.Kind, parent)
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var page []any
		if spec.Oldest {
			page, next, err = s.oldestFirst(c, index, w, commentList(spec), parent)
		} else {
			page, next, err = s.entries(c, plainListing(index), w, commentList(spec), parent, s.keys.CommentPrefix(), nil)
		}
		if err != nil {
			return err
		}
		comments, err = s.fetchComments(c, membersOf(page), s.ownerCheck(articleID, q.Parent))
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return comments, next, nil
}

// oldestFirst reads the page w of index lowest value first, entries and
// values as entries does; a page after a cursor's entry in one step
// (comment_after.lua).
func (s *Store) oldestFirst(c rconn.Link, index string, w window, list, scope string) (page []any, next string, err error) {
	switch {
	case w.past:
		return nil, "", nil
	case w.byNumber:
		reply, err := c.Do("ZRANGE", index, w.start, w.stop, "WITHSCORES")
		page, err = redis.Values(reply, errs.WrongType(err, index, "ZRANGE"))
		return page, "", err
	case w.at.member == "":
		var reply any
		reply, err = c.Do("ZRANGE", index, 0, w.size, "WITHSCORES") // one more, to tell whether a page follows
		page, err = redis.Values(reply, errs.WrongType(err, index, "ZRANGE"))
	default:
		after := script.CommentAfter{Index: index, Score: w.at.value, Member: s.keys.CommentPrefix() + w.at.member, Size: w.size + 1}
		page, err = script.ReadList(c.Run(after.Call().Eval()))
	}
	if err != nil {
		return nil, "", err
	}
	page, last := cutPage(page, w.size, s.keys.CommentPrefix())
	if last != nil {
		next = makeCursor(list, scope, *last)
	}
	return page, next, nil
}

// An owner is the check a read of comments makes in the round trip that
// reads them: that the article, or the parent comment of the article,
// exists.
type owner struct {
	cmd   rconn.Command
	check func(reply any) error
}

// ownerCheck is the check that articleID exists or, with a parent, that
// the parent is a comment of it.
func (s *Store) ownerCheck(articleID, parentID string) owner {
	if parentID == "" {
		return owner{rconn.Command{Name: "HGET", Args: []any{s.keys.ArticleHash(articleID), "time"}}, func(reply any) error {
			if reply == nil {
				return ErrNotFound
			}
			return nil
		}}
	}
	return owner{rconn.Command{Name: "HGET", Args: []any{s.keys.CommentHash(parentID), "article"}}, func(reply any) error {
		article, err := redis.String(reply, nil)
		switch {
		case err == redis.ErrNil:
			return errs.NotFound("comment " + parentID)
		case err != nil:
			return err
		case article != articleID:
			return errs.Invalidf("comment %s is on article %s, not %s", parentID, article, articleID)
		}
		return nil
	}}
}

// fetchComments reads the comments of members (their hash keys), in order,
// in one round trip with first's command, whose check runs first;
// members with no comment are left out.
func (s *Store) fetchComments(c rconn.Link, members []any, first owner) ([]Comment, error) {
	cmds := make([]rconn.Command, 0, 1+len(members))
	if first.cmd.Name != "" {
		cmds = append(cmds, first.cmd)
	}
	for _, m := range members {
		cmds = append(cmds, s.hmget(m))
	}
	if len(cmds) == 0 {
		return []Comment{}, nil
	}
	replies, err := c.Pipeline(cmds)
	if err == nil {
		err = rconn.ReplyError(cmds, replies)
	}
	if err != nil {
		return nil, err
	}
	if first.cmd.Name != "" {
		if err := first.check(replies[0]); err != nil {
			return nil, err
		}
		replies = replies[1:]
	}
	comments := make([]Comment, 0, len(members))
	for i, m := range members {
		cm, ok, err := parseComment(s.commentID(m), replies[i])
		if err != nil {
			return nil, err
		}
		if ok {
			comments = append(comments, cm)
		}
	}
	return comments, nil
}

// hmget is the read of a comment of the member m, as a reply gives it,
// whose key an error names.
func (s *Store) hmget(m any) rconn.Command {
	member, _ := m.([]byte)
	return rconn.Command{Name: "HMGET", Args: append([]any{string(member)}, commentFields...)}
}

// commentID is the id of a comment of the member m, as a reply gives it.
func (s *Store) commentID(m any) string {
	member, _ := m.([]byte)
	return strings.TrimPrefix(string(member), s.keys.CommentPrefix())
}

// UserComments returns a page of the comments user has posted, newest
// first, with the cursor of the next for a page by cursor. Deleted
// comments are not among them.
func (s *Store) UserComments(ctx context.Context, user string, p Paging) (comments []Comment, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("comments of user %q", user))
		}
	}()
	if err := checkUser(user); err != nil {
		return nil, "", err
	}
	w, err := s.paging(p, userCommentsList, user)
	if err != nil {
		return nil, "", err
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		page, n, err := s.entries(c, plainListing(s.keys.UserComments(user)), w, userCommentsList, user, s.keys.CommentPrefix(), nil)
		if err != nil {
			return err
		}
		next = n
		comments, err = s.fetchComments(c, membersOf(page), owner{})
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return comments, next, nil
}

// ThreadQuery says how much of a thread Thread reads: the first Top
// comments on the article in Order, each with its first Replies replies,
// to Depth levels of replies. Zero fields take DefaultThreadReplies,
// DefaultThreadDepth and the Store's page size, or fewer top comments if
// the page size would let the tree pass MaxThreadNodes.
type ThreadQuery struct {
	Order   CommentOrder
	Top     int
	Replies int
	Depth   int
}

// A CommentNode is a comment of a thread with the replies read with it.
// More is how many of its replies were not read (Reddit's "load more
// comments"), to read with Comments and CommentQuery.Parent.
type CommentNode struct {
	Comment
	Children []CommentNode `json:"children"`
	More     int64         `json:"more"`
}

// check checks t and gives it with its defaults.
func (t ThreadQuery) check(pageSize int) (ThreadQuery, error) {
	if t.Replies == 0 {
		t.Replies = DefaultThreadReplies
	}
	if t.Depth == 0 {
		t.Depth = DefaultThreadDepth
	}
	if t.Top == 0 {
		// The page size, or as many as MaxThreadNodes leaves room for.
		per, level := 1, 1
		for range t.Depth {
			level *= max(t.Replies, 1)
			per += level
			if per > MaxThreadNodes {
				break
			}
		}
		t.Top = max(min(pageSize, MaxThreadNodes/per), 1)
	}
	switch {
	case t.Top < 0 || t.Top > MaxPageSize:
		return t, errs.Invalidf("a thread's top %d is outside 1..%d", t.Top, MaxPageSize)
	case t.Replies < 0 || t.Replies > MaxPageSize:
		return t, errs.Invalidf("a thread's replies %d are outside 1..%d", t.Replies, MaxPageSize)
	case t.Depth < 0 || t.Depth > MaxThreadDepth:
		return t, errs.Invalidf("a thread's depth %d is outside 1..%d", t.Depth, MaxThreadDepth)
	}
	if _, err := t.Order.spec(); err != nil {
		return t, err
	}
	nodes, level := t.Top, t.Top
	for range t.Depth {
		level *= t.Replies
		nodes += level
		if nodes > MaxThreadNodes {
			return t, errs.Invalidf("a thread of top %d, %d replies and depth %d could hold more than %d comments (MaxThreadNodes)",
				t.Top, t.Replies, t.Depth, MaxThreadNodes)
		}
	}
	return t, nil
}

// Thread returns the first screen of an article's discussion as a tree:
// its first t.Top comments in t.Order, each with its first t.Replies
// replies in the same order, to t.Depth levels, each node with the count
// of its replies not read, and the count of the article's comments on it
// that were not read. It takes at most t.Depth + 2 round trips (fewer when
// the tree ends sooner), whatever the thread's size. It returns an error wrapping ErrNotFound for no such
// article.
func (s *Store) Thread(ctx context.Context, articleID string, t ThreadQuery) (nodes []CommentNode, more int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "thread of article "+idText(articleID))
		}
	}()
	if err := checkID(articleID); err != nil {
		return nil, 0, err
	}
	if t, err = t.check(s.pageSize); err != nil {
		return nil, 0, err
	}
	spec, _ := t.Order.spec()
	rangeCmd := func(parent string, n int) rconn.Command {
		name := "ZREVRANGE"
		if spec.Oldest {
			name = "ZRANGE"
		}
		return rconn.Command{Name: name, Args: []any{s.keys.Replies(spec.Kind, parent), 0, n - 1}}
	}
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		top := schema.ParentName(articleID, "")
		check := s.ownerCheck(articleID, "")
		cmds := []rconn.Command{check.cmd, rangeCmd(top, t.Top), {Name: "ZCARD", Args: []any{s.keys.Replies(spec.Kind, top)}}}
		replies, err := c.Pipeline(cmds)
		if err == nil {
			err = rconn.ReplyError(cmds, replies)
		}
		if err != nil {
			return err
		}
		if err := check.check(replies[0]); err != nil {
			return err
		}
		ids, err := redis.Values(replies[1], nil)
		if err != nil {
			return err
		}
		total, err := redis.Int64(replies[2], nil)
		if err != nil {
			return err
		}
		more = max(total-int64(len(ids)), 0)
		// Each level: the hashes of its comments, and the first replies of
		// each, in one round trip. A slot is the list of a node's children
		// to fill (the thread's own first), and their members.
		type slot struct {
			into    *[]CommentNode
			members []any
		}
		nodes = []CommentNode{}
		slots := []slot{{&nodes, ids}}
		for depth := 0; len(slots) > 0; depth++ {
			read := depth < t.Depth
			var cmds []rconn.Command
			for _, sl := range slots {
				for _, m := range sl.members {
					cmds = append(cmds, s.hmget(m))
					if read {
						cmds = append(cmds, rangeCmd(schema.ParentName("", s.commentID(m)), t.Replies))
					}
				}
			}
			if len(cmds) == 0 {
				break // no comment on the article
			}
			replies, err := c.Pipeline(cmds)
			if err == nil {
				err = rconn.ReplyError(cmds, replies)
			}
			if err != nil {
				return err
			}
			var next []slot
			for _, sl := range slots {
				list := make([]CommentNode, 0, len(sl.members))
				var childrenOf [][]any
				for _, m := range sl.members {
					cm, ok, err := parseComment(s.commentID(m), replies[0])
					if err != nil {
						return err
					}
					var children []any
					if read {
						if children, err = redis.Values(replies[1], nil); err != nil {
							return err
						}
						replies = replies[2:]
					} else {
						replies = replies[1:]
					}
					if ok {
						list = append(list, CommentNode{Comment: cm, Children: []CommentNode{}, More: max(cm.Replies-int64(len(children)), 0)})
						childrenOf = append(childrenOf, children)
					}
				}
				*sl.into = list
				for i := range list {
					if len(childrenOf[i]) > 0 {
						next = append(next, slot{&list[i].Children, childrenOf[i]})
					}
				}
			}
			slots = next
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return nodes, more, nil
}
