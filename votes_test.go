package voting_test

// Tests of votes (votes.go): Vote in every direction, UserVotes, the voter
// sets' time to live, votes at the cutoff and through a lagging clock,
// unsound fields, removed articles, and many voters at once.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// voteState is what a vote test checks after each step.
type voteState struct {
	votes, downvotes string // hash fields; "" for absent
	net              int    // up minus down, for the score
	up, down         []string
}

func (e *env) checkVoteState(t *testing.T, id string, want voteState) {
	t.Helper()
	h := e.hash(e.article(id))
	if h["votes"] != want.votes || h["downvotes"] != want.downvotes {
		t.Errorf("votes, downvotes = %q, %q; want %q, %q", h["votes"], h["downvotes"], want.votes, want.downvotes)
	}
	posted, _ := strconv.ParseFloat(h["time"], 64)
	if got, wantScore := e.zscore(e.key("score:"), e.article(id)), posted+432*float64(want.net); got != wantScore {
		t.Errorf("score = %v, want %v", got, wantScore)
	}
	if got := e.strs("SMEMBERS", e.key("voted:"+id)); !reflect.DeepEqual(got, want.up) && len(got)+len(want.up) > 0 {
		t.Errorf("voted = %v, want %v", got, want.up)
	}
	if got := e.strs("SMEMBERS", e.key("downvoted:"+id)); !reflect.DeepEqual(got, want.down) && len(got)+len(want.down) > 0 {
		t.Errorf("downvoted = %v, want %v", got, want.down)
	}
}

func TestVote(t *testing.T) {
	t.Parallel()
	type step struct {
		user string
		dir  voting.Direction
		want voteState
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"up-vote", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
		}},
		{"same up-vote twice changes nothing", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
		}},
		{"down-vote", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
		}},
		{"same down-vote twice changes nothing", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
		}},
		{"switch up to down moves two votes", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
		}},
		{"switch down to up moves two votes", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
			{"bob", voting.Up, voteState{"2", "0", 2, []string{"alice", "bob"}, nil}},
		}},
		{"take back an up-vote", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"bob", voting.None, voteState{"1", "", 1, []string{"alice"}, nil}},
		}},
		{"take back a down-vote", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
			{"bob", voting.None, voteState{"1", "0", 1, []string{"alice"}, nil}},
		}},
		{"take back no vote changes nothing", []step{
			{"bob", voting.None, voteState{"1", "", 1, []string{"alice"}, nil}},
		}},
		{"poster takes back and votes again", []step{
			{"alice", voting.None, voteState{"0", "", 0, nil, nil}},
			{"alice", voting.Down, voteState{"0", "1", -1, nil, []string{"alice"}}},
			{"alice", voting.Up, voteState{"1", "0", 1, []string{"alice"}, nil}},
		}},
		{"many users", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"carol", voting.Down, voteState{"2", "1", 1, []string{"alice", "bob"}, []string{"carol"}}},
			{"dave", voting.Down, voteState{"2", "2", 0, []string{"alice", "bob"}, []string{"carol", "dave"}}},
			{"carol", voting.Up, voteState{"3", "1", 2, []string{"alice", "bob", "carol"}, []string{"dave"}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := e.post("alice", "voted on")
			for i, s := range tt.steps {
				e.advance(time.Minute)
				e.vote(s.user, id, s.dir)
				t.Logf("step %d: %s votes %v", i, s.user, s.dir)
				e.checkVoteState(t, id, s.want)
			}
		})
	}
}

func TestVoteErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithCutoff(time.Hour))
	id := e.post("alice", "closing")
	before := e.dump()

	err := e.store.Vote(ctx, "bob", "99", voting.Up)
	if !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("vote on unknown article = %v, want ErrNotFound", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("vote on unknown article wrote:\nbefore %s\nafter  %s", before, after)
	}
	e.advance(time.Hour - time.Second)
	e.vote("bob", id, voting.Up) // a second before the cutoff
	e.advance(time.Second)       // the voter set expires now, on miniredis
	before = e.dump()
	for _, dir := range []voting.Direction{voting.Up, voting.Down, voting.None} {
		if err := e.store.Vote(ctx, "carol", id, dir); !errors.Is(err, voting.ErrVotingClosed) {
			t.Errorf("vote %v at the cutoff = %v, want ErrVotingClosed", dir, err)
		}
		if err := e.store.Vote(ctx, "bob", id, dir); !errors.Is(err, voting.ErrVotingClosed) {
			t.Errorf("vote %v by an earlier voter at the cutoff = %v, want ErrVotingClosed", dir, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("failed votes wrote:\nbefore %s\nafter  %s", before, after)
	}
}

// TestVoteRefusesUnsoundFields: a vote on an article whose time, counters
// or score do not parse as the library writes them ("inf", "nan", "1e300",
// "-1", ...) neither goes ahead nor stops half-way with a raw Lua error: it
// is refused with ErrCorrupt naming the field, and writes nothing.
func TestVoteRefusesUnsoundFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		field, value string
		dir          voting.Direction
	}{
		{"time", "inf", voting.Up},
		{"time", "nan", voting.Up},
		{"time", "1e300", voting.Up},
		{"time", "abc", voting.Up},
		{"time", "", voting.Up},
		{"votes", "abc", voting.Up},
		{"votes", "-1", voting.Up},
		{"votes", "1.5", voting.Up},
		{"downvotes", "x", voting.Down},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s=%q", tt.field, tt.value), func(t *testing.T) {
			e := newEnv(t)
			id := e.post("alice", "target")
			member := e.article(id)
			old, had := e.hash(member)[tt.field]
			e.do("HSET", member, tt.field, tt.value)
			before := e.dump()
			err := e.store.Vote(ctx, "bob", id, tt.dir)
			switch {
			case !errors.Is(err, voting.ErrCorrupt):
				t.Errorf("Vote on %s %q = %v, want ErrCorrupt", tt.field, tt.value, err)
			case !strings.Contains(err.Error(), tt.field):
				t.Errorf("error %q does not name the field %s", err, tt.field)
			}
			if after := e.dump(); after != before {
				t.Errorf("Vote on %s %q wrote:\nbefore %s\nafter  %s", tt.field, tt.value, before, after)
			}
			if had {
				e.do("HSET", member, tt.field, old)
			} else {
				e.do("HDEL", member, tt.field)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
	t.Run("score=+inf", func(t *testing.T) {
		e := newEnv(t)
		id := e.post("alice", "target")
		member, index := e.article(id), e.key("score:")
		old := e.zscore(index, member)
		e.do("ZADD", index, "+inf", member)
		before := e.dump()
		err := e.store.Vote(ctx, "bob", id, voting.Up)
		switch {
		case !errors.Is(err, voting.ErrCorrupt):
			t.Errorf("Vote on a score of +inf = %v, want ErrCorrupt", err)
		case !strings.Contains(err.Error(), index):
			t.Errorf("error %q does not name the key %s", err, index)
		}
		if after := e.dump(); after != before {
			t.Errorf("Vote on a score of +inf wrote:\nbefore %s\nafter  %s", before, after)
		}
		e.do("ZADD", index, old, member)
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
}

// TestVoteAndGroupsDoNotBringBackARemovedArticle: an article taken out of
// the indexes (its hash kept) is not found by Vote, whose ZINCRBY would put
// it back in score: with a score of a vote or so, nor by AddToGroups; they
// report ErrNotFound and write nothing.
func TestVoteAndGroupsDoNotBringBackARemovedArticle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		indexes []string
	}{
		{"removed from score: and time:", []string{"score:", "time:"}},
		{"removed from score: only", []string{"score:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := e.post("alice", "removed")
			member := e.article(id)
			scores := map[string]float64{}
			for _, index := range tt.indexes {
				scores[index] = e.zscore(e.key(index), member)
				e.do("ZREM", e.key(index), member)
			}
			if _, err := e.store.Article(ctx, id); !errors.Is(err, voting.ErrNotFound) {
				t.Errorf("Article = %v, want ErrNotFound", err)
			}
			before := e.dump()
			for _, v := range []struct {
				user string
				dir  voting.Direction
			}{{"bob", voting.Up}, {"bob", voting.Down}, {"alice", voting.None}} {
				if err := e.store.Vote(ctx, v.user, id, v.dir); !errors.Is(err, voting.ErrNotFound) {
					t.Errorf("%s votes %v = %v, want ErrNotFound", v.user, v.dir, err)
				}
			}
			if err := e.store.AddToGroups(ctx, id, "g"); !errors.Is(err, voting.ErrNotFound) {
				t.Errorf("AddToGroups = %v, want ErrNotFound", err)
			}
			if after := e.dump(); after != before {
				t.Errorf("calls on a removed article wrote:\nbefore %s\nafter  %s", before, after)
			}
			for index, score := range scores {
				e.do("ZADD", e.key(index), score, member)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestVotesMoveOnlyIndexedEntries: an article a window has trimmed stays
// out of it when voted on; one posted before its order was kept stays out
// of that index until Reindex.
func TestVotesMoveOnlyIndexedEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	id := e.post("alice", "old news")
	e.advance(25 * time.Hour)
	if got := listAll(t, e.store, "", voting.TopDay); len(got) != 0 {
		t.Fatalf("top of the day after 25 hours: %v", idsOf(got))
	}
	e.vote("bob", id, voting.Up) // voting is still open: the cutoff is a week
	if e.exists(e.key("top-day:")) {
		t.Errorf("a vote brought a trimmed article back: top-day: = %v", e.zset(e.key("top-day:")))
	}

	all, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithOrders(voting.ByVotes))
	if err != nil {
		t.Fatal(err)
	}
	if err := all.Vote(context.Background(), "carol", id, voting.Up); err != nil {
		t.Fatal(err)
	}
	if e.exists(e.key("votes:")) {
		t.Errorf("a vote made an entry of just its change: votes: = %v", e.zset(e.key("votes:")))
	}
	if err := all.Reindex(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.zscore(e.key("votes:"), e.article(id)); got != 3 {
		t.Errorf("after Reindex, votes: gives %v, want 3", got)
	}
}

func TestUserVotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithCutoff(time.Hour))
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	c := e.post("alice", "c")
	e.vote("bob", a, voting.Up)
	e.vote("bob", b, voting.Down)
	got, err := e.store.UserVotes(ctx, "bob", a, b, c, "99", a)
	if err != nil {
		t.Fatal(err)
	}
	want := []voting.Direction{voting.Up, voting.Down, voting.None, voting.None, voting.Up}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UserVotes(bob) = %v, want %v", got, want)
	}
	got, err = e.store.UserVotes(ctx, "alice", a, b)
	if err != nil || !reflect.DeepEqual(got, []voting.Direction{voting.Up, voting.Up}) {
		t.Errorf("UserVotes(alice) = %v, %v; want [up up]", got, err)
	}
	got, err = e.store.UserVotes(ctx, "alice")
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("UserVotes with no ids = %v, %v; want an empty slice", got, err)
	}
}

// A direction never given, as a JSON body's misspelt field leaves it, is
// refused: it does not take the user's vote back.
func TestVoteRefusesADirectionNeverGiven(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "a")
	e.vote("yann", id, voting.Up)
	var body struct {
		User      string           `json:"user"`
		Direction voting.Direction `json:"direction"`
	}
	if err := json.Unmarshal([]byte(`{"user":"yann","dir":"up"}`), &body); err != nil {
		t.Fatal(err)
	}
	before := e.dump()
	err := e.store.Vote(ctx, body.User, id, body.Direction)
	if !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), "no vote direction given") {
		t.Fatalf("Vote with no direction: %v; want ErrInvalid saying no direction was given", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a vote with no direction wrote:\nbefore %s\nafter  %s", before, after)
	}
	e.checkCounts(t, id, 2, 0, 2)
	if _, err := voting.Direction(0).MarshalText(); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Direction(0).MarshalText: %v; want ErrInvalid", err)
	}
	if err := body.Direction.UnmarshalText(nil); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("UnmarshalText(\"\"): %v; want ErrInvalid", err)
	}
	// None still takes the vote back, and the forms stay the words.
	e.vote("yann", id, voting.None)
	e.checkCounts(t, id, 1, 0, 1)
	got, err := json.Marshal([]voting.Direction{voting.Up, voting.Down, voting.None})
	if err != nil || string(got) != `["up","down","none"]` {
		t.Errorf("json.Marshal of the directions = %s, %v", got, err)
	}
	var back []voting.Direction
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, []voting.Direction{voting.Up, voting.Down, voting.None}) {
		t.Errorf("json.Unmarshal = %v, %v", back, err)
	}
}

func TestVoteSetsExpireAtTheCutoff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "expiring")
	e.vote("alice", id, voting.None) // the voted set is now gone
	if e.exists(e.key("voted:" + id)) {
		t.Fatal("voted set still exists after its only member left")
	}
	e.advance(24 * time.Hour)
	e.vote("bob", id, voting.Up)
	e.vote("carol", id, voting.Down)
	left := voting.DefaultCutoff - 24*time.Hour
	for _, k := range []string{"voted:" + id, "downvoted:" + id} {
		if ttl := e.pttl(e.key(k)); ttl > left || ttl < left-5*time.Second {
			t.Errorf("%s TTL = %v, want %v (the cutoff)", k, ttl, left)
		}
	}
	if e.real() {
		return // a real server's TTLs run on real time
	}
	e.advance(left)
	if e.exists(e.key("voted:"+id)) || e.exists(e.key("downvoted:"+id)) {
		t.Error("voter sets outlive the cutoff")
	}
}

// TestVoterSetTTLsFollowTheCutoff checks, after every vote, that each voter
// set that has voters expires at the article's cutoff. On miniredis, whose
// clock moves with the Store's, that is exact: PTTL = cutoff time - now. A
// real server's TTLs keep real time, so there a set's PTTL is the time to
// the cutoff from when the set was made, within a second; the steps add no
// voter to a set made before the clock last moved, so that this does not
// depend on whether a vote sets the TTL of a set that has one.
func TestVoterSetTTLsFollowTheCutoff(t *testing.T) {
	t.Parallel()
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

// TestVoteWaitingForAConnectionPastTheCutoffCountsOnce: a vote that reads
// the clock before the cutoff but runs after it, once the voter sets have
// expired, does not count the voter a second time.
func TestVoteWaitingForAConnectionPastTheCutoffCountsOnce(t *testing.T) {
	if os.Getenv(redisClusterEnv) != "" {
		t.Skip("this test needs a *redis.Pool of one connection, not a cluster client")
	}
	addr := os.Getenv(redisAddrEnv)
	if addr == "" {
		addr = startServer(t).addr
	}
	dial := func(ctx context.Context) (redis.Conn, error) {
		return redis.DialContext(ctx, "tcp", addr, redis.DialReadTimeout(5*time.Second))
	}
	// The Store's pool has one connection; the env reads through a pool of
	// its own, since the invariant checker holds two connections at once.
	pool := &redis.Pool{MaxActive: 1, MaxIdle: 1, Wait: true, DialContext: dial}
	t.Cleanup(func() { pool.Close() })
	const cutoff = time.Second
	e := newEnvPool(t, &redis.Pool{MaxIdle: 4, DialContext: dial}, "")
	var err error
	e.do("DEL", e.key("settings:")) // an empty namespace: the Store's first call sets its cutoff
	if e.store, err = voting.New(pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(time.Now), voting.WithCutoff(cutoff)); err != nil {
		t.Fatal(err)
	}
	posted := time.Now()
	id := e.post("alice", "cutoff race")
	e.vote("bob", id, voting.Up)

	// At 0.9s another user of the pool holds its only connection for 0.4s,
	// past the cutoff and the voter sets' expiry, while bob votes again.
	held, released := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(time.Until(posted.Add(900 * time.Millisecond)))
		c := pool.Get()
		c.Do("PING")
		close(held)
		time.Sleep(400 * time.Millisecond)
		c.Close()
	}()
	<-held
	vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = e.store.Vote(vctx, "bob", id, voting.Up)
	cancel()
	<-released
	if err != nil && !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("the repeated vote = %v, want nil or ErrVotingClosed", err)
	}
	if ran := time.Since(posted); ran < cutoff+300*time.Millisecond {
		t.Fatalf("the vote returned %v after posting, before the connection was free: the test proves nothing", ran)
	}
	h := e.hash(e.article(id))
	if h["votes"] != "2" {
		t.Errorf("votes = %q, want 2: bob's up-vote counted twice", h["votes"])
	}
	posting, err := strconv.ParseFloat(h["time"], 64)
	if err != nil {
		t.Fatalf("time %q: %v", h["time"], err)
	}
	if got := e.zscore(e.key("score:"), e.article(id)) - posting; got != 2*voting.DefaultVoteWeight {
		t.Errorf("score - time = %v, want %v (2 votes)", got, 2*voting.DefaultVoteWeight)
	}
	e.clock.set(time.Now())
	e.checkInvariants(voting.DefaultVoteWeight, cutoff)
}

// TestVoteThroughALaggingClockAfterTheSetsExpired: an expired voter set
// closes voting whatever the Store's clock says: a Store whose clock lags
// 3s takes no vote once the voter sets have expired, so that no voter is
// counted again.
func TestVoteThroughALaggingClockAfterTheSetsExpired(t *testing.T) {
	t.Parallel()
	const lag = 3 * time.Second
	e := newEnv(t)
	// On miniredis the voter sets expire as the test moves its clock, with a
	// cutoff of an hour; a real server's expire by real time, so there the
	// Stores read real time too, with a cutoff of a second.
	cutoff, now := time.Hour, e.clock.Now
	if e.real() {
		cutoff, now = time.Second, time.Now
	}
	open := func(clock func() time.Time) *voting.Store {
		t.Helper()
		s, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithCutoff(cutoff), voting.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	e.do("DEL", e.key("settings:")) // an empty namespace: the Stores' first call sets its cutoff
	e.store = open(now)
	lagging := open(func() time.Time { return now().Add(-lag) })
	posted := now()
	id := e.post("alice", "skewed")
	e.vote("bob", id, voting.Up)
	if e.real() {
		// Redis expires the voter set a cutoff after the post ran, which
		// may be well after posted on a busy machine: wait for it, from
		// just before it is due.
		time.Sleep(time.Until(posted.Add(cutoff)))
		for waited := time.Duration(0); e.exists(e.key("voted:" + id)); waited += 10 * time.Millisecond {
			if waited > time.Minute {
				t.Fatalf("the voter set has not expired a minute past the cutoff of %v", cutoff)
			}
			time.Sleep(10 * time.Millisecond)
		}
	} else {
		e.advance(cutoff + time.Second) // expires the voter sets
	}
	if e.exists(e.key("voted:" + id)) {
		t.Fatal("the voter set has not expired")
	}

	before := e.dump()
	for _, v := range []struct {
		user string
		dir  voting.Direction
	}{{"alice", voting.Up}, {"bob", voting.Up}, {"carol", voting.Down}} {
		if err := lagging.Vote(ctx, v.user, id, v.dir); !errors.Is(err, voting.ErrVotingClosed) {
			t.Errorf("%s votes %v through the lagging Store = %v, want ErrVotingClosed", v.user, v.dir, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("votes after the voter sets expired wrote:\nbefore %s\nafter  %s", before, after)
	}
	h := e.hash(e.article(id))
	if h["votes"] != "2" || h["downvotes"] != "" {
		t.Errorf("votes, downvotes = %q, %q; want 2 and none", h["votes"], h["downvotes"])
	}
	if e.real() {
		e.clock.set(time.Now())
	}
	e.checkInvariants(voting.DefaultVoteWeight, cutoff)
}

func TestConcurrentVotesKeepScoreAndCountersTogether(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "contested")
	const workers, votes = 8, 40
	errs := make(chan error, 3*workers*votes)
	together(workers, func(w int) {
		for v := 0; v < votes; v++ {
			user := fmt.Sprintf("user-%d-%d", w, v)
			// Each user votes down, then half switch up: final net per
			// worker is votes/2 up and votes/2 down.
			if err := e.store.Vote(ctx, user, id, voting.Down); err != nil {
				errs <- err
			}
			if v%2 == 0 {
				if err := e.store.Vote(ctx, user, id, voting.Up); err != nil {
					errs <- err
				}
			}
			// Every user also takes back and recasts to race the sets.
			if err := e.store.Vote(ctx, "shared", id, voting.Direction(1+v%3)); err != nil {
				errs <- err
			}
		}
	})
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	h := e.hash(e.article(id))
	up := e.int("SCARD", e.key("voted:"+id))
	down := e.int("SCARD", e.key("downvoted:"+id))
	if h["votes"] != strconv.FormatInt(up, 10) || h["downvotes"] != strconv.FormatInt(down, 10) {
		t.Errorf("counters %s/%s disagree with sets %d/%d", h["votes"], h["downvotes"], up, down)
	}
	wantUp, wantDown := int64(1+workers*votes/2), int64(workers*votes/2)
	shared := 0
	if e.int("SISMEMBER", e.key("voted:"+id), "shared") == 1 {
		shared = 1
	}
	if e.int("SISMEMBER", e.key("downvoted:"+id), "shared") == 1 {
		shared = -1
	}
	if shared == 1 {
		wantUp++
	} else if shared == -1 {
		wantDown++
	}
	if up != wantUp || down != wantDown {
		t.Errorf("sets hold %d up, %d down; want %d, %d", up, down, wantUp, wantDown)
	}
	if got, want := e.zscore(e.key("score:"), e.article(id)), unix(start)+432*float64(up-down); got != want {
		t.Errorf("score = %v, want %v", got, want)
	}
}

func TestManyVotersOnOneArticle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "popular")
	const goroutines = 32
	votes := 200
	if !e.real() {
		votes = 50 // miniredis runs Lua some six times slower: 1,601 voters still race
	}
	var failed atomic.Int64
	together(goroutines, func(g int) {
		for v := 0; v < votes; v++ {
			if err := e.store.Vote(ctx, fmt.Sprintf("user-%d-%d", g, v), id, voting.Up); err != nil {
				failed.Add(1)
				t.Error(err)
				return
			}
		}
	})
	if failed.Load() > 0 {
		t.FailNow()
	}
	want := int64(1 + goroutines*votes)
	if got := e.hash(e.article(id))["votes"]; got != strconv.FormatInt(want, 10) {
		t.Errorf("votes = %s, want %d", got, want)
	}
	if got := e.int("SCARD", e.key("voted:"+id)); got != want {
		t.Errorf("voters = %d, want %d", got, want)
	}
	if got, w := e.zscore(e.key("score:"), e.article(id)), unix(start)+432*float64(want); got != w {
		t.Errorf("score = %v, want %v", got, w)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestOneUserRacingThemselves(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "contested")
	const goroutines, rounds = 50, 20
	together(goroutines, func(g int) {
		for r := 0; r < rounds; r++ {
			if err := e.store.Vote(ctx, "bob", id, voting.Direction(1+(g+r)%3)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	// Whatever vote came last, the state is that vote's, whole.
	dirs, err := e.store.UserVotes(ctx, "bob", id)
	if err != nil {
		t.Fatal(err)
	}
	net := map[voting.Direction]int{voting.Up: 2, voting.Down: 0, voting.None: 1}[dirs[0]]
	up, down := int64(1), int64(0)
	switch dirs[0] {
	case voting.Up:
		up = 2
	case voting.Down:
		down = 1
	}
	e.checkCounts(t, id, up, down, net)
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	// And taking it back lands exactly on the poster's lone vote.
	e.vote("bob", id, voting.None)
	e.checkCounts(t, id, 1, 0, 1)
}

// checkCounts checks an article's counters, its voter sets' sizes and its
// score; a missing downvotes field counts as 0.
func (e *env) checkCounts(t *testing.T, id string, up, down int64, net int) {
	t.Helper()
	h := e.hash(e.article(id))
	votes, _ := strconv.ParseInt(h["votes"], 10, 64)
	downvotes, _ := strconv.ParseInt(h["downvotes"], 10, 64)
	if votes != up || downvotes != down {
		t.Errorf("counters %d/%d, want %d/%d", votes, downvotes, up, down)
	}
	if n, m := e.int("SCARD", e.key("voted:"+id)), e.int("SCARD", e.key("downvoted:"+id)); n != up || m != down {
		t.Errorf("voter sets %d/%d, want %d/%d", n, m, up, down)
	}
	if got, want := e.zscore(e.key("score:"), e.article(id)), unix(start)+432*float64(net); got != want {
		t.Errorf("score = %v, want %v", got, want)
	}
}

// TestVotingClosesExactlyAtTheCutoff: an article posted at t takes votes
// until t + cutoff, by the Store's clock, and none from then on: a vote a
// microsecond before the edge counts; at the edge itself, a vote, a switch
// or a take-back is ErrVotingClosed and writes nothing.
func TestVotingClosesExactlyAtTheCutoff(t *testing.T) {
	t.Parallel()
	const cutoff = time.Hour
	e := newEnv(t, voting.WithCutoff(cutoff))
	posted := e.clock.Now()
	id := e.post("alice", "closing")
	e.clock.set(posted.Add(cutoff - time.Microsecond))
	e.vote("bob", id, voting.Up)
	if got := e.str("HGET", e.article(id), "votes"); got != "2" {
		t.Fatalf("a microsecond before the cutoff the vote did not count: votes = %s", got)
	}
	e.clock.set(posted.Add(cutoff))
	before := e.dump()
	for _, v := range []struct {
		user string
		dir  voting.Direction
	}{{"carol", voting.Up}, {"carol", voting.Down}, {"bob", voting.Down}, {"bob", voting.None}} {
		if err := e.store.Vote(ctx, v.user, id, v.dir); !errors.Is(err, voting.ErrVotingClosed) {
			t.Errorf("%s votes %v at the cutoff: %v, want ErrVotingClosed", v.user, v.dir, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("votes at the cutoff wrote: %s", dumpDiff(before, after))
	}
}
