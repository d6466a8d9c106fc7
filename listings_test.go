package voting_test

// Tests of the site's listings and counts (listings.go): pages in order,
// articles gone or unreadable left out, and counts equal to the listings.

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

func TestGetArticles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithPageSize(10))
	ids := postMany(e, 23)
	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		want := e.expectedOrder(ids, order)
		var got []string
		for page := 1; page <= 4; page++ {
			articles, err := e.store.GetArticles(ctx, page, order)
			if err != nil {
				t.Fatalf("GetArticles(%d, %v): %v", page, order, err)
			}
			wantLen := []int{10, 10, 3, 0}[page-1]
			if len(articles) != wantLen {
				t.Errorf("%v page %d has %d articles, want %d", order, page, len(articles), wantLen)
			}
			for _, a := range articles {
				want, err := e.store.Article(ctx, a.ID)
				want.Groups = nil // a listing reads them only WithGroups
				if err != nil || !reflect.DeepEqual(a, want) {
					t.Errorf("listed %+v, Article gives %+v, %v", a, want, err)
				}
			}
			got = append(got, idsOf(articles)...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v order = %v, want %v", order, got, want)
		}
	}
	// Newest first by time: the last posted leads.
	articles, _ := e.store.GetArticles(ctx, 1, voting.ByTime)
	if articles[0].ID != ids[len(ids)-1] {
		t.Errorf("newest = %s, want %s", articles[0].ID, ids[len(ids)-1])
	}
}

func TestGetArticlesOnEmptyStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	articles, err := e.store.GetArticles(ctx, 1, voting.ByScore)
	if err != nil || len(articles) != 0 {
		t.Errorf("GetArticles on nothing = %v, %v; want none", articles, err)
	}
	if articles == nil {
		t.Error("GetArticles gave a nil slice; want an empty one")
	}
}

func TestGetArticlesSkipsGoneArticles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "kept")
	e.advance(time.Second)
	b := e.post("alice", "hash gone")
	e.do("DEL", e.article(b))
	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		articles, err := e.store.GetArticles(ctx, 1, order)
		if err != nil {
			t.Fatal(err)
		}
		if got := idsOf(articles); !reflect.DeepEqual(got, []string{a}) {
			t.Errorf("%v listing = %v, want [%s]", order, got, a)
		}
	}
	if _, err := e.store.Article(ctx, b); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Article of a deleted hash = %v, want ErrNotFound", err)
	}
	if err := e.store.Vote(ctx, "bob", b, voting.Up); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Vote on a deleted hash = %v, want ErrNotFound", err)
	}
	if e.exists(e.article(b)) {
		t.Error("a vote on a deleted article wrote its hash again")
	}
}

// TestOneBadRecordDoesNotBreakListings: a field that does not parse in one
// article's hash leaves that article out of every listing, the site's and
// its group's, which list the rest; Article reports ErrCorrupt naming the
// field, and a vote on it is refused the same way, not with a raw Lua
// error, writing nothing.
func TestOneBadRecordDoesNotBreakListings(t *testing.T) {
	t.Parallel()
	for _, field := range []string{"time", "votes"} {
		t.Run(field, func(t *testing.T) {
			e := newEnv(t)
			var ids []string
			for i := 1; i <= 3; i++ {
				e.advance(time.Minute)
				ids = append(ids, e.post("alice", fmt.Sprintf("article %d", i), "g"))
			}
			e.vote("bob", ids[0], voting.Up) // by score 1, 3; by time 3, 1
			member := e.article("2")
			old := e.hash(member)[field]
			e.do("HSET", member, field, "abc")

			want := map[voting.Order][]string{voting.ByScore: {"1", "3"}, voting.ByTime: {"3", "1"}}
			for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
				got, err := e.store.GetArticles(ctx, 1, order)
				if err != nil || !reflect.DeepEqual(idsOf(got), want[order]) {
					t.Errorf("GetArticles %v = %v, %v; want %v", order, idsOf(got), err, want[order])
				}
				got, err = e.store.GetGroupArticles(ctx, "g", 1, order)
				if err != nil || !reflect.DeepEqual(idsOf(got), want[order]) {
					t.Errorf("GetGroupArticles %v = %v, %v; want %v", order, idsOf(got), err, want[order])
				}
			}
			_, err := e.store.Article(ctx, "2")
			switch {
			case !errors.Is(err, voting.ErrCorrupt):
				t.Errorf("Article(2) = %v, want ErrCorrupt", err)
			case !strings.Contains(err.Error(), field):
				t.Errorf("Article(2): error %q does not name %s", err, field)
			}
			before := e.dump()
			err = e.store.Vote(ctx, "bob", "2", voting.Up)
			switch {
			case !errors.Is(err, voting.ErrCorrupt):
				t.Errorf("Vote on 2 = %v, want ErrCorrupt", err)
			case !strings.Contains(err.Error(), field):
				t.Errorf("Vote on 2: error %q does not name %s", err, field)
			case strings.Contains(err.Error(), "user_script") || strings.Contains(err.Error(), "script:"):
				t.Errorf("Vote on 2: error %q is a raw Lua error", err)
			}
			if after := e.dump(); after != before {
				t.Errorf("Vote on a bad record wrote:\nbefore %s\nafter  %s", before, after)
			}
			e.do("HSET", member, field, old)
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestCountsEqualTheListings: after posts, votes and group changes over a
// year of simulated time, each count equals the length of its listing, for
// every kept order (windows included), site and group, live or not.
func TestCountsEqualTheListings(t *testing.T) {
	t.Parallel()
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live=%v", live), func(t *testing.T) {
			opts := []voting.Option{voting.WithOrders(extraOrders...), voting.WithPageSize(3), voting.WithGroupCacheTTL(0)}
			if live {
				opts = append(opts, voting.WithLiveGroups())
			}
			e := newEnv(t, opts...)
			s := newSite(t, e)
			rng := rand.New(rand.NewSource(13))
			groups := []string{"go", "redis"}
			var ids []string
			check := func(what string) {
				t.Helper()
				for _, o := range voting.View(e.store).Orders {
					n, err := e.store.Count(ctx, voting.Query{Order: o})
					if want := len(listAll(t, e.store, "", o)); err != nil || n != int64(want) {
						t.Fatalf("%s: Count(%v) = %d, %v; the listing holds %d", what, o, n, err, want)
					}
					for _, g := range groups {
						n, err := e.store.Count(ctx, voting.Query{Group: g, Order: o})
						if want := len(listAll(t, e.store, g, o)); err != nil || n != int64(want) {
							t.Fatalf("%s: Count(group %s, %v) = %d, %v; the listing holds %d", what, g, o, n, err, want)
						}
					}
				}
			}
			for i := range 40 {
				e.advance(randomDuration(rng, 5*24*time.Hour))
				if len(ids) == 0 || rng.Intn(3) > 0 {
					ids = append(ids, s.post("poster", randomGroups(rng, groups)...))
				} else {
					s.randomVotes(rng, e.store, ids, 3)
				}
				check(fmt.Sprintf("step %d", i))
			}
			e.advance(400 * 24 * time.Hour)
			check("a year on")
		})
	}
}

// TestGroupCountsWhatItsPagesRead: without live groups, a group's pages are
// read from its cached listing; the count read the group's set, and so said
// 2 while the page listed the 1 article of its cache. A count reads the
// cache too, building it as a page would, for every order, windows
// included.
func TestGroupCountsWhatItsPagesRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache, voting.WithOrders(voting.TopWeek))
	first := e.post("alice", "first", "g")
	for _, o := range voting.View(e.store).Orders {
		if got := listAll(t, e.store, "g", o); len(got) != 1 || got[0].ID != first {
			t.Fatalf("group g by %v: %v, want [%s]", o, idsOf(got), first)
		}
	}
	e.advance(time.Second)
	second := e.post("bob", "second", "g")
	for _, o := range voting.View(e.store).Orders {
		n, err := e.store.Count(ctx, voting.Query{Group: "g", Order: o})
		if got := listAll(t, e.store, "g", o); err != nil || n != 1 || len(got) != 1 {
			t.Errorf("within the cache's TTL, group g by %v: count %d, %v; page %v; want 1 and [%s]", o, n, err, idsOf(got), first)
		}
	}
	// Once the caches expire, a count builds the cache afresh, and the page
	// reads that.
	if e.real() {
		// A real server's TTL runs on real time: drop the caches by hand.
		for _, o := range voting.View(e.store).Orders {
			e.do("DEL", e.key(o.String()+":g"))
		}
	} else {
		e.advance(voting.DefaultGroupCacheTTL)
	}
	for _, o := range voting.View(e.store).Orders {
		n, err := e.store.Count(ctx, voting.Query{Group: "g", Order: o})
		if err != nil || n != 2 {
			t.Errorf("after the TTL, count of group g by %v = %d, %v; want 2", o, n, err)
		}
		if got := listAll(t, e.store, "g", o); len(got) != 2 {
			t.Errorf("after the TTL, group g by %v: %v, want [%s %s]", o, idsOf(got), second, first)
		}
	}
	if n, err := e.store.Count(ctx, voting.Query{Group: "none", Order: voting.TopWeek}); err != nil || n != 0 {
		t.Errorf("count of an empty group = %d, %v; want 0", n, err)
	}
	for _, key := range e.keys() {
		if strings.HasSuffix(key, ":none") {
			t.Errorf("counting an empty group left %s", key)
		}
	}
}

// TestRankIsThePlaceInTheListing: an article's rank in each order is its
// place, from 1, in the listing read at the same moment; an article the
// listing does not hold (none, or one aged out of the window) is
// ErrNotFound; a bad id or an order not kept is ErrInvalid, an index not
// built ErrNotIndexed.
func TestRankIsThePlaceInTheListing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.TopDay, voting.ByHot, voting.ByBest))
	s := newSite(t, e)
	rng := rand.New(rand.NewSource(5))
	var ids []string
	for i := range 12 {
		e.advance(randomDuration(rng, 6*time.Hour))
		ids = append(ids, s.post(fmt.Sprintf("poster%d", i%3)))
		s.randomVotes(rng, e.store, ids, 3)
	}
	check := func(when string) {
		t.Helper()
		for _, o := range voting.View(e.store).Orders {
			listed := listAll(t, e.store, "", o)
			place := map[string]int64{}
			for i, a := range listed {
				place[a.ID] = int64(i + 1)
			}
			for _, id := range ids {
				rank, err := e.store.Rank(ctx, id, voting.Query{Order: o})
				want, in := place[id]
				switch {
				case in && (err != nil || rank != want):
					t.Errorf("%s: Rank(%s, %v) = %d, %v; the listing has it at %d", when, id, o, rank, err, want)
				case !in && !errors.Is(err, voting.ErrNotFound):
					t.Errorf("%s: Rank(%s, %v) = %d, %v; the listing lacks it: want ErrNotFound", when, id, o, rank, err)
				}
			}
		}
	}
	check("now")
	e.advance(30 * time.Hour) // the day's window loses every article
	check("a day on")
	if _, err := e.store.Rank(ctx, "99", voting.Query{Order: voting.ByScore}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Rank of no article: %v, want ErrNotFound", err)
	}
	for _, bad := range []struct {
		id    string
		order voting.Order
	}{{"x", voting.ByScore}, {"", voting.ByScore}, {ids[0], voting.TopWeek}, {ids[0], voting.Order(99)}} {
		if _, err := e.store.Rank(ctx, bad.id, voting.Query{Order: bad.order}); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("Rank(%q, %v): %v, want ErrInvalid", bad.id, bad.order, err)
		}
	}
	fresh := storeAt(t, e, e.clock.Now(), voting.WithOrders(voting.ByControversy))
	if _, err := fresh.Rank(ctx, ids[0], voting.Query{Order: voting.ByControversy}); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("Rank in an index not built: %v, want ErrNotIndexed", err)
	}
}
