package voting_test

// Tests of the whole system under load and faults: a mixed workload, a
// server killed mid-run or crashed under acknowledged votes, flushed of its
// scripts or rid of its clients, a server that wants a password or grants
// only the commands the library sends, and inputs that must never become
// scripts.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// workload runs a mixed, seeded, random workload from goroutines: posts,
// votes in every direction, group changes and every kind of read. It
// returns the errors that were not ErrVotingClosed, keyed by operation.
func workload(s *voting.Store, seed uint64, goroutines, ops int, timeout time.Duration) map[string]int {
	var mu sync.Mutex
	errs := map[string]int{}
	var ids []string // guarded by mu
	groups := []string{"news", "tech", "science"}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			pick := func() string {
				mu.Lock()
				defer mu.Unlock()
				return ids[rng.IntN(len(ids))]
			}
			posted := func() int {
				mu.Lock()
				defer mu.Unlock()
				return len(ids)
			}
			for i := 0; i < ops; i++ {
				cctx, cancel := context.WithTimeout(context.Background(), timeout)
				var op string
				var err error
				switch k := rng.IntN(20); {
				case k < 2 || posted() == 0:
					op = "post"
					var id string
					id, err = s.PostArticle(cctx, fmt.Sprintf("poster%d", rng.IntN(20)), fmt.Sprintf("story %d-%d", g, i),
						"https://example.com/"+strconv.Itoa(i), groups[rng.IntN(len(groups)):]...)
					if err == nil {
						mu.Lock()
						ids = append(ids, id)
						mu.Unlock()
					}
				case k < 12:
					op = "vote"
					err = s.Vote(cctx, fmt.Sprintf("user%d", rng.IntN(40)), pick(), voting.Direction(1+rng.IntN(3)))
				case k < 13:
					op = "add"
					err = s.AddToGroups(cctx, pick(), groups[rng.IntN(len(groups))])
				case k < 14:
					op = "remove"
					err = s.RemoveFromGroups(cctx, pick(), groups[rng.IntN(len(groups))])
				case k < 16:
					op = "list"
					_, err = s.GetArticles(cctx, 1+rng.IntN(2), voting.Order(rng.IntN(2)))
				case k < 18:
					op = "group"
					_, err = s.GetGroupArticles(cctx, groups[rng.IntN(len(groups))], 1, voting.Order(rng.IntN(2)))
				case k < 19:
					op = "uservotes"
					_, err = s.UserVotes(cctx, fmt.Sprintf("user%d", rng.IntN(40)), pick(), pick())
				default:
					op = "article"
					_, err = s.Article(cctx, pick())
				}
				cancel()
				if err != nil && !errors.Is(err, voting.ErrVotingClosed) {
					mu.Lock()
					errs[op]++
					mu.Unlock()
				}
			}
		}(g)
	}
	wg.Wait()
	return errs
}

func TestMixedWorkloadKeepsInvariants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	errs := workload(e.store, 42, 16, 150, time.Minute)
	if len(errs) > 0 {
		t.Errorf("errors under a mixed workload: %v", errs)
	}
	if n := e.int("ZCARD", e.key("time:")); n < 50 {
		t.Errorf("only %d articles were posted", n)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestServerKilledMidRun(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, srv.pool(), "")
	const deadline = 500 * time.Millisecond
	done := make(chan map[string]int)
	go func() { done <- workload(e.store, 7, 8, 5000, deadline) }()
	time.Sleep(100 * time.Millisecond)
	srv.kill()
	killed := time.Now()

	// Every call now fails within its deadline: none hangs.
	for _, call := range calls(e.store, "1") {
		began := time.Now()
		cctx, cancel := context.WithTimeout(ctx, deadline)
		err := call(cctx)
		cancel()
		if err == nil {
			t.Error("a call succeeded on a dead server")
		}
		// Far past the deadline, for a machine under load: a call that
		// hung would not be back at all.
		if waited := time.Since(began); waited > deadline+10*time.Second {
			t.Errorf("a call on a dead server took %v", waited)
		}
	}
	errs := <-done
	t.Logf("workload errors around the kill: %v (workload ended %v after it)", errs, time.Since(killed).Round(time.Millisecond))
	if len(errs) == 0 {
		t.Error("no call failed while the server was down")
	}

	srv.restart()
	recovers(t, e)
}

// recovers checks that the same Store and pool work again after their
// connections broke: each broken pooled connection fails once, at most, and
// is dropped, so a workload sees at most MaxIdle errors and the next none.
func recovers(t *testing.T, e *env) {
	t.Helper()
	errs := workload(e.store, 100, 4, 100, 5*time.Second)
	n := 0
	for _, k := range errs {
		n += k
	}
	if n > e.redis().MaxIdle {
		t.Errorf("%d errors after the break (%v), more than the %d pooled connections", n, errs, e.redis().MaxIdle)
	}
	if errs := workload(e.store, 101, 4, 100, 5*time.Second); len(errs) > 0 {
		t.Errorf("errors once the broken connections were dropped: %v", errs)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestClientKillMidRun(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, srv.pool(), "")
	done := make(chan map[string]int)
	go func() { done <- workload(e.store, 11, 8, 300, 5*time.Second) }()
	var killed int64
	for i := 0; i < 5; i++ {
		time.Sleep(50 * time.Millisecond)
		n, err := redis.Int64(srv.admin("CLIENT", "KILL", "TYPE", "normal"))
		if err != nil {
			t.Fatal(err)
		}
		killed += n
	}
	errs := <-done
	t.Logf("%d connections killed; the workload saw errors %v", killed, errs)
	if killed == 0 {
		t.Error("no pooled connection was killed")
	}
	recovers(t, e)
}

// An ack is a vote that Vote returned nil for.
type ack struct {
	user, id string
	dir      voting.Direction
}

// voters cast votes from 8 goroutines, each vote by a new user, up or down
// in turn, until halted.
type voters struct {
	mu     sync.Mutex
	acked  []ack
	failed atomic.Int64
	stop   atomic.Bool
	wg     sync.WaitGroup
}

// startVoters starts voters on ids. A voter stops at its first error
// unless keepGoing; after each vote it calls also, if given.
func startVoters(e *env, ids []string, keepGoing bool, also func() error) *voters {
	v := &voters{}
	for g := 0; g < 8; g++ {
		v.wg.Add(1)
		go func(g int) {
			defer v.wg.Done()
			for i := 0; !v.stop.Load(); i++ {
				a := ack{fmt.Sprintf("u%d-%d", g, i), ids[(g*31+i)%len(ids)], voting.Direction(1 + i%2)}
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				err := e.store.Vote(cctx, a.user, a.id, a.dir)
				cancel()
				if err == nil {
					v.mu.Lock()
					v.acked = append(v.acked, a)
					v.mu.Unlock()
				}
				if err == nil && also != nil {
					err = also()
				}
				if err != nil {
					v.failed.Add(1)
					e.t.Logf("voter %d: %v", g, err)
					if !keepGoing {
						return
					}
				}
			}
		}(g)
	}
	return v
}

// count is how many votes have been acknowledged so far.
func (v *voters) count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.acked)
}

// halt stops the voters and returns the acknowledged votes.
func (v *voters) halt() []ack {
	v.stop.Store(true)
	v.wg.Wait()
	return v.acked
}

// lostVotes counts the acknowledged votes missing from the voter sets.
func (e *env) lostVotes(acked []ack) int {
	lost := 0
	for _, a := range acked {
		set := e.key("voted:" + a.id)
		if a.dir == voting.Down {
			set = e.key("downvoted:" + a.id)
		}
		if e.int("SISMEMBER", set, a.user) != 1 {
			lost++
		}
	}
	return lost
}

func TestAcknowledgedVotesSurviveACrash(t *testing.T) {
	srv := startServer(t, "--appendonly", "yes", "--appendfsync", "always")
	e := newEnvPool(t, srv.pool(), "")
	var ids []string
	for i := 0; i < 20; i++ {
		ids = append(ids, e.post("alice", fmt.Sprintf("durable %d", i)))
	}
	v := startVoters(e, ids, false, nil)
	// Half a second of votes, and at least a hundred acknowledged: with
	// every write fsynced, a disk that other work keeps busy can hold the
	// first ones back.
	time.Sleep(500 * time.Millisecond)
	waitFor(func() bool { return v.count() >= 100 })
	srv.kill()
	acked := v.halt()
	srv.restart()
	e.pool.Close() // its connections died with the server
	e.pool = srv.pool()
	e.store = e.with()
	if len(acked) < 100 {
		t.Fatalf("only %d votes were acknowledged before the crash", len(acked))
	}
	if lost := e.lostVotes(acked); lost > 0 {
		t.Errorf("%d of %d acknowledged votes were lost in the crash", lost, len(acked))
	}
	t.Logf("%d acknowledged votes, all present after SIGKILL and restart", len(acked))
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestEveryCallSurvivesAScriptFlush: on a server of the test's own, every
// call works right after SCRIPT FLUSH has dropped the library's scripts.
func TestEveryCallSurvivesAScriptFlush(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, srv.pool(), "")
	id := e.post("alice", "flushed", "news")
	for _, call := range calls(e.store, id) {
		if _, err := srv.admin("SCRIPT", "FLUSH"); err != nil {
			t.Fatal(err)
		}
		if err := call(ctx); err != nil {
			t.Errorf("a call after SCRIPT FLUSH: %v", err)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestPasswordComesFromTheDialOptions(t *testing.T) {
	srv := startServer(t, "--requirepass", "s3cret")
	srv.password = "s3cret"
	e := newEnvPool(t, srv.pool(redis.DialPassword("s3cret")), "")
	id := e.post("alice", "authenticated")
	e.vote("bob", id, voting.Up)

	anonymous := srv.pool()
	defer anonymous.Close()
	noAuth, err := voting.New(anonymous, noBuilder, voting.WithPrefix(e.prefix))
	if err != nil {
		t.Fatal(err)
	}
	before := e.dump()
	err = noAuth.Vote(ctx, "carol", id, voting.Up)
	var rerr redis.Error
	if err == nil || !errors.As(err, &rerr) {
		t.Errorf("a vote without the password = %v, want the server's refusal", err)
	}
	if after := e.dump(); after != before {
		t.Error("a refused vote wrote")
	}
}

func TestScriptsAreConstants(t *testing.T) {
	srv := startServer(t)
	e := newEnvPool(t, srv.pool(), "")
	// Inputs of every shape; none may become a script of its own.
	for i, title := range []string{"plain", "'quoted'", "]] .. redis.call('FLUSHALL') .. [[", "\"; return 1 --", "ünïcödé"} {
		id := e.post("user"+strconv.Itoa(i), title, "news")
		for name, call := range calls(e.store, id) {
			if name == "EditArticle" {
				continue // edited below, to the same title
			}
			if err := call(ctx); err != nil {
				t.Fatal(err)
			}
		}
		e.vote(title, id, voting.Down)
		a, err := e.store.Article(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.EditArticle(ctx, id, title, a.Link); err != nil {
			t.Fatal(err)
		}
	}
	// The 7 of the articles' calls, and a comment's post, vote and purge.
	if n := srv.infoInt("memory", "number_of_cached_scripts"); n != 10 {
		t.Errorf("the server holds %d scripts, want the 10 these calls use", n)
	}
	if got := e.int("ZCARD", e.key("time:")); got < 5 {
		t.Errorf("%d articles survived the inputs", got)
	}
	articles, err := e.store.GetArticles(ctx, 1, voting.ByTime)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	for _, a := range articles {
		titles[a.Title] = true
	}
	if !titles["]] .. redis.call('FLUSHALL') .. [["] || len(titles) != 6 {
		t.Errorf("titles stored: %v", titles)
	}
}
