package voting_test

// This file tests the background build of the indexes a Store adds
// (WithAutoReindex): it builds them, one Store at a time under a lease,
// another takes over from a builder that stopped, Settings says how far
// it has come, and Close stops it.

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// builder is WithAutoReindex(true), given after noBuilder.
var builder = voting.WithAutoReindex(true)

// waitBuilt reads s's settings until no index is unbuilt, for at most a
// minute: a bound on how long the build may take on a loaded machine, not
// on how fast it is.
func waitBuilt(t *testing.T, s *voting.Store) voting.Settings {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		set, err := s.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Building.Unbuilt) == 0 {
			return set
		}
		if set.Building.Err != "" {
			t.Fatalf("the background build failed: %s", set.Building.Err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("indexes %v are not built after a minute: %+v", set.Building.Unbuilt, set.Building)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// buildData posts articles in groups, with votes and comments, by a Store
// that keeps none of the options' indexes.
func buildData(e *env, n int) []string {
	var ids []string
	for i := range n {
		e.advance(time.Minute)
		id := e.post(fmt.Sprintf("poster%d", i%4), fmt.Sprintf("article %d", i), fmt.Sprintf("g%d", i%3))
		for v := range i % 5 {
			e.vote(fmt.Sprintf("voter%d", v), id, []voting.Direction{voting.Up, voting.Down}[v%2])
		}
		e.comment("carol", id, "", "comment")
		ids = append(ids, id)
	}
	return ids
}

// TestAnIndexAddedBuildsItself: a Store given orders and karma the
// namespace lacks adds them and builds them in the background; its
// listings then answer as any other, and the namespace's invariants hold.
// A Store given WithAutoReindex(false) leaves them unbuilt.
func TestAnIndexAddedBuildsItself(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithGroupCacheTTL(0))
	ids := buildData(e, 40)
	off := e.with(voting.WithOrders(voting.ByHot), voting.WithKarma())
	set, err := off.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"hot", "karma"}; !slices.Equal(set.Building.Unbuilt, want) || set.Building.Background {
		t.Fatalf("Settings.Building with no builder = %+v, want %v unbuilt and no builder", set.Building, want)
	}
	if _, err := off.GetArticles(ctx, 1, voting.ByHot); !errors.Is(err, voting.ErrNotIndexed) {
		t.Fatalf("hot with no builder = %v, want ErrNotIndexed", err)
	}
	if e.exists(e.key("builder:")) {
		t.Fatal("a Store given WithAutoReindex(false) took the builder's lease")
	}

	on := e.with(voting.WithOrders(voting.ByVotes), voting.WithLiveGroups(), builder)
	defer on.Close()
	set = waitBuilt(t, on)
	if set.Building.Err != "" || set.Building.Run != nil {
		t.Errorf("Settings.Building once built = %+v, want no error and no run under way", set.Building)
	}
	for _, o := range []voting.Order{voting.ByHot, voting.ByVotes} {
		page, err := on.GetArticles(ctx, 1, o)
		if err != nil {
			t.Fatalf("%v once built: %v", o, err)
		}
		// The index's order; the invariant checker checks its values.
		var want []string
		members, _ := redis.Strings(e.do("ZREVRANGE", e.key(o.String()+":"), 0, 24), nil)
		for _, m := range members {
			want = append(want, m[len(e.key("article:")):])
		}
		if len(page) != 25 || !slices.Equal(idsOf(page), want) {
			t.Errorf("%v once built = %v, want %v", o, idsOf(page), want)
		}
	}
	if n := len(e.strs("ZRANGE", e.key("hot:"), 0, -1)); n != len(ids) {
		t.Errorf("hot: holds %d articles, want %d", n, len(ids))
	}
	if _, err := on.Karma(ctx, "poster1"); err != nil {
		t.Errorf("karma once built: %v", err)
	}
	if _, err := on.GetGroupArticles(ctx, "g1", 1, voting.ByVotes); err != nil {
		t.Errorf("a group's live listing once built: %v", err)
	}
	if voting.BuildRuns(on) == 0 {
		t.Error("the Store that added the indexes ran no build of its own")
	}
	on.Close() // gives the lease up
	if e.exists(e.key("builder:")) {
		t.Error("the lease is held after Close")
	}
	e.store = on
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestOneBuilderAtATime: while another Store holds the lease, a Store
// that adds an index builds nothing; once the holder stops renewing it
// and the lease lapses, the next listing that finds the index unbuilt
// starts this Store's builder, which builds it.
func TestOneBuilderAtATime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	buildData(e, 30)
	// Another process's builder, which will die: its lease, unrenewed.
	e.do("SET", e.key("builder:"), "deadbeefdeadbeef", "PX", 60000)
	s := e.with(voting.WithOrders(voting.ByHot), builder)
	defer s.Close()
	set, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !set.Building.Background || !slices.Equal(set.Building.Unbuilt, []string{"hot", "live:hot"}) {
		t.Errorf("Settings.Building under another's lease = %+v, want hot and its live indexes unbuilt, a builder", set.Building)
	}
	// The builder found the lease held and ended: nothing builds.
	deadline := time.Now().Add(time.Minute)
	for voting.BuilderRunning(s) {
		if time.Now().After(deadline) {
			t.Fatal("the builder still runs under another Store's lease after a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := e.str("GET", e.key("builder:")); got != "deadbeefdeadbeef" || voting.BuildRuns(s) != 0 {
		t.Fatalf("under another's lease: the lease is %q, the Store built %d times; want the other's, none", got, voting.BuildRuns(s))
	}
	if _, err := s.GetArticles(ctx, 1, voting.ByHot); !errors.Is(err, voting.ErrNotIndexed) {
		t.Fatalf("hot under another's lease = %v, want ErrNotIndexed", err)
	}
	// The lease lapses.
	if e.mr != nil {
		e.mr.FastForward(time.Minute)
	} else {
		e.do("PEXPIRE", e.key("builder:"), 1)
		time.Sleep(10 * time.Millisecond)
	}
	// A listing finds hot unbuilt and starts the builder (at most once a
	// second after its last end).
	deadline = time.Now().Add(time.Minute)
	for {
		_, err := s.GetArticles(ctx, 1, voting.ByHot)
		if err == nil {
			break
		}
		if !errors.Is(err, voting.ErrNotIndexed) || time.Now().After(deadline) {
			t.Fatalf("hot after the lease lapsed = %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if voting.BuildRuns(s) == 0 {
		t.Error("the Store that took over ran no build")
	}
	e.store = s
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestCloseStopsTheBuilder: Close returns once the builder's step in
// flight has ended, gives the lease up, and no step follows; the run is
// left where it stood, and another Store's Reindex goes on with it.
func TestCloseStopsTheBuilder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	buildData(e, 60)
	s := e.with(voting.WithOrders(voting.ByBest), builder)
	voting.SetBatches(s, 500, 1)
	if _, err := s.Settings(ctx); err != nil {
		t.Fatal(err)
	}
	// Once the builder has the lease and a step done, close it.
	deadline := time.Now().Add(time.Minute)
	for e.hash(e.key("reindex:"))["steps"] == "" || e.hash(e.key("reindex:"))["steps"] == "0" {
		if time.Now().After(deadline) {
			t.Fatal("the builder took no step in a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if voting.BuilderRunning(s) {
		t.Error("the builder runs after Close")
	}
	if e.exists(e.key("builder:")) {
		t.Errorf("the lease is held after Close: %q", e.str("GET", e.key("builder:")))
	}
	steps := e.hash(e.key("reindex:"))["steps"]
	// Close is for good: a listing that finds best unbuilt starts nothing.
	if _, err := s.GetArticles(ctx, 1, voting.ByBest); !errors.Is(err, voting.ErrNotIndexed) {
		t.Fatalf("best after Close = %v, want ErrNotIndexed", err)
	}
	time.Sleep(50 * time.Millisecond)
	if got := e.hash(e.key("reindex:"))["steps"]; got != steps || voting.BuilderRunning(s) {
		t.Errorf("after Close the run's steps went from %s to %s", steps, got)
	}
	// Another Store's Reindex goes on with the run.
	other := e.with(voting.WithOrders(voting.ByBest))
	done, err := other.ReindexWithProgress(ctx, nil)
	if err != nil || !done.Done || done.Articles != 60 {
		t.Fatalf("Reindex after the builder closed = %+v, %v; want the 60 articles", done, err)
	}
	e.store = other
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestAnEmptyNamespaceNeedsNoBuild: a Store that adds an index to a
// namespace with no article starts no builder: there is nothing to build.
func TestAnEmptyNamespaceNeedsNoBuild(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.with(voting.WithOrders(voting.ByHot), voting.WithKarma(), builder)
	defer s.Close()
	set, err := s.Settings(ctx)
	if err != nil || len(set.Building.Unbuilt) != 0 || voting.BuilderRunning(s) || e.exists(e.key("builder:")) {
		t.Errorf("Settings = %+v, %v; the builder runs %t; want nothing to build and no builder", set.Building, err, voting.BuilderRunning(s))
	}
}
