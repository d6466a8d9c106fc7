package voting_test

// Tests of the marks of built indexes (indexed:, internal/schema/marks.go):
// a listing or count of an index that does not hold every article is
// ErrNotIndexed until Reindex builds it, and never once it is built.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// listOrCount lists page 1 of the site (group "") or a group by order, and
// counts the same listing; it gives both errors.
func listOrCount(s *voting.Store, group string, order voting.Order) (page []voting.Article, n int64, listErr, countErr error) {
	if group == "" {
		page, listErr = s.GetArticles(ctx, 1, order)
		n, countErr = s.Count(ctx, voting.Query{Order: order})
	} else {
		page, listErr = s.GetGroupArticles(ctx, group, 1, order)
		n, countErr = s.Count(ctx, voting.Query{Group: group, Order: order})
	}
	return page, n, listErr, countErr
}

// checkNotIndexed checks that the listing and the count of group (or the
// site) by order answer ErrNotIndexed, saying to run Reindex.
func checkNotIndexed(t *testing.T, s *voting.Store, group string, order voting.Order) {
	t.Helper()
	page, n, listErr, countErr := listOrCount(s, group, order)
	for what, err := range map[string]error{"listing": listErr, "count": countErr} {
		if !errors.Is(err, voting.ErrNotIndexed) || !strings.Contains(err.Error(), "run Reindex") {
			t.Errorf("%s of %q by %v = %v; want ErrNotIndexed saying to run Reindex", what, group, order, err)
		}
	}
	if page != nil || n != 0 {
		t.Errorf("listing of %q by %v gave %v and a count of %d along with its error", group, order, idsOf(page), n)
	}
}

// checkListed checks that the listing of group (or the site) by order holds
// exactly want, in any order, and that its count agrees.
func checkListed(t *testing.T, s *voting.Store, group string, order voting.Order, want []string) {
	t.Helper()
	page, n, listErr, countErr := listOrCount(s, group, order)
	if listErr != nil || countErr != nil {
		t.Fatalf("%q by %v: %v, %v", group, order, listErr, countErr)
	}
	got := idsOf(page)
	if !sameIDs(got, want) || n != int64(len(want)) {
		t.Errorf("%q by %v = %v, count %d; want %v", group, order, got, n, want)
	}
}

func sameIDs(a, b []string) bool {
	seen := map[string]int{}
	for _, id := range a {
		seen[id]++
	}
	for _, id := range b {
		seen[id]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// TestListingsOfIndexesNotBuiltSaySo: data posted before a Store added
// ByVotes and live groups to the namespace gave empty pages and counts of
// 0 with no error until Reindex; now the site's listings of the orders
// added answer ErrNotIndexed, and the groups' listings fall back to the
// book's until Reindex has built the live indexes.
func TestListingsOfIndexesNotBuiltSaySo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	ids := []string{e.post("alice", "one", "g"), e.post("bob", "two", "g"), e.post("carol", "three")}
	if got, want := e.hash(e.key("indexed:")), map[string]string{"articles": "3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("indexed: after 3 posts that keep only the book's indexes = %v, want %v", got, want)
	}
	opts := []voting.Option{voting.WithOrders(voting.ByVotes, voting.TopWeek)}
	byOrders := storeAt(t, e, e.clock.Now(), opts...)
	for _, o := range []voting.Order{voting.ByVotes, voting.TopWeek} {
		checkNotIndexed(t, byOrders, "", o)
		checkNotIndexed(t, byOrders, "g", o) // the book's cached listing reads the site's index
	}
	live := storeAt(t, e, e.clock.Now(), append(opts, voting.WithLiveGroups())...)
	// The book's two orders are always built, and so are their cached
	// group listings, which the live Store's group listings fall back to.
	for _, o := range []voting.Order{voting.ByScore, voting.ByTime} {
		checkListed(t, byOrders, "", o, ids)
		checkListed(t, byOrders, "g", o, ids[:2])
		checkListed(t, live, "g", o, ids[:2])
	}
	for _, o := range []voting.Order{voting.ByVotes, voting.TopWeek} {
		checkNotIndexed(t, live, "g", o)
	}

	// One run builds every index the namespace keeps, whichever Store runs it.
	if err := byOrders.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"articles": "3", "votes": "1", "top-week": "1", "live:score": "1", "live:time": "1", "live:votes": "1",
		"live:top-week": "1"}
	if got := e.hash(e.key("indexed:")); !reflect.DeepEqual(got, want) {
		t.Errorf("indexed: = %v after Reindex, want %v", got, want)
	}
	for _, o := range voting.View(live).Orders {
		checkListed(t, byOrders, "", o, ids)
		checkListed(t, live, "g", o, ids[:2])
	}
	e.store = live
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestAnEmptyNamespaceIsBuilt: with no article, every index is complete,
// marked or not: a new site's first listings are empty pages, not
// ErrNotIndexed.
func TestAnEmptyNamespaceIsBuilt(t *testing.T) {
	t.Parallel()
	for _, live := range []bool{false, true} {
		opts := []voting.Option{voting.WithOrders(voting.Orders()...)}
		if live {
			opts = append(opts, voting.WithLiveGroups())
		}
		e := newEnv(t, opts...)
		before := map[string]bool{} // the namespace's settings and count
		for _, k := range e.keys() {
			before[k] = true
		}
		for _, o := range voting.View(e.store).Orders {
			checkListed(t, e.store, "", o, nil)
			checkListed(t, e.store, "g", o, nil)
		}
		for _, k := range e.keys() {
			if !before[k] && k != e.key("trimmed:") { // a window's first trim leaves its mark
				t.Errorf("listings of an empty namespace wrote %s", k)
			}
		}
	}
}

// TestIndexesKeptFromTheFirstArticleAreBuilt: the first post into an empty
// namespace marks every index its Store keeps built, and no listing of
// them ever answers ErrNotIndexed.
func TestIndexesKeptFromTheFirstArticleAreBuilt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	first := e.post("alice", "first", "g")
	want := map[string]string{"articles": "1"}
	for _, o := range voting.Orders() {
		want["live:"+o.String()] = "1"
		if o != voting.ByScore && o != voting.ByTime {
			want[o.String()] = "1"
		}
	}
	if got := e.hash(e.key("indexed:")); !reflect.DeepEqual(got, want) {
		t.Errorf("indexed: after the first post = %v, want %v", got, want)
	}
	second := e.post("bob", "second", "g")
	for _, o := range voting.View(e.store).Orders {
		checkListed(t, e.store, "", o, []string{first, second})
		checkListed(t, e.store, "g", o, []string{first, second})
	}
	// An emptied namespace is empty again, and a post by a Store given no
	// option keeps every index the namespace keeps: they stay built.
	for _, id := range []string{first, second} {
		if err := e.store.DeleteArticle(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	plain := storeAt(t, e, e.clock.Now())
	third, err := plain.PostArticle(ctx, "carol", "plain", "https://example.com/", "g")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.key("indexed:")); !reflect.DeepEqual(got, want) {
		t.Errorf("indexed: after a plain Store's post = %v, want %v", got, want)
	}
	for _, o := range voting.View(e.store).Orders {
		checkListed(t, plain, "", o, []string{third})
		checkListed(t, plain, "g", o, []string{third})
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestAStoreGivenFewerOptionsKeepsEveryIndex: a Store given fewer options
// than the namespace keeps (as the old processes of a rolling deploy are)
// took the article out of the indexes it did not keep, or left them
// stale; now its posts, votes, group changes and deletions keep every
// index the namespace keeps, and the marks stay.
func TestAStoreGivenFewerOptionsKeepsEveryIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes), voting.WithLiveGroups())
	first := e.post("alice", "first", "g")
	marks := e.hash(e.key("indexed:"))
	plain := storeAt(t, e, e.clock.Now())
	if err := plain.AddToGroups(ctx, first, "h"); err != nil {
		t.Fatal(err)
	}
	second, err := plain.PostArticle(ctx, "bob", "second", "https://example.com/2", "h")
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Vote(ctx, "carol", second, voting.Up); err != nil {
		t.Fatal(err)
	}
	marks["articles"] = "2"
	if got := e.hash(e.key("indexed:")); !reflect.DeepEqual(got, marks) {
		t.Errorf("indexed: after a plain Store's writes = %v, want %v", got, marks)
	}
	for _, o := range voting.View(e.store).Orders {
		checkListed(t, e.store, "", o, []string{first, second})
		checkListed(t, e.store, "h", o, []string{first, second})
		checkListed(t, e.store, "g", o, []string{first})
	}
	if err := plain.DeleteArticle(ctx, first); err != nil {
		t.Fatal(err)
	}
	for _, o := range voting.View(e.store).Orders {
		checkListed(t, e.store, "h", o, []string{second})
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestRemovalLeavesEveryListingOfTheGroup: a Store without live groups, or
// one that keeps fewer orders, took an article out of a group and out of
// its own listings alone, so that the live index of another Store kept
// listing it in the group, Reindex or not.
func TestRemovalLeavesEveryListingOfTheGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes), voting.WithLiveGroups(), voting.WithGroupCacheTTL(time.Hour))
	a := e.post("alice", "one", "g")
	b := e.post("bob", "two", "g")
	cached := storeAt(t, e, e.clock.Now(), voting.WithOrders(voting.ByVotes), voting.WithGroupCacheTTL(time.Hour))
	checkListed(t, cached, "g", voting.ByVotes, []string{a, b}) // a cached listing of g by votes
	for _, s := range []*voting.Store{storeAt(t, e, e.clock.Now()), storeAt(t, e, e.clock.Now(), voting.WithLiveGroups())} {
		if err := s.RemoveFromGroups(ctx, a, "g"); err != nil {
			t.Fatal(err)
		}
		for _, o := range voting.View(e.store).Orders {
			checkListed(t, e.store, "g", o, []string{b})
			checkListed(t, cached, "g", o, []string{b})
		}
		if err := e.store.AddToGroups(ctx, a, "g"); err != nil {
			t.Fatal(err)
		}
		if err := cached.RemoveFromGroups(ctx, b, "g"); err != nil {
			t.Fatal(err)
		}
		checkListed(t, e.store, "g", voting.ByVotes, []string{a})
		if err := cached.AddToGroups(ctx, b, "g"); err != nil {
			t.Fatal(err)
		}
		if err := e.store.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexLeavesUnbuiltWhatAWriteUnbuiltDuringItsRun: an article
// another writer (the book's code) posts while Reindex runs may come after
// the walk has passed; the run then leaves the count of the articles
// indexed short of the time index, its listings answer ErrNotIndexed, and
// the next run builds it.
func TestReindexLeavesUnbuiltWhatAWriteUnbuiltDuringItsRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 5 {
		e.post("alice", "article "+string(rune('a'+i)), "g")
	}
	votes := storeAt(t, e, e.clock.Now(), voting.WithOrders(voting.ByVotes))
	voting.SetBatches(votes, 2, 2)
	posted := false
	_, err := votes.ReindexWithProgress(ctx, func(p voting.ReindexProgress) {
		if !posted && p.Articles > 0 {
			posted = true
			e.bookPost("6", "bob", float64(e.clock.Now().Unix()))
		}
	})
	if err != nil || !posted {
		t.Fatalf("Reindex: %v (posted %v)", err, posted)
	}
	checkNotIndexed(t, votes, "", voting.ByVotes)
	if err := votes.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if page, err := votes.GetArticles(ctx, 1, voting.ByVotes); err != nil || len(page) != 6 {
		t.Errorf("after the second run: %v, %v; want 6 articles", idsOf(page), err)
	}
	e.foreign = false // the runs have counted the book's article
	e.store = votes
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestARunStartedOverAnotherLeavesItsMarks: a run of Reindex that a later
// run started over (by a Store of other options, or by a call of the same
// Store after the run had completed) must not mark built what the later
// run has yet to walk: here an article posted, by another writer (the
// book's code), between the two runs' starts.
func TestARunStartedOverAnotherLeavesItsMarks(t *testing.T) {
	t.Parallel()
	for _, sameOptions := range []bool{false, true} {
		t.Run(map[bool]string{false: "other options", true: "same options"}[sameOptions], func(t *testing.T) {
			e := newEnv(t) // a plain Store
			e.post("alice", "one", "g")
			e.advance(time.Minute)
			e.post("alice", "two", "g")
			e.advance(time.Minute)
			first := storeAt(t, e, e.clock.Now(), voting.WithOrders(voting.ByVotes))
			laterOpts := []voting.Option{voting.WithOrders(voting.ByVotes, voting.ByControversy)}
			if sameOptions {
				laterOpts = []voting.Option{voting.WithOrders(voting.ByVotes)}
			}
			later := storeAt(t, e, e.clock.Now(), laterOpts...)
			voting.SetBatches(later, 1, 1)
			var late string
			_, err := first.ReindexWithProgress(ctx, func(p voting.ReindexProgress) {
				if late != "" || p.Articles < 2 {
					return
				}
				if sameOptions {
					// Another call completes the run this one walks.
					if err := storeAt(t, e, e.clock.Now(), voting.WithOrders(voting.ByVotes)).Reindex(ctx); err != nil {
						t.Fatal(err)
					}
				}
				// An article posted by another writer, the book's code.
				late = "3"
				e.bookPost(late, "bob", float64(e.clock.Now().Unix()))
				// A later run starts, and is cut short before its walk
				// reaches the late article.
				cut, cancel := context.WithCancel(context.Background())
				if _, err := later.ReindexWithProgress(cut, func(voting.ReindexProgress) { cancel() }); !errors.Is(err, context.Canceled) {
					t.Fatalf("the later run: %v, want it cut short", err)
				}
			})
			if err != nil || late == "" {
				t.Fatalf("Reindex: %v (late %q)", err, late)
			}
			page, err := first.GetArticles(ctx, 1, voting.ByVotes)
			if err == nil && len(page) != 3 {
				t.Errorf("the votes listing = %v with no error; it lacks article %s", idsOf(page), late)
			}
			if err := first.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			if page, err := first.GetArticles(ctx, 1, voting.ByVotes); err != nil || len(page) != 3 {
				t.Errorf("after a run of its own: %v, %v; want 3 articles", idsOf(page), err)
			}
		})
	}
}

// TestDeletionLeavesEveryIndex: a deletion by a Store that keeps fewer
// orders, and no live groups, left the article's entries in the indexes it
// does not keep: listings skipped them, counts did not.
func TestDeletionLeavesEveryIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.TopWeek), voting.WithLiveGroups())
	a := e.post("alice", "one", "g")
	b := e.post("bob", "two", "g")
	if err := storeAt(t, e, e.clock.Now()).DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, o := range voting.View(e.store).Orders {
		checkListed(t, e.store, "", o, []string{b})
		checkListed(t, e.store, "g", o, []string{b})
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestIndexesUnderAnUnfinishedReindexSaySo: while a run of Reindex that
// builds an index is unfinished (its mark in indexed: is "0:<token>") the
// index holds some articles and not others; a listing, a page of a
// cursor, a count and a rank of it answer ErrNotIndexed, never a partial
// page, for the site's index and a group's live one, until the run
// completes.
func TestIndexesUnderAnUnfinishedReindexSaySo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	var ids []string
	for i := range 30 {
		e.advance(time.Minute)
		ids = append(ids, e.post("alice", fmt.Sprintf("a%d", i), "g"))
	}
	s := e.with(voting.WithOrders(voting.ByVotes, voting.TopWeek), voting.WithLiveGroups())
	voting.SetBatches(s, 500, 5)
	cut, cancel := context.WithCancel(ctx)
	steps := 0
	_, err := s.ReindexWithProgress(cut, func(p voting.ReindexProgress) {
		if steps++; p.Articles >= 10 {
			cancel()
		}
	})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cut-short run: %v", err)
	}
	marks := e.hash(e.key("indexed:"))
	for _, f := range []string{"votes", "top-week", "live:votes", "live:score"} {
		if !regexp.MustCompile(`^0:[0-9a-f]{16}$`).MatchString(marks[f]) {
			t.Fatalf("indexed: %s = %q, want the run's mark 0:<token>: %v", f, marks[f], marks)
		}
	}
	if n := e.int("ZCARD", e.key("votes:")); n == 0 || n == int64(len(ids)) {
		t.Fatalf("votes: holds %d of %d articles: the run should have built part of it", n, len(ids))
	}
	for _, o := range []voting.Order{voting.ByVotes, voting.TopWeek} {
		checkNotIndexed(t, s, "", o)
		if _, _, err := s.List(ctx, voting.Query{Order: o, Paging: voting.Paging{After: ""}}); !errors.Is(err, voting.ErrNotIndexed) {
			t.Errorf("a cursor page by %v = %v, want ErrNotIndexed", o, err)
		}
		if _, err := s.Rank(ctx, ids[0], voting.Query{Order: o}); !errors.Is(err, voting.ErrNotIndexed) {
			t.Errorf("Rank of the first article by %v = %v, want ErrNotIndexed", o, err)
		}
	}
	// The group's listings fall back to the book's: complete by the book's
	// two orders, ErrNotIndexed by those whose site index is unfinished.
	for _, o := range voting.View(s).Orders {
		_, _, err := s.List(ctx, voting.Query{Group: "g", Order: o, Paging: voting.Paging{After: ""}})
		if o == voting.ByScore || o == voting.ByTime {
			if page, n, listErr, countErr := listOrCount(s, "g", o); listErr != nil || countErr != nil ||
				len(page) != voting.DefaultPageSize || n != int64(len(ids)) || err != nil {
				t.Errorf("g by %v under the run = %d articles, count %d, %v, %v, %v; want the book's listing", o, len(page), n,
					listErr, countErr, err)
			}
			continue
		}
		checkNotIndexed(t, s, "g", o)
		if !errors.Is(err, voting.ErrNotIndexed) {
			t.Errorf("a cursor page of g by %v = %v, want ErrNotIndexed", o, err)
		}
	}
	if err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, o := range voting.View(s).Orders {
		page, n, listErr, countErr := listOrCount(s, "g", o)
		if listErr != nil || countErr != nil || len(page) != voting.DefaultPageSize || n != int64(len(ids)) {
			t.Errorf("g by %v after the run = %d articles, count %d, %v, %v; want a full page of %d", o, len(page), n, listErr,
				countErr, len(ids))
		}
		if rank, err := s.Rank(ctx, ids[0], voting.Query{Order: o}); err != nil || rank < 1 {
			t.Errorf("Rank by %v after the run = %d, %v", o, rank, err)
		}
	}
	e.store = s
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}
