package voting

// This file holds DeleteArticle: one atomic step that removes the article,
// then, with user histories, bounded steps that clear its voters' entries.

import (
	"context"
	"strconv"
	"time"

	"github.com/articlevote/voting/internal/rconn"
)

// defaultHistoryBatch is how many voters' histories one step of
// DeleteArticle clears: a ZREM each, well under a millisecond of Redis's
// time a step.
const defaultHistoryBatch = 200

// DeleteArticle removes an article in one atomic step: its hash, its voter
// sets, its entry in every index of every order (site and group, cached
// listings included, whatever orders the Store keeps: a Store of other
// options may keep them), its group memberships and its record of its
// groups. After it every method treats the id as unknown. It returns an
// error wrapping ErrNotFound if there is no such article: no hash, no score
// and no posting time. The step's work grows with the article's groups, of
// which there are at most MaxGroups. The groups it leaves are one smaller
// in Groups, and one it leaves empty is gone from it. It leaves its
// poster's articles (UserArticles) and takes its part out of the poster's
// karma (WithKarma), and its link out of the index of links
// (WithUniqueLinks), whatever the Store's options.
//
// With user histories (WithUserHistory), the article's voters' histories
// lose their entries of it in the same step if it has at most a few hundred
// voters, else in further steps of a few hundred voters each, within the
// same call, so that no step holds Redis for long. If the call ends before
// they are done (its context, say), the entries left are dropped when
// UserHistory meets them, as are the entries of an article deleted after its
// voting closed (its voter sets, which name its voters, are gone then).
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
	st, err := readStatus(runScript(ctx, &s.rc, deleteScript, s.deleteCall(articleID)))
	if err != nil {
		return err
	}
	if st.word != replyOK {
		return st.err()
	}
	if st.detail == "0" {
		return nil
	}
	return s.clearHistories(ctx, articleID)
}

// deleteCall builds delete.lua's KEYS and ARGV.
func (s *Store) deleteCall(articleID string) call {
	k := s.keys
	historyPrefix := ""
	if s.history > 0 {
		historyPrefix = k.HistoryPrefix()
	}
	var c call
	c.key(k.ArticleHash(articleID), k.ScoreIndex(), k.TimeIndex(), k.VotedSet(articleID), k.DownvotedSet(articleID),
		k.GroupRecord(articleID), k.GroupSizes(), k.KarmaIndex(), k.LinkIndex(), k.LinkShares())
	// Every order's indexes, site and group, whatever the Store keeps: a
	// Store of other options may keep them.
	all := Orders()
	for _, o := range all {
		c.key(k.Index(int(o)))
	}
	if s.history > 0 {
		c.key(k.PendingVotedSet(articleID), k.PendingDownvotedSet(articleID))
	}
	c.arg(k.ArticleHash(articleID), articleID, k.GroupSet(""), k.Prefix(), k.LivePrefix(), k.PostsPrefix(), historyPrefix,
		s.historyBatch)
	orderList(&c, all, time.Time{}, orderKey)
	return c
}

// clearHistories clears a deleted article's entries from its voters'
// histories, a batch of voters a step, until none is left.
func (s *Store) clearHistories(ctx context.Context, articleID string) error {
	k := s.keys
	cl := call{
		keys: []string{k.PendingVotedSet(articleID), k.PendingDownvotedSet(articleID)},
		args: []any{k.ArticleHash(articleID), k.HistoryPrefix(), s.historyBatch},
	}
	return s.rc.Session(ctx, func(c rconn.Link) error {
		for {
			reply, err := runOn(c, clearHistoryScript, cl)
			st, err := readStatus(reply, err)
			if err != nil {
				return err
			}
			left, err := strconv.Atoi(st.word)
			if err != nil {
				return st.err()
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
