package voting

// This file holds the reads of comments: one comment, a user's arrows on
// comments, a page of an article's comments or of a comment's replies,
// and a user's comments.

import (
	"context"
	"fmt"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

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
	replies, err := s.rc.CheckedPipeline(ctx, cmds)
	if err != nil {
		return Comment{}, err
	}
	c, ok, err := parseComment(commentID, replies[0])
	if err == nil && !ok {
		err = errs.NotFound("comment")
	}
	return c, err
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
	replies, err := c.CheckedPipeline(cmds)
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
// comments are not among them. It pages by the same Paging as List does a
// user's articles (Query{User: user, Order: ByTime}), but is not a Query:
// List gives Articles, and a Query's orders and groups are the articles'
// (a comment's orders rank it among its siblings, not among the user's
// comments), so a Query of comments would answer a different type and
// refuse most of its own fields.
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
