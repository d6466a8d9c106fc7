package voting_test

// This file tests the walks of Rescore and StopKeeping: what each walks,
// and that a call cut short is gone on with by the next, where it stopped.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// stepClock is a Store's clock that cancels a context once it has been
// read more than budget times: Rescore reads the clock once a step, before
// the step is sent, so a call with it runs budget steps and no more.
type stepClock struct {
	e      *env
	mu     sync.Mutex
	reads  int
	budget int
	cancel context.CancelFunc
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if c.reads > c.budget && c.cancel != nil {
		c.cancel()
	}
	return c.e.clock.Now()
}

// call gives a context that the clock cancels after budget more reads.
func (c *stepClock) call(budget int) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.reads, c.budget, c.cancel = 0, budget, cancel
	c.mu.Unlock()
	return cctx, cancel
}

// wantTTL checks that key expires at the time (Unix seconds, by the
// Store's clock) posted plus cutoff: its time to live is that less the
// Store's now, less the little real time the test has taken since.
func (e *env) wantTTL(key string, posted float64, cutoff time.Duration) {
	e.t.Helper()
	want := time.Duration((posted-float64(e.clock.Now().UnixMilli())/1000)*float64(time.Second)) + cutoff
	got := e.pttl(key)
	if got > want || got < want-5*time.Second {
		e.t.Errorf("%s expires in %v, want %v", key, got, want)
	}
}

// TestRescoreRetimesTheComments: Rescore gives the comments' voter sets
// the time to live of the new cutoff, as it does the articles': after a
// rescore from a cutoff of 2 s to an hour, a comment 3 s old takes votes,
// as its article does; and a rescore to a cutoff that has passed closes
// both.
func TestRescoreRetimesTheComments(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithCutoff(2*time.Second))
	e.store = e.with() // a Store that takes the namespace's cutoff, whatever Rescore makes it
	a := e.post("alice", "discussed")
	top := e.comment("bob", a, "", "top")
	reply := e.comment("carol", a, top, "reply")
	e.voteComment("dave", reply, voting.Down)
	posted := unix(e.clock.Now())
	if err := e.store.Rescore(ctx, voting.DefaultVoteWeight, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"comment-up:" + top, "comment-up:" + reply, "comment-down:" + reply, "voted:" + a} {
		e.wantTTL(e.key(key), posted, time.Hour)
	}
	e.advance(3 * time.Second)
	if e.mr != nil {
		e.mr.FastForward(3 * time.Second) // the 2 s the sets had before are gone
	}
	if err := e.store.Vote(ctx, "erin", a, voting.Up); err != nil {
		t.Errorf("a vote on the article 3 s old after the rescore to an hour: %v", err)
	}
	for _, id := range []string{top, reply} {
		if err := e.store.VoteComment(ctx, "erin", id, voting.Up); err != nil {
			t.Errorf("a vote on comment %s, 3 s old, after the rescore to an hour: %v", id, err)
		}
	}
	if got := e.strs("SMEMBERS", e.key("comment-up:"+reply)); fmt.Sprint(sorted(got)) != "[carol erin]" {
		t.Errorf("comment-up:%s = %v, want [carol erin]", reply, got)
	}
	// A cutoff that has passed: the sets go, and votes are refused.
	if err := e.store.Rescore(ctx, voting.DefaultVoteWeight, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"comment-up:" + top, "comment-up:" + reply, "comment-down:" + reply, "voted:" + a} {
		if e.exists(e.key(key)) {
			t.Errorf("%s is there after a rescore to a cutoff that has passed", key)
		}
	}
	if err := e.store.VoteComment(ctx, "frank", reply, voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("a vote on a comment past the new cutoff = %v, want ErrVotingClosed", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, 2*time.Second)
}

// TestACommentVoteOfOldSettingsAfterARescoreIsClosed: a Store that read
// the settings before another Store's Rescore to a shorter cutoff finds a
// comment past that cutoff closed, as a vote on an article is.
func TestACommentVoteOfOldSettingsAfterARescoreIsClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithCutoff(time.Hour))
	e.store = e.with()
	a := e.post("alice", "discussed")
	id, err := e.store.PostComment(ctx, "bob", a, "", "first")
	if err != nil {
		t.Fatal(err)
	}
	other := e.with()
	if _, err := other.Settings(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Rescore(ctx, voting.DefaultVoteWeight, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	e.advance(20 * time.Minute)
	before := e.dump()
	if err := other.VoteComment(ctx, "carol", id, voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("a vote by a Store of the settings before, past the new cutoff = %v, want ErrVotingClosed", err)
	}
	if err := other.Vote(ctx, "carol", a, voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("the same on the article = %v, want ErrVotingClosed", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a refused vote wrote:\n%s\nwas:\n%s", after, before)
	}
}

// rescoreData posts n articles a minute apart with votes, and m comments
// on the last, for the walks.
func rescoreData(e *env, n, m int) (ids, comments []string) {
	ids = postMany(e, n)
	for i := range m {
		comments = append(comments, e.comment(fmt.Sprintf("user%d", i%5), ids[n-1], "", fmt.Sprintf("comment %d", i)))
	}
	return ids, comments
}

// wantRescored checks that every article's score is its time plus weight
// times its net votes, and that its and its comments' voter sets expire
// at the cutoff.
func (e *env) wantRescored(ids, comments []string, weight float64, cutoff time.Duration) {
	e.t.Helper()
	wrong := 0
	for _, id := range ids {
		h := e.hash(e.article(id))
		posted, _ := strconv.ParseFloat(h["time"], 64)
		up, _ := strconv.Atoi(h["votes"])
		down, _ := strconv.Atoi(h["downvotes"])
		if got, want := e.zscore(e.key("score:"), e.article(id)), posted+weight*float64(up-down); got != want {
			wrong++
		}
		e.wantTTL(e.key("voted:"+id), posted, cutoff)
	}
	if wrong > 0 {
		e.t.Errorf("%d of %d articles are not scored with weight %v", wrong, len(ids), weight)
	}
	for _, id := range comments {
		posted, _ := strconv.ParseFloat(e.hash(e.key("comment:" + id))["time"], 64)
		e.wantTTL(e.key("comment-up:"+id), posted, cutoff)
	}
}

// TestRescoreGoesOnWhereItStopped: calls of Rescore each cut short after
// one step finish the walk, each going on where the last stopped, in as
// many calls as the walk has steps; then a call returns at once. Before,
// every call walked again from the oldest article and never finished.
func TestRescoreGoesOnWhereItStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithCutoff(48*time.Hour))
	e.store = e.with()
	ids, comments := rescoreData(e, 90, 45)
	clock := &stepClock{e: e}
	s := e.with(voting.WithClock(clock.now))
	voting.SetBatches(s, 500, 20)
	// The walk's steps: the articles, 20 a step, one step more since a
	// step of a full batch cannot tell that it is the last; the comments,
	// 20 a step.
	steps := (90/20 + 1) + (45+19)/20
	calls := 0
	for ; calls < 3*steps; calls++ {
		cctx, cancel := clock.call(1)
		err := s.Rescore(cctx, 100, 24*time.Hour)
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d: %v", calls+1, err)
		}
		if calls == 0 {
			// The first step recorded where the second goes on.
			got := e.hash(e.key("progress:"))
			want := fmt.Sprintf("(%v", e.hash(e.article(ids[19]))["time"])
			if got["rescore"] != "100 86400000" || got["rescore-phase"] != "articles" || got["rescore-at"] != want {
				t.Errorf("progress: after one step = %v, want the walk of 100 86400000 in the articles at %s", got, want)
			}
		}
	}
	if calls+1 != steps {
		t.Errorf("the walk took %d calls of one step each, want %d", calls+1, steps)
	}
	e.wantRescored(ids, comments, 100, 24*time.Hour)
	if got := e.hash(e.key("progress:")); got["rescore-phase"] != "done" {
		t.Errorf("progress: after the walk = %v, want it done", got)
	}
	// Done: a call with the same values walks nothing.
	cctx, cancel := clock.call(0)
	defer cancel()
	if err := s.Rescore(cctx, 100, 24*time.Hour); err != nil {
		t.Errorf("a call once the walk is done = %v, want nil with no step", err)
	}
	e.checkInvariants(100, 24*time.Hour)
}

// TestARescoreOfOtherValuesStartsAnew: a walk cut short by a rescore to
// other values is not gone on with when the first values come back: the
// second walk started anew from the oldest article.
func TestARescoreOfOtherValuesStartsAnew(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithCutoff(48*time.Hour))
	e.store = e.with()
	ids, comments := rescoreData(e, 70, 10)
	clock := &stepClock{e: e}
	s := e.with(voting.WithClock(clock.now))
	voting.SetBatches(s, 500, 20)
	cctx, cancel := clock.call(2)
	if err := s.Rescore(cctx, 100, 24*time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("the first call = %v, want it cut short", err)
	}
	cancel()
	cctx, cancel = clock.call(1)
	if err := s.Rescore(cctx, 200, 12*time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("the second call = %v, want it cut short", err)
	}
	cancel()
	if got := e.hash(e.key("progress:")); got["rescore"] != "200 43200000" || got["rescore-at"] != fmt.Sprintf("(%v", e.hash(e.article(ids[19]))["time"]) {
		t.Errorf("progress: after a step of the second walk = %v", got)
	}
	if err := s.Rescore(ctx, 100, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	e.wantRescored(ids, comments, 100, 24*time.Hour)
	e.checkInvariants(100, 24*time.Hour)
}

// TestRescoresRacing: two Rescores of other values at once end with every
// score and voter set's time to live at the namespace's final values, a
// change of the cutoff alone included; and a Rescore racing a Store that
// adds karma keeps both changes.
func TestRescoresRacing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		a, b     float64
		ac, bc   time.Duration
		withKarm bool
	}{
		{"weights", 100, 200, 24 * time.Hour, 24 * time.Hour, false},
		{"cutoffs alone", voting.DefaultVoteWeight, voting.DefaultVoteWeight, 24 * time.Hour, 36 * time.Hour, false},
		{"both", 100, 300, 30 * time.Hour, 20 * time.Hour, false},
		{"a rescore and karma added", 150, 0, 30 * time.Hour, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, voting.WithCutoff(48*time.Hour))
			e.store = e.with()
			ids, comments := rescoreData(e, 60, 30)
			one, two := e.with(), e.with(voting.WithKarma())
			voting.SetBatches(one, 500, 7)
			voting.SetBatches(two, 500, 7)
			var errOne, errTwo atomic.Value
			together(2, func(g int) {
				var err error
				switch {
				case g == 0:
					err = one.Rescore(ctx, c.a, c.ac)
				case c.withKarm:
					_, err = two.Settings(ctx)
				default:
					err = two.Rescore(ctx, c.b, c.bc)
				}
				if err != nil {
					[]*atomic.Value{&errOne, &errTwo}[g].Store(err)
				}
			})
			set, err := e.with().Settings(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// A Rescore that lost the race says so; the other finished.
			for i, v := range []*atomic.Value{&errOne, &errTwo} {
				if err, _ := v.Load().(error); err != nil {
					t.Logf("call %d: %v", i+1, err)
				}
			}
			if c.withKarm {
				if errOne.Load() != nil || errTwo.Load() != nil || !set.Karma || set.VoteWeight != c.a || set.Cutoff != c.ac {
					t.Errorf("settings = %+v (%v, %v); want karma and weight %v, cutoff %v", set, errOne.Load(), errTwo.Load(), c.a, c.ac)
				}
			} else if (set.VoteWeight == c.a && set.Cutoff == c.ac) == (set.VoteWeight == c.b && set.Cutoff == c.bc) && c.a != c.b {
				t.Errorf("settings = %+v, want one call's values", set)
			}
			// The call whose values the namespace ended with walked every
			// article and comment, whatever the other's steps did.
			e.wantRescored(ids, comments, set.VoteWeight, set.Cutoff)
			if c.withKarm {
				if err := e.with().Reindex(ctx); err != nil {
					t.Fatal(err)
				}
			}
			e.checkInvariants(set.VoteWeight, set.Cutoff)
		})
	}
}

// stepPool hands out connections that cancel a context once they have
// run budget commands named in cmds: with "" (a pipeline's flush), a call
// of StopKeeping runs budget steps and no more (the context is checked
// before each round trip, so the next scan is not sent).
type stepPool struct {
	e      *env
	mu     sync.Mutex
	cmds   map[string]bool
	runs   int
	budget int
	cancel context.CancelFunc
}

func (p *stepPool) Get() redis.Conn {
	return cancelConn{p.e.redis().Get(), &sentLog{}, func(cmd string, err error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.cmds[cmd] {
			p.runs++
			if p.runs >= p.budget && p.cancel != nil {
				p.cancel()
			}
		}
	}}
}

func (p *stepPool) call(budget int) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancel(ctx)
	p.mu.Lock()
	p.runs, p.budget, p.cancel = 0, budget, cancel
	p.mu.Unlock()
	return cctx, cancel
}

// TestStopKeepingGoesOnWhereItStopped: calls of StopKeeping each cut short
// after one step finish every walk, each going on where the last stopped:
// the groups' live indexes, the articles' and comments' parts of karma,
// the histories; in about as many calls as the walks have steps. Before,
// each call started every walk again and none finished.
func TestStopKeepingGoesOnWhereItStopped(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByHot), voting.WithKarma(), voting.WithUserHistory(time.Hour))
	for i := range 30 {
		g := fmt.Sprintf("g%d", i)
		id := e.post(fmt.Sprintf("poster%d", i), "article "+g, g)
		e.vote(fmt.Sprintf("voter%d", i), id, voting.Up)
		e.comment("carol", id, "", "comment on "+g)
	}
	p := &stepPool{e: e, cmds: map[string]bool{"": true}}
	s, err := voting.New(p, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	voting.SetStopBatch(s, 4)
	// The walks' steps: 30 groups, 30 articles and 30 comments, 4 a step,
	// and the keyspace twice (the histories, the deleted articles' voter
	// sets), about 4 keys a step: the server's, which a real server may
	// share with other tests.
	keyspace := int(e.int("DBSIZE"))
	most := 3*(30/4+1) + 2*(2*keyspace/4+5)
	calls := 0
	for ; calls < most; calls++ {
		// Each call's first pipeline takes the site's indexes away again;
		// its second is a step of a walk.
		cctx, cancel := p.call(2)
		err := s.StopKeeping(cctx, voting.WithOrders(voting.ByHot), voting.WithLiveGroups(), voting.WithKarma(), voting.WithUserHistory(time.Hour))
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d: %v", calls+1, err)
		}
	}
	if calls == most {
		t.Fatalf("StopKeeping did not finish in %d calls of one step each", most)
	}
	t.Logf("%d calls of one step each, the keyspace %d keys", calls+1, keyspace)
	for _, key := range e.keys() {
		for _, bad := range []string{"live:", "history:", "karma"} {
			if len(key) >= len(e.prefix)+len(bad) && key[len(e.prefix):len(e.prefix)+len(bad)] == bad {
				t.Errorf("%s is left", key)
			}
		}
	}
	for i := 1; i <= 30; i++ {
		if _, ok := e.hash(e.key(fmt.Sprintf("comment:%d", i)))["karma"]; ok {
			t.Errorf("comment:%d keeps its part of karma", i)
		}
		if _, ok := e.hash(e.article(strconv.Itoa(i)))["karma"]; ok {
			t.Errorf("article:%d keeps its part of karma", i)
		}
	}
	want := map[string]string{"stop-live score time votes controversy top-day top-week top-month top-year hot best": "done",
		"stop-karma-articles": "done", "stop-karma-comments": "done", "stop-history": "done", "stop-pending": "done"}
	if got := e.hash(e.key("progress:")); !reflect.DeepEqual(got, want) {
		t.Errorf("progress: after the walks = %v, want %v", got, want)
	}
	// Done: a call walks nothing more.
	cctx, cancel := p.call(2)
	defer cancel()
	if err := s.StopKeeping(cctx, voting.WithKarma()); err != nil {
		t.Errorf("StopKeeping once its walks are done = %v, want nil in one pipeline", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestStopKeepingHistoriesTakesADeletionLeftHalfDone: a deletion whose
// clearing of its voters' histories was cut short leaves the article's
// voter sets, renamed (deleted:voted:<id>); StopKeeping of the histories
// takes them with the histories, so that no key of the histories is left.
func TestStopKeepingHistoriesTakesADeletionLeftHalfDone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(time.Hour))
	id := e.post("alice", "deleted half way")
	for i := range 30 {
		dir := voting.Up
		if i%3 == 0 {
			dir = voting.Down
		}
		e.vote(fmt.Sprintf("voter%d", i), id, dir)
	}
	p := &stepPool{e: e, cmds: map[string]bool{"EVALSHA": true, "EVAL": true}}
	cut, err := voting.New(p, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	voting.SetHistoryBatch(cut, 5)
	if _, err := cut.Settings(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := p.call(2) // the deletion, and one step of clearing
	defer cancel()
	if err := cut.DeleteArticle(cctx, id); !errors.Is(err, context.Canceled) {
		t.Fatalf("DeleteArticle cut short = %v, want context.Canceled", err)
	}
	if !e.exists(e.key("deleted:voted:"+id)) && !e.exists(e.key("deleted:downvoted:"+id)) {
		t.Fatalf("the cut deletion left no voter set to clear: %v", e.keys())
	}
	if err := e.store.StopKeeping(ctx, voting.WithUserHistory(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, key := range e.keys() {
		rest := key[len(e.prefix):]
		if strings.HasPrefix(rest, "deleted:") || strings.HasPrefix(rest, "history:") {
			t.Errorf("%s is left after StopKeeping of the histories", key)
		}
	}
}

// TestAWalksProgressOfTheWrongType: progress: of the wrong type stops
// Rescore and StopKeeping with ErrCorrupt naming it, before they write
// anything, the settings included.
func TestAWalksProgressOfTheWrongType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		call func(s *voting.Store) error
	}{
		{"Rescore", func(s *voting.Store) error { return s.Rescore(ctx, 100, time.Hour) }},
		{"Rescore of the values the namespace has", func(s *voting.Store) error {
			return s.Rescore(ctx, voting.DefaultVoteWeight, voting.DefaultCutoff)
		}},
		{"StopKeeping", func(s *voting.Store) error { return s.StopKeeping(ctx, voting.WithKarma(), voting.WithLiveGroups()) }},
	} {
		for _, value := range []string{"string", "set"} {
			t.Run(c.name+"/"+value, func(t *testing.T) {
				e := newEnv(t, voting.WithKarma())
				id := e.post("alice", "first", "g")
				e.comment("bob", id, "", "a comment")
				if value == "string" {
					e.do("SET", e.key("progress:"), "x")
				} else {
					e.do("SADD", e.key("progress:"), "x")
				}
				before := e.dump()
				err := c.call(e.with())
				if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("progress:")) {
					t.Errorf("%s = %v, want ErrCorrupt naming %s", c.name, err, e.key("progress:"))
				}
				if after := e.dump(); after != before {
					t.Errorf("%s wrote:\n%s\nwas:\n%s", c.name, after, before)
				}
			})
		}
	}
}
