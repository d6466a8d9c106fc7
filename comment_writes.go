package voting

// This file holds the writes of comments: posting, voting, editing and
// deleting, each one atomic script, and the purge of a deleted article's
// comments in bounded steps.

import (
	"context"
	"strconv"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
)

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
			MaxDepth: MaxCommentDepth, Prefix: k.Prefix(), Orders: commentKinds, Kinds: ns.hooked,
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
			Config: k.Settings(), Gen: ns.gen, Prefix: k.Prefix(),
			Member: k.CommentHash(commentID), CommentPrefix: k.CommentPrefix(), VotedPrefix: k.CommentVotedPrefix(),
			DownvotedPrefix: k.CommentDownvotedPrefix(), RepliesPrefix: k.RepliesPrefix(), ArticlePrefix: k.ArticlePrefix(),
			ThreadPrefix: k.ThreadPrefix(), PostsPrefix: k.UserCommentsPrefix(), MaxClimb: maxTombstoneClimb,
			Orders: commentKinds, Kinds: ns.hooked}
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
		p := script.CommentPurge{Thread: k.Thread(articleID), Config: k.Settings(), Gen: ns.gen, Prefix: k.Prefix(),
			ArticleName:   schema.ParentName(articleID, ""),
			CommentPrefix: k.CommentPrefix(), VotedPrefix: k.CommentVotedPrefix(), DownvotedPrefix: k.CommentDownvotedPrefix(),
			RepliesPrefix: k.RepliesPrefix(), PostsPrefix: k.UserCommentsPrefix(), Batch: purgeBatch,
			Orders: commentKinds, Kinds: ns.hooked}
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
