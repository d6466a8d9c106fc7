package voting_test

// Tests of Reindex (reindex.go).

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// bookSite writes n articles in the book's own layout, as the book's code
// writes them: each with some up-votes and their voter set, in the groups
// g0 (every article) and g1 (every other one), a minute apart.
func bookSite(t *testing.T, e *env, n int) {
	t.Helper()
	c := e.pipeConn()
	defer c.Close()
	sent := 0
	send := func(cmd string, args ...any) {
		if err := c.Send(cmd, args...); err != nil {
			t.Fatal(err)
		}
		sent++
	}
	now := e.clock.Now().Unix()
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		member, posted, votes := e.article(id), now-int64(n-i)*60, 1+i%5
		send("HSET", member, "title", "book "+id, "link", "https://example.com/"+id, "poster", "bob",
			"time", posted, "votes", votes)
		send("ZADD", e.key("score:"), posted+int64(voting.DefaultVoteWeight)*int64(votes), member)
		send("ZADD", e.key("time:"), posted, member)
		voters := []any{e.key("voted:" + id), "bob"}
		for v := 1; v < votes; v++ {
			voters = append(voters, "voter"+strconv.Itoa(v))
		}
		send("SADD", voters...)
		send("EXPIRE", e.key("voted:"+id), 7*86400)
		send("SADD", e.key("group:g0"), member)
		if i%2 == 0 {
			send("SADD", e.key("group:g1"), member)
		}
	}
	send("SET", e.key("article:"), n)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	for range sent {
		if _, err := c.Receive(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReindexGoesOnWhereItStopped: a deadline too short for a whole run of
// Reindex still gets the run done, over several calls, each going on where
// the last stopped (the run's progress is kept in Redis), its counts only
// growing; and what the calls build is what one call builds. Once a run is
// complete, the next call starts a new one.
func TestReindexGoesOnWhereItStopped(t *testing.T) {
	e := newEnv(t)
	n := 2000
	if !e.real() {
		n = 500 // miniredis runs Lua some six times slower
	}
	bookSite(t, e, n)
	all, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}
	voting.SetBatches(all, 500, 10)
	var last voting.ReindexProgress
	calls := 0
	for {
		calls++
		if calls > 1000 {
			t.Fatalf("Reindex has not finished after %d calls: %+v", calls, last)
		}
		short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		done, err := all.ReindexWithProgress(short, nil)
		cancel()
		if done.Articles < last.Articles || done.Steps < last.Steps || done.Groups < last.Groups {
			t.Fatalf("call %d went back: %+v after %+v", calls, done, last)
		}
		last = done
		if err == nil {
			break
		}
		if !errors.Is(err, context.DeadlineExceeded) || done.Done {
			t.Fatalf("call %d: %+v, %v; want the deadline, not done", calls, done, err)
		}
	}
	if calls < 2 {
		t.Fatalf("Reindex finished in one call of 50ms; the test needs a run that takes several")
	}
	if !last.Done || last.Articles != n || last.Groups != 2 {
		t.Errorf("the run ended with %+v, want done, %d articles and 2 groups", last, n)
	}
	t.Logf("%d calls of 50ms: %+v", calls, last)
	if e.exists(e.key("reindex:")) {
		t.Errorf("a complete run left its progress: %v", e.hash(e.key("reindex:")))
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	for _, g := range []string{"g0", "g1"} {
		if got := e.int("ZCARD", e.key("live:votes:"+g)); got != e.int("SCARD", e.key("group:"+g)) {
			t.Errorf("live:votes:%s holds %d articles, its group %d", g, got, e.int("SCARD", e.key("group:"+g)))
		}
	}

	// The next call is a new run, which finds all built.
	again, err := all.ReindexWithProgress(context.Background(), nil)
	if err != nil || !again.Done || again.Articles != n {
		t.Errorf("a second run: %+v, %v; want done with %d articles", again, err, n)
	}
}

// TestReindexOfOtherOptionsStartsItsOwnRun: a run left unfinished by a Store
// with other orders is not gone on with: a Store's call starts a run of its
// own, which builds everything the Store keeps.
func TestReindexOfOtherOptionsStartsItsOwnRun(t *testing.T) {
	e := newEnv(t)
	bookSite(t, e, 50)
	some, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.ByVotes))
	if err != nil {
		t.Fatal(err)
	}
	voting.SetBatches(some, 500, 5)
	steps := 0
	cut, cancel := context.WithCancel(context.Background())
	_, err = some.ReindexWithProgress(cut, func(p voting.ReindexProgress) {
		if steps++; steps == 4 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cut-short run: %v, want context.Canceled", err)
	}
	if !e.exists(e.key("reindex:")) {
		t.Fatal("the cut-short run kept no progress")
	}
	all, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...))
	if err != nil {
		t.Fatal(err)
	}
	done, err := all.ReindexWithProgress(context.Background(), nil)
	if err != nil || !done.Done || done.Articles != 50 {
		t.Errorf("the other Store's run: %+v, %v; want all 50 articles", done, err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}
