package voting_test

// Tests of a user's history (history.go).

import (
	"strconv"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// TestHistoryForgetsOldVotesAFewAtATime: the votes a history no longer
// keeps leave it a hundred at a vote, the oldest first, so that no vote
// takes Redis time in proportion to how many votes the user once cast;
// meanwhile no read shows them.
func TestHistoryForgetsOldVotesAFewAtATime(t *testing.T) {
	e := newEnv(t, voting.WithUserHistory(time.Hour))
	var ids []string
	for i := range 250 {
		ids = append(ids, e.post("alice", "old "+strconv.Itoa(i)))
	}
	for _, id := range ids {
		e.vote("bob", id, voting.Up)
	}
	// A vote within the hour keeps the history; the next, past the hour,
	// forgets a hundred of the 250 old votes.
	e.advance(50 * time.Minute)
	e.vote("bob", e.post("alice", "between"), voting.Up)
	e.advance(50 * time.Minute)
	fresh := e.post("alice", "fresh")
	e.vote("bob", fresh, voting.Up)
	key := e.key("history:bob")
	if n := e.int("ZCARD", key); n != 250-100+2 {
		t.Errorf("bob's history holds %d votes, want %d", n, 250-100+2)
	}
	if got := e.int("ZCOUNT", key, "-inf", unix(e.clock.Now().Add(-time.Hour))); got != 150 {
		t.Errorf("%d old votes are left, want 150 of the 250", got)
	}
	votes, err := e.store.UserHistory(ctx, "bob", 1)
	if err != nil || len(votes) != 2 || votes[0].Article.ID != fresh {
		t.Errorf("UserHistory = %+v, %v; want the fresh vote and the one between", votes, err)
	}
	// Voting on them is open: a take-back forgets as a vote does.
	e.vote("bob", ids[0], voting.None)
	e.vote("bob", ids[1], voting.Down)
	if n := e.int("ZCARD", key); n != 3 {
		t.Errorf("bob's history holds %d votes after three more votes, want 3", n)
	}
}
