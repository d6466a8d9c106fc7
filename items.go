package voting

// This file holds the kinds of item, articles and comments, as the Go
// writes that both share see them, and those writes: Vote and VoteComment
// are one vote, what differs between the two kinds of item a row. The scripts share theirs
// the same way: each event of either runs the hooks of the kinds of index
// kept (internal/script/lua/lib/hooks.lua).

import (
	"context"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
)

// An item is a kind of item that takes votes.
type item struct {
	// name is the kind in errors' words: "article", "comment".
	name string
	// checkID refuses an id that is no such item's.
	checkID func(id string) error
	// notFound is the error of a write to an item that is not there.
	notFound error
	// voteCall is the run of the script of a vote on the item id.
	voteCall func(s *Store, ns *state, user, id string, dir Direction, now time.Time) script.Call
}

// The kinds of item.
var (
	articleItem = &item{name: "article", checkID: checkID, notFound: errs.ErrNotFound, voteCall: (*Store).voteCall}
	commentItem = &item{name: "comment", checkID: checkCommentID, notFound: errs.NotFound("comment"),
		voteCall: (*Store).commentVoteCall}
)

// Vote records user's vote on an article. Up and Down cast or switch the
// user's vote (a switch moves the score by twice the weight); None takes it
// back. Voting the way the user already has is no change and no error. The
// zero Direction is no direction: an error wrapping ErrInvalid, so that a
// direction never set does not take a vote back. The user is a user id as
// the package doc's Input section says.
//
// The vote, the article's counters, its score, its entry in every index
// and, with WithKarma, its poster's karma (unless the user is the poster)
// change together in one atomic step. Vote returns an error wrapping
// ErrNotFound exactly when Article does, and ErrVotingClosed once the cutoff
// has passed by the Store's clock (read once a connection is had) or the
// article's voter sets have expired on Redis's, whichever comes first, so
// that no clock skew can count a voter twice. Its work in Redis grows with
// the kept orders and, with live groups, the article's groups, of which
// there are at most MaxGroups.
func (s *Store) Vote(ctx context.Context, user, articleID string, dir Direction) error {
	return s.vote(ctx, articleItem, user, articleID, dir)
}

// VoteComment records user's vote on a comment, as Vote does on an
// article: Up and Down cast or switch it, None takes it back, the same
// again is no change. The comment's counters, its voter sets and its
// entries in its parent's indexes change in one atomic step. It returns an
// error wrapping ErrNotFound for no comment or a deleted one, and
// ErrVotingClosed from the cutoff after the comment was posted (the
// namespace's Cutoff).
func (s *Store) VoteComment(ctx context.Context, user, commentID string, dir Direction) error {
	return s.vote(ctx, commentItem, user, commentID, dir)
}

// commentVoteCall is comment_vote.lua's run for user's vote on a comment
// at now.
func (s *Store) commentVoteCall(ns *state, user, commentID string, dir Direction, now time.Time) script.Call {
	k := s.keys
	v := script.CommentVote{Hash: k.CommentHash(commentID), Voted: k.CommentVoted(commentID), Downvoted: k.CommentDownvoted(commentID),
		Config: k.Settings(), Member: k.CommentHash(commentID), User: user, Dir: dirWords[dir], NowText: schema.UnixSeconds(now),
		Gen: ns.gen, Cutoff: schema.FormatFloat(ns.cutoff.Seconds()), RepliesPrefix: k.RepliesPrefix(),
		Prefix: k.Prefix(), Orders: commentKinds, Kinds: ns.hooked}
	return v.Call()
}

// vote records user's vote on the item id of the kind it (Vote,
// VoteComment): one script, shared with other calls' under
// WithAutoPipelining, the clock read once the connection is had, as close
// as it can be to the script's run.
func (s *Store) vote(ctx context.Context, it *item, user, id string, dir Direction) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "vote on "+it.name+" "+idText(id))
		}
	}()
	if err := checkBallot(user, id, it.checkID, dir); err != nil {
		return err
	}
	reply, ns, err := s.writeWith(ctx, func(ns *state) (any, error) {
		return s.rc.RunShared(ctx, func() (rconn.Eval, error) {
			now := s.now()
			if err := schema.CheckClock(now); err != nil {
				return rconn.Eval{}, err
			}
			return it.voteCall(s, ns, user, id, dir, now).Eval(), nil
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
		return errs.Of(errs.ErrVotingClosed, "the "+it.name+" is older than "+ns.cutoff.String())
	case script.ReplyNotFound:
		return it.notFound
	}
	return st.Err()
}

// checkBallot checks a vote's user, item id (by checkID, of an article's
// id or a comment's) and direction.
func checkBallot(user, id string, checkID func(string) error, dir Direction) error {
	if err := checkUser(user); err != nil {
		return err
	}
	if err := checkID(id); err != nil {
		return err
	}
	return checkDirection(dir)
}

// voteCall is vote.lua's run for user's vote on an article at now. The
// keys the vote's settings leave out are not named, since naming a key
// allocates.
func (s *Store) voteCall(ns *state, user, articleID string, dir Direction, now time.Time) script.Call {
	k := s.keys
	member := k.ArticleHash(articleID)
	v := script.Vote{Hash: member, ByScore: k.ScoreIndex(), Voted: k.VotedSet(articleID), Downvoted: k.DownvotedSet(articleID),
		Config: k.Settings(), Indexes: ns.indexes, Member: member, User: user, Dir: dirWords[dir], NowText: schema.UnixSeconds(now),
		Settings: ns.vote}
	if ns.live {
		v.Record = k.GroupRecord(articleID)
	}
	if ns.history > 0 {
		v.History = k.UserHistory(user)
	}
	return v.Call()
}

// dirWords are the directions as vote.lua takes them, made once as
// interface values.
var dirWords = [...]any{None: "none", Up: "up", Down: "down"}
