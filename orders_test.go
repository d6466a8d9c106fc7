package voting_test

// Tests of the orders beyond the book's two: each listing against the same
// order worked out here from a model of every post and vote, windows at
// their edges, trimming in steps, Reindex, and the orders' names.

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

// extraOrders are the orders beyond ByScore and ByTime.
var extraOrders = []voting.Order{voting.ByVotes, voting.ByControversy, voting.TopDay, voting.TopWeek, voting.TopMonth, voting.TopYear}

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

// controversy is Reddit's, written here from its definition.
func controversy(u, d int64) float64 {
	if u == 0 || d == 0 {
		return 0
	}
	lo, hi := float64(min(u, d)), float64(max(u, d))
	return math.Pow(float64(u+d), lo/hi)
}

// key is what order sorts a by, highest first, and whether a belongs in
// its listing at now at all.
func (a rankedArticle) key(order voting.Order, now time.Time, weight float64) (float64, bool) {
	net := float64(a.up - a.down)
	switch order {
	case voting.ByScore:
		return float64(a.posted.UnixMicro())/1e6 + weight*net, true
	case voting.ByTime:
		return float64(a.posted.UnixMicro()) / 1e6, true
	case voting.ByVotes:
		return net, true
	case voting.ByControversy:
		return controversy(a.up, a.down), true
	}
	// Posted within the window: less than the window ago.
	return net, now.Sub(a.posted) < windows[order]
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
		if a.Votes != m.up || a.Downvotes != m.down || !a.Posted.Equal(m.posted) {
			fail("article %s reads %d up, %d down, posted %v; the model has %d, %d, %v",
				a.ID, a.Votes, a.Downvotes, a.Posted, m.up, m.down, m.posted)
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
	for _, order := range store.Orders() {
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

// TestOrdersMatchAModel posts articles over more than a year of simulated
// time, with random up, down, switched and withdrawn votes, and compares
// every page of every order, the site's and each group's, with the same
// order worked out from the model.
func TestOrdersMatchAModel(t *testing.T) {
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

// TestWindowEdges: an article is in a window's listing while less than the
// window has passed since it was posted, to the microsecond, and out from
// then on; the next article is still in.
func TestWindowEdges(t *testing.T) {
	for order, window := range windows {
		t.Run(order.String(), func(t *testing.T) {
			e := newEnv(t, voting.WithOrders(order))
			first := e.post("alice", "first")
			posted := e.clock.Now()
			e.advance(time.Microsecond)
			second := e.post("bob", "second")
			list := func() []string { return idsOf(listAll(t, e.store, "", order)) }

			e.clock.set(posted.Add(window - time.Microsecond))
			if got := list(); strings.Join(got, " ") != second+" "+first && strings.Join(got, " ") != first+" "+second {
				t.Fatalf("a microsecond before the edge: %v, want both", got)
			}
			e.clock.set(posted.Add(window))
			if got := list(); strings.Join(got, " ") != second {
				t.Fatalf("at the edge: %v, want [%s]", got, second)
			}
			e.clock.set(posted.Add(window + time.Microsecond))
			if got := list(); len(got) != 0 {
				t.Fatalf("a microsecond later: %v, want none", got)
			}
			// Trimmed, not just hidden: the index is empty.
			if got := e.zset(e.key(order.String() + ":")); len(got) != 0 {
				t.Errorf("the index still holds %v", got)
			}
		})
	}
}

// TestWindowTrimsInSteps: many articles aged out at once, some posted at
// the same time, are trimmed over several steps of a few each, and the
// listing is exact however the steps fall.
func TestWindowTrimsInSteps(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.TopDay, voting.TopWeek), voting.WithPageSize(3), voting.WithGroupCacheTTL(0))
	voting.SetBatches(e.store, 2, 2)
	s := newSite(t, e)
	var ids []string
	for i := range 13 {
		if i%4 == 0 {
			e.advance(time.Hour) // four at a time share a posting time
		}
		ids = append(ids, s.post("poster", "g"))
		s.vote(e.store, "voter", ids[len(ids)-1], []voting.Direction{voting.Up, voting.Down, voting.None}[i%3])
	}
	for _, d := range []time.Duration{20 * time.Hour, 2 * time.Hour, time.Hour, time.Hour, 6 * 24 * time.Hour} {
		e.advance(d)
		s.check(e.store, "g")
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	if got := e.zset(e.key("top-day:")); len(got) != 0 {
		t.Errorf("top-day: still holds %v", got)
	}
}

// TestVotesMoveOnlyIndexedEntries: an article a window has trimmed stays
// out of it when voted on; one posted before its order was kept stays out
// of that index until Reindex.
func TestVotesMoveOnlyIndexedEntries(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	id := e.post("alice", "old news")
	e.advance(25 * time.Hour)
	if got := listAll(t, e.store, "", voting.TopDay); len(got) != 0 {
		t.Fatalf("top of the day after 25 hours: %v", idsOf(got))
	}
	e.vote("bob", id, voting.Up) // voting is still open: the cutoff is a week
	if e.exists(e.key("top-day:")) {
		t.Errorf("a vote brought a trimmed article back: top-day: = %v", e.zset(e.key("top-day:")))
	}

	all, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithOrders(voting.ByVotes))
	if err != nil {
		t.Fatal(err)
	}
	if err := all.Vote(context.Background(), "carol", id, voting.Up); err != nil {
		t.Fatal(err)
	}
	if e.exists(e.key("votes:")) {
		t.Errorf("a vote made an entry of just its change: votes: = %v", e.zset(e.key("votes:")))
	}
	if err := all.Reindex(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.zscore(e.key("votes:"), e.article(id)); got != 3 {
		t.Errorf("after Reindex, votes: gives %v, want 3", got)
	}
}

// TestPostIntoAWindowTrimmedPastIt: a Store whose clock is behind posts an
// article that a listing by a Store whose clock is ahead has already
// trimmed past; it stays out of the window rather than never being trimmed.
func TestPostIntoAWindowTrimmedPastIt(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	e.post("alice", "first")
	ahead := &clock{now: e.clock.Now().Add(48 * time.Hour)}
	reader, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(ahead.Now), voting.WithOrders(voting.TopDay))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := reader.GetArticles(context.Background(), 1, voting.TopDay); err != nil || len(got) != 0 {
		t.Fatalf("top of the day, two days on: %v, %v", got, err)
	}
	e.advance(time.Hour)
	e.post("bob", "second") // by the poster's clock, a day before the reader's mark
	if got := e.zset(e.key("top-day:")); len(got) != 0 {
		t.Errorf("top-day: = %v, want empty", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// bookVote votes as the book's Python code does: the voter set, the score
// and the count, with no down-votes.
func (e *env) bookVote(user, id string) {
	e.t.Helper()
	if e.int("SADD", e.key("voted:"+id), user) == 1 {
		e.do("ZINCRBY", e.key("score:"), 432, e.article(id))
		e.do("HINCRBY", e.article(id), "votes", 1)
	}
}

// TestReindexFromTheBooksLayout: articles written by the book's own code,
// listed by every order once Reindex has run, with listings compared to the
// model; Reindex runs again to the same result. With live groups, Reindex
// builds the groups' live indexes too, each the site's listing filtered to
// the group.
func TestReindexFromTheBooksLayout(t *testing.T) {
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live groups %v", live), func(t *testing.T) { testReindexFromTheBooksLayout(t, live) })
	}
}

func testReindexFromTheBooksLayout(t *testing.T, live bool) {
	e := newEnv(t)
	s := newSite(t, e)
	rng := rand.New(rand.NewSource(5))
	groups := []string{"books", "films"}
	for i := 1; i <= 30; i++ {
		e.advance(randomDuration(rng, 20*24*time.Hour))
		id := fmt.Sprint(i)
		e.bookPost(id, "poster", float64(e.clock.Now().UnixMicro())/1e6)
		s.articles[id] = &rankedArticle{id: id, posted: e.clock.Now(), up: 1, groups: map[string]bool{}}
		for _, g := range groups[:1+i%2] {
			e.do("SADD", e.key("group:"+g), e.article(id))
			s.articles[id].groups[g] = true
		}
		for v := range rng.Intn(5) {
			e.bookVote(fmt.Sprintf("reader%d", v), id)
			s.articles[id].up++
		}
	}
	e.advance(2 * time.Hour)

	opts := []voting.Option{voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(extraOrders...), voting.WithPageSize(7), voting.WithGroupCacheTTL(0)}
	if live {
		opts = append(opts, voting.WithLiveGroups())
	}
	all, err := voting.New(e.pool, opts...)
	if err != nil {
		t.Fatal(err)
	}
	voting.SetBatches(all, 4, 6)
	// The book keeps no record of an article's groups.
	if got, err := all.ArticleGroups(context.Background(), "7"); err != nil || len(got) != 0 {
		t.Errorf("ArticleGroups(7) before Reindex = %v, %v; want none", got, err)
	}
	var reports []voting.ReindexProgress
	done, err := all.ReindexWithProgress(context.Background(), func(p voting.ReindexProgress) { reports = append(reports, p) })
	if err != nil {
		t.Fatal(err)
	}
	// At least: 4 window trims, 30 articles in steps of 6 and a last step
	// that finds the walk's end, a SCAN for the groups and a step of each
	// group's records.
	last := reports[len(reports)-1]
	last.Done = true
	if done.Articles != 30 || done.Skipped != 0 || done.Groups != 2 || done.Steps < 4+6+1+2 || !done.Done ||
		len(reports) != done.Steps || last != done {
		t.Errorf("Reindex gave %+v, reports %+v", done, reports)
	}
	for id, a := range s.articles {
		want := "books"
		if a.groups["films"] {
			want = "books films"
		}
		if got, err := all.ArticleGroups(context.Background(), id); err != nil || strings.Join(got, " ") != want {
			t.Errorf("ArticleGroups(%s) after Reindex = %v, %v; want [%s]", id, got, err, want)
		}
	}
	s.check(all, groups...)
	if live {
		s.checkLive(all, "after Reindex", groups...)
	}
	again, err := all.ReindexWithProgress(context.Background(), nil)
	if err != nil || again.Articles != 30 {
		t.Errorf("Reindex again: %+v, %v", again, err)
	}
	s.check(all, groups...)
	if live {
		s.checkLive(all, "after Reindex again", groups...)
	}
	e.store = all
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexFromAStoreWithFewerOrders: a Store that kept only ByVotes
// wrote a year of posts and votes; a Store with every order reindexes them,
// while votes go on, in steps small enough that votes fall between them,
// and lists exactly what the model says.
func TestReindexFromAStoreWithFewerOrders(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes))
	s := newSite(t, e)
	rng := rand.New(rand.NewSource(7))
	var ids []string
	for range 40 {
		e.advance(randomDuration(rng, 18*24*time.Hour))
		ids = append(ids, s.post("poster", "g"))
		s.randomVotes(rng, e.store, ids, 4)
	}
	all, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(extraOrders...), voting.WithPageSize(6), voting.WithGroupCacheTTL(0))
	if err != nil {
		t.Fatal(err)
	}
	voting.SetBatches(all, 3, 4)
	// Votes between Reindex's steps, through the Store with every order:
	// each moves an entry that is there, and a later step sets the rest.
	_, err = all.ReindexWithProgress(context.Background(), func(voting.ReindexProgress) {
		s.randomVotes(rng, all, ids, 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	s.check(all, "g")
	e.store = all
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexSkipsUnreadableArticles: a member of the time index with no
// hash, or with counters that do not parse, is passed over and counted.
func TestReindexSkipsUnreadableArticles(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes))
	good := e.post("alice", "good")
	e.advance(time.Second)
	bad := e.post("bob", "bad")
	e.do("HSET", e.article(bad), "votes", "many")
	e.do("ZADD", e.key("time:"), unix(e.clock.Now()), e.article("99"))
	e.do("DEL", e.key("votes:"))
	done, err := e.store.ReindexWithProgress(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if done.Articles != 1 || done.Skipped != 2 {
		t.Errorf("Reindex gave %+v, want 1 article and 2 skipped", done)
	}
	if got := e.zset(e.key("votes:")); strings.Join(got, " ") != e.article(good)+"=1" {
		t.Errorf("votes: = %v, want [%s=1]", got, e.article(good))
	}
}

// TestUnkeptOrderIsInvalid: an order the Store does not keep, or no order
// at all, is refused before anything is sent, naming WithOrders.
func TestUnkeptOrderIsInvalid(t *testing.T) {
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
	if _, err := voting.New(e.pool, voting.WithOrders(voting.Order(42))); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("New(WithOrders(42)): %v, want ErrInvalid", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("refused listings wrote:\n%s\nwas:\n%s", after, before)
	}
	if got := fmt.Sprint(e.store.Orders()); got != "[score time]" {
		t.Errorf("Orders() = %s", got)
	}
}

// TestOrderAndDirectionNames: each order's and direction's name reads back
// as itself, in text and JSON, and the names sites use are taken too.
func TestOrderAndDirectionNames(t *testing.T) {
	want := []string{"score", "time", "votes", "controversy", "top-day", "top-week", "top-month", "top-year"}
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
		"hot": voting.ByScore, "new": voting.ByTime, "top": voting.ByVotes, "top-all": voting.ByVotes,
		"controversial": voting.ByControversy, "TOP-WEEK": voting.TopWeek,
	} {
		if got, err := voting.ParseOrder(name); err != nil || got != o {
			t.Errorf("ParseOrder(%q) = %v, %v; want %v", name, got, err, o)
		}
	}
	for _, name := range []string{"", "best", "top week", "by score"} {
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

// TestUnsoundMarkIsCorrupt: a mark in trimmed: that is not Unix seconds as
// this package writes them (here with a space, which Lua would read as a
// number and Redis refuse as a range bound) is refused alike by a post and
// a listing, naming it, and nothing is written.
func TestUnsoundMarkIsCorrupt(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	e.post("alice", "first")
	e.do("HSET", e.key("trimmed:"), "top-day", "5 ")
	before := e.dump()
	_, err := e.store.PostArticle(ctx, "bob", "second", "https://example.com/")
	if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("trimmed:")) {
		t.Errorf("PostArticle with an unsound mark = %v, want ErrCorrupt naming trimmed:", err)
	}
	e.advance(48 * time.Hour)
	if _, err := e.store.GetArticles(ctx, 1, voting.TopDay); !errors.Is(err, voting.ErrCorrupt) {
		t.Errorf("GetArticles by top-day with an unsound mark = %v, want ErrCorrupt", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("wrote:\nbefore %s\nafter  %s", before, after)
	}
}

// TestParseOrderAliasesIgnoreCase: the names sites use for the orders are
// taken in any case, as the orders' own names are.
func TestParseOrderAliasesIgnoreCase(t *testing.T) {
	for name, want := range map[string]voting.Order{
		"HOT":           voting.ByScore,
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
