package voting_test

// Tests of the client-side cache (WithClientCache): a page read again is
// served from memory, and any write, the Store's own or another client's,
// empties the cache; a server or client that cannot track keys leaves it
// empty and every read goes to Redis.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
	"github.com/articlevote/voting/internal/tracking"
	"github.com/gomodule/redigo/redis"
)

// cacheStore is a Store on e's namespace with a client-side cache of n
// pages, whose subscription is checked every ping; it is closed when the
// test ends. It waits until the cache is live or refused, and reports
// whether it is live: on a real server it must be, on miniredis and on a
// cluster it must be refused.
func cacheStore(e *env, pool voting.Pool, n int, ping time.Duration) (*voting.Store, *tracking.Cache, bool) {
	e.t.Helper()
	s, err := voting.New(pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithClientCache(n))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Settings(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	c := voting.ClientCache(s)
	c.SetTimes(ping, 50*time.Millisecond)
	c.Begin()
	live := waitFor(func() bool { return c.Live() || c.Unsupported() != nil })
	if !live {
		e.t.Fatal("the cache neither subscribed nor was refused within 30 s")
	}
	_, cluster := e.pool.(interface{ Refresh() error })
	wantLive := e.real() && !cluster
	if c.Live() != wantLive {
		e.t.Fatalf("cache live = %v (refused: %v); want %v on this server", c.Live(), c.Unsupported(), wantLive)
	}
	return s, c, c.Live()
}

// waitFor polls ok for up to 30 s: what it waits for comes in milliseconds
// as a rule, and the bound only ends a test whose wait would not end.
func waitFor(ok func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return ok()
}

func TestClientCacheServesARepeatedPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	trips := roundtrip.New(e.redis())
	ids := postMany(e, 6) // ids[5] leads with 6 up-votes
	if err := e.store.AddToGroups(ctx, ids[5], "go"); err != nil {
		t.Fatal(err)
	}
	// The pings come once an hour: the round trips counted are the calls'.
	s, _, live := cacheStore(e, trips, 16, time.Hour)
	top := voting.Query{Order: voting.ByScore, WithGroups: true, Paging: voting.Paging{Page: 1, Size: 4}}
	read := func() ([]voting.Article, int64, int64) {
		t.Helper()
		trips.Reset()
		page, _, err := s.List(ctx, top)
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Count(ctx, top)
		if err != nil {
			t.Fatal(err)
		}
		return page, n, trips.Trips()
	}
	first, n, firstTrips := read()
	want, _, err := e.store.List(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, want) || n != 6 || firstTrips != 3 {
		t.Fatalf("first read: %v, count %d, %d round trips; want %v, 6, 3", first, n, firstTrips, want)
	}
	// A caller changing what it was given changes nothing kept.
	for i := range first {
		first[i].Title = "changed"
		if len(first[i].Groups) > 0 {
			first[i].Groups[0] = "changed"
		}
	}
	again, n, againTrips := read()
	wantTrips := int64(3)
	if live {
		wantTrips = 0
	}
	if !reflect.DeepEqual(again, want) || n != 6 || againTrips != wantTrips {
		t.Fatalf("second read: %v, count %d, %d round trips; want %v, 6, %d", again, n, againTrips, want, wantTrips)
	}

	// The Store's own vote is seen by its next read, with no wait.
	if err := s.Vote(ctx, "second", ids[5], voting.Up); err != nil {
		t.Fatal(err)
	}
	after, _, afterTrips := read()
	if after[0].ID != ids[5] || after[0].Upvotes != 7 || afterTrips != 3 {
		t.Fatalf("after the Store's vote: %+v in %d round trips; want %s with 7 upvotes, read in 3", after[0], afterTrips, ids[5])
	}

	// Another Store's vote, and a raw write of another client, are seen
	// once Redis's word of them arrives.
	if err := e.store.Vote(ctx, "third", ids[5], voting.Up); err != nil {
		t.Fatal(err)
	}
	seen := func(ups int64) bool {
		page, _, err := s.List(ctx, top)
		return err == nil && page[0].Upvotes == ups
	}
	if !waitFor(func() bool { return seen(8) }) {
		t.Fatal("another Store's vote was not seen within 30 s")
	}
	e.do("HSET", e.article(ids[5]), "title", "Retitled")
	if !waitFor(func() bool {
		page, _, err := s.List(ctx, top)
		return err == nil && page[0].Title == "Retitled"
	}) {
		t.Fatal("a raw write to an article was not seen within 30 s")
	}
}

// A page of a window (TopDay to TopYear) changes with the time, not only
// with keys: it is never kept.
func TestClientCacheKeepsNoWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	trips := roundtrip.New(e.redis())
	postMany(e, 3)
	s, c, _ := cacheStore(e, trips, 16, time.Hour)
	q := voting.Query{Order: voting.TopDay, Paging: voting.Paging{Page: 1}}
	for i := range 2 {
		trips.Reset()
		page, _, err := s.List(ctx, q)
		if err != nil || len(page) != 3 {
			t.Fatalf("read %d: %d articles, %v; want 3", i, len(page), err)
		}
		if trips.Trips() == 0 {
			t.Fatalf("read %d of a window's page made no round trip", i)
		}
	}
	if c.Len() != 0 {
		t.Fatalf("the cache keeps %d entries after a window's pages, want 0", c.Len())
	}
}

// The cache keeps at most its number of pages.
func TestClientCacheIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	postMany(e, 10)
	s, c, live := cacheStore(e, e.pool, 2, time.Second)
	for page := 1; page <= 5; page++ {
		if _, _, err := s.List(ctx, voting.Query{Order: voting.ByTime, Paging: voting.Paging{Page: page, Size: 2}}); err != nil {
			t.Fatal(err)
		}
	}
	want := 0
	if live {
		want = 2
	}
	if c.Len() != want {
		t.Fatalf("the cache keeps %d pages, want %d", c.Len(), want)
	}
}

// However the Store's writes and reads interleave, a page never shows a
// vote the Store acknowledged as missing: each goroutine votes on an
// article of its own and reads the front page right after each vote.
func TestClientCacheShowsEveryAcknowledgedVote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	const writers, votes = 4, 25
	ids := postMany(e, writers)
	s, _, _ := cacheStore(e, e.pool, 64, time.Second)
	q := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1, Size: writers}}
	var failed sync.Once
	var problem error
	fail := func(err error) { failed.Do(func() { problem = err }) }
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() { // readers that keep the cache full
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := s.List(ctx, q); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	together(writers, func(g int) {
		for i := range votes {
			if err := s.Vote(ctx, fmt.Sprintf("w%d-%d", g, i), ids[g], voting.Up); err != nil {
				fail(err)
				return
			}
			page, _, err := s.List(ctx, q)
			if err != nil {
				fail(err)
				return
			}
			for _, a := range page {
				if a.ID == ids[g] && a.Upvotes < int64(i+2) {
					fail(fmt.Errorf("article %s shows %d upvotes after vote %d was acknowledged; want at least %d", a.ID, a.Upvotes, i+1, i+2))
					return
				}
			}
		}
	})
	close(stop)
	readers.Wait()
	if problem != nil {
		t.Fatal(problem)
	}
}

// A lost subscription leaves the cache empty, reads correct, and the cache
// subscribes again.
func TestClientCacheOutlivesALostSubscription(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	ids := postMany(e, 3)
	s, c, live := cacheStore(e, e.pool, 16, 20*time.Millisecond)
	if !live {
		t.Skip("no client-side cache on this server")
	}
	q := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1}}
	if _, _, err := s.List(ctx, q); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 {
		t.Fatalf("the cache keeps %d pages, want 1", c.Len())
	}
	// The server drops the cache's connection: Redis's word of writes made
	// until it subscribes again is lost.
	id := c.ID()
	e.do("CLIENT", "KILL", "ID", id)
	if !waitFor(func() bool { return c.ID() != id && c.ID() != 0 && c.Live() }) {
		t.Fatal("the cache did not subscribe again within 30 s")
	}
	if err := e.store.Vote(ctx, "other", ids[0], voting.Up); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool {
		page, _, err := s.List(ctx, q)
		return err == nil && len(page) == 3 && page[2].ID == ids[0] && page[2].Upvotes == 2
	}) {
		t.Fatal("a vote made around the lost subscription was not seen within 30 s")
	}
}

// Close ends the subscription and turns tracking off on its connection;
// the Store then reads from Redis. Close twice is no error.
func TestClientCacheCloses(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	trips := roundtrip.New(e.redis())
	postMany(e, 3)
	s, c, live := cacheStore(e, trips, 16, time.Hour)
	id := c.ID()
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A Close that waited on a reply that never comes would take the
	// cache's check of its subscription (a second) many times over; a
	// loaded machine takes well under 10 s.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Close took %v", took)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if c.Live() || c.ID() != 0 {
		t.Fatalf("after Close: live %v, client %d", c.Live(), c.ID())
	}
	for i := range 2 {
		trips.Reset()
		if _, _, err := s.List(ctx, voting.Query{Paging: voting.Paging{Page: 1}}); err != nil {
			t.Fatal(err)
		}
		if trips.Trips() == 0 {
			t.Fatalf("read %d after Close made no round trip", i)
		}
	}
	if live {
		// The connection, given back to the pool, tracks nothing.
		list := e.str("CLIENT", "LIST", "ID", id)
		if list != "" && !strings.Contains(list, "flags=N ") {
			t.Fatalf("after Close the cache's connection is %q; want it untracked or gone", list)
		}
	}
}

// A Store closed before its first call starts nothing.
func TestClientCacheClosedUnused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClientCache(4))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c := voting.ClientCache(s)
	if _, live := c.Begin(); live {
		t.Fatal("a closed cache is live")
	}
	if _, _, err := s.List(context.Background(), voting.Query{Paging: voting.Paging{Page: 1}}); err != nil && !errors.Is(err, voting.ErrNotFound) {
		t.Fatal(err)
	}
}

// A read leaves the cache as it is: a page after a cursor, a window's
// page with nothing to trim and a page of comments after a cursor each
// run a script that only reads, and the front page read next costs no
// round trip. A window's page that trims aged-out articles has written,
// and empties it.
func TestClientCacheOutlivesReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	trips := roundtrip.New(e.redis())
	ids := postMany(e, 6)
	for i := range 4 {
		e.comment(fmt.Sprintf("c%d", i), ids[0], "", "a comment")
	}
	s, _, live := cacheStore(e, trips, 16, time.Hour)
	if !live {
		t.Skip("no client-side cache on this server")
	}
	front := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1, Size: 4}}
	window := voting.Query{Order: voting.TopDay, Paging: voting.Paging{Page: 1}}
	list := func(q voting.Query) ([]voting.Article, string) {
		t.Helper()
		page, next, err := s.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return page, next
	}
	list(window) // the window's first read marks how far it is trimmed
	list(front)
	_, cursor := list(voting.Query{Order: voting.ByScore, Paging: voting.Paging{Size: 2}})
	_, commentCursor, err := s.Comments(ctx, ids[0], voting.CommentQuery{Order: voting.CommentsByOld, Paging: voting.Paging{Size: 2}})
	if err != nil || commentCursor == "" {
		t.Fatalf("Comments: next %q, %v", commentCursor, err)
	}
	frontCosts := func(what string, want int64) {
		t.Helper()
		trips.Reset()
		list(front)
		if got := trips.Trips(); got != want {
			t.Errorf("the front page after %s took %d round trips, want %d", what, got, want)
		}
	}
	frontCosts("the reads before", 0)
	for _, read := range []struct {
		what string
		read func() error
	}{
		{"a page after a cursor", func() error {
			_, _, err := s.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: cursor, Size: 2}})
			return err
		}},
		{"a window's page with nothing to trim", func() error { _, _, err := s.List(ctx, window); return err }},
		{"a page of comments after a cursor", func() error {
			_, _, err := s.Comments(ctx, ids[0], voting.CommentQuery{Order: voting.CommentsByOld, Paging: voting.Paging{After: commentCursor, Size: 2}})
			return err
		}},
		{"a window's page after a cursor", func() error {
			_, next := list(voting.Query{Order: voting.TopDay, Paging: voting.Paging{Size: 2}})
			_, _, err := s.List(ctx, voting.Query{Order: voting.TopDay, Paging: voting.Paging{After: next, Size: 2}})
			return err
		}},
	} {
		trips.Reset()
		if err := read.read(); err != nil {
			t.Fatalf("%s: %v", read.what, err)
		}
		if trips.Trips() == 0 {
			t.Fatalf("%s made no round trip", read.what)
		}
		frontCosts(read.what, 0)
	}
	// A day later the oldest articles have left the window: its page
	// takes them out of its index, a write, which empties the cache.
	e.advance(24*time.Hour - 3*time.Minute)
	if page, _ := list(window); len(page) != 3 {
		t.Fatalf("the window a day later holds %d articles, want 3", len(page))
	}
	frontCosts("a window's page that trimmed", 2)
}

// aclCacheCommands are what the client-side cache needs of an ACL user
// beyond aclCommands: docs/operations.md grants exactly these in its
// second line (TestDocsCacheACLIsTheTestedOne).
const aclCacheCommands = "+client|id +client|tracking +subscribe +unsubscribe +ping &__redis__:invalidate"

// aclCacheStore is a Store with a client-side cache on a server of its
// own, as an ACL user granted aclCommands, and with cache aclCacheCommands
// too, whose round trips are counted; it waits until its cache is live or
// refused.
func aclCacheStore(t *testing.T, cache bool) (*voting.Store, *roundtrip.Pool) {
	t.Helper()
	srv := startServer(t)
	lines := [][]string{append([]string{"SETUSER", "voting", "on", ">pw", "~news:*", "resetchannels", "-@all"}, strings.Fields(aclCommands)...)}
	if cache {
		lines = append(lines, append([]string{"SETUSER", "voting"}, strings.Fields(aclCacheCommands)...))
	}
	for _, line := range lines {
		args := make([]any, len(line))
		for i, w := range line {
			args[i] = w
		}
		if _, err := srv.admin("ACL", args...); err != nil {
			t.Fatalf("ACL %v: %v", line, err)
		}
	}
	pool := srv.pool(redis.DialUsername("voting"), redis.DialPassword("pw"))
	t.Cleanup(func() { pool.Close() })
	trips := roundtrip.New(pool)
	s, err := voting.New(trips, voting.WithPrefix("news:"), voting.WithClientCache(16))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	voting.ClientCache(s).SetTimes(time.Hour, 50*time.Millisecond)
	if _, err := s.PostArticle(ctx, "alice", "first", "https://example.com/"); err != nil {
		t.Fatalf("as the ACL user: %v", err)
	}
	if _, _, err := s.List(ctx, voting.Query{Paging: voting.Paging{Page: 1}}); err != nil { // starts the cache
		t.Fatal(err)
	}
	if !waitFor(func() bool { st := s.CacheStats(); return st.Live || errors.Is(st.Err, tracking.ErrUnsupported) }) {
		t.Fatalf("the cache neither subscribed nor was refused within 30 s: %+v", s.CacheStats())
	}
	return s, trips
}

// Under the least-privilege ACL user of docs/operations.md the cache
// says it cannot work, naming Redis's NOPERM; with the guide's second
// line it caches: a front page read again costs no round trip.
func TestClientCacheUnderAnACLUser(t *testing.T) {
	front := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1}}
	t.Run("the least privilege", func(t *testing.T) {
		s, _ := aclCacheStore(t, false)
		st := s.CacheStats()
		var rerr redis.Error
		if st.Live || !errors.As(st.Err, &rerr) || !strings.HasPrefix(string(rerr), "NOPERM") {
			t.Fatalf("CacheStats = %+v; want not live, for Redis's NOPERM", st)
		}
		t.Logf("CacheStats().Err: %v", st.Err)
		if _, _, err := s.List(ctx, front); err != nil {
			t.Fatalf("a read with the cache refused: %v", err)
		}
	})
	t.Run("with the cache's line", func(t *testing.T) {
		s, trips := aclCacheStore(t, true)
		if st := s.CacheStats(); !st.Live || st.Err != nil {
			t.Fatalf("CacheStats = %+v; want live", st)
		}
		var costs []int64
		for range 2 {
			trips.Reset()
			if page, _, err := s.List(ctx, front); err != nil || len(page) != 1 {
				t.Fatalf("the front page: %v, %v", page, err)
			}
			costs = append(costs, trips.Trips())
		}
		if costs[0] == 0 || costs[1] != 0 {
			t.Fatalf("the front page read twice cost %v round trips; want some, then none", costs)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if st := s.CacheStats(); st.Live || !errors.Is(st.Err, tracking.ErrClosed) {
			t.Fatalf("CacheStats after Close = %+v; want closed", st)
		}
	})
}

// TestDocsCacheACLIsTheTestedOne: the operations guide's second ACL line,
// for the cache, grants exactly what TestClientCacheUnderAnACLUser grants.
func TestDocsCacheACLIsTheTestedOne(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile(aclGuide)
	if err != nil {
		t.Fatal(err)
	}
	const start = "ACL SETUSER voting "
	for _, line := range strings.Split(string(guide), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), start)
		if ok && strings.Contains(rest, "client|") {
			if got, want := strings.Fields(rest), strings.Fields(aclCacheCommands); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s's ACL line for the cache grants\n%s\nthe test grants\n%s", aclGuide, strings.Join(got, " "), strings.Join(want, " "))
			}
			return
		}
	}
	t.Errorf("%s has no ACL line for the cache (%q and client|)", aclGuide, start)
}

// CacheStats counts each hit, miss and invalidation of a scripted
// sequence exactly, and says why a cache keeps nothing: none asked for,
// a server without client-side caching, Close.
func TestCacheStatsCount(t *testing.T) {
	e := newEnv(t)
	ids := postMany(e, 3)
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	if st := e.store.CacheStats(); st.Live || st.Err == nil || !strings.Contains(st.Err.Error(), "WithClientCache") {
		t.Errorf("CacheStats of a Store without a cache = %+v; want Err naming WithClientCache", st)
	}
	s, _, live := cacheStore(e, e.pool, 16, time.Hour)
	if !live {
		st := s.CacheStats()
		if st.Live || !errors.Is(st.Err, tracking.ErrUnsupported) {
			t.Fatalf("CacheStats on a server without client-side caching = %+v; want Err ErrUnsupported", st)
		}
		t.Logf("CacheStats().Err: %v", st.Err)
		if _, _, err := s.List(ctx, voting.Query{Paging: voting.Paging{Page: 1}}); err != nil {
			t.Fatal(err)
		}
		if st := s.CacheStats(); st.Hits != 0 || st.Misses != 1 {
			t.Fatalf("after a read with no cache live: %+v; want a miss", st)
		}
		return
	}
	front := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1}}
	read := func(q voting.Query) {
		t.Helper()
		if _, _, err := s.List(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	count := func() {
		t.Helper()
		if _, err := s.Count(ctx, front); err != nil {
			t.Fatal(err)
		}
	}
	want := voting.CacheStats{Live: true}
	check := func(step string) {
		t.Helper()
		// Redis's word of a write comes a moment after it.
		if !waitFor(func() bool { return s.CacheStats() == want }) {
			t.Fatalf("after %s: %+v, want %+v", step, s.CacheStats(), want)
		}
	}
	check("subscribing")
	read(front)
	want.Misses++
	read(front)
	want.Hits++
	count()
	want.Misses++
	count()
	want.Hits++
	check("two reads of the front page and of its count")
	if err := s.Vote(ctx, "own", ids[0], voting.Up); err != nil {
		t.Fatal(err)
	}
	want.Invalidations += 2 // when it returns, and Redis's word of it
	check("the Store's own vote")
	read(front)
	want.Misses++
	if err := e.store.Vote(ctx, "other", ids[1], voting.Up); err != nil {
		t.Fatal(err)
	}
	want.Invalidations++ // Redis's word of it
	check("another Store's vote")
	read(front)
	read(front)
	want.Misses++
	want.Hits++
	_, cursor, err := s.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{Size: 1}})
	if err != nil {
		t.Fatal(err)
	}
	read(voting.Query{Order: voting.ByScore, Paging: voting.Paging{Size: 1, After: cursor}}) // no page of a cursor is kept
	check("reads of pages by cursor")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := s.CacheStats(); st.Live || !errors.Is(st.Err, tracking.ErrClosed) || st.Hits != want.Hits {
		t.Fatalf("CacheStats after Close = %+v; want its counts, not live, closed", st)
	}
}

// Votes on shared connections empty the cache as others do: 24
// goroutines each vote on an article of their own and read the front page
// at once, more than 8 votes in flight so that they share connections, and
// every read shows the vote its goroutine was told had landed.
func TestClientCacheShowsEverySharedVote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	if e.isCluster() {
		t.Skip("no shared connections on a cluster")
	}
	const writers, votes = 24, 30
	ids := postMany(e, writers+1) // the last for the votes that are not the test's
	// Redis's word of each write comes 20 ms late: a read that shows a
	// vote of its own goroutine shows it by the vote's own emptying. And 8
	// votes on connections of their own are held before they are sent, so
	// that every vote of the test is shared.
	own := &gate{}
	s, _, live := cacheStore(e, latePool(e, 20*time.Millisecond, own), 64, time.Second)
	if !live {
		t.Skip("no client-side cache on this server")
	}
	ps := voting.SharedConns(s)
	overlap(e, s, ps, ids[writers])
	own.close()
	defer own.release()
	var held sync.WaitGroup
	for g := range 8 {
		held.Add(1)
		go func() {
			defer held.Done()
			if err := s.Vote(ctx, fmt.Sprintf("held%d", g), ids[writers], voting.Up); err != nil {
				t.Errorf("a held vote: %v", err)
			}
		}()
	}
	if !waitFor(func() bool { return own.held.Load() == 8 }) {
		t.Fatalf("%d votes held on connections of their own, want 8", own.held.Load())
	}
	front := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1, Size: writers + 1}}
	ups := make([]int64, writers)
	for i, id := range ids[:writers] {
		a, err := e.store.Article(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ups[i] = a.Upvotes
	}
	shared := ps.Shared()
	var stale atomic.Int64
	var example atomic.Value
	// Readers keep the page in the cache.
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := s.List(ctx, front); err != nil {
					t.Errorf("List: %v", err)
					return
				}
			}
		}()
	}
	together(writers, func(g int) {
		for i := range votes {
			if err := s.Vote(ctx, fmt.Sprintf("sv%d-%d", g, i), ids[g], voting.Up); err != nil {
				t.Errorf("Vote: %v", err)
				return
			}
			page, _, err := s.List(ctx, front)
			if err != nil {
				t.Errorf("List: %v", err)
				return
			}
			for _, a := range page {
				if a.ID == ids[g] && a.Upvotes < ups[g]+int64(i+1) {
					stale.Add(1)
					example.Store(fmt.Sprintf("article %s showed %d up-votes after vote %d was acknowledged; want %d", a.ID, a.Upvotes, i+1, ups[g]+int64(i+1)))
				}
			}
		}
	})
	close(stop)
	readers.Wait()
	own.release()
	held.Wait()
	if n := ps.Shared() - shared; n != writers*votes {
		t.Errorf("%d votes of %d went on shared connections, want all", n, writers*votes)
	}
	if n := stale.Load(); n > 0 {
		t.Errorf("%d of %d reads missed their goroutine's acknowledged vote, for example: %v", n, writers*votes, example.Load())
	}
}

// A cache whose subscription has died keeps nothing until it subscribes
// again, however long that takes: killed, with a minute to wait before it
// subscribes again, it serves no page it kept, nor one it read since, and
// another Store's vote shows.
func TestClientCacheKeepsNothingOnceItsSubscriptionDies(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	ids := postMany(e, 3)
	s, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithClientCache(16))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := voting.ClientCache(s)
	c.SetTimes(time.Hour, time.Minute)
	front := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1}}
	read := func() []voting.Article {
		t.Helper()
		page, _, err := s.List(ctx, front)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	read()
	if !waitFor(func() bool { return c.Live() || c.Unsupported() != nil }) || !c.Live() {
		t.Skip("no client-side cache on this server")
	}
	read()
	if c.Len() != 1 {
		t.Fatalf("the cache keeps %d pages, want 1", c.Len())
	}
	id := c.ID()
	e.do("CLIENT", "KILL", "ID", id)
	if !waitFor(func() bool { return c.ID() != id }) {
		t.Fatal("the cache did not notice within 30 s that its connection was killed")
	}
	read() // not kept
	if err := e.store.Vote(ctx, "other", ids[0], voting.Up); err != nil {
		t.Fatal(err)
	}
	for _, a := range read() {
		if a.ID == ids[0] && a.Upvotes != 2 {
			t.Fatalf("a page read after another Store's vote shows %d up-votes on %s, want 2", a.Upvotes, a.ID)
		}
	}
	if st := s.CacheStats(); st.Live || st.Err == nil {
		t.Errorf("CacheStats of a cache whose subscription died = %+v; want not live, with why", st)
	}
}

// latePool is a pool of e's server on which the client-side cache hears
// Redis's word of each write late, closed when the test ends.
// The scripts sent in round trips of their own pass the gate do.
func latePool(e *env, late time.Duration, do *gate) *redis.Pool {
	dial := dialOf(e.redis())
	p := &redis.Pool{MaxIdle: 64, DialContext: func(ctx context.Context) (redis.Conn, error) {
		c, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		c = gatedConn{Conn: c, send: &gate{}, do: do}
		return &lateConn{Conn: c, late: late, replies: make(chan lateReply, 4096), closed: make(chan struct{})}, nil
	}}
	e.t.Cleanup(func() { p.Close() })
	return p
}

// A lateConn, once it has sent SUBSCRIBE, gives each reply it receives a
// fixed time after it came, as a slow network would; before, it is its
// connection.
type lateConn struct {
	redis.Conn
	late      time.Duration
	subscribe sync.Once
	pumping   atomic.Bool
	replies   chan lateReply
	closed    chan struct{}
	close     sync.Once
}

type lateReply struct {
	reply any
	err   error
	at    time.Time
}

func (c *lateConn) Send(cmd string, args ...any) error {
	if cmd == "SUBSCRIBE" {
		c.subscribe.Do(func() {
			c.pumping.Store(true)
			go c.pump()
		})
	}
	return c.Conn.Send(cmd, args...)
}

// pump receives every reply as it comes, for ReceiveWithTimeout to give
// late.
func (c *lateConn) pump() {
	for {
		reply, err := c.Conn.Receive()
		select {
		case c.replies <- lateReply{reply, err, time.Now()}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *lateConn) Close() error {
	c.close.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (c *lateConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	if !c.pumping.Load() {
		return redis.ReceiveWithTimeout(c.Conn, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-c.replies:
		time.Sleep(time.Until(r.at.Add(c.late)))
		return r.reply, r.err
	case <-t.C:
		return nil, os.ErrDeadlineExceeded
	}
}

func (c *lateConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	if !c.pumping.Load() {
		return redis.DoWithTimeout(c.Conn, d, cmd, args...)
	}
	if err := c.Conn.Send(cmd, args...); err != nil {
		return nil, err
	}
	if err := c.Conn.Flush(); err != nil {
		return nil, err
	}
	return c.ReceiveWithTimeout(d)
}

func (c *lateConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *lateConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

// A page read while a write lands is not kept, however late its reply is
// handed back: a read whose articles have come, held there until another
// call's vote has returned, gives the page as it was, and the next read
// shows the vote.
func TestClientCacheKeepsNoPageReadAcrossAWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	ids := postMany(e, 3)
	replies := &gate{}
	dial := dialOf(e.redis())
	pool := &redis.Pool{MaxIdle: 16, DialContext: func(ctx context.Context) (redis.Conn, error) {
		c, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		return gatedConn{Conn: c, replies: replies}, nil
	}}
	t.Cleanup(func() { pool.Close() })
	s, _, live := cacheStore(e, pool, 16, time.Hour)
	if !live {
		t.Skip("no client-side cache on this server")
	}
	front := voting.Query{Order: voting.ByScore, Paging: voting.Paging{Page: 1}}
	upvotes := func(page []voting.Article) int64 {
		for _, a := range page {
			if a.ID == ids[0] {
				return a.Upvotes
			}
		}
		t.Fatalf("article %s is not on the front page", ids[0])
		return 0
	}
	replies.close()
	defer replies.release()
	got := make(chan []voting.Article, 1)
	go func() {
		page, _, err := s.List(ctx, front)
		if err != nil {
			t.Error(err)
		}
		got <- page
	}()
	if !waitFor(func() bool { return replies.held.Load() == 1 }) {
		t.Fatal("the page's articles were not read within 30 s")
	}
	if err := s.Vote(ctx, "late", ids[0], voting.Up); err != nil {
		t.Fatal(err)
	}
	replies.release()
	before := upvotes(<-got)
	page, _, err := s.List(ctx, front)
	if err != nil {
		t.Fatal(err)
	}
	if n := upvotes(page); n != before+1 {
		t.Fatalf("the front page read after the vote shows %d up-votes on %s, want %d: the page read as the vote landed was kept", n, ids[0], before+1)
	}
}
