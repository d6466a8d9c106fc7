package voting

// This file holds DeleteArticle: one atomic step that removes the article,
// then, with user histories, bounded steps that clear its voters' entries.

import (
	"context"
	"strconv"

	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/script"
)

// DeleteArticle removes an article in one atomic step: its hash, its voter
// sets, its entry in every index of every order (site and group, cached
// listings included, whatever orders the namespace keeps: an index it no
// longer keeps may hold the article until StopKeeping has removed it), its
// group memberships and its record of its
// groups. After it every method treats the id as unknown. It returns an
// error wrapping ErrNotFound if there is no such article: no hash, no score
// and no posting time. The step's work grows with the article's groups, of
// which there are at most MaxGroups. The groups it leaves are one smaller
// in Groups, and one it leaves empty is gone from it. It leaves its
// poster's articles (Query.User) and takes its part out of the poster's
// karma (WithKarma), and its link out of the index of links
// (WithUniqueLinks), where the namespace keeps them.
//
// With user histories (WithUserHistory), the article's voters' histories
// lose their entries of it in the same step if it has at most a few hundred
// voters, else in further steps of a few hundred voters each, within the
// same call, so that no step holds Redis for long. If the call ends before
// they are done (its context, say), the entries left are dropped when
// UserHistory meets them, as are the entries of an article deleted after its
// voting closed (its voter sets, which name its voters, are gone then).
//
// Its discussion (PostComment) goes after it, within the same call, in
// steps of 100 comments each; no comment can join it once the article is
// gone. If the call ends before they are done, a later DeleteArticle of
// the id takes the rest away and returns nil; with nothing left of the
// article it returns ErrNotFound.
//
// An article written by the book's own code has no record of its groups
// until Reindex writes one: DeleteArticle then takes it out of no group,
// and Reindex later drops it from the groups' sets. The id is not given out
// again.
func (s *Store) DeleteArticle(ctx context.Context, articleID string) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "delete article "+idText(articleID))
		}
	}()
	if err := checkID(articleID); err != nil {
		return err
	}
	reply, _, err := s.write(ctx, func(ns *state) script.Call { return s.deleteCall(ns, articleID) })
	st, err := script.ReadStatus(reply, err)
	if err != nil {
		return err
	}
	switch {
	case st.Word == script.ReplyNotFound:
		// What a call that ended early left of the discussion goes now,
		// which ends that deletion.
		purged, err := s.purgeComments(ctx, articleID)
		if err != nil || purged {
			return err
		}
		return st.Err()
	case st.Word != script.ReplyOK:
		return st.Err()
	case st.Detail != "0":
		if err := s.clearHistories(ctx, articleID); err != nil {
			return err
		}
	}
	_, err = s.purgeComments(ctx, articleID)
	return err
}

// deleteCall is delete.lua's run for a deletion.
func (s *Store) deleteCall(ns *state, articleID string) script.Call {
	k := s.keys
	historyPrefix := ""
	if ns.history > 0 {
		historyPrefix = k.HistoryPrefix()
	}
	// Every order's indexes, site and group, whatever the namespace keeps:
	// one it no longer keeps may hold the article until StopKeeping has
	// removed it, and a group's cached listing of any order may hold it.
	all := Orders()
	indexes := make([]string, len(all))
	for i, o := range all {
		indexes[i] = k.Index(int(o))
	}
	member := k.ArticleHash(articleID)
	d := script.Delete{
		Hash: member, ByScore: k.ScoreIndex(), ByTime: k.TimeIndex(), Voted: k.VotedSet(articleID),
		Downvoted: k.DownvotedSet(articleID), Record: k.GroupRecord(articleID), Sizes: k.GroupSizes(), Indexed: k.IndexedHash(), Config: k.Settings(),
		Indexes: indexes, PendingVoted: k.PendingVotedSet(articleID),
		PendingDownvoted: k.PendingDownvotedSet(articleID),

		Member: member, ID: articleID, Gen: ns.gen, GroupPrefix: k.GroupSet(""), CachePrefix: k.Prefix(), LivePrefix: k.LivePrefix(),
		PostsPrefix: k.PostsPrefix(), HistoryPrefix: historyPrefix, Batch: s.historyBatch, Orders: scriptOrders(all),
		Prefix: k.Prefix(), Kinds: ns.hooked,
	}
	return d.Call()
}

// clearHistories clears a deleted article's entries from its voters'
// histories, a batch of voters a step, until none is left.
func (s *Store) clearHistories(ctx context.Context, articleID string) error {
	k := s.keys
	clear := script.ClearHistory{PendingVoted: k.PendingVotedSet(articleID), PendingDownvoted: k.PendingDownvotedSet(articleID),
		Member: k.ArticleHash(articleID), HistoryPrefix: k.HistoryPrefix(), Batch: s.historyBatch}
	cl := clear.Call()
	return s.rc.Session(ctx, func(c rconn.Link) error {
		for {
			reply, err := c.Run(cl.Eval())
			st, err := script.ReadStatus(reply, err)
			if err != nil {
				return err
			}
			left, err := strconv.Atoi(st.Word)
			if err != nil {
				return st.Err()
			}
			if left == 0 {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	})
}
