package voting_test

// Tests of the voter sets' time to live.

import (
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// TestVoterSetTTLsFollowTheCutoff checks, after every vote, that each voter
// set that has voters expires at the article's cutoff. On miniredis, whose
// clock moves with the Store's, that is exact: PTTL = cutoff time - now. A
// real server's TTLs keep real time, so there a set's PTTL is the time to
// the cutoff from when the set was made, within a second; the steps add no
// voter to a set made before the clock last moved, so that this does not
// depend on whether a vote sets the TTL of a set that has one.
func TestVoterSetTTLsFollowTheCutoff(t *testing.T) {
	const cutoff = 50 * time.Hour
	e := newEnv(t, voting.WithCutoff(cutoff))
	id := e.post("alice", "expiring")
	closes := e.clock.Now().Add(cutoff)
	sets := map[voting.Direction]string{voting.Up: e.key("voted:" + id), voting.Down: e.key("downvoted:" + id)}
	voters := map[voting.Direction]map[string]bool{voting.Up: {"alice": true}, voting.Down: {}}
	made := map[voting.Direction]time.Time{voting.Up: e.clock.Now()} // when each set got its voters

	check := func(step string) {
		t.Helper()
		for dir, key := range sets {
			if len(voters[dir]) == 0 {
				if e.exists(key) {
					t.Errorf("%s: %s exists with no voters in it: %v", step, key, e.strs("SMEMBERS", key))
				}
				continue
			}
			got := e.pttl(key)
			if e.real() {
				if want := closes.Sub(made[dir]); got > want || got <= want-time.Second {
					t.Errorf("%s: %s PTTL = %v, want %v, the time to the cutoff when it was made", step, key, got, want)
				}
			} else if want := closes.Sub(e.clock.Now()); got != want {
				t.Errorf("%s: %s PTTL = %v, want %v, the time to the cutoff", step, key, got, want)
			}
		}
	}
	vote := func(user string, dir voting.Direction) {
		t.Helper()
		e.vote(user, id, dir)
		for d, vs := range voters {
			if d == dir {
				if len(vs) == 0 {
					made[d] = e.clock.Now()
				}
				vs[user] = true
			} else {
				delete(vs, user)
			}
		}
		check(user + " votes " + dir.String())
	}

	check("posted")
	vote("alice", voting.None) // the voted set is gone
	e.advance(3 * time.Hour)
	vote("bob", voting.Up)     // a new voted set
	vote("carol", voting.Up)   // one voter more
	vote("bob", voting.Down)   // a switch: a new downvoted set
	vote("carol", voting.None) // a take-back: the voted set is gone, downvoted stays
	e.advance(2 * time.Hour)   // downvoted now has 45h left on miniredis
	vote("dave", voting.Up)    // a new voted set, 45h
	vote("bob", voting.Up)     // a switch back: downvoted is gone
	vote("erin", voting.Down)  // a new downvoted set
	vote("dave", voting.None)  // a take-back: voted stays with bob
	vote("frank", voting.Up)   // no new set
	vote("frank", voting.Down) // a switch into a set that has voters
	vote("frank", voting.None) // and out again
	if e.real() {
		return // a real server's TTLs run on real time
	}
	e.advance(closes.Sub(e.clock.Now()) - time.Millisecond)
	check("a millisecond before the cutoff")
	e.advance(time.Millisecond)
	for _, key := range sets {
		if e.exists(key) {
			t.Errorf("%s outlived the cutoff", key)
		}
	}
}
