package voting_test

// Tests of live group indexes (WithLiveGroups): each group listing against
// the site's listing of the same order filtered to the group, after every
// kind of write and under concurrent writes; keys of the wrong type; and
// Reindex building them for articles written without them.

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// checkLive compares each group's listing of each order the Store keeps,
// every page of it, with the site's listing of that order filtered to the
// group's members as the model has them: the same articles in the same
// places (ties included: both indexes hold the same members with the same
// scores), and with the model's order.
func (s *site) checkLive(store *voting.Store, what string, groups ...string) {
	s.t.Helper()
	now := s.e.clock.Now()
	for _, order := range store.Orders() {
		all := listAll(s.t, store, "", order)
		for _, g := range groups {
			var want []string
			for _, a := range all {
				if s.articles[a.ID].groups[g] {
					want = append(want, a.ID)
				}
			}
			got := listAll(s.t, store, g, order)
			if strings.Join(idsOf(got), " ") != strings.Join(want, " ") {
				s.t.Fatalf("%s: group %s by %v:\ngot  %v\nwant %v (the site's listing filtered)", what, g, order, idsOf(got), want)
			}
			checkListing(s.t, what, got, s.articles, g, order, now, voting.DefaultVoteWeight)
		}
	}
}

// regroup adds an article to groups or takes it out of them, through store
// and in the model.
func (s *site) regroup(store *voting.Store, id string, add bool, groups ...string) {
	s.t.Helper()
	var err error
	if add {
		err = store.AddToGroups(ctx, id, groups...)
	} else {
		err = store.RemoveFromGroups(ctx, id, groups...)
	}
	if err != nil {
		s.t.Fatalf("regroup %s (add %v) %v: %v", id, add, groups, err)
	}
	for _, g := range groups {
		if add {
			s.articles[id].groups[g] = true
		} else {
			delete(s.articles[id].groups, g)
		}
	}
}

// randomGroups is a random subset of groups, maybe empty.
func randomGroups(rng *rand.Rand, groups []string) []string {
	var some []string
	for _, g := range groups {
		if rng.Intn(2) == 0 {
			some = append(some, g)
		}
	}
	return some
}

// TestLiveGroupsMatchTheSiteListings posts, votes, adds to groups and
// takes out of them at random over a year and a half of simulated time,
// with every order kept and live groups on; after every write, each group's
// listing of each order is the site's listing filtered to the group, with
// nothing stale, and agrees with the model.
func TestLiveGroupsMatchTheSiteListings(t *testing.T) {
	e := newEnv(t, voting.WithOrders(extraOrders...), voting.WithLiveGroups(), voting.WithPageSize(5))
	voting.SetBatches(e.store, 3, 5)
	s := newSite(t, e)
	rng := rand.New(rand.NewSource(12))
	groups := []string{"go", "redis", "lua"}
	var ids []string
	n := 80
	if testing.Short() {
		n = 40
	}
	for i := range n {
		if i%7 != 2 {
			e.advance(randomDuration(rng, 7*24*time.Hour))
		}
		var what string
		switch k := rng.Intn(5); {
		case len(ids) == 0 || k <= 1:
			ids = append(ids, s.post(fmt.Sprintf("poster%d", i%4), randomGroups(rng, groups)...))
			what = "post " + ids[len(ids)-1]
		case k == 2:
			s.randomVotes(rng, e.store, ids, 1+rng.Intn(4))
			what = "votes"
		default:
			id := ids[rng.Intn(len(ids))]
			g := randomGroups(rng, groups)
			if len(g) == 0 {
				g = groups[:1]
			}
			s.regroup(e.store, id, k == 3, g...)
			what = fmt.Sprintf("regroup %s (add %v) %v", id, k == 3, g)
		}
		s.checkLive(e.store, fmt.Sprintf("step %d, %s", i, what), groups...)
	}
	for _, d := range []time.Duration{20 * time.Hour, 6 * 24 * time.Hour, 25 * 24 * time.Hour, 300 * 24 * time.Hour} {
		e.advance(d)
		s.checkLive(e.store, fmt.Sprintf("%v later", d), groups...)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	for _, g := range groups {
		for _, o := range e.store.Orders() {
			if e.exists(e.key(o.String() + ":" + g)) {
				t.Errorf("live groups built the book's cache %s", e.key(o.String()+":"+g))
			}
		}
	}
}

// TestLiveGroupsUnderConcurrentWrites: posts, votes, group changes and a
// Reindex, all at once from several goroutines, leave every live index
// exactly the site's index filtered to its group (the invariant checker),
// and no group listing stale.
func TestLiveGroupsUnderConcurrentWrites(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.ByControversy, voting.TopWeek), voting.WithLiveGroups())
	voting.SetBatches(e.store, 2, 3)
	groups := []string{"a", "b", "c"}
	var ids []string
	for i := range 8 {
		ids = append(ids, e.post(fmt.Sprintf("poster%d", i), fmt.Sprint("article ", i), groups[:1+i%3]...))
	}
	rounds := 60
	if testing.Short() {
		rounds = 25
	}
	var mu sync.Mutex // guards ids
	errs := make(chan error, 8)
	together(6, func(g int) {
		rng := rand.New(rand.NewSource(int64(g)))
		for r := range rounds {
			mu.Lock()
			id := ids[rng.Intn(len(ids))]
			mu.Unlock()
			var err error
			switch g {
			case 0:
				var newID string
				newID, err = e.store.PostArticle(ctx, "poster", fmt.Sprint("late ", r), "https://example.com/", randomGroups(rng, groups)...)
				mu.Lock()
				ids = append(ids, newID)
				mu.Unlock()
			case 1, 2:
				err = e.store.Vote(ctx, fmt.Sprintf("user%d", rng.Intn(6)), id, voting.Direction(rng.Intn(3)))
			case 3:
				err = e.store.AddToGroups(ctx, id, groups[rng.Intn(3)])
			case 4:
				err = e.store.RemoveFromGroups(ctx, id, groups[rng.Intn(3)])
			case 5:
				if r%10 == 0 {
					err = e.store.Reindex(ctx)
				} else {
					_, err = e.store.GetGroupArticles(ctx, groups[rng.Intn(3)], 1, voting.TopWeek)
				}
			}
			if err != nil {
				errs <- fmt.Errorf("goroutine %d, round %d: %w", g, r, err)
				return
			}
		}
	})
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestLiveGroupsJoinOnReindex: articles posted into groups by a Store
// without live groups, and by the book's own code, are not in the live
// indexes (a vote does not bring them in), until Reindex builds them.
func TestLiveGroupsJoinOnReindex(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	s := newSite(t, e)
	s.post("alice", "g")
	e.advance(time.Minute)
	e.bookPost("2", "bob", float64(e.clock.Now().UnixMicro())/1e6)
	e.do("SET", e.key("article:"), "2")
	e.do("SADD", e.key("group:g"), e.article("2"))
	s.articles["2"] = &rankedArticle{id: "2", posted: e.clock.Now(), up: 1, groups: map[string]bool{"g": true}}
	s.voters["2"] = map[string]voting.Direction{"bob": voting.Up}
	e.advance(time.Minute)

	live, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.TopDay), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}
	id := s.post("carol", "g") // through e.store, without live groups
	s.vote(live, "dave", "1", voting.Up)
	for _, order := range live.Orders() {
		if got := listAll(t, live, "g", order); len(got) != 0 {
			t.Errorf("live group g by %v before Reindex: %v, want none", order, idsOf(got))
		}
	}
	done, err := live.ReindexWithProgress(ctx, nil)
	if err != nil || done.Groups != 1 {
		t.Fatalf("Reindex: %+v, %v", done, err)
	}
	e.store = live
	s.checkLive(live, "after Reindex", "g")
	// From now on the live indexes follow every write.
	s.vote(live, "erin", id, voting.Down)
	s.vote(live, "erin", "2", voting.Up)
	s.regroup(live, "1", false, "g")
	s.checkLive(live, "after votes", "g")
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestLiveVoteRefusesARecordOfNoGroup: a record of an article's groups
// holding what no group is named (a brace would take the vote script's
// keys out of the namespace's Redis Cluster slot) is refused, naming the
// record, and the vote writes nothing.
func TestLiveVoteRefusesARecordOfNoGroup(t *testing.T) {
	for _, bad := range []string{"", "{other}", "a:b", "a b", strings.Repeat("x", 4*voting.MaxGroupLen+1)} {
		t.Run(fmt.Sprintf("%q", bad), func(t *testing.T) {
			e := newEnv(t, voting.WithLiveGroups())
			e.post("alice", "first", "g")
			e.do("SADD", e.key("groups:1"), bad)
			before := e.dump()
			err := e.store.Vote(ctx, "bob", "1", voting.Up)
			if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("groups:1")) {
				t.Errorf("Vote = %v, want ErrCorrupt naming groups:1", err)
			}
			if after := e.dump(); after != before {
				t.Errorf("Vote wrote:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// storeAt is another Store on e's namespace whose clock stands at at, as a
// server whose clock runs ahead would be.
func storeAt(t *testing.T, e *env, at time.Time, opts ...voting.Option) *voting.Store {
	t.Helper()
	c := &clock{now: at}
	s, err := voting.New(e.pool, append([]voting.Option{voting.WithPrefix(e.prefix), voting.WithClock(c.Now)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLiveWindowsKeepTheirGroupsMark: a group's live window has a mark of
// its own (trimmed: top-day:<group>), which a listing by a Store whose
// clock runs ahead may move past an article's posting time; AddToGroups
// and Reindex then leave that article out of the group's window, as a
// post would, while it joins the group's other indexes; and a post into a
// group follows the group's mark, not the site's.
func TestLiveWindowsKeepTheirGroupsMark(t *testing.T) {
	opts := []voting.Option{voting.WithOrders(voting.TopDay), voting.WithLiveGroups()}
	t.Run("AddToGroups", func(t *testing.T) {
		e := newEnv(t, opts...)
		id := e.post("alice", "first")
		ahead := storeAt(t, e, e.clock.Now().Add(24*time.Hour), opts...)
		if got, err := ahead.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || len(got) != 0 {
			t.Fatalf("listing ahead: %v, %v", idsOf(got), err)
		}
		if e.hash(e.key("trimmed:"))["top-day:g"] == "" {
			t.Fatalf("the listing ahead left no mark top-day:g: %v", e.hash(e.key("trimmed:")))
		}
		e.advance(time.Minute)
		if err := e.store.AddToGroups(ctx, id, "g"); err != nil {
			t.Fatal(err)
		}
		if got := e.zset(e.key("live:top-day:g")); len(got) != 0 {
			t.Errorf("live:top-day:g = %v, want none: the article was posted at the group's mark", got)
		}
		if got := e.zset(e.key("live:score:g")); len(got) != 1 {
			t.Errorf("live:score:g = %v, want the article", got)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
	t.Run("Reindex", func(t *testing.T) {
		e := newEnv(t, voting.WithOrders(voting.TopDay)) // posts without live groups
		e.post("alice", "first", "g")
		ahead := storeAt(t, e, e.clock.Now().Add(24*time.Hour), opts...)
		if got, err := ahead.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || len(got) != 0 {
			t.Fatalf("listing ahead: %v, %v", idsOf(got), err)
		}
		e.advance(time.Minute)
		live := storeAt(t, e, e.clock.Now(), opts...)
		if err := live.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		if got := e.zset(e.key("live:top-day:g")); len(got) != 0 {
			t.Errorf("live:top-day:g = %v, want none: the article was posted at the group's mark", got)
		}
		if got := e.zset(e.key("live:score:g")); len(got) != 1 {
			t.Errorf("live:score:g = %v, want the article", got)
		}
		e.store = live
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
	t.Run("PostArticle", func(t *testing.T) {
		e := newEnv(t, opts...)
		e.post("alice", "first")
		ahead := storeAt(t, e, e.clock.Now().Add(48*time.Hour), opts...)
		if got, err := ahead.GetArticles(ctx, 1, voting.TopDay); err != nil || len(got) != 0 {
			t.Fatalf("listing ahead: %v, %v", idsOf(got), err)
		}
		e.advance(time.Hour)
		id := e.post("bob", "second", "g")
		// The site's window was trimmed past the post; the group's was not.
		if got := e.zset(e.key("top-day:")); len(got) != 0 {
			t.Errorf("top-day: = %v, want none", got)
		}
		if got, err := e.store.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || strings.Join(idsOf(got), " ") != id {
			t.Errorf("group g by top-day = %v, %v; want [%s]", idsOf(got), err, id)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
}

// TestLiveWindowsLeaveOutArticlesAtTheCut: an article posted exactly a
// window ago is out of the window, so AddToGroups does not put it in the
// group's live window.
func TestLiveWindowsLeaveOutArticlesAtTheCut(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.TopDay), voting.WithLiveGroups())
	id := e.post("alice", "first")
	e.advance(24 * time.Hour)
	if err := e.store.AddToGroups(ctx, id, "g"); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("live:top-day:g")); len(got) != 0 {
		t.Errorf("live:top-day:g = %v, want none", got)
	}
	if got, err := e.store.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || len(got) != 0 {
		t.Errorf("group g by top-day = %v, %v; want none", idsOf(got), err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestLiveWindowsGetAFirstMark: a group's empty live window gets a first
// mark at the window's start from the post, AddToGroups or Reindex that
// first writes it, so that its first trim does not walk the group's past.
func TestLiveWindowsGetAFirstMark(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.TopDay), voting.WithLiveGroups())
	want := fmt.Sprint(e.clock.Now().Add(-24 * time.Hour).Unix())
	id := e.post("alice", "first", "posted")
	if err := e.store.AddToGroups(ctx, id, "added"); err != nil {
		t.Fatal(err)
	}
	e.do("SADD", e.key("group:reindexed"), e.article(id))
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	marks := e.hash(e.key("trimmed:"))
	for _, g := range []string{"posted", "added", "reindexed"} {
		if got := marks["top-day:"+g]; got != want {
			t.Errorf("trimmed: top-day:%s = %q, want %q", g, got, want)
		}
	}
}

// TestLiveVoteMovesEveryKind: one down-vote on an article in a group moves
// its entries in the group's live indexes of every kind of order: score,
// net votes and controversy, to exactly the site's values.
func TestLiveVoteMovesEveryKind(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.ByControversy, voting.TopWeek), voting.WithLiveGroups())
	id := e.post("alice", "first", "g")
	e.vote("bob", id, voting.Down)
	member := e.article(id)
	for index, want := range map[string]float64{
		"score:":       e.zscore(e.key("score:"), member),
		"votes:":       0,
		"controversy:": 2, // (1 + 1) ^ (1 / 1)
		"top-week:":    0,
		"time:":        unix(e.clock.Now()),
	} {
		if got := e.zscore(e.key("live:"+index+"g"), member); got != want {
			t.Errorf("live:%sg gives %v, want %v", index, got, want)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexWalksALargeGroupInSmallSteps: a group larger than one step
// counts once, and with live groups and every order kept a step reads
// about 31 of its members, so that it holds Redis for about 2 ms.
func TestReindexWalksALargeGroupInSmallSteps(t *testing.T) {
	e := newEnv(t, voting.WithOrders(extraOrders...), voting.WithLiveGroups())
	e.post("alice", "first", "g")
	before, err := e.store.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := []any{e.key("group:g")}
	for i := range 2000 {
		args = append(args, fmt.Sprint("not an article ", i))
	}
	e.do("SADD", args...)
	after, err := e.store.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after.Groups != 1 {
		t.Errorf("Reindex counted %d groups, want 1", after.Groups)
	}
	// SSCAN's COUNT is a hint that Redis may exceed: allow twice 31.
	if steps := after.Steps - before.Steps; steps < 2000/62 {
		t.Errorf("2000 more members took %d more steps, want at least %d", steps, 2000/62)
	}
}

// TestLiveReindexLeavesOutWhatArticleDoesNotFind: a member of a group
// whose hash is there but whose score is not (no article, for Article) gets
// no entry in the group's live indexes, though another site index holds it.
func TestLiveReindexLeavesOutWhatArticleDoesNotFind(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes), voting.WithLiveGroups())
	e.do("HSET", e.article("5"), "title", "t", "link", "https://example.com/", "poster", "p", "time", unix(e.clock.Now()), "votes", "1")
	e.do("ZADD", e.key("votes:"), 1, e.article("5"))
	e.do("SADD", e.key("group:g"), e.article("5"))
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{"score:", "time:", "votes:"} {
		if got := e.zset(e.key("live:" + index + "g")); len(got) != 0 {
			t.Errorf("live:%sg = %v, want none", index, got)
		}
	}
}
