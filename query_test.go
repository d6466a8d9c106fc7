package voting_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
)

// queryEnv is a namespace of 13 articles by three posters in two groups,
// with votes, karma and histories, for the tests of the listing query.
func queryEnv(t *testing.T, opts ...voting.Option) (*env, []string) {
	t.Helper()
	e := newEnv(t, append([]voting.Option{voting.WithPageSize(4), voting.WithKarma(),
		voting.WithUserHistory(30 * 24 * time.Hour), voting.WithOrders(voting.ByVotes)}, opts...)...)
	var ids []string
	for i := range 13 {
		groups := []string{"go"}
		if i%3 == 0 {
			groups = append(groups, "redis")
		}
		ids = append(ids, e.post([]string{"alice", "bob", "carol"}[i%3], fmt.Sprintf("article %d", i), groups...))
		e.advance(time.Minute)
	}
	for i, id := range ids {
		for v := range i % 5 {
			e.vote(fmt.Sprintf("voter%d", v), id, voting.Up)
			e.advance(time.Second)
		}
	}
	return e, ids
}

// walkPages reads every page of a list by cursor, size items a page, and
// checks that each page but the last is full and that only the last gives
// no cursor.
func walkPages[T any](t *testing.T, what string, size int, page func(after string) ([]T, string, error)) []T {
	t.Helper()
	var all []T
	after := ""
	for n := 1; ; n++ {
		got, next, err := page(after)
		if err != nil {
			t.Fatalf("%s: page %d by cursor: %v", what, n, err)
		}
		all = append(all, got...)
		if next == "" {
			if len(got) > size {
				t.Fatalf("%s: last page of %d items, size %d", what, len(got), size)
			}
			return all
		}
		if len(got) != size {
			t.Fatalf("%s: page %d by cursor holds %d items and gives a cursor; size %d", what, n, len(got), size)
		}
		if n > 1000 {
			t.Fatalf("%s: no end", what)
		}
		after = next
	}
}

// numbered reads every page of a list by number, size items a page.
func numbered[T any](t *testing.T, what string, size int, page func(n int) ([]T, string, error)) []T {
	t.Helper()
	var all []T
	for n := 1; ; n++ {
		got, next, err := page(n)
		if err != nil {
			t.Fatalf("%s: page %d: %v", what, n, err)
		}
		if next != "" {
			t.Fatalf("%s: numbered page %d gives cursor %q, want none", what, n, next)
		}
		all = append(all, got...)
		if len(got) < size {
			return all
		}
	}
}

// TestEveryListPagesTheSameWay: each list (the site's, a group's, a
// user's articles, a user's history, top posters, groups) read by number
// and by cursor, with a size per call other than the Store's, gives the
// same items, in the order the model says, on both kinds of group.
func TestEveryListPagesTheSameWay(t *testing.T) {
	t.Parallel()
	for _, live := range []bool{true, false} {
		t.Run(fmt.Sprintf("live=%t", live), func(t *testing.T) {
			var opts []voting.Option
			if !live {
				opts = append(opts, bookCache)
			}
			e, ids := queryEnv(t, opts...)
			s := e.store
			for _, size := range []int{1, 3, 13, 0} {
				want := size
				if size == 0 {
					want = s.PageSize()
				}
				for _, q := range []voting.Query{
					{Order: voting.ByScore}, {Order: voting.ByTime}, {Order: voting.ByVotes},
					{Group: "redis", Order: voting.ByScore}, {Group: "go", Order: voting.ByTime},
					{Group: "go", Order: voting.ByVotes, WithGroups: true},
					{User: "alice", Order: voting.ByTime}, {User: "bob", Order: voting.ByTime, WithGroups: true},
				} {
					what := fmt.Sprintf("%+v size %d", q, size)
					byNumber := numbered(t, what, want, func(n int) ([]voting.Article, string, error) {
						q := q
						q.Page, q.Size = n, size
						return s.List(ctx, q)
					})
					byCursor := walkPages(t, what, want, func(after string) ([]voting.Article, string, error) {
						q := q
						q.After, q.Size = after, size
						return s.List(ctx, q)
					})
					if !reflect.DeepEqual(byNumber, byCursor) {
						t.Errorf("%s: by number %v, by cursor %v", what, idsOf(byNumber), idsOf(byCursor))
					}
					if got, wantIDs := idsOf(byCursor), queryModel(e, ids, q); !reflect.DeepEqual(got, wantIDs) {
						t.Errorf("%s lists %v, want %v", what, got, wantIDs)
					}
					n, err := s.Count(ctx, q)
					if err != nil || n != int64(len(byCursor)) {
						t.Errorf("Count(%+v) = %d, %v; want %d", q, n, err, len(byCursor))
					}
					for _, a := range byCursor {
						if !q.WithGroups && a.Groups != nil {
							t.Fatalf("%s: article %s has groups %v without WithGroups", what, a.ID, a.Groups)
						}
						if q.WithGroups {
							full, err := s.Article(ctx, a.ID)
							if err != nil || !reflect.DeepEqual(a, full) {
								t.Fatalf("%s: listed %+v, Article gives %+v, %v", what, a, full, err)
							}
						}
					}
				}

				history := walkPages(t, "history", want, func(after string) ([]voting.UserVote, string, error) {
					return s.UserHistory(ctx, "voter1", voting.Paging{After: after, Size: size})
				})
				if h := numbered(t, "history", want, func(n int) ([]voting.UserVote, string, error) {
					return s.UserHistory(ctx, "voter1", voting.Paging{Page: n, Size: size})
				}); !reflect.DeepEqual(h, history) {
					t.Errorf("history by number %v, by cursor %v", h, history)
				}
				var voted []string
				for _, v := range history {
					voted = append(voted, v.Article.ID)
				}
				var wantVoted []string // voter1 voted on every article i with i%5 >= 2, in order
				for i := len(ids) - 1; i >= 0; i-- {
					if i%5 >= 2 {
						wantVoted = append(wantVoted, ids[i])
					}
				}
				if !reflect.DeepEqual(voted, wantVoted) {
					t.Errorf("voter1's history by cursor, size %d: %v, want %v", size, voted, wantVoted)
				}

				posters := walkPages(t, "posters", want, func(after string) ([]voting.UserKarma, string, error) {
					return s.TopPosters(ctx, voting.Paging{After: after, Size: size})
				})
				if p := numbered(t, "posters", want, func(n int) ([]voting.UserKarma, string, error) {
					return s.TopPosters(ctx, voting.Paging{Page: n, Size: size})
				}); !reflect.DeepEqual(p, posters) || len(posters) != 3 {
					t.Errorf("posters by number %v, by cursor %v; want 3", p, posters)
				}

				groups := walkPages(t, "groups", want, func(after string) ([]voting.GroupSize, string, error) {
					return s.Groups(ctx, voting.Paging{After: after, Size: size})
				})
				if wantGroups := []voting.GroupSize{{Name: "go", Articles: 13}, {Name: "redis", Articles: 5}}; !reflect.DeepEqual(groups, wantGroups) {
					t.Errorf("groups by cursor, size %d: %v, want %v", size, groups, wantGroups)
				}
			}
		})
	}
}

// queryModel is the ids q lists, by the model of queryEnv: article i has
// i%5 up-votes beyond its poster's, and was posted a minute after i-1.
func queryModel(e *env, ids []string, q voting.Query) []string {
	var in []int
	for i := range ids {
		switch {
		case q.User != "" && []string{"alice", "bob", "carol"}[i%3] != q.User:
		case q.Group == "redis" && i%3 != 0:
		default:
			in = append(in, i)
		}
	}
	value := func(i int) float64 {
		switch q.Order {
		case voting.ByTime:
			return float64(i)
		case voting.ByVotes:
			return float64(i % 5)
		}
		return float64(i)*60 + float64(i%5)*voting.DefaultVoteWeight
	}
	// Ties go to the greater member first, as Redis orders them.
	slices.SortStableFunc(in, func(a, b int) int {
		switch {
		case value(a) > value(b):
			return -1
		case value(a) < value(b):
			return 1
		case e.article(ids[a]) > e.article(ids[b]):
			return -1
		}
		return 1
	})
	out := make([]string, len(in))
	for k, i := range in {
		out[k] = ids[i]
	}
	return out
}

// TestAListingWithGroupsTakesItsOwnRoundTrips: WithGroups reads each
// article's groups in the listing's round trips, as Article does in its
// one.
func TestAListingWithGroupsTakesItsOwnRoundTrips(t *testing.T) {
	t.Parallel()
	e, ids := queryEnv(t)
	counter := roundtrip.New(e.redis())
	s, err := voting.New(counter, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	q := voting.Query{Order: voting.ByVotes, WithGroups: true, Paging: voting.Paging{Size: 13}}
	if _, _, err := s.List(ctx, q); err != nil { // reads the settings
		t.Fatal(err)
	}
	for _, q := range []voting.Query{q, {Group: "go", Order: voting.ByTime, WithGroups: true, Paging: voting.Paging{Page: 1, Size: 13}}} {
		counter.Reset()
		page, _, err := s.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if n := counter.Trips(); n != 2 {
			t.Errorf("List(%+v) took %d round trips, want 2", q, n)
		}
		if len(page) != 13 {
			t.Fatalf("List(%+v) gave %d articles, want 13", q, len(page))
		}
		for _, a := range page {
			want := []string{"go"}
			if slices.Index(ids, a.ID)%3 == 0 {
				want = []string{"go", "redis"}
			}
			if !reflect.DeepEqual(a.Groups, want) {
				t.Errorf("article %s listed with groups %v, want %v", a.ID, a.Groups, want)
			}
		}
	}
	counter.Reset()
	a, err := s.Article(ctx, ids[3])
	if err != nil || !reflect.DeepEqual(a.Groups, []string{"go", "redis"}) || counter.Trips() != 1 {
		t.Errorf("Article = %+v, %v in %d round trips; want groups [go redis] in 1", a, err, counter.Trips())
	}
}

// TestRankAndCursorOfEveryScope: Rank gives the place List lists an
// article at, and Cursor the cursor that goes on after it, for the site, a
// live group and a user.
func TestRankAndCursorOfEveryScope(t *testing.T) {
	t.Parallel()
	e, _ := queryEnv(t)
	for _, q := range []voting.Query{
		{Order: voting.ByVotes}, {Group: "redis", Order: voting.ByScore}, {User: "carol", Order: voting.ByTime},
	} {
		all, _, err := e.store.List(ctx, voting.Query{Order: q.Order, Group: q.Group, User: q.User, Paging: voting.Paging{Size: 100}})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range all {
			rank, err := e.store.Rank(ctx, a.ID, q)
			if err != nil || rank != int64(i+1) {
				t.Errorf("Rank(%s, %+v) = %d, %v; want %d", a.ID, q, rank, err, i+1)
			}
			cursor, err := e.store.Cursor(ctx, a.ID, q)
			if err != nil {
				t.Fatalf("Cursor(%s, %+v): %v", a.ID, q, err)
			}
			after := q
			after.After, after.Size = cursor, 100
			rest, _, err := e.store.List(ctx, after)
			if err != nil || !reflect.DeepEqual(idsOf(rest), idsOf(all[i+1:])) {
				t.Errorf("List after Cursor(%s, %+v) = %v, %v; want %v", a.ID, q, idsOf(rest), err, idsOf(all[i+1:]))
			}
		}
	}
	// Not in the listing: another user's article, one not in the group.
	if _, err := e.store.Rank(ctx, "2", voting.Query{User: "carol", Order: voting.ByTime}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Rank of bob's article among carol's = %v, want ErrNotFound", err)
	}
	if _, err := e.store.Cursor(ctx, "2", voting.Query{Group: "redis"}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Cursor of an article not in the group = %v, want ErrNotFound", err)
	}
	cached := e.with(bookCache)
	if rank, err := cached.Rank(ctx, "1", voting.Query{Group: "redis"}); err != nil || rank != 5 {
		t.Errorf("a Store given a cache, on a namespace with live groups, ranks article 1 in redis %d, %v; want 5", rank, err)
	}
}

// TestAGroupRankNeedsLiveGroups: without live groups a group's rank is
// refused, and nothing is written.
func TestAGroupRankNeedsLiveGroups(t *testing.T) {
	t.Parallel()
	e, _ := queryEnv(t, bookCache)
	before := e.dump()
	if _, err := e.store.Rank(ctx, "1", voting.Query{Group: "redis"}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Rank in a group without live groups = %v, want ErrInvalid", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a refused rank wrote: %s", dumpDiff(before, after))
	}
}

// TestBadPagingIsRefusedByEveryList: a page before 1, a size out of
// range, a page and a cursor together, a cursor of another list: each is
// an error wrapping ErrInvalid from every list, and writes nothing.
func TestBadPagingIsRefusedByEveryList(t *testing.T) {
	t.Parallel()
	e, _ := queryEnv(t)
	s := e.store
	groupsCursor := func() string {
		_, next, err := s.Groups(ctx, voting.Paging{Size: 1})
		if err != nil || next == "" {
			t.Fatalf("Groups size 1: %q, %v", next, err)
		}
		return next
	}()
	aliceCursor := func() string {
		_, next, err := s.List(ctx, voting.Query{User: "alice", Order: voting.ByTime, Paging: voting.Paging{Size: 1}})
		if err != nil || next == "" {
			t.Fatalf("alice's articles size 1: %q, %v", next, err)
		}
		return next
	}()
	lists := map[string]func(p voting.Paging) error{
		"site": func(p voting.Paging) error { _, _, err := s.List(ctx, voting.Query{Paging: p}); return err },
		"group": func(p voting.Paging) error {
			_, _, err := s.List(ctx, voting.Query{Group: "go", Paging: p})
			return err
		},
		"user": func(p voting.Paging) error {
			_, _, err := s.List(ctx, voting.Query{User: "bob", Order: voting.ByTime, Paging: p})
			return err
		},
		"history": func(p voting.Paging) error { _, _, err := s.UserHistory(ctx, "voter1", p); return err },
		"posters": func(p voting.Paging) error { _, _, err := s.TopPosters(ctx, p); return err },
		"groups":  func(p voting.Paging) error { _, _, err := s.Groups(ctx, p); return err },
	}
	before := e.dump()
	for name, list := range lists {
		for _, p := range []voting.Paging{
			{Page: -1}, {Size: -1}, {Size: voting.MaxPageSize + 1}, {Page: 2, After: groupsCursor},
			{After: "nonsense"}, {After: aliceCursor},
		} {
			if name == "groups" && p.After == groupsCursor && p.Page == 0 {
				continue
			}
			if err := list(p); !errors.Is(err, voting.ErrInvalid) {
				t.Errorf("%s %+v = %v, want ErrInvalid", name, p, err)
			}
		}
		if name != "groups" {
			if err := list(voting.Paging{After: groupsCursor}); !errors.Is(err, voting.ErrInvalid) {
				t.Errorf("%s after a cursor of the groups = %v, want ErrInvalid", name, err)
			}
		}
		if err := list(voting.Paging{Size: voting.MaxPageSize}); err != nil {
			t.Errorf("%s of the largest size: %v", name, err)
		}
	}
	// bob's articles do not take alice's cursor, nor a group the site's.
	if _, _, err := s.List(ctx, voting.Query{User: "bob", Order: voting.ByTime, Paging: voting.Paging{After: aliceCursor}}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("bob's articles after alice's cursor = %v, want ErrInvalid", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("refused pages wrote: %s", dumpDiff(before, after))
	}
}

// TestAHistoryPageEndsWhereTheHistoryDoes: a cursor walk of a history
// stops at the votes it keeps: no cursor leads to an empty page of votes
// the history has let go.
func TestAHistoryPageEndsWhereTheHistoryDoes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(time.Hour))
	var ids []string
	for i := range 4 {
		ids = append(ids, e.post("alice", fmt.Sprintf("a%d", i)))
	}
	for i, id := range ids {
		e.vote("bob", id, voting.Up)
		e.advance([]time.Duration{50, 1, 1, 13}[i] * time.Minute)
	}
	// Now, 65 minutes on: the first vote is older than the hour.
	votes, next, err := e.store.UserHistory(ctx, "bob", voting.Paging{Size: 3})
	if err != nil || len(votes) != 3 {
		t.Fatalf("history = %v, %v; want 3 votes", votes, err)
	}
	if next != "" {
		rest, _, err := e.store.UserHistory(ctx, "bob", voting.Paging{After: next, Size: 3})
		t.Errorf("a page of the 3 kept votes gives cursor %q, whose page is %v, %v; want none", next, rest, err)
	}
}

// TestACachedGroupPageByCursorIsReadFresh: a group listed through the
// book's cache, read by cursor, gives each article's score as it is now,
// not as the cache holds it, as a numbered page does.
func TestACachedGroupPageByCursorIsReadFresh(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	id := e.post("alice", "one", "g")
	q := voting.Query{Group: "g"}
	if _, _, err := e.store.List(ctx, q); err != nil { // builds the cache
		t.Fatal(err)
	}
	e.vote("bob", id, voting.Up)
	fresh, err := e.store.Article(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Groups = nil
	for _, p := range []voting.Paging{{}, {Page: 1}} {
		q.Paging = p
		page, _, err := e.store.List(ctx, q)
		if err != nil || len(page) != 1 || !reflect.DeepEqual(page[0], fresh) {
			t.Errorf("List(%+v) = %+v, %v; want [%+v]", q, page, err, fresh)
		}
	}
}

// TestCursorOfAnArticleTheListingLacks: an article not in the group (with
// or without a cache built), or aged out of a window not yet trimmed, has
// no cursor; an index not built says so.
func TestCursorOfAnArticleTheListingLacks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache, voting.WithOrders(voting.TopDay))
	e.post("alice", "in", "g")
	out := e.post("alice", "out", "h")
	for _, built := range []bool{false, true} {
		if built {
			if _, _, err := e.store.List(ctx, voting.Query{Group: "g"}); err != nil {
				t.Fatal(err)
			}
		}
		if c, err := e.store.Cursor(ctx, out, voting.Query{Group: "g"}); !errors.Is(err, voting.ErrNotFound) {
			t.Errorf("cache built %t: Cursor of an article not in the group = %q, %v; want ErrNotFound", built, c, err)
		}
	}
	e.advance(48 * time.Hour)
	if c, err := e.store.Cursor(ctx, out, voting.Query{Order: voting.TopDay}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Cursor of an article aged out of the day = %q, %v; want ErrNotFound", c, err)
	}
	more := e.with(voting.WithOrders(voting.ByVotes))
	if c, err := more.Cursor(ctx, out, voting.Query{Order: voting.ByVotes}); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("Cursor in an index not built = %q, %v; want ErrNotIndexed", c, err)
	}
}

// TestCursorOfALiveGroupNotBuiltFollowsTheCache: while a group's live
// indexes lack articles, List falls back to the book's cached listing, and
// so does Cursor: the page after the cursor of page 1's last article is
// page 2.
func TestCursorOfALiveGroupNotBuiltFollowsTheCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache, voting.WithPageSize(2))
	for i := range 5 {
		e.advance(time.Minute)
		e.post("alice", fmt.Sprintf("a%d", i), "g")
	}
	live := e.with(voting.WithLiveGroups(), voting.WithPageSize(2))
	page1, _, err := live.List(ctx, voting.Query{Group: "g", Paging: voting.Paging{Page: 1}})
	if err != nil || len(page1) != 2 {
		t.Fatalf("page 1 = %v, %v", idsOf(page1), err)
	}
	last := page1[1].ID
	for v := range 3 {
		e.vote(fmt.Sprintf("v%d", v), last, voting.Up)
	}
	page2, _, err := live.List(ctx, voting.Query{Group: "g", Paging: voting.Paging{Page: 2}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := live.Cursor(ctx, last, voting.Query{Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	after, _, err := live.List(ctx, voting.Query{Group: "g", Paging: voting.Paging{After: c}})
	if err != nil || !reflect.DeepEqual(idsOf(after), idsOf(page2)) {
		t.Errorf("after Cursor(%s) = %v, %v; want page 2, %v", last, idsOf(after), err, idsOf(page2))
	}
}

// TestAPagePastTheEndOfAnOrderNotKept: an order the namespace does not
// keep is refused on every page, however far.
func TestAPagePastTheEndOfAnOrderNotKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("alice", "one")
	for _, page := range []int{1, math.MaxInt} {
		if _, _, err := e.store.List(ctx, voting.Query{Order: voting.ByVotes, Paging: voting.Paging{Page: page}}); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("page %d by an order not kept: %v, want ErrInvalid", page, err)
		}
	}
}

// TestABadRecordLeavesTheRestOfAPage: a karma that is no whole number is
// an error that names the package once; a group record of the wrong type
// leaves its article out of a listing WithGroups, and of Articles, as a
// hash that does not parse does.
func TestABadRecordLeavesTheRestOfAPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	one := e.post("alice", "one", "g")
	two := e.post("alice", "two", "g")
	e.do("ZADD", e.key("karma:"), 1.5, "mallory")
	_, _, err := e.store.TopPosters(ctx, voting.Paging{})
	if !errors.Is(err, voting.ErrCorrupt) || strings.Count(err.Error(), "voting:") != 1 {
		t.Errorf("TopPosters with a karma of 1.5 = %v; want ErrCorrupt, naming the package once", err)
	}
	e.do("DEL", e.key("groups:"+two))
	e.do("SET", e.key("groups:"+two), "x")
	page, _, err := e.store.List(ctx, voting.Query{WithGroups: true})
	if err != nil || !reflect.DeepEqual(idsOf(page), []string{one}) {
		t.Errorf("List WithGroups with a bad record = %v, %v; want [%s]", idsOf(page), err, one)
	}
	got, err := e.store.Articles(ctx, one, two)
	if err != nil || !reflect.DeepEqual(idsOf(got), []string{one}) {
		t.Errorf("Articles with a bad record = %v, %v; want [%s]", idsOf(got), err, one)
	}
	e.do("DEL", e.key("groups:"+two))
	e.do("SADD", e.key("groups:"+two), "g")
}
