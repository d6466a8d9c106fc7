package voting_test

// Tests of the orders (orders.go): every listing of every order against
// the same order worked out here from a model of every post and vote, the
// orders' and directions' names, and orders a Store does not keep. The
// tests of listings, groups, windows and Reindex use the model too.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// extraOrders are the orders beyond ByScore and ByTime, the first two.
var extraOrders = voting.Orders()[2:]

// windows are the top-of-window orders and their windows.
var windows = map[voting.Order]time.Duration{
	voting.TopDay:   24 * time.Hour,
	voting.TopWeek:  7 * 24 * time.Hour,
	voting.TopMonth: 30 * 24 * time.Hour,
	voting.TopYear:  365 * 24 * time.Hour,
}

// A rankedArticle is what the test knows of an article from its own record
// of posts and votes.
type rankedArticle struct {
	id     string
	posted time.Time
	up     int64 // up-votes, the poster's own included
	down   int64
	groups map[string]bool
}

// key is what order sorts a by, highest first (voting.IndexValue, the tests'
// one model of an index's value), and whether a belongs in its listing at
// now at all: a window's holds only articles posted less than the window
// ago.
func (a rankedArticle) key(order voting.Order, now time.Time, weight float64) (float64, bool) {
	posted := float64(a.posted.UnixMicro()) / 1e6
	value := voting.IndexValue(order, posted, float64(a.up), float64(a.down), posted+weight*float64(a.up-a.down))
	window, isWindow := windows[order]
	return value, !isWindow || now.Sub(a.posted) < window
}

// nearly reports whether two keys are equal but for rounding: controversy
// is worked out in Lua there and in Go here.
func nearly(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// listAll reads every page of a listing, the site's or a group's.
func listAll(t *testing.T, s *voting.Store, group string, order voting.Order) []voting.Article {
	t.Helper()
	var all []voting.Article
	for page := 1; ; page++ {
		var got []voting.Article
		var err error
		if group == "" {
			got, err = s.GetArticles(context.Background(), page, order)
		} else {
			got, err = s.GetGroupArticles(context.Background(), group, page, order)
		}
		if err != nil {
			t.Fatalf("list %q by %v, page %d: %v", group, order, page, err)
		}
		if len(got) > s.PageSize() {
			t.Fatalf("list %q by %v, page %d: %d articles in a page of %d", group, order, page, len(got), s.PageSize())
		}
		all = append(all, got...)
		if len(got) < s.PageSize() {
			return all
		}
		if page > 10000 {
			t.Fatalf("list %q by %v: no end", group, order)
		}
	}
}

// checkListing compares a listing with the model: the same articles, in an
// order whose keys never rise, equal to the model's sorted keys place by
// place (so ties may fall in any order).
func checkListing(t *testing.T, what string, got []voting.Article, model map[string]*rankedArticle,
	group string, order voting.Order, now time.Time, weight float64) {
	t.Helper()
	type entry struct {
		id  string
		key float64
	}
	var want []entry
	for _, a := range model {
		if group != "" && !a.groups[group] {
			continue
		}
		if k, in := a.key(order, now, weight); in {
			want = append(want, entry{a.id, k})
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].key > want[j].key })
	wantIDs := map[string]bool{}
	for _, w := range want {
		wantIDs[w.id] = true
	}
	fail := func(format string, args ...any) {
		t.Helper()
		var gotIDs, wantList []string
		for _, a := range got {
			gotIDs = append(gotIDs, a.ID)
		}
		for _, w := range want {
			wantList = append(wantList, fmt.Sprintf("%s(%g)", w.id, w.key))
		}
		t.Fatalf("%s: %s\ngot  %v\nwant %v", what, fmt.Sprintf(format, args...), gotIDs, wantList)
	}
	if len(got) != len(want) {
		fail("%d articles, want %d", len(got), len(want))
	}
	seen := map[string]bool{}
	for i, a := range got {
		if !wantIDs[a.ID] || seen[a.ID] {
			fail("article %s should not be listed (or is listed twice)", a.ID)
		}
		seen[a.ID] = true
		m := model[a.ID]
		if a.Upvotes != m.up || a.Downvotes != m.down || !a.Posted.Equal(m.posted) {
			fail("article %s reads %d up, %d down, posted %v; the model has %d, %d, %v",
				a.ID, a.Upvotes, a.Downvotes, a.Posted, m.up, m.down, m.posted)
		}
		if k, _ := m.key(order, now, weight); !nearly(k, want[i].key) {
			fail("place %d holds article %s of key %g, want key %g", i+1, a.ID, k, want[i].key)
		}
	}
}

// randomDuration is up to most, to the microsecond, as posting times are
// stored.
func randomDuration(rng *rand.Rand, most time.Duration) time.Duration {
	return time.Duration(rng.Int63n(int64(most/time.Microsecond))) * time.Microsecond
}

// A site is a model of the posts and votes the tests make through a Store.
type site struct {
	t        *testing.T
	e        *env
	articles map[string]*rankedArticle
	voters   map[string]map[string]voting.Direction // article id -> user -> vote
}

func newSite(t *testing.T, e *env) *site {
	return &site{t: t, e: e, articles: map[string]*rankedArticle{}, voters: map[string]map[string]voting.Direction{}}
}

func (s *site) post(poster string, groups ...string) string {
	s.t.Helper()
	id := s.e.post(poster, "article by "+poster, groups...)
	a := &rankedArticle{id: id, posted: s.e.clock.Now(), up: 1, groups: map[string]bool{}}
	for _, g := range groups {
		a.groups[g] = true
	}
	s.articles[id] = a
	s.voters[id] = map[string]voting.Direction{poster: voting.Up}
	return id
}

// vote votes through store and applies the vote to the model, checking
// that the Store took it exactly when the model says voting is open.
func (s *site) vote(store *voting.Store, user, id string, dir voting.Direction) {
	s.t.Helper()
	a := s.articles[id]
	err := store.Vote(context.Background(), user, id, dir)
	open := s.e.clock.Now().Before(a.posted.Add(voting.DefaultCutoff))
	if !open {
		if !errors.Is(err, voting.ErrVotingClosed) {
			s.t.Fatalf("vote on article %s, %v after posting: %v, want ErrVotingClosed", id, s.e.clock.Now().Sub(a.posted), err)
		}
		return
	}
	if err != nil {
		s.t.Fatalf("Vote(%s, %s, %v): %v", user, id, dir, err)
	}
	switch s.voters[id][user] {
	case voting.Up:
		a.up--
	case voting.Down:
		a.down--
	}
	switch dir {
	case voting.Up:
		a.up++
	case voting.Down:
		a.down++
	}
	s.voters[id][user] = dir
}

// check compares every listing of every order store keeps, the site's and
// each group's, with the model.
func (s *site) check(store *voting.Store, groups ...string) {
	s.t.Helper()
	now := s.e.clock.Now()
	for _, order := range voting.View(store).Orders {
		for _, g := range append([]string{""}, groups...) {
			what := fmt.Sprintf("at %v, group %q by %v", now.Format(time.DateTime), g, order)
			checkListing(s.t, what, listAll(s.t, store, g, order), s.articles, g, order, now, voting.DefaultVoteWeight)
		}
	}
}

// randomVotes casts n random votes: up, down, switched and taken back, on
// articles young and old (some past their cutoff).
func (s *site) randomVotes(rng *rand.Rand, store *voting.Store, ids []string, n int) {
	dirs := []voting.Direction{voting.Up, voting.Up, voting.Down, voting.None}
	for range n {
		// Mostly the newest articles, which still take votes.
		id := ids[len(ids)-1-min(len(ids)-1, int(rng.ExpFloat64()*4))]
		s.vote(store, fmt.Sprintf("user%d", rng.Intn(12)), id, dirs[rng.Intn(len(dirs))])
	}
}

// checkLive compares each group's listing of each order the Store keeps,
// every page of it, with the site's listing of that order filtered to the
// group's members as the model has them: the same articles in the same
// places (ties included: both indexes hold the same members with the same
// scores), and with the model's order.
func (s *site) checkLive(store *voting.Store, what string, groups ...string) {
	s.t.Helper()
	now := s.e.clock.Now()
	for _, order := range voting.View(store).Orders {
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

// TestOrdersMatchAModel posts articles over more than a year of simulated
// time, with random up, down, switched and withdrawn votes, and compares
// every page of every order, the site's and each group's, with the same
// order worked out from the model.
func TestOrdersMatchAModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(extraOrders...), voting.WithPageSize(4), voting.WithGroupCacheTTL(0))
	// Small steps, so that listings trim in several and ties straddle them.
	voting.SetBatches(e.store, 3, 5)
	s := newSite(t, e)
	rng := rand.New(rand.NewSource(11))
	groupsOf := [][]string{nil, {"go"}, {"redis"}, {"go", "redis"}}
	var ids []string
	n := 90
	if testing.Short() {
		n = 45
	}
	for i := range n {
		// Some articles share a posting time; most are hours or days apart,
		// 400 days in all.
		if i%9 != 3 {
			e.advance(randomDuration(rng, 10*24*time.Hour))
		}
		ids = append(ids, s.post(fmt.Sprintf("poster%d", i%5), groupsOf[i%4]...))
		s.randomVotes(rng, e.store, ids, 1+rng.Intn(6))
		if i%15 == 14 {
			s.check(e.store, "go", "redis")
		}
	}
	// Time goes on with no posts: articles age out of each window in turn.
	for _, d := range []time.Duration{20 * time.Hour, 6 * 24 * time.Hour, 25 * 24 * time.Hour, 300 * 24 * time.Hour} {
		e.advance(d)
		s.check(e.store, "go", "redis")
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestUnkeptOrderIsInvalid: an order the Store does not keep, or no order
// at all, is refused before anything is sent, naming WithOrders.
func TestUnkeptOrderIsInvalid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "a")
	e.do("SADD", e.key("group:g"), e.article(id))
	before := e.dump()
	for _, order := range extraOrders {
		_, err := e.store.GetArticles(context.Background(), 1, order)
		if !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), "WithOrders(voting.") {
			t.Errorf("GetArticles by %v: %v, want ErrInvalid naming WithOrders", order, err)
		}
		_, err = e.store.GetGroupArticles(context.Background(), "g", 1, order)
		if !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("GetGroupArticles by %v: %v, want ErrInvalid", order, err)
		}
	}
	for _, order := range []voting.Order{-1, voting.Order(len(voting.Orders()))} {
		if _, err := e.store.GetArticles(context.Background(), 1, order); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("GetArticles by %d: %v, want ErrInvalid", order, err)
		}
	}
	if _, err := voting.New(e.pool, noBuilder, voting.WithOrders(voting.Order(42))); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("New(WithOrders(42)): %v, want ErrInvalid", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("refused listings wrote:\n%s\nwas:\n%s", after, before)
	}
	if got := fmt.Sprint(voting.View(e.store).Orders); got != "[score time]" {
		t.Errorf("Orders() = %s", got)
	}
}

// TestOrderAndDirectionNames: each order's and direction's name reads back
// as itself, in text and JSON, and the names sites use are taken too.
func TestOrderAndDirectionNames(t *testing.T) {
	t.Parallel()
	want := []string{"score", "time", "votes", "controversy", "top-day", "top-week", "top-month", "top-year", "hot", "best"}
	for i, o := range voting.Orders() {
		if o.String() != want[i] {
			t.Errorf("Order %d is %q, want %q", i, o, want[i])
		}
		b, err := json.Marshal(struct{ Order voting.Order }{o})
		if err != nil || string(b) != `{"Order":"`+want[i]+`"}` {
			t.Errorf("json of %v: %s, %v", o, b, err)
		}
		var back struct{ Order voting.Order }
		if err := json.Unmarshal(b, &back); err != nil || back.Order != o {
			t.Errorf("json %s reads back as %v, %v", b, back.Order, err)
		}
	}
	for name, o := range map[string]voting.Order{
		"hot": voting.ByHot, "new": voting.ByTime, "top": voting.ByVotes, "top-all": voting.ByVotes,
		"controversial": voting.ByControversy, "TOP-WEEK": voting.TopWeek, "Best": voting.ByBest,
	} {
		if got, err := voting.ParseOrder(name); err != nil || got != o {
			t.Errorf("ParseOrder(%q) = %v, %v; want %v", name, got, err, o)
		}
	}
	for _, name := range []string{"", "bestest", "top week", "by score"} {
		if _, err := voting.ParseOrder(name); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("ParseOrder(%q): %v, want ErrInvalid", name, err)
		}
	}
	if _, err := voting.Order(99).MarshalText(); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Order(99).MarshalText: %v", err)
	}

	for _, d := range []voting.Direction{voting.None, voting.Up, voting.Down} {
		text, err := d.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back voting.Direction
		if err := back.UnmarshalText(text); err != nil || back != d {
			t.Errorf("%s reads back as %v, %v", text, back, err)
		}
	}
	if d, err := voting.ParseDirection("Down"); err != nil || d != voting.Down {
		t.Errorf("ParseDirection(Down) = %v, %v", d, err)
	}
	if _, err := voting.ParseDirection("sideways"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("ParseDirection(sideways): %v", err)
	}
	if _, err := voting.Direction(7).MarshalText(); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Direction(7).MarshalText: %v", err)
	}
}

// TestParseOrderAliasesIgnoreCase: the names sites use for the orders are
// taken in any case, as the orders' own names are.
func TestParseOrderAliasesIgnoreCase(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]voting.Order{
		"HOT":           voting.ByHot,
		"NEW":           voting.ByTime,
		"Top":           voting.ByVotes,
		"CONTROVERSIAL": voting.ByControversy,
		"Top-All":       voting.ByVotes,
	} {
		if got, err := voting.ParseOrder(name); err != nil || got != want {
			t.Errorf("ParseOrder(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
}

// TestInvariantsOfBestWithNoUpVote: best of no up-vote and a down-vote is
// 0 in Lua and a rounding below it in Go; the checker takes them as one.
func TestInvariantsOfBestWithNoUpVote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.Orders()...))
	id := e.post("alice", "a")
	e.vote("alice", id, voting.None)
	e.vote("bob", id, voting.Down)
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}
