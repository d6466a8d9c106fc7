package voting_test

// Tests of the namespace's settings (settings.go): what a namespace
// stores is its own, kept in Redis, whatever options each Store was given.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/schema"
)

// TestANewNamespaceTakesItsFirstStoresSettings: the first call of a Store
// on a namespace with no settings writes them from its options; one with no
// article keeps live groups unless the Store lists groups through the
// book's cache; one the book's code wrote keeps them only if asked.
func TestANewNamespaceTakesItsFirstStoresSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithVoteWeight(100), voting.WithCutoff(48*time.Hour), voting.WithOrders(voting.ByBest),
		voting.WithKarma(), voting.WithUserHistory(time.Hour))
	got, err := e.store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := voting.Settings{Orders: []voting.Order{voting.ByScore, voting.ByTime, voting.ByBest}, LiveGroups: true,
		UserHistory: time.Hour, Karma: true, VoteWeight: 100, Cutoff: 48 * time.Hour}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Settings = %+v, want %+v", got, want)
	}
	wantFields := map[string]string{"gen": "1", "weight": "100", "cutoff": "172800000", "history": "3600000", "orders": "best",
		"kinds": "live karma"}
	if fields := e.hash(e.key("settings:")); !reflect.DeepEqual(fields, wantFields) {
		t.Errorf("settings: = %v, want %v", fields, wantFields)
	}
	if got := e.hash(e.key("indexed:")); !reflect.DeepEqual(got, map[string]string{"articles": "0"}) {
		t.Errorf("indexed: of a new namespace = %v, want the count 0", got)
	}
	// A Store given no option goes by the namespace's settings.
	plain := e.with()
	if got, err := plain.Settings(ctx); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Settings by a Store given no option = %+v, %v; want %+v", got, err, want)
	}
	if voting.View(plain).Cutoff != 48*time.Hour || !voting.View(plain).LiveGroups || !voting.View(plain).Karma || voting.View(plain).UniqueLinks {
		t.Errorf("a plain Store's accessors: cutoff %v, live %v, karma %v, links %v", voting.View(plain).Cutoff, voting.View(plain).LiveGroups,
			voting.View(plain).Karma, voting.View(plain).UniqueLinks)
	}
	id := e.post("alice", "weighed")
	e.vote("bob", id, voting.Up)
	if err := plain.Vote(ctx, "carol", id, voting.Up); err != nil {
		t.Fatal(err)
	}
	a, err := plain.Article(ctx, id)
	if err != nil || a.RankingScore != unix(e.clock.Now())+300 {
		t.Errorf("score after three up-votes of weight 100 = %v, %v; want %v", a.RankingScore, err, unix(e.clock.Now())+300)
	}

	// A Store that lists groups through the book's cache makes a namespace
	// without live groups.
	cached := newEnv(t, bookCache)
	if got, err := cached.store.Settings(ctx); err != nil || got.LiveGroups {
		t.Errorf("a namespace made by a Store given WithGroupCacheTTL: %+v, %v; want no live groups", got, err)
	}
	// So does one the book's code wrote first: its groups are listed as
	// the book lists them.
	book := newEnv(t, bookCache)
	book.do("DEL", book.key("settings:"), book.key("indexed:"))
	book.bookPost("1", "alice", unix(book.clock.Now()))
	book.do("SADD", book.key("group:g"), book.article("1"))
	s := book.with()
	if got, err := s.Settings(ctx); err != nil || got.LiveGroups {
		t.Errorf("a namespace the book's code wrote: %+v, %v; want no live groups", got, err)
	}
	if got, err := s.GetGroupArticles(ctx, "g", 1, voting.ByScore); err != nil || !reflect.DeepEqual(idsOf(got), []string{"1"}) {
		t.Errorf("its group listing = %v, %v; want the book's [1]", idsOf(got), err)
	}
	if got := book.hash(book.key("indexed:")); !reflect.DeepEqual(got, map[string]string{"articles": "0"}) {
		t.Errorf("indexed: of the book's namespace = %v, want a count of 0, none of its articles indexed", got)
	}
}

// TestTheNewcomersGroupPage: a default Store posted 45 articles into a
// group and voted one up four times; the group page showed 3 articles in
// the wrong order for the cache's minute. A namespace the library makes
// keeps live groups: the page right after is complete and in order.
func TestTheNewcomersGroupPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t, e)
	var ids []string
	for i := range 45 {
		e.advance(10 * time.Second) // four votes lift an article 28.8 minutes
		ids = append(ids, s.post(fmt.Sprintf("user%d", i%7), "newcomers"))
		if i == 2 {
			// A page read now: the book's cache would keep it a minute.
			if page, err := e.store.GetGroupArticles(ctx, "newcomers", 1, voting.ByScore); err != nil || len(page) != 3 {
				t.Fatalf("group page after 3 posts = %v, %v", idsOf(page), err)
			}
		}
	}
	for _, voter := range []string{"v1", "v2", "v3", "v4"} {
		s.vote(e.store, voter, ids[10], voting.Up)
	}
	page, err := e.store.GetGroupArticles(ctx, "newcomers", 1, voting.ByScore)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != voting.DefaultPageSize || page[0].ID != ids[10] {
		t.Errorf("group page = %v, want %d articles with %s first", idsOf(page), voting.DefaultPageSize, ids[10])
	}
	s.check(e.store, "newcomers")
	if n, err := e.store.Count(ctx, voting.Query{Group: "newcomers", Order: voting.ByScore}); err != nil || n != 45 {
		t.Errorf("Count(group) = %d, %v; want 45", n, err)
	}
}

// TestAnotherWeightCutoffOrHistoryIsRefused: a Store given a vote weight,
// cutoff or history time other than the namespace's is refused on every
// call, with an error that names both values and how to agree, and writes
// nothing.
func TestAnotherWeightCutoffOrHistoryIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(time.Hour))
	id := e.post("alice", "scored", "g")
	for _, tt := range []struct {
		opt  voting.Option
		want []string
	}{
		{voting.WithVoteWeight(500), []string{"scores a vote 432, this Store 500", "WithVoteWeight(432)"}},
		{voting.WithCutoff(time.Hour), []string{"168h0m0s after posting, this Store 1h0m0s", "WithCutoff(168h0m0s)"}},
		{voting.WithUserHistory(2 * time.Hour), []string{"keeps a user's votes 1h0m0s, this Store 2h0m0s", "WithUserHistory(1h0m0s)"}},
	} {
		s := e.with(tt.opt)
		before := e.dump()
		calls := map[string]func() error{
			"PostArticle": func() error { _, err := s.PostArticle(ctx, "bob", "t", "https://example.com/x", "g"); return err },
			"Vote":        func() error { return s.Vote(ctx, "bob", id, voting.Up) },
			"EditArticle": func() error { return s.EditArticle(ctx, id, "t", "https://example.com/y") },
			"AddToGroups": func() error { return s.AddToGroups(ctx, id, "h") },
			"Delete":      func() error { return s.DeleteArticle(ctx, id) },
			"GetArticles": func() error { _, err := s.GetArticles(ctx, 1, voting.ByScore); return err },
			"Settings":    func() error { _, err := s.Settings(ctx); return err },
			"Reindex":     func() error { return s.Reindex(ctx) },
		}
		for name, call := range calls {
			err := call()
			if !errors.Is(err, voting.ErrInvalid) {
				t.Errorf("%s by a Store given %v: %v, want ErrInvalid", name, tt.want, err)
				continue
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s's error %q does not say %q", name, err, w)
				}
			}
		}
		if after := e.dump(); after != before {
			t.Errorf("a refused Store wrote:\nbefore %s\nafter  %s", before, after)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestAStoreAddsWhatItAsksFor: a Store given an index the namespace lacks
// adds it on its first call: its listings answer ErrNotIndexed until
// Reindex builds it; from then on every Store's writes keep it, and a
// Store that had read the settings before finds them changed on its next
// write, reads them again and keeps it too.
func TestAStoreAddsWhatItAsksFor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plain := e.store
	s := newSite(t, e)
	a := s.post("alice", "g")
	s.vote(plain, "bob", a, voting.Up)

	votes := e.with(voting.WithOrders(voting.ByVotes), voting.WithKarma())
	checkNotIndexed(t, votes, "", voting.ByVotes)
	if _, err := votes.Karma(ctx, "alice"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("Karma before Reindex = %v, want ErrNotIndexed", err)
	}
	fields := e.hash(e.key("settings:"))
	if fields["gen"] != "2" || fields["orders"] != "votes" || fields["kinds"] != "live karma" {
		t.Errorf("settings: after a Store added ByVotes and karma = %v", fields)
	}
	// The plain Store goes by what it read until a write finds the
	// settings changed: then it reads them again, and keeps the new
	// indexes.
	if voting.View(plain).Karma {
		t.Errorf("the plain Store knew of karma before its next call")
	}
	b := s.post("carol", "g") // through e.store, the plain Store
	s.vote(plain, "dave", b, voting.Up)
	if !voting.View(plain).Karma || !slicesContain(voting.View(plain).Orders, voting.ByVotes) {
		t.Errorf("after its write the plain Store goes by karma %v, orders %v", voting.View(plain).Karma, voting.View(plain).Orders)
	}
	if got := e.zscore(e.key("votes:"), e.article(b)); got != 2 {
		t.Errorf("votes: gives the article posted after ByVotes was added %v, want 2", got)
	}
	if got := e.zscore(e.key("karma:"), "carol"); got != 1 {
		t.Errorf("karma: gives carol %v, want 1", got)
	}
	if err := votes.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	s.check(plain, "g")
	for poster, want := range map[string]int64{"alice": 1, "carol": 1} {
		if got, err := plain.Karma(ctx, poster); err != nil || got != want {
			t.Errorf("Karma(%s) = %d, %v; want %d", poster, got, err, want)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// slicesContain reports whether list holds o.
func slicesContain(list []voting.Order, o voting.Order) bool {
	for _, x := range list {
		if x == o {
			return true
		}
	}
	return false
}

// TestMixedStoresKeepEveryIndex: a plain Store and one given every option
// post, vote (up, down, switch, take back, and at the cutoff), edit, move
// groups and delete concurrently; afterwards every listing, karma sum,
// link, history and count equals a model of what was done, with no
// Reindex.
func TestMixedStoresKeepEveryIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), voting.WithKarma(), voting.WithUniqueLinks(),
		voting.WithUserHistory(30*24*time.Hour))
	stores := []*voting.Store{e.with(), e.store}
	groups := []string{"go", "redis", "db"}

	type article struct {
		poster, link string
		groups       map[string]bool
		deleted      bool
	}
	var mu sync.Mutex
	articles := map[string]*article{}
	votes := map[string]map[string]voting.Direction{} // id -> user -> vote
	post := func(s *voting.Store, poster, link string, in []string) (string, error) {
		id, err := s.PostArticle(ctx, poster, "by "+poster, link, in...)
		if err != nil {
			return "", err
		}
		mu.Lock()
		defer mu.Unlock()
		a := &article{poster: poster, link: link, groups: map[string]bool{}}
		for _, g := range in {
			a.groups[g] = true
		}
		articles[id] = a
		votes[id] = map[string]voting.Direction{poster: voting.Up}
		return id, nil
	}
	// Articles both Stores vote on, and none deletes.
	var shared []string
	for i := range 6 {
		id, err := post(stores[i%2], fmt.Sprintf("poster%d", i%3), fmt.Sprintf("https://shared.example/%d", i), groups[:i%3])
		if err != nil {
			t.Fatal(err)
		}
		shared = append(shared, id)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			var own []string // this worker's articles, which only it votes on, moves and deletes
			dirs := []voting.Direction{voting.Up, voting.Up, voting.Down, voting.None}
			fail := func(format string, args ...any) {
				errs <- fmt.Errorf("worker %d: "+format, append([]any{w}, args...)...)
			}
			for i := range 40 {
				id, err := post(s, fmt.Sprintf("poster%d", rng.Intn(3)), fmt.Sprintf("https://w%d.example/%d", w, i),
					randomGroups(rng, groups))
				if err != nil {
					fail("post: %v", err)
					return
				}
				own = append(own, id)
				for range 4 {
					targets := shared
					if rng.Intn(2) == 0 {
						targets = own
					}
					id := targets[rng.Intn(len(targets))]
					mu.Lock()
					gone := articles[id].deleted
					mu.Unlock()
					if gone {
						continue
					}
					user, dir := fmt.Sprintf("w%d-user%d", w, rng.Intn(5)), dirs[rng.Intn(len(dirs))]
					if err := s.Vote(ctx, user, id, dir); err != nil {
						fail("vote %s on %s: %v", dir, id, err)
						return
					}
					mu.Lock()
					votes[id][user] = dir
					mu.Unlock()
				}
				target := own[rng.Intn(len(own))]
				mu.Lock()
				a := articles[target]
				mu.Unlock()
				if a.deleted {
					continue
				}
				switch i % 4 {
				case 1:
					link := fmt.Sprintf("https://w%d.example/%d/edited", w, i)
					if err := s.EditArticle(ctx, target, "edited", link); err != nil {
						fail("edit %s: %v", target, err)
						return
					}
					mu.Lock()
					a.link = link
					mu.Unlock()
				case 2:
					move := randomGroups(rng, groups)
					if len(move) == 0 {
						continue
					}
					add := rng.Intn(2) == 0
					var err error
					if add {
						err = s.AddToGroups(ctx, target, move...)
					} else {
						err = s.RemoveFromGroups(ctx, target, move...)
					}
					if err != nil {
						fail("regroup %s: %v", target, err)
						return
					}
					mu.Lock()
					for _, g := range move {
						if add {
							a.groups[g] = true
						} else {
							delete(a.groups, g)
						}
					}
					mu.Unlock()
				case 3:
					if err := s.DeleteArticle(ctx, target); err != nil {
						fail("delete %s: %v", target, err)
						return
					}
					mu.Lock()
					a.deleted = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// The model as the listings' checks take it.
	model := newSite(t, e)
	var live []string
	for id, a := range articles {
		if a.deleted {
			continue
		}
		live = append(live, id)
		r := &rankedArticle{id: id, posted: e.clock.Now(), groups: a.groups}
		for _, d := range votes[id] {
			switch d {
			case voting.Up:
				r.up++
			case voting.Down:
				r.down++
			}
		}
		model.articles[id] = r
		model.voters[id] = votes[id]
	}
	check := func(when string) {
		t.Helper()
		for _, s := range stores {
			model.check(s, groups...)
		}
		model.checkLive(e.store, when, groups...)
		karma := map[string]int64{}
		for _, id := range live {
			a := articles[id]
			karma[a.poster] += 0
			for user, d := range votes[id] {
				if user == a.poster {
					continue
				}
				switch d {
				case voting.Up:
					karma[a.poster]++
				case voting.Down:
					karma[a.poster]--
				}
			}
			for _, s := range stores {
				if got, err := s.ArticleByLink(ctx, a.link); err != nil || got.ID != id {
					t.Errorf("%s: ArticleByLink(%s) = %v, %v; want %s", when, a.link, got.ID, err, id)
				}
			}
		}
		for poster, want := range karma {
			for _, s := range stores {
				if got, err := s.Karma(ctx, poster); err != nil || got != want {
					t.Errorf("%s: Karma(%s) = %d, %v; want %d", when, poster, got, err, want)
				}
			}
		}
		histories := map[string][]string{}
		for _, id := range live {
			for user, d := range votes[id] {
				if d != voting.None {
					histories[user] = append(histories[user], id+":"+d.String())
				}
			}
		}
		for user, want := range histories {
			var got []string
			for page := 1; ; page++ {
				h, err := two(stores[0].UserHistory(ctx, user, voting.Paging{Page: page}))
				if err != nil {
					t.Fatalf("%s: UserHistory(%s): %v", when, user, err)
				}
				if len(h) == 0 {
					break
				}
				for _, v := range h {
					got = append(got, v.Article.ID+":"+v.Direction.String())
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: history of %s = %v, want %v", when, user, got, want)
			}
		}
		if got := e.hash(e.key("indexed:"))["articles"]; got != fmt.Sprint(len(live)) {
			t.Errorf("%s: indexed: counts %s articles, want %d", when, got, len(live))
		}
	}
	check("after the concurrent writes")

	// At the cutoff, neither Store takes a vote, and nothing moves.
	e.advance(voting.DefaultCutoff)
	for _, s := range stores {
		if err := s.Vote(ctx, "late", shared[0], voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
			t.Errorf("a vote at the cutoff = %v, want ErrVotingClosed", err)
		}
	}
	check("at the cutoff")
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestTheBooksWritesAreNoticed: articles the book's code posts into a
// namespace whose every index is built are in no index beyond the book's:
// listings of those answer ErrNotIndexed, and group listings the book's
// own, never a page that lacks them; after Reindex every listing is exact.
func TestTheBooksWritesAreNoticed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.Orders()...), voting.WithKarma(), voting.WithUniqueLinks())
	s := newSite(t, e)
	for i := range 4 {
		e.advance(time.Minute)
		s.post(fmt.Sprintf("user%d", i), "g")
	}
	for _, o := range voting.View(e.store).Orders {
		checkListed(t, e.store, "", o, idsOfModel(s))
	}
	// The book's code posts, into the group too.
	e.advance(time.Minute)
	e.bookPost("5", "bob", unix(e.clock.Now()))
	e.do("SET", e.key("article:"), "5")
	e.do("SADD", e.key("group:g"), e.article("5"))
	s.articles["5"] = &rankedArticle{id: "5", posted: e.clock.Now(), up: 1, groups: map[string]bool{"g": true}}
	s.voters["5"] = map[string]voting.Direction{"bob": voting.Up}
	all := idsOfModel(s)
	for _, o := range voting.View(e.store).Orders {
		if o == voting.ByScore || o == voting.ByTime {
			checkListed(t, e.store, "", o, all)
			checkListed(t, e.store, "g", o, all) // the book's listing
			continue
		}
		checkNotIndexed(t, e.store, "", o)
		checkNotIndexed(t, e.store, "g", o)
	}
	if _, err := two(e.store.TopPosters(ctx, voting.Paging{Page: 1})); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("TopPosters after the book's post = %v, want ErrNotIndexed", err)
	}
	if _, err := e.store.ArticleByLink(ctx, "http://example.com/book"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("ArticleByLink after the book's post = %v, want ErrNotIndexed", err)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	s.check(e.store, "g")
	if got, err := e.store.ArticleByLink(ctx, "http://example.com/book"); err != nil || got.ID != "5" {
		t.Errorf("ArticleByLink after Reindex = %v, %v; want 5", got.ID, err)
	}
	e.foreign = false // Reindex has counted the book's article
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// idsOfModel are the ids of a site model's articles.
func idsOfModel(s *site) []string {
	var ids []string
	for id := range s.articles {
		ids = append(ids, id)
	}
	return ids
}

// TestARollingDeployAddsAnIndex: Stores without and with a new option run
// together, writing, while a Reindex builds it, cut short and resumed; no
// listing of the new index is ever a page that lacks an article, and at
// the end the index is exact and marked built. It runs alone, as the
// bound on its calls counts the server's keys.
func TestARollingDeployAddsAnIndex(t *testing.T) {
	e := newEnv(t)
	s := newSite(t, e)
	old := e.store
	rng := rand.New(rand.NewSource(5))
	var ids []string
	for i := range 30 {
		e.advance(time.Minute)
		ids = append(ids, s.post(fmt.Sprintf("user%d", i%4), "g"))
		s.randomVotes(rng, old, ids, 2)
	}
	// The new release's Store asks for ByVotes; the old one goes on writing.
	fresh := e.with(voting.WithOrders(voting.ByVotes))
	voting.SetBatches(fresh, 5, 5)
	checkNotIndexed(t, fresh, "", voting.ByVotes)
	// Each listing by the new order, as writes and the run go on, is
	// ErrNotIndexed or holds every article.
	checkComplete := func(when string) {
		t.Helper()
		page, err := listAllOrErr(fresh, "", voting.ByVotes)
		if err != nil {
			if !errors.Is(err, voting.ErrNotIndexed) {
				t.Fatalf("%s: %v", when, err)
			}
			return
		}
		if len(page) != len(s.articles) {
			t.Fatalf("%s: a listing by votes holds %d of %d articles with no error", when, len(page), len(s.articles))
		}
	}
	// Each call takes three steps; the run's SCAN for groups reads the
	// server's keys (a real server may hold other tests'), 500 a step.
	most := 50 + int(e.int("DBSIZE"))/(3*500)
	for call := 0; ; call++ {
		cut, cancel := context.WithCancel(ctx)
		steps := 0
		done, err := fresh.ReindexWithProgress(cut, func(voting.ReindexProgress) {
			// Between steps, both releases write.
			e.advance(time.Second)
			ids = append(ids, s.post("newcomer", "g"))
			s.randomVotes(rng, old, ids, 1)
			s.randomVotes(rng, fresh, ids, 1)
			checkComplete(fmt.Sprintf("call %d, step %d", call, steps))
			if steps++; steps == 3 {
				cancel()
			}
		})
		cancel()
		if err == nil && done.Done {
			break
		}
		if !errors.Is(err, context.Canceled) || call > most {
			t.Fatalf("Reindex call %d of at most %d: %v", call, most, err)
		}
	}
	if got := e.hash(e.key("indexed:"))["votes"]; got != "1" {
		t.Errorf("indexed: votes = %q after the run, want built", got)
	}
	s.check(old, "g")
	s.check(fresh, "g")
	e.store = fresh
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// listAllOrErr is every page of a listing, or its first error.
func listAllOrErr(s *voting.Store, group string, order voting.Order) ([]voting.Article, error) {
	var all []voting.Article
	for page := 1; ; page++ {
		var got []voting.Article
		var err error
		if group == "" {
			got, err = s.GetArticles(ctx, page, order)
		} else {
			got, err = s.GetGroupArticles(ctx, group, page, order)
		}
		if err != nil {
			return nil, err
		}
		if len(got) == 0 {
			return all, nil
		}
		all = append(all, got...)
	}
}

// python is the path of a Python 3 with redis-py (Debian's python3-redis),
// or "" if there is none.
func python() string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import redis").Run() == nil {
			return p
		}
	}
	return ""
}

// book runs the book's model in Python (testdata/book.py) on e's namespace
// at the env's clock, and gives what it prints.
func (e *env) book(py string, args ...string) string {
	e.t.Helper()
	addr := os.Getenv(redisAddrEnv)
	if e.mr != nil {
		addr = e.mr.Addr()
	}
	full := append([]string{"testdata/book.py", "--addr", addr, "--prefix", e.prefix,
		"--now", strconv.FormatFloat(unix(e.clock.Now()), 'f', -1, 64)}, args...)
	out, err := exec.Command(py, full...).CombinedOutput()
	if err != nil {
		e.t.Fatalf("book.py %v: %v\n%s", args, err, out)
	}
	e.foreign = true
	return strings.TrimSpace(string(out))
}

// TestTheBooksPythonCodeIsNoticed: the book's code, in Python, posts and
// votes into a namespace with every index built. The library then answers
// ErrNotIndexed for every index beyond the book's, and the book's own
// listing for a group, never a page that lacks the new articles; after
// Reindex every listing is exact again.
func TestTheBooksPythonCodeIsNoticed(t *testing.T) {
	t.Parallel()
	py := python()
	switch {
	case py == "" && os.Getenv("CI") == "true":
		t.Fatal("CI needs Python 3 with redis-py (Debian's python3-redis)")
	case py == "":
		t.Skip("no Python 3 with redis-py (Debian's python3-redis)")
	case os.Getenv(redisClusterEnv) != "":
		t.Skip("the book's code runs on one server")
	}
	e := newEnv(t, voting.WithOrders(voting.Orders()...), voting.WithKarma(), voting.WithUniqueLinks())
	s := newSite(t, e)
	var ids []string
	for i := range 4 {
		e.advance(time.Minute)
		ids = append(ids, s.post(fmt.Sprintf("user%d", i), "g"))
	}
	s.vote(e.store, "erin", ids[0], voting.Down)
	e.advance(time.Minute)

	// The book's code posts two articles, one into the group, and votes.
	posted := unix(e.clock.Now())
	a := e.book(py, "post", "bob", "from Python", "https://python.example/a", "g")
	b := e.book(py, "post", "carol", "from Python too", "https://python.example/b")
	if a != "5" || b != "6" {
		t.Fatalf("the book's code posted %q and %q, want 5 and 6", a, b)
	}
	for _, v := range []struct{ user, id string }{{"dave", ids[1]}, {"dave", a}, {"erin", a}} {
		if got := e.book(py, "vote", v.user, v.id); got != "True" {
			t.Fatalf("the book's vote of %s on %s: %s", v.user, v.id, got)
		}
	}
	for _, id := range []string{a, b} {
		s.articles[id] = &rankedArticle{id: id, posted: time.Unix(int64(posted), 0).UTC(), up: 1, groups: map[string]bool{}}
		s.voters[id] = map[string]voting.Direction{}
	}
	s.articles[a].groups["g"] = true
	s.voters[a] = map[string]voting.Direction{"bob": voting.Up, "dave": voting.Up, "erin": voting.Up}
	s.articles[a].up = 3
	s.voters[b] = map[string]voting.Direction{"carol": voting.Up}
	s.articles[ids[1]].up++
	s.voters[ids[1]]["dave"] = voting.Up

	all := idsOfModel(s)
	var inG []string
	for id, r := range s.articles {
		if r.groups["g"] {
			inG = append(inG, id)
		}
	}
	for _, o := range voting.View(e.store).Orders {
		if o == voting.ByScore || o == voting.ByTime {
			checkListed(t, e.store, "", o, all)
			checkListed(t, e.store, "g", o, inG) // the book's listing
			continue
		}
		checkNotIndexed(t, e.store, "", o)
		checkNotIndexed(t, e.store, "g", o)
	}
	if _, err := two(e.store.TopPosters(ctx, voting.Paging{Page: 1})); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("TopPosters after the book's posts = %v, want ErrNotIndexed", err)
	}
	if _, err := e.store.ArticleByLink(ctx, "https://python.example/a"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("ArticleByLink after the book's posts = %v, want ErrNotIndexed", err)
	}

	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	s.check(e.store, "g")
	if got, err := e.store.ArticleByLink(ctx, "https://python.example/b"); err != nil || got.ID != b {
		t.Errorf("ArticleByLink after Reindex = %v, %v; want %s", got.ID, err, b)
	}
	for user, want := range map[string]int64{"bob": 2, "user0": -1, "user1": 1} {
		if got, err := e.store.Karma(ctx, user); err != nil || got != want {
			t.Errorf("Karma(%s) after Reindex = %d, %v; want %d", user, got, err, want)
		}
	}
	e.foreign = false // Reindex has counted the book's articles
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestStopKeepingRemovesAnIndex: StopKeeping takes indexes out of the
// namespace's settings, so that no Store's write keeps them again, and
// removes every key of theirs, in steps; what is still kept stays exact.
func TestStopKeepingRemovesAnIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.TopDay, voting.ByBest), voting.WithKarma(), voting.WithUniqueLinks(),
		voting.WithUserHistory(24*time.Hour))
	s := newSite(t, e)
	var ids []string
	for i := range 300 { // groups enough for several steps of the walk of groupsizes:
		ids = append(ids, s.post(fmt.Sprintf("user%d", i), fmt.Sprintf("g%d", i), "all")) // a link each
	}
	for i, id := range ids[:20] {
		s.vote(e.store, "voter", id, []voting.Direction{voting.Up, voting.Down}[i%2])
	}
	var comments []string
	for i := range 2*200 + 5 { // comments enough for three steps
		comments = append(comments, e.comment(fmt.Sprintf("user%d", i%7), ids[i%3], "", "a comment"))
	}
	e.voteComment("voter", comments[0], voting.Up)
	plain := e.with()
	if _, err := plain.Settings(ctx); err != nil {
		t.Fatal(err)
	}
	keysWith := func(parts ...string) []string {
		var found []string
		for _, k := range e.keys() {
			for _, p := range parts {
				if strings.HasPrefix(k, e.key(p)) {
					found = append(found, k)
				}
			}
		}
		return found
	}
	if n := len(keysWith("live:votes:", "live:top-day:")); n != 2*301 {
		t.Fatalf("%d live indexes of votes and top-day before, want %d", n, 2*301)
	}

	// Two orders stop: their site indexes, the groups' live ones, the
	// window's marks and the indexes' marks go; the rest stay. A call cut
	// short after the first step of its walk of the groups leaves the
	// settings changed and keys behind, which the next call removes.
	stopOrders := voting.WithOrders(voting.ByVotes, voting.TopDay)
	if os.Getenv(redisClusterEnv) == "" {
		cut, cancel := context.WithCancel(ctx)
		defer cancel()
		scans := 0
		cs, _ := cancelStore(t, e, func(cmd string, err error) {
			if cmd == "ZSCAN" {
				if scans++; scans == 2 {
					cancel()
				}
			}
		})
		if err := cs.StopKeeping(cut, stopOrders); !errors.Is(err, context.Canceled) {
			t.Fatalf("a StopKeeping cut short = %v", err)
		}
		if got := e.hash(e.key("settings:"))["orders"]; got != "best" {
			t.Errorf("settings: orders = %q after a StopKeeping cut short, want best", got)
		}
		if n := len(keysWith("live:votes:", "live:top-day:")); n == 0 || n == 2*301 {
			t.Errorf("%d live indexes of the stopped orders after one step, want some but not all", n)
		}
	}
	if err := e.store.StopKeeping(ctx, stopOrders); err != nil {
		t.Fatal(err)
	}
	if got := keysWith("votes:", "top-day:", "live:votes:", "live:top-day:"); len(got) != 0 {
		t.Errorf("keys of the stopped orders left: %d, %v", len(got), got[:min(len(got), 5)])
	}
	for field := range e.hash(e.key("trimmed:")) {
		if strings.HasPrefix(field, "top-day") {
			t.Errorf("trimmed: keeps %s, a stopped window's mark", field)
		}
	}
	for field := range e.hash(e.key("indexed:")) {
		if strings.Contains(field, "votes") || strings.Contains(field, "top-day") {
			t.Errorf("indexed: keeps %s, a stopped index's mark", field)
		}
	}
	if got := e.hash(e.key("settings:"))["orders"]; got != "best" {
		t.Errorf("settings: orders = %q after stopping votes and top-day, want best", got)
	}
	for _, st := range []*voting.Store{e.store, plain} {
		if _, err := st.GetArticles(ctx, 1, voting.ByVotes); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("a listing by a stopped order = %v, want ErrInvalid", err)
		}
	}
	// The plain Store, which read the settings before, writes by the new
	// ones: nothing of the stopped orders comes back.
	ids = append(ids, s.post("newcomer", "g0"))
	s.vote(plain, "late", ids[len(ids)-1], voting.Up)
	if got := keysWith("votes:", "top-day:", "live:votes:", "live:top-day:"); len(got) != 0 {
		t.Errorf("writes after the stop wrote %v", got)
	}
	s.check(plain, "g0", "all")
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// Everything else stops.
	if err := plain.StopKeeping(ctx, voting.WithOrders(voting.ByBest), voting.WithLiveGroups(), voting.WithKarma(),
		voting.WithUniqueLinks(), voting.WithUserHistory(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := keysWith("best:", "live:", "karma:", "karma-comments:", "links:", "linkshares:", "history:", "deleted:"); len(got) != 0 {
		t.Errorf("keys of the stopped indexes left: %d, %v", len(got), got[:min(len(got), 5)])
	}
	for _, id := range ids {
		if _, ok := e.hash(e.article(id))["karma"]; ok {
			t.Fatalf("article %s keeps its part of karma", id)
		}
	}
	for _, id := range comments {
		if _, ok := e.hash(e.key("comment:" + id))["karma"]; ok {
			t.Fatalf("comment %s keeps its part of karma", id)
		}
	}
	if got, want := e.hash(e.key("indexed:")), map[string]string{"articles": fmt.Sprint(len(ids))}; !reflect.DeepEqual(got, want) {
		t.Errorf("indexed: = %v after everything stopped, want %v", got, want)
	}
	if _, err := e.store.Karma(ctx, "user0"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Karma after karma stopped = %v, want ErrInvalid", err)
	}
	// A history has no mark that a read would find gone: a Store goes by
	// the settings it read until a write, a listing of an index no longer
	// built, or Settings, reads them again.
	if _, err := e.store.Settings(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := two(e.store.UserHistory(ctx, "voter", voting.Paging{Page: 1})); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("UserHistory after histories stopped = %v, want ErrInvalid", err)
	}
	if _, err := e.store.ArticleByLink(ctx, "https://example.com/"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("ArticleByLink after links stopped = %v, want ErrInvalid", err)
	}
	s.check(e.store, "g0", "all") // the groups by the book's listing now
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// Bad input is refused, and writes nothing.
	before := e.dump()
	for name, opts := range map[string][]voting.IndexOption{
		"ByScore":          {voting.WithOrders(voting.ByScore)},
		"an unknown order": {voting.WithKarma(), voting.WithOrders(voting.Order(99))},
		"a nil":            {nil},
	} {
		if err := e.store.StopKeeping(ctx, opts...); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("StopKeeping of %s = %v, want ErrInvalid", name, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("a refused StopKeeping wrote:\nbefore %s\nafter  %s", before, after)
	}

	// A Store that asks for karma when it starts adds it again, counted
	// once Reindex has run.
	again := e.with(voting.WithKarma())
	if _, err := again.Karma(ctx, "user0"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("Karma after a Store added it again = %v, want ErrNotIndexed", err)
	}
	if err := again.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	e.store = again
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestRescoreChangesTheWeightAndCutoff: Rescore changes the namespace's
// vote weight and cutoff and sets every score and voter set's time to live
// afresh, in steps, cut short or not; from then on every Store's votes
// move scores by the new weight, and a Store given the old weight is
// refused.
func TestRescoreChangesTheWeightAndCutoff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes))
	s := newSite(t, e)
	var ids []string
	for i := range 12 {
		e.advance(time.Hour)
		ids = append(ids, s.post(fmt.Sprintf("user%d", i), "g"))
		s.vote(e.store, "bob", ids[i], []voting.Direction{voting.Up, voting.Down, voting.None}[i%3])
	}
	old := e.with(voting.WithVoteWeight(voting.DefaultVoteWeight))
	if _, err := old.Settings(ctx); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		weight float64
		cutoff time.Duration
	}{{0, time.Hour}, {-1, time.Hour}, {voting.MaxVoteWeight * 2, time.Hour}, {100, time.Millisecond}} {
		before := e.dump()
		if err := e.store.Rescore(ctx, bad.weight, bad.cutoff); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("Rescore(%v, %v) = %v, want ErrInvalid", bad.weight, bad.cutoff, err)
		}
		if after := e.dump(); after != before {
			t.Errorf("a refused Rescore wrote:\nbefore %s\nafter  %s", before, after)
		}
	}

	const weight, cutoff = 1000.0, 10 * time.Hour
	voting.SetBatches(e.store, 5, 5)
	if os.Getenv(redisClusterEnv) == "" {
		// A call cut short after its second step leaves the settings
		// changed and some scores as they were.
		cut, cancel := context.WithCancel(ctx)
		defer cancel()
		steps := 0
		cs, _ := cancelStore(t, e, func(cmd string, err error) {
			if cmd == "EVALSHA" {
				if steps++; steps == 3 {
					cancel()
				}
			}
		})
		voting.SetBatches(cs, 5, 5)
		if err := cs.Rescore(cut, weight, cutoff); !errors.Is(err, context.Canceled) {
			t.Fatalf("a Rescore cut short = %v", err)
		}
		if got := e.zscore(e.key("score:"), e.article(ids[11])); got == unix(s.articles[ids[11]].posted)+
			weight*float64(s.articles[ids[11]].up-s.articles[ids[11]].down) {
			t.Errorf("the newest article was rescored by a call cut short at its second step")
		}
	}
	if err := e.store.Rescore(ctx, weight, cutoff); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.Settings(ctx)
	if err != nil || got.VoteWeight != weight || got.Cutoff != cutoff {
		t.Fatalf("Settings after Rescore = %+v, %v", got, err)
	}
	now := e.clock.Now()
	for _, id := range ids {
		a := s.articles[id]
		want := unix(a.posted) + weight*float64(a.up-a.down)
		for _, index := range []string{"score:", "live:score:g"} {
			if got := e.zscore(e.key(index), e.article(id)); got != want {
				t.Errorf("%s gives article %s %v, want %v", index, id, got, want)
			}
		}
		if open := a.posted.Add(cutoff).After(now); open != e.exists(e.key("voted:"+id)) {
			t.Errorf("article %s posted %v ago: voter set there %v, want %v", id, now.Sub(a.posted), !open, open)
		} else if open {
			// On a real server the time to live runs down as the test goes on.
			if ttl, want := e.pttl(e.key("voted:"+id)), a.posted.Add(cutoff).Sub(now); ttl > want || ttl < want-5*time.Second {
				t.Errorf("article %s's voter set lives %v more, want %v", id, ttl, a.posted.Add(cutoff).Sub(now))
			}
		}
	}
	// Votes by a Store given no weight move scores by the new one; a Store
	// given the old one is refused.
	plain := e.with()
	if err := plain.Vote(ctx, "carol", ids[11], voting.Up); err != nil {
		t.Fatal(err)
	}
	s.articles[ids[11]].up++
	if got, want := e.zscore(e.key("score:"), e.article(ids[11])), unix(s.articles[ids[11]].posted)+weight*float64(s.articles[ids[11]].up-s.articles[ids[11]].down); got != want {
		t.Errorf("score after a vote of weight %v = %v, want %v", weight, got, want)
	}
	if err := old.Vote(ctx, "dave", ids[11], voting.Up); !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), "WithVoteWeight(1000)") {
		t.Errorf("a vote by a Store given the old weight = %v, want ErrInvalid naming the new", err)
	}
	if err := plain.Vote(ctx, "carol", ids[0], voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("a vote past the new cutoff = %v, want ErrVotingClosed", err)
	}
	e.store = plain
	e.checkInvariants(weight, cutoff)
}

// TestStopKeepingDuringReindex: a run of Reindex under way when an order
// stops goes on with a run of what is kept then, and writes nothing of the
// stopped order again.
func TestStopKeepingDuringReindex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	for i := range 30 {
		e.post("alice", fmt.Sprintf("a%d", i))
	}
	votes := e.with(voting.WithOrders(voting.ByVotes, voting.ByBest))
	voting.SetBatches(votes, 5, 5)
	stopped := false
	_, err := votes.ReindexWithProgress(ctx, func(p voting.ReindexProgress) {
		if !stopped && p.Articles >= 10 {
			stopped = true
			if err := e.store.StopKeeping(ctx, voting.WithOrders(voting.ByVotes)); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil || !stopped {
		t.Fatalf("Reindex: %v (stopped %v)", err, stopped)
	}
	if e.exists(e.key("votes:")) {
		t.Errorf("the run wrote votes: after ByVotes stopped")
	}
	if got := e.hash(e.key("indexed:")); got["best"] != "1" || got["votes"] != "" {
		t.Errorf("indexed: after the run = %v, want best built and no votes", got)
	}
	if n, err := votes.Count(ctx, voting.Query{Order: voting.ByBest}); err != nil || n != 30 {
		t.Errorf("Count by best after the run = %d, %v; want 30", n, err)
	}
	e.store = votes
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestDamagedSettingsAreCorrupt: a settings: hash that does not parse,
// one with no generation among them, is ErrCorrupt naming the key, and
// no Store writes its own options over it.
func TestDamagedSettingsAreCorrupt(t *testing.T) {
	t.Parallel()
	good := map[string]string{"gen": "3", "weight": "432", "cutoff": "604800000", "history": "0", "orders": "", "kinds": "live"}
	for _, c := range []struct{ name, field, value string }{
		{"no generation", "gen", ""},
		{"a generation of 0", "gen", "0"},
		{"a generation that is no number", "gen", "three"},
		{"a weight that is no number", "weight", "heavy"},
		{"a cutoff under a second", "cutoff", "999"},
		{"an unknown order", "orders", "sideways"},
		{"an unknown kind", "kinds", "live gold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, voting.WithKarma())
			args := []any{e.key("settings:")}
			for f, v := range good {
				if f == c.field {
					if c.value == "" {
						continue // the field is missing
					}
					v = c.value
				}
				args = append(args, f, v)
			}
			e.do("DEL", e.key("settings:"))
			e.do("HSET", args...)
			before := e.dump()
			for _, s := range []*voting.Store{e.with(voting.WithKarma()), e.with()} {
				_, err := s.Settings(ctx)
				if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("settings:")) {
					t.Errorf("Settings = %v, want ErrCorrupt naming %s", err, e.key("settings:"))
				}
				if _, err := s.PostArticle(ctx, "alice", "title", "https://example.com/", "g"); !errors.Is(err, voting.ErrCorrupt) {
					t.Errorf("PostArticle = %v, want ErrCorrupt", err)
				}
			}
			if after := e.dump(); after != before {
				t.Errorf("the key space changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestSettingsInJSON: the durations are text, not nanoseconds, and read
// back as written.
func TestSettingsInJSON(t *testing.T) {
	t.Parallel()
	set := voting.Settings{Orders: []voting.Order{voting.ByScore, voting.ByTime, voting.ByHot}, LiveGroups: true,
		UserHistory: 90 * time.Minute, Karma: true, VoteWeight: 432, Cutoff: time.Hour + 1500*time.Microsecond,
		Building: voting.Building{Unbuilt: []string{"hot"}, Run: &voting.ReindexProgress{Articles: 7, Steps: 1}, Background: true}}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"orders":["score","time","hot"],"liveGroups":true,"userHistory":"1h30m0s","karma":true,"uniqueLinks":false,"activeUsers":false,` +
		`"voteWeight":432,"cutoff":"1h0m0.0015s","building":{"unbuilt":["hot"],"run":{"articles":7,"skipped":0,"comments":0,` +
		`"groups":0,"steps":1,"done":false,"duplicates":0},"background":true}}`
	if string(b) != want {
		t.Errorf("json.Marshal(Settings) = %s, want %s", b, want)
	}
	var back voting.Settings
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, set) {
		t.Errorf("json.Unmarshal = %+v, %v; want %+v", back, err, set)
	}
	if err := json.Unmarshal([]byte(`{"cutoff":"a week"}`), &back); err == nil {
		t.Error("json.Unmarshal of a cutoff that is no duration succeeded")
	}
}

// TestEveryKindTagNamesAnIndex: each field of Settings tagged with a kind
// (the kinds of index kept by an option of no value of their own) is a
// bool naming a kind of index that an option keeps; a tag naming none
// would leave the field out of every settings path.
func TestEveryKindTagNamesAnIndex(t *testing.T) {
	t.Parallel()
	st := reflect.TypeFor[voting.Settings]()
	for i := range st.NumField() {
		f := st.Field(i)
		kind, ok := f.Tag.Lookup("kind")
		if !ok {
			continue
		}
		if ix, found := schema.IndexNamed(kind); !found || ix.Option == "" || f.Type.Kind() != reflect.Bool {
			t.Errorf("Settings.%s is tagged kind %q: want a bool naming a kind of schema.Indexes that an option keeps", f.Name, kind)
		}
	}
}

// TestAStoppedIndexIsExplained: after another Store's StopKeeping, a
// running Store given the option of an index stopped is told that it was
// stopped and how to have it back, not that its own option would add it;
// a Store not given the option is told which option adds it; and a Store
// given it that starts after adds it back.
func TestAStoppedIndexIsExplained(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByHot), voting.WithKarma(), voting.WithUniqueLinks(), voting.WithUserHistory(time.Hour))
	e.post("alice", "stopped")
	plain := e.with()
	if err := e.with().StopKeeping(ctx, voting.WithOrders(voting.ByHot), voting.WithKarma(), voting.WithUniqueLinks(),
		voting.WithUserHistory(time.Hour)); err != nil {
		t.Fatal(err)
	}
	stopped := "StopKeeping stopped it there after this Store"
	for _, c := range []struct {
		name, option string
		call         func(s *voting.Store) error
	}{
		{"hot", "WithOrders(voting.ByHot)", func(s *voting.Store) error {
			_, err := s.GetArticles(ctx, 1, voting.ByHot)
			return err
		}},
		{"karma", "WithKarma()", func(s *voting.Store) error { _, err := s.Karma(ctx, "alice"); return err }},
		{"links", "WithUniqueLinks()", func(s *voting.Store) error { _, err := s.ArticleByLink(ctx, "https://example.com/"); return err }},
		{"history", "WithUserHistory(", func(s *voting.Store) error {
			_, _, err := s.UserHistory(ctx, "alice", voting.Paging{})
			return err
		}},
	} {
		err := c.call(e.store)
		if !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), stopped) || !strings.Contains(err.Error(), c.option) {
			t.Errorf("%s by the Store given its option = %v; want ErrInvalid saying %q and naming %s", c.name, err, stopped, c.option)
		}
		err = c.call(plain)
		if !errors.Is(err, voting.ErrInvalid) || strings.Contains(err.Error(), stopped) || !strings.Contains(err.Error(), c.option) {
			t.Errorf("%s by a Store not given its option = %v; want ErrInvalid naming %s", c.name, err, c.option)
		}
	}
	again := e.with(voting.WithOrders(voting.ByHot), voting.WithAutoReindex(false))
	set, err := again.Settings(ctx)
	if err != nil || !slices.Contains(set.Orders, voting.ByHot) {
		t.Errorf("a Store given WithOrders(ByHot) that starts after: settings %+v, %v; want hot kept", set, err)
	}
}

// TestALeftoverMarkDoesNotBuildAnIndex: a mark of an order's index that an
// earlier keeping left in indexed: does not make the index built when a
// Store adds the order again to a namespace with articles: its listings
// answer ErrNotIndexed until Reindex builds it.
func TestALeftoverMarkDoesNotBuildAnIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("alice", "first")
	e.post("bob", "second")
	e.do("HSET", e.key("indexed:"), "hot", "1", "live:hot", "1")
	s := e.with(voting.WithOrders(voting.ByHot))
	if _, err := s.GetArticles(ctx, 1, voting.ByHot); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("hot with a leftover mark = %v, want ErrNotIndexed", err)
	}
	if _, err := s.GetGroupArticles(ctx, "g", 1, voting.ByHot); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("a group by hot with a leftover live mark = %v, want ErrNotIndexed", err)
	}
	if got := e.hash(e.key("indexed:")); got["hot"] != "" || got["live:hot"] != "" {
		t.Errorf("indexed: = %v, want the leftover marks of hot gone", got)
	}
	if err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if page, err := s.GetArticles(ctx, 1, voting.ByHot); err != nil || len(page) != 2 {
		t.Errorf("hot once built = %v, %v", idsOf(page), err)
	}
}

// TestACutoffKeptToTheMillisecond: WithCutoff of a time with a fraction
// of a millisecond is taken, kept to the millisecond, and agrees with a
// Store given the same; voting closes at the millisecond.
func TestACutoffKeptToTheMillisecond(t *testing.T) {
	t.Parallel()
	cutoff := time.Hour + 1500*time.Microsecond
	e := newEnv(t, voting.WithCutoff(cutoff))
	set, err := e.store.Settings(ctx)
	if err != nil || set.Cutoff != time.Hour+time.Millisecond {
		t.Fatalf("Settings = %+v, %v; want the cutoff 1h0m0.001s", set, err)
	}
	if got := e.hash(e.key("settings:"))["cutoff"]; got != "3600001" {
		t.Errorf("settings: cutoff = %s, want 3600001", got)
	}
	id := e.post("alice", "timed")
	same := e.with(voting.WithCutoff(cutoff))
	posted := e.clock.Now()
	e.wantTTL(e.key("voted:"+id), unix(posted), time.Hour+time.Millisecond)
	e.clock.set(posted.Add(time.Hour + 999*time.Microsecond))
	if err := same.Vote(ctx, "bob", id, voting.Up); err != nil {
		t.Errorf("a vote by another Store given the same cutoff, before it closes: %v", err)
	}
	e.clock.set(posted.Add(time.Hour + time.Millisecond))
	if err := same.Vote(ctx, "carol", id, voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("a vote at the cutoff = %v, want ErrVotingClosed", err)
	}
}
