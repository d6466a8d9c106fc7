package voting_test

// Tests of cursor paging (cursors.go): a walk by cursors is the listing,
// page by page; a cursor of another listing is refused; and under votes,
// posts, deletions and time between page reads, every article no write
// moved is listed exactly once.

import (
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// walk lists group's listing ("" for the site's) by order through every
// page of cursors, calling between(page) after each page but the last; it
// gives the ids in the order listed and the cursors it met.
func walk(t *testing.T, s *voting.Store, group string, order voting.Order, between func(page int)) (ids, cursors []string) {
	t.Helper()
	cursor := ""
	for page := 1; ; page++ {
		var got []voting.Article
		var err error
		if group == "" {
			got, cursor, err = s.List(ctx, voting.Query{Order: order, Paging: voting.Paging{After: cursor}})
		} else {
			got, cursor, err = s.List(ctx, voting.Query{Group: group, Order: order, Paging: voting.Paging{After: cursor}})
		}
		if err != nil {
			t.Fatalf("%q by %v, page %d: %v", group, order, page, err)
		}
		if len(got) > s.PageSize() {
			t.Fatalf("%q by %v, page %d: %d articles in a page of %d", group, order, page, len(got), s.PageSize())
		}
		ids = append(ids, idsOf(got)...)
		if cursor == "" {
			return ids, cursors
		}
		cursors = append(cursors, cursor)
		if page > 1000 {
			t.Fatalf("%q by %v: no end", group, order)
		}
		if between != nil {
			between(page)
		}
	}
}

// TestCursorWalkIsTheListing: with nothing written during the walk, the
// pages of cursors are the numbered pages, for every order, the site's and
// a group's, live groups on and off; a cursor is URL-safe text.
func TestCursorWalkIsTheListing(t *testing.T) {
	t.Parallel()
	urlSafe := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live=%v", live), func(t *testing.T) {
			opts := []voting.Option{voting.WithOrders(extraOrders...), voting.WithPageSize(4)}
			if live {
				opts = append(opts, voting.WithLiveGroups())
			}
			e := newEnv(t, opts...)
			s := newSite(t, e)
			rng := rand.New(rand.NewSource(3))
			var ids []string
			for i := range 17 {
				if i%4 != 1 { // some share a posting time, and ties their values
					e.advance(randomDuration(rng, 20*time.Hour))
				}
				ids = append(ids, s.post("poster", []string{"g"}[:i%2]...))
				s.randomVotes(rng, e.store, ids, 2)
			}
			for _, o := range voting.View(e.store).Orders {
				for _, g := range []string{"", "g"} {
					got, cursors := walk(t, e.store, g, o, nil)
					if want := idsOf(listAll(t, e.store, g, o)); !slices.Equal(got, want) {
						t.Errorf("%q by %v by cursors = %v, by pages %v", g, o, got, want)
					}
					for _, c := range cursors {
						if !urlSafe.MatchString(c) {
							t.Errorf("cursor %q is not URL-safe", c)
						}
					}
				}
			}
		})
	}
}

// TestCursorOfAnotherListingIsRefused: a cursor that does not parse, or
// that another order's or group's listing gave, is ErrInvalid.
func TestCursorOfAnotherListingIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes), voting.WithPageSize(1))
	e.post("alice", "one", "g", "h")
	e.post("bob", "two", "g", "h")
	_, site, err := e.store.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: ""}})
	if err != nil || site == "" {
		t.Fatalf("first page: %q, %v", site, err)
	}
	_, inG, err := e.store.List(ctx, voting.Query{Group: "g", Order: voting.ByScore, Paging: voting.Paging{After: ""}})
	if err != nil || inG == "" {
		t.Fatalf("first page of g: %q, %v", inG, err)
	}
	before := e.dump()
	for what, call := range map[string]func() error{
		"garbage": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: "not a cursor!"}})
			return err
		},
		"base64 of garbage": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: "aGVsbG8"}})
			return err
		},
		"another order's": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Order: voting.ByVotes, Paging: voting.Paging{After: site}})
			return err
		},
		"the site's, for a group": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Group: "g", Order: voting.ByScore, Paging: voting.Paging{After: site}})
			return err
		},
		"another group's": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Group: "h", Order: voting.ByScore, Paging: voting.Paging{After: inG}})
			return err
		},
		"a group's, for the site": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: inG}})
			return err
		},
		"an order not kept": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Order: voting.TopDay, Paging: voting.Paging{After: ""}})
			return err
		},
		"a bad group": func() error {
			_, _, err := e.store.List(ctx, voting.Query{Group: "a b", Order: voting.ByScore, Paging: voting.Paging{After: ""}})
			return err
		},
	} {
		if err := call(); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("%s cursor: %v, want ErrInvalid", what, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("refused cursors wrote: %s", dumpDiff(before, after))
	}
}

// TestCursorWalkUnderWrites: between page reads, votes, posts, deletions
// and time moving windows; every article there at the walk's start that no
// vote, deletion or window's edge touched during it is listed exactly once,
// whatever moved the others across the cursor. Every order, the site's and
// a group's, live groups on and off.
func TestCursorWalkUnderWrites(t *testing.T) {
	t.Parallel()
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live=%v", live), func(t *testing.T) {
			opts := []voting.Option{voting.WithOrders(extraOrders...), voting.WithPageSize(5), voting.WithGroupCacheTTL(0)}
			if live {
				opts = append(opts, voting.WithLiveGroups())
			}
			e := newEnv(t, opts...)
			s := newSite(t, e)
			rng := rand.New(rand.NewSource(9))
			var ids []string
			for i := range 60 {
				if i%5 != 2 {
					e.advance(randomDuration(rng, 8*time.Hour))
				}
				ids = append(ids, s.post(fmt.Sprintf("poster%d", i%4), []string{"g"}[:i%3%2]...))
				s.randomVotes(rng, e.store, ids, 2)
			}
			deleted := map[string]bool{}
			for _, o := range voting.View(e.store).Orders {
				for _, g := range []string{"", "g"} {
					// The articles the listing holds at the start.
					there := map[string]bool{}
					for _, id := range idsOf(listAll(t, e.store, g, o)) {
						there[id] = true
					}
					touched := map[string]bool{}
					window, isWindow := windows[o]
					got, _ := walk(t, e.store, g, o, func(int) {
						for range 3 {
							id := ids[rng.Intn(len(ids))]
							if deleted[id] {
								continue
							}
							switch rng.Intn(6) {
							case 0:
								if err := e.store.DeleteArticle(ctx, id); err != nil {
									t.Fatal(err)
								}
								deleted[id] = true
								delete(s.articles, id)
							case 1:
								ids = append(ids, s.post("latecomer", "g"))
							default:
								s.vote(e.store, fmt.Sprintf("walker%d", rng.Intn(50)), id, []voting.Direction{voting.Up, voting.Down, voting.None}[rng.Intn(3)])
							}
							touched[id] = true
						}
						e.advance(time.Duration(rng.Intn(3)) * time.Hour)
					})
					now := e.clock.Now()
					seen := map[string]int{}
					for _, id := range got {
						seen[id]++
					}
					for id := range there {
						a := s.articles[id]
						if touched[id] || a == nil || isWindow && now.Sub(a.posted) >= window {
							continue
						}
						if seen[id] != 1 {
							t.Errorf("%q by %v: article %s, untouched during the walk, listed %d times (walk %s)",
								g, o, id, seen[id], strings.Join(got, " "))
						}
					}
				}
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestCursorIsThePagesCursor: the cursor after a numbered page's last
// article is the one the cursor page gives, for the site and a group, and
// goes on to the next page.
func TestCursorIsThePagesCursor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithPageSize(2), voting.WithOrders(voting.ByHot), voting.WithLiveGroups())
	for i := range 5 {
		e.post("alice", fmt.Sprintf("a%d", i), "go")
		e.advance(time.Minute)
	}
	for _, group := range []string{"", "go"} {
		var page []voting.Article
		var next string
		var err error
		if group == "" {
			page, next, err = e.store.List(ctx, voting.Query{Order: voting.ByHot, Paging: voting.Paging{After: ""}})
		} else {
			page, next, err = e.store.List(ctx, voting.Query{Group: group, Order: voting.ByHot, Paging: voting.Paging{After: ""}})
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.store.Cursor(ctx, page[len(page)-1].ID, voting.Query{Order: voting.ByHot, Group: group})
		if err != nil || got != next {
			t.Errorf("group %q: Cursor = %q, %v; want the page's %q", group, got, err, next)
		}
	}
	if _, err := e.store.Cursor(ctx, "99", voting.Query{Order: voting.ByHot, Group: ""}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Cursor of no article = %v, want ErrNotFound", err)
	}
	if _, err := e.store.Cursor(ctx, "1", voting.Query{Order: voting.ByVotes, Group: ""}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Cursor of an order not kept = %v, want ErrInvalid", err)
	}
}

// TestCursorOnACachedGroupListing: without live groups a group's pages
// come from the book's cached listing, which holds each article's value
// from when it was built. The cursor after a numbered page's last article
// goes on with that listing, its next page, however votes have moved the
// article in the site's index since: 5 down-votes on the last article of
// page 1 must not end the walk, 5 up-votes must not repeat page 1.
func TestCursorOnACachedGroupListing(t *testing.T) {
	t.Parallel()
	for _, dir := range []voting.Direction{voting.Down, voting.Up} {
		t.Run(dir.String(), func(t *testing.T) {
			e := newEnv(t, bookCache, voting.WithPageSize(3))
			for i := range 9 {
				e.advance(time.Minute)
				e.post("alice", fmt.Sprintf("a%d", i+1), "g")
			}
			first, err := e.store.GetGroupArticles(ctx, "g", 1, voting.ByScore)
			if err != nil || strings.Join(idsOf(first), " ") != "9 8 7" {
				t.Fatalf("page 1 = %v, %v; want [9 8 7]", idsOf(first), err)
			}
			for v := range 5 {
				e.vote(fmt.Sprintf("voter%d", v), "7", dir)
			}
			cursor, err := e.store.Cursor(ctx, "7", voting.Query{Order: voting.ByScore, Group: "g"})
			if err != nil {
				t.Fatal(err)
			}
			next, _, err := e.store.List(ctx, voting.Query{Group: "g", Order: voting.ByScore, Paging: voting.Paging{After: cursor}})
			if err != nil || strings.Join(idsOf(next), " ") != "6 5 4" {
				t.Errorf("the page after 7, %d votes %v later = %v, %v; want the cached page 2, [6 5 4]", 5, dir, idsOf(next), err)
			}
			page2, err := e.store.GetGroupArticles(ctx, "g", 2, voting.ByScore)
			if err != nil || strings.Join(idsOf(page2), " ") != "6 5 4" {
				t.Errorf("numbered page 2 = %v, %v; want [6 5 4] from the cache", idsOf(page2), err)
			}
		})
	}
}

// TestCursorValuesRedisRefuses: a cursor whose value Go's ParseFloat
// reads but Redis refuses as a score (an underflow to 0, underscores, hex,
// infinity, a decimal of thousands of digits), or that is NaN, is an error
// wrapping ErrInvalid for the site's listing and a group's, cached and
// live, and writes nothing: never Redis's own script error. Values as
// Redis and miniredis write them are taken.
func TestCursorValuesRedisRefuses(t *testing.T) {
	t.Parallel()
	refused := []string{
		"1e-400", "-1e-400", "1_0", "0x1_0p0", "0x10", "0x1p-2", "Inf", "-Inf", "+Inf", "infinity",
		"NaN", "nan", "+5", ".5", "5.", " 5", "5 ", "1e", "--1", "",
		"0." + strings.Repeat("0", 5998) + "1", strings.Repeat("9", 6000),
	}
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live groups %v", live), func(t *testing.T) {
			opts := []voting.Option{voting.WithPageSize(1)}
			if live {
				opts = append(opts, voting.WithLiveGroups())
			}
			e := newEnv(t, opts...)
			e.post("alice", "one", "g")
			e.post("bob", "two", "g")
			before := e.dump()
			for _, value := range refused {
				site := voting.Cursor(voting.ByScore, "", value, "1")
				if _, _, err := e.store.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: site}}); !errors.Is(err, voting.ErrInvalid) {
					t.Errorf("site cursor of value %.40q: %v, want ErrInvalid", value, err)
				}
				group := voting.Cursor(voting.ByScore, "g", value, "1")
				if _, _, err := e.store.List(ctx, voting.Query{Group: "g", Order: voting.ByScore, Paging: voting.Paging{After: group}}); !errors.Is(err, voting.ErrInvalid) {
					t.Errorf("group cursor of value %.40q: %v, want ErrInvalid", value, err)
				}
			}
			if after := e.dump(); after != before {
				t.Errorf("refused cursors wrote: %s", dumpDiff(before, after))
			}
			for _, value := range []string{"1795306032", "1795306032.5", "-3", "0", "-0", "1.0000000000000001e-05",
				"1e-310", "2.5E+09", "0.00001"} {
				site := voting.Cursor(voting.ByScore, "", value, "1")
				if _, _, err := e.store.List(ctx, voting.Query{Order: voting.ByScore, Paging: voting.Paging{After: site}}); err != nil {
					t.Errorf("site cursor of value %q: %v", value, err)
				}
				group := voting.Cursor(voting.ByScore, "g", value, "1")
				if _, _, err := e.store.List(ctx, voting.Query{Group: "g", Order: voting.ByScore, Paging: voting.Paging{After: group}}); err != nil {
					t.Errorf("group cursor of value %q: %v", value, err)
				}
			}
		})
	}
}

// TestCursorAnArticleThatLeftTheCache: while a group's cached listing
// lasts, the cursor after an article goes on from its place there; one
// that has left the group (and so the cache) since the numbered page has
// no place there, and Cursor says ErrNotFound, rather than place the
// article's current value among the cache's old ones, which would list it
// again. Once the cache has expired, the next page builds it afresh from
// the site's values, and the cursor is made from those.
func TestCursorAnArticleThatLeftTheCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache, voting.WithPageSize(2))
	ids := make([]string, 5)
	for i := range ids {
		ids[i] = e.post("poster", fmt.Sprintf("a%d", i), "g")
	}
	for i, votes := range []int{6, 4, 3, 2, 1} {
		for v := range votes {
			e.vote(fmt.Sprintf("u%d", v), ids[i], voting.Up)
		}
	}
	if _, err := e.store.GetGroupArticles(ctx, "g", 1, voting.ByScore); err != nil { // builds the cache
		t.Fatal(err)
	}
	for v := range 5 {
		e.vote(fmt.Sprintf("w%d", v), ids[1], voting.Up)
	}
	if err := e.store.RemoveFromGroups(ctx, ids[1], "g"); err != nil {
		t.Fatal(err)
	}
	if c, err := e.store.Cursor(ctx, ids[1], voting.Query{Order: voting.ByScore, Group: "g"}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Cursor of an article that left the cached listing = %q, %v; want ErrNotFound", c, err)
	}
	// The cache gone, the cursor comes from the site's index, whose values
	// the next page's cache takes.
	e.do("DEL", e.key("score:g"))
	cursor, err := e.store.Cursor(ctx, ids[2], voting.Query{Order: voting.ByScore, Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	more, _, err := e.store.List(ctx, voting.Query{Group: "g", Order: voting.ByScore, Paging: voting.Paging{After: cursor}})
	if err != nil || strings.Join(idsOf(more), " ") != ids[3]+" "+ids[4] {
		t.Errorf("the page after %s once the cache is gone = %v, %v; want [%s %s]", ids[2], idsOf(more), err, ids[3], ids[4])
	}
}
