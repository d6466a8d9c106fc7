package voting

// This file holds the kinds of item, articles and comments, as the Go
// writes that both share see them: what differs between the two is here,
// and the write itself (a vote) is written once. The scripts share theirs
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
