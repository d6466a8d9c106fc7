package voting

// This file holds a user's history of votes (WithUserHistory): UserVote and
// UserHistory.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// A UserVote is one vote in a user's history (UserHistory): the article,
// the direction of the vote and when it was cast.
type UserVote struct {
	Article   Article   `json:"article"`
	Direction Direction `json:"direction"` // Up or Down
	At        time.Time `json:"at"`        // when the vote was cast, in UTC
}

// UserHistory returns a page of the articles user has voted on, newest vote
// first, with the direction of each vote, from the history WithUserHistory
// keeps: the user's own posts are there as up-votes, a vote taken back is
// not, a switched vote is there once, in its new direction and at the time
// of the switch, and a vote older than the history's time has dropped out.
// It pages as Paging says, and gives next for a page read by cursor. It
// takes two round trips, each O(log n + page size) on the server at any
// depth of a history of n votes.
//
// An article deleted after voting on it closed (when its voters could no
// longer be found) is left out, and the history's entry for it removed; the
// page is then read again, so that the next votes take its place and later
// pages do not move, up to three times (so a page may hold fewer votes than
// its size only after many such deletions). UserHistory gives an error
// wrapping ErrInvalid if the namespace keeps no history.
func (s *Store) UserHistory(ctx context.Context, user string, p Paging) (votes []UserVote, next string, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("history of user %q", user))
		}
	}()
	if err := checkUser(user); err != nil {
		return nil, "", err
	}
	w, err := s.paging(p, historyList, user)
	if err != nil {
		return nil, "", err
	}
	history, err := s.historyTime(ctx)
	if err != nil {
		return nil, "", err
	}
	if w.past {
		return []UserVote{}, "", nil
	}
	l := plainListing(s.keys.UserHistory(user))
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		now := s.now()
		if err := schema.CheckClock(now); err != nil {
			return err
		}
		for read := 1; ; read++ {
			var gone []any
			votes, gone, next, err = s.historyPage(c, l, w, user, now, history)
			if err != nil || len(gone) == 0 {
				return err
			}
			// An article is gone for good (ids are not given out again):
			// drop it from the history, and read the page again, so that
			// the next votes take its place and the later pages do not
			// move under the reader.
			args := make([]any, 0, 1+2*len(gone))
			args = append(args, l.index)
			for _, m := range gone {
				member := string(m.([]byte))
				args = append(args, "up:"+member, "down:"+member)
			}
			if _, err := c.Do("ZREM", args...); err != nil {
				return err
			}
			if read == maxHistoryReads {
				return nil
			}
		}
	})
	if err != nil {
		return nil, "", err
	}
	return votes, next, nil
}

// maxHistoryReads bounds how many times UserHistory reads a page that held
// deleted articles.
const maxHistoryReads = 3

// CountUserHistory returns how many votes user's history holds, the
// number UserHistory's pages hold together, for a page count: the votes
// newer than the history's time (WithUserHistory), in one round trip, O(log
// n) on the server. An entry of an article deleted after its voting closed
// counts until UserHistory meets it and drops it. It gives an error
// wrapping ErrInvalid if the namespace keeps no history.
func (s *Store) CountUserHistory(ctx context.Context, user string) (n int64, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("count the history of user %q", user))
		}
	}()
	if err := checkUser(user); err != nil {
		return 0, err
	}
	history, err := s.historyTime(ctx)
	if err != nil {
		return 0, err
	}
	key := s.keys.UserHistory(user)
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		now := s.now()
		if err := schema.CheckClock(now); err != nil {
			return err
		}
		var err error
		n, err = redis.Int64(c.Do("ZCOUNT", key, keptSince(now, history), "+inf"))
		return errs.WrongType(err, key, "ZCOUNT")
	})
	return n, err
}

// keptSince is the bound of the votes a history keeps at now, as a range of
// a sorted set takes it: those cast after now less the history's time.
func keptSince(now time.Time, history time.Duration) string {
	return "(" + schema.UnixSeconds(now.Add(-history))
}

// historyTime is how long the namespace's histories keep a vote, or an
// error wrapping ErrInvalid if it keeps none (read afresh before it is
// refused: another Store may have added them).
func (s *Store) historyTime(ctx context.Context) (time.Duration, error) {
	ns, err := s.stateFor(ctx, func(st *state) bool { return st.history == 0 })
	if err != nil {
		return 0, err
	}
	switch {
	case ns.history > 0:
	case s.asked.history > 0:
		return 0, stoppedSince("the users' history", fmt.Sprintf("WithUserHistory(%v)", s.asked.history))
	default:
		return 0, errs.Invalidf("the namespace keeps no user history: give a Store WithUserHistory(d) to add it")
	}
	return ns.history, nil
}

// historyPage reads the page w of user's history l, the votes after the
// history's time by now: the votes of the articles there are, in order,
// the members of those gone, and the cursor of the page after it.
//
// The votes the history keeps are its newest entries, so the page is read
// by rank (ZREVRANGE), O(log n) to reach any depth, and the entries past
// the history's time, at its end, are left out; ZREVRANGEBYSCORE with an
// offset would walk every entry before the page, 46 ms for the last page
// of three million. Both give entries of one time in the same order.
func (s *Store) historyPage(c rconn.Link, l listing, w window, user string, now time.Time, history time.Duration) ([]UserVote, []any, string, error) {
	key := l.index
	since, err := strconv.ParseFloat(schema.UnixSeconds(now.Add(-history)), 64)
	if err != nil {
		return nil, nil, "", err
	}
	// An entry is within the history if newer than its time.
	within := func(value any) bool {
		b, _ := value.([]byte)
		at, err := strconv.ParseFloat(string(b), 64)
		return err == nil && at > since
	}
	page, next, err := s.entries(c, l, w, historyList, user, "", within)
	entries, err := redis.ByteSlices(page, err)
	if err != nil {
		return nil, nil, "", err
	}
	// Each entry is "up:" or "down:" before the article's member, and the
	// time of the vote.
	members := make([]any, 0, len(entries)/2)
	var dirs []Direction
	var times []time.Time
	for i := 0; i+1 < len(entries); i += 2 {
		if at, err := strconv.ParseFloat(string(entries[i+1]), 64); err == nil && at <= since {
			next = "" // older than the history keeps, as every entry after it
			break
		}
		word, member, ok := strings.Cut(string(entries[i]), ":")
		dir, err := ParseDirection(word)
		if !ok || err != nil || dir == None {
			continue
		}
		at, err := schema.ParseScoreSeconds(string(entries[i+1]))
		if err != nil {
			return nil, nil, "", errs.Corruptf("%s: %s: %v", key, entries[i], err)
		}
		members = append(members, []byte(member))
		dirs = append(dirs, dir)
		times = append(times, at)
	}
	articles, gone, err := s.fetch(c, members, false, false)
	if err != nil {
		return nil, nil, "", err
	}
	// fetch keeps the page's order and leaves out what it skips, so each
	// article is the next entry of its id.
	votes := make([]UserVote, 0, len(articles))
	prefix := s.keys.ArticlePrefix()
	for i, m := range members {
		if len(votes) < len(articles) && string(m.([]byte)) == prefix+articles[len(votes)].ID {
			votes = append(votes, UserVote{Article: articles[len(votes)], Direction: dirs[i], At: times[i]})
		}
	}
	return votes, gone, next, nil
}
