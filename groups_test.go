package voting_test

// Tests of groups (groups.go): group changes and Article.Groups, group
// listings past their first page, the book's group cache and its time to
// live, and live group indexes (WithLiveGroups) against the site's
// listings, after every kind of write and under concurrent writes.

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// TestGroupChangesAndCachedListings: AddToGroups and RemoveFromGroups change
// the book's group sets; a group's listings are in the order of the site's
// indexes, and cached, for the cache's time to live, under the book's keys
// with the indexes' scores.
func TestGroupChangesAndCachedListings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	ids := postMany(e, 12)
	inGroup := []string{}
	for i, id := range ids {
		if i%3 == 0 {
			if err := e.store.AddToGroups(ctx, id, "redis", "go"); err != nil {
				t.Fatal(err)
			}
			inGroup = append(inGroup, id)
		}
	}
	if err := e.store.RemoveFromGroups(ctx, ids[0], "go"); err != nil {
		t.Fatal(err)
	}
	wantRedis := make([]string, len(inGroup))
	for i, id := range inGroup {
		wantRedis[i] = e.article(id)
	}
	if got, want := e.strs("SMEMBERS", e.key("group:redis")), sorted(wantRedis); !reflect.DeepEqual(got, want) {
		t.Errorf("group:redis = %v, want %v", got, want)
	}
	if got, want := e.strs("SMEMBERS", e.key("group:go")), sorted(wantRedis[1:]); !reflect.DeepEqual(got, want) {
		t.Errorf("group:go = %v, want %v", got, want)
	}
	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		articles, err := e.store.GetGroupArticles(ctx, "redis", 1, order)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := idsOf(articles), e.expectedOrder(inGroup, order); !reflect.DeepEqual(got, want) {
			t.Errorf("group %v = %v, want %v", order, got, want)
		}
	}
	// The cached intersections, with the index's scores, under the book's keys.
	cache := e.key("score:redis")
	if ttl := e.pttl(cache); ttl > voting.DefaultGroupCacheTTL || ttl < voting.DefaultGroupCacheTTL-5*time.Second {
		t.Errorf("%s TTL = %v, want %v", cache, ttl, voting.DefaultGroupCacheTTL)
	}
	for _, id := range inGroup {
		if got, want := e.zscore(cache, e.article(id)), e.zscore(e.key("score:"), e.article(id)); got != want {
			t.Errorf("cached score of %s = %v, want %v", id, got, want)
		}
		if got, want := e.zscore(e.key("time:redis"), e.article(id)), e.zscore(e.key("time:"), e.article(id)); got != want {
			t.Errorf("cached time of %s = %v, want %v", id, got, want)
		}
	}
}

func TestAddToGroupsOnUnknownArticleWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("alice", "known", "news")
	before := e.dump()
	if err := e.store.AddToGroups(ctx, "2", "news", "other"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("AddToGroups(unknown) = %v, want ErrNotFound", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("AddToGroups(unknown) wrote:\nbefore %s\nafter  %s", before, after)
	}
	// Removal needs no article, so stale members can be cleaned up.
	e.do("SADD", e.key("group:news"), e.article("7"))
	if err := e.store.RemoveFromGroups(ctx, "7", "news"); err != nil {
		t.Fatal(err)
	}
	if got := e.strs("SMEMBERS", e.key("group:news")); !reflect.DeepEqual(got, []string{e.article("1")}) {
		t.Errorf("group:news = %v, want [%s]", got, e.article("1"))
	}
}

// TestArticleGroups: the record of an article's groups follows every post,
// add and remove, and reads back sorted; an unknown article is not found.
func TestArticleGroups(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "grouped", "redis", "books")
	lone := e.post("bob", "alone")
	check := func(id string, want ...string) {
		t.Helper()
		got, err := groupsOf(e.store.Article(ctx, id))
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") || got == nil {
			t.Errorf("Article.Groups(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
	check(id, "books", "redis")
	check(lone)
	if err := e.store.AddToGroups(ctx, id, "go", "books"); err != nil {
		t.Fatal(err)
	}
	check(id, "books", "go", "redis")
	if err := e.store.RemoveFromGroups(ctx, id, "redis", "none"); err != nil {
		t.Fatal(err)
	}
	check(id, "books", "go")
	if err := e.store.RemoveFromGroups(ctx, id, "books", "go"); err != nil {
		t.Fatal(err)
	}
	check(id)
	if e.exists(e.key("groups:" + id)) {
		t.Errorf("an empty record is kept")
	}
	if _, err := groupsOf(e.store.Article(ctx, "99")); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Article.Groups(99) = %v, want ErrNotFound", err)
	}
	if _, err := groupsOf(e.store.Article(ctx, "x")); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Article.Groups(x) = %v, want ErrInvalid", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestLongestGroupNameInBytes: a group name of MaxGroupLen letters of four
// bytes each, the longest in bytes, goes through a post, a vote and a
// deletion with live groups and every order kept, as any other name does:
// the scripts check names read back from Redis by their length in bytes.
func TestLongestGroupNameInBytes(t *testing.T) {
	t.Parallel()
	letter := "𝔸"
	if r, _ := utf8.DecodeRuneInString(letter); !unicode.IsLetter(r) {
		letter = "𠀀"
	}
	name := strings.Repeat(letter, voting.MaxGroupLen)
	if r, _ := utf8.DecodeRuneInString(letter); !unicode.IsLetter(r) || len(name) != utf8.UTFMax*voting.MaxGroupLen {
		t.Fatalf("%q is no name of %d four-byte letters", name, voting.MaxGroupLen)
	}
	e := newEnv(t, voting.WithLiveGroups(), voting.WithOrders(voting.Orders()...))
	id, err := e.store.PostArticle(ctx, "alice", "long name", "https://example.com/long", name)
	if err != nil {
		t.Fatalf("PostArticle: %v", err)
	}
	if err := e.store.Vote(ctx, "bob", id, voting.Up); err != nil {
		t.Fatalf("Vote: %v", err)
	}
	a, err := e.store.Article(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.do("ZSCORE", e.key("live:score:"+name), e.article(id)); got == nil {
		t.Errorf("live:score:%s lacks the article", name)
	} else if f, _ := redis.Float64(got, nil); f != a.RankingScore || a.Upvotes != 2 {
		t.Errorf("live:score:%s gives %v; the article has score %v and %d votes, want 2", name, f, a.RankingScore, a.Upvotes)
	}
	if got, err := e.store.GetGroupArticles(ctx, name, 1, voting.ByScore); err != nil || len(got) != 1 || got[0].ID != id {
		t.Errorf("GetGroupArticles = %v, %v; want [%s]", idsOf(got), err, id)
	}
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatalf("DeleteArticle: %v", err)
	}
	member := e.article(id)
	for _, line := range strings.Split(e.dump(), "\n") {
		key, _, _ := strings.Cut(line, " ")
		if strings.HasSuffix(key, ":"+id) || mentions(line, member) {
			t.Errorf("after the deletion a key mentions the article: %s", line)
		}
	}
}

// mentions reports whether s holds member as a whole: not followed by
// another digit, so that article:1 is not found in article:10.
func mentions(s, member string) bool {
	for i := strings.Index(s, member); i >= 0; {
		end := i + len(member)
		if end == len(s) || s[end] < '0' || s[end] > '9' {
			return true
		}
		next := strings.Index(s[end:], member)
		if next < 0 {
			return false
		}
		i = end + next
	}
	return false
}

// postGroupPages posts nine articles a minute apart, seven of them (all but
// 6 and 9) in the group "g", with these extra votes (net), so that the
// group's pages by score and by time differ and the two articles outside it
// would top the score order. It returns each article's score less start's
// Unix seconds, by id.
//
//	id   posted  net votes  score - start
//	1     60 s       4         1788
//	2    120 s       0          120
//	3    180 s       1          612
//	4    240 s       2         1104
//	5    300 s       1          732
//	6    360 s       6         2952   not in g
//	7    420 s      -1          -12
//	8    480 s       1          912
//	9    540 s       1          972   not in g
func postGroupPages(e *env) map[string]float64 {
	e.t.Helper()
	extra := map[int]int{1: 3, 2: -1, 4: 1, 6: 5, 7: -2}
	scores := map[string]float64{}
	for i := 1; i <= 9; i++ {
		e.advance(time.Minute)
		var groups []string
		if i != 6 && i != 9 {
			groups = []string{"g"}
		}
		id := e.post("poster", fmt.Sprintf("article %d", i), groups...)
		if id != fmt.Sprint(i) {
			e.t.Fatalf("article %d has id %s", i, id)
		}
		n := extra[i]
		for v := 0; v < n; v++ {
			e.vote(fmt.Sprintf("up%d", v), id, voting.Up)
		}
		for v := 0; v < -n; v++ {
			e.vote(fmt.Sprintf("down%d", v), id, voting.Down)
		}
		scores[id] = float64(60*i + 432*(1+n))
	}
	return scores
}

func TestGroupPagesPastTheFirst(t *testing.T) {
	t.Parallel()
	pages := map[voting.Order]map[int][]string{
		voting.ByScore: {1: {"1", "4", "8"}, 2: {"5", "3", "2"}, 3: {"7"}, 4: {}, 1000: {}},
		voting.ByTime:  {1: {"8", "7", "5"}, 2: {"4", "3", "2"}, 3: {"1"}, 4: {}, 1000: {}},
	}
	for _, ttl := range []time.Duration{voting.DefaultGroupCacheTTL, 0} {
		t.Run(fmt.Sprintf("cache TTL %v", ttl), func(t *testing.T) {
			e := newEnv(t, voting.WithPageSize(3), voting.WithGroupCacheTTL(ttl))
			scores := postGroupPages(e)
			for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
				// Page 2 first, so that it is the one that builds the cache.
				for _, page := range []int{2, 1, 3, 4, 1000} {
					articles, err := e.store.GetGroupArticles(ctx, "g", page, order)
					if err != nil {
						t.Fatalf("GetGroupArticles(g, %d, %v): %v", page, order, err)
					}
					if got, want := idsOf(articles), pages[order][page]; !reflect.DeepEqual(got, want) {
						t.Errorf("group g %v page %d = %v, want %v", order, page, got, want)
					}
					for _, a := range articles {
						if want := unix(start) + scores[a.ID]; a.RankingScore != want {
							t.Errorf("article %s listed with score %v, want %v", a.ID, a.RankingScore, want)
						}
					}
				}
			}
		})
	}
}

// TestGroupListingOrdersScoresBelowOne: a group's listing orders scores and
// times below 1 as the site's listing does. A group cache built with
// ZINTERSTORE ... AGGREGATE MAX against the group set's score of 1 would
// lift every score and time below 1 to 1, listing such articles in
// member-name order.
func TestGroupListingOrdersScoresBelowOne(t *testing.T) {
	t.Parallel()
	const weight = 1e9
	e := newEnv(t, voting.WithVoteWeight(weight))
	// Each article gets bob's down-vote, and the last two more, so that
	// with W = 1e9 every score is its time (or less): before 1970, or
	// within its first second, or 2 W below a time of 2026.
	articles := []struct {
		at     time.Time
		groups []string
		downs  int
	}{
		{time.Unix(-1000, 0), []string{"g"}, 1},       // 1: -1000
		{time.Unix(-3000, 0), []string{"g"}, 1},       // 2: -3000
		{time.Unix(-2000, 0), []string{"g"}, 1},       // 3: -2000
		{time.Unix(-1500, 0), nil, 1},                 // 4: -1500, in no group
		{time.Unix(0, 500_000_000), []string{"g"}, 1}, // 5: 0.5
		{start, []string{"g"}, 3},                     // 6: 1795305600 - 2e9
		{time.Unix(-999, 0), []string{"h"}, 1},        // 7: -999, another group
	}
	for i, a := range articles {
		e.clock.set(a.at)
		id := e.post("alice", fmt.Sprintf("article %d", i+1), a.groups...)
		for d := 0; d < a.downs; d++ {
			e.vote([]string{"bob", "carol", "dave"}[d], id, voting.Down)
		}
	}
	wantIDs := map[voting.Order][]string{
		voting.ByScore: {"5", "1", "3", "2", "6"},
		voting.ByTime:  {"6", "5", "1", "3", "2"},
	}
	inGroup := map[string]bool{}
	for _, m := range e.strs("SMEMBERS", e.key("group:g")) {
		inGroup[strings.TrimPrefix(m, e.key("article:"))] = true
	}
	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		all, err := e.store.GetArticles(ctx, 1, order)
		if err != nil {
			t.Fatal(err)
		}
		var want []voting.Article
		for _, a := range all {
			if inGroup[a.ID] {
				want = append(want, a)
			}
		}
		got, err := e.store.GetGroupArticles(ctx, "g", 1, order)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(idsOf(got), wantIDs[order]) {
			t.Errorf("group g %v = %v, want %v", order, idsOf(got), wantIDs[order])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("group g %v:\n got %+v\nwant %+v (the site's listing, filtered)", order, got, want)
		}
	}
	e.checkInvariants(weight, voting.DefaultCutoff)
}

func TestEmptyGroupLeavesNoCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("alice", "ungrouped")
	for _, group := range []string{"nothing", "none"} {
		if group == "none" {
			id := e.post("alice", "grouped", "none")
			e.do("DEL", e.article(id), e.key("score:"), e.key("time:"))
		}
		before := e.dump()
		for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
			articles, err := e.store.GetGroupArticles(ctx, group, 1, order)
			if err != nil || len(articles) != 0 {
				t.Errorf("empty group %s = %v, %v; want none", group, articles, err)
			}
		}
		if after := e.dump(); after != before {
			t.Errorf("listing an empty group wrote:\nbefore %s\nafter  %s", before, after)
		}
	}
}

func TestGroupCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache)
	a := e.post("alice", "first", "news")
	e.advance(time.Second)
	b := e.post("alice", "second", "news")
	list := func() []string {
		t.Helper()
		articles, err := e.store.GetGroupArticles(ctx, "news", 1, voting.ByScore)
		if err != nil {
			t.Fatal(err)
		}
		return idsOf(articles)
	}
	if got := list(); !reflect.DeepEqual(got, []string{b, a}) {
		t.Fatalf("group = %v, want [%s %s]", got, b, a)
	}
	// A vote lifts a above b, but the cached order stands until the TTL.
	e.vote("bob", a, voting.Up)
	articles, _ := e.store.GetGroupArticles(ctx, "news", 1, voting.ByScore)
	if got := idsOf(articles); !reflect.DeepEqual(got, []string{b, a}) {
		t.Errorf("cached group = %v, want the cached order [%s %s]", got, b, a)
	}
	if articles[1].Upvotes != 2 {
		t.Errorf("a listed article is read fresh: votes = %d, want 2", articles[1].Upvotes)
	}
	if e.real() {
		// A real server's TTL runs on real time: drop the cache by hand.
		e.do("DEL", e.key("score:news"))
	} else {
		e.advance(voting.DefaultGroupCacheTTL)
		if e.exists(e.key("score:news")) {
			t.Fatal("group cache outlived its TTL")
		}
	}
	if got := list(); !reflect.DeepEqual(got, []string{a, b}) {
		t.Errorf("rebuilt group = %v, want [%s %s]", got, a, b)
	}
}

func TestGroupCacheTTLOption(t *testing.T) {
	t.Parallel()
	const ttl = 45*time.Second + 250*time.Millisecond
	e := newEnv(t, voting.WithGroupCacheTTL(ttl))
	a := e.post("alice", "first", "news")
	e.advance(time.Second)
	b := e.post("alice", "second", "news")
	list := func(order voting.Order) []string {
		t.Helper()
		articles, err := e.store.GetGroupArticles(ctx, "news", 1, order)
		if err != nil {
			t.Fatal(err)
		}
		return idsOf(articles)
	}
	caches := []string{e.key("score:news"), e.key("time:news")}
	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		if got := list(order); !reflect.DeepEqual(got, []string{b, a}) {
			t.Fatalf("group %v = %v, want [%s %s]", order, got, b, a)
		}
	}
	for _, k := range caches {
		got := e.pttl(k)
		if e.real() && (got > ttl || got <= ttl-time.Second) || !e.real() && got != ttl {
			t.Errorf("%s PTTL = %v, want %v", k, got, ttl)
		}
	}

	// A vote lifts a above b and c joins the group; the listings keep their
	// cached order and members until the TTL is out, to the millisecond.
	e.vote("bob", a, voting.Up)
	e.advance(time.Second)
	c := e.post("carol", "third", "news")
	if !e.real() {
		e.advance(ttl - time.Second - time.Millisecond)
	}
	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		if got := list(order); !reflect.DeepEqual(got, []string{b, a}) {
			t.Errorf("group %v within the TTL = %v, want the cached [%s %s]", order, got, b, a)
		}
	}
	if e.real() {
		t.Log("a real server's TTLs run on real time: the cache's expiry is checked on miniredis")
		return
	}
	e.advance(time.Millisecond)
	for _, k := range caches {
		if e.exists(k) {
			t.Errorf("%s outlived its TTL", k)
		}
	}
	want := map[voting.Order][]string{voting.ByScore: {a, c, b}, voting.ByTime: {c, b, a}}
	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		if got := list(order); !reflect.DeepEqual(got, want[order]) {
			t.Errorf("group %v after the TTL = %v, want %v", order, got, want[order])
		}
	}
}

func TestGroupCacheTTLZeroIsAlwaysFresh(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithGroupCacheTTL(0))
	a := e.post("alice", "first", "news")
	e.advance(time.Second)
	b := e.post("alice", "second", "news")
	for _, want := range [][]string{{b, a}, {a, b}} {
		articles, err := e.store.GetGroupArticles(ctx, "news", 1, voting.ByScore)
		if err != nil {
			t.Fatal(err)
		}
		if got := idsOf(articles); !reflect.DeepEqual(got, want) {
			t.Errorf("group = %v, want %v", got, want)
		}
		if e.exists(e.key("score:news")) {
			t.Error("a group listing with no cache left its intersection behind")
		}
		e.vote("bob", a, voting.Up)
	}
}

func TestGroupCacheTTLZeroKeepsNoCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithGroupCacheTTL(0))
	a := e.post("alice", "first", "news")
	e.advance(time.Second)
	b := e.post("alice", "second", "news")
	keys := e.keys()
	want := map[voting.Order][]string{voting.ByScore: {b, a}, voting.ByTime: {b, a}}
	for round := 0; round < 2; round++ {
		for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
			articles, err := e.store.GetGroupArticles(ctx, "news", 1, order)
			if err != nil {
				t.Fatal(err)
			}
			if got := idsOf(articles); !reflect.DeepEqual(got, want[order]) {
				t.Errorf("round %d: group %v = %v, want %v", round, order, got, want[order])
			}
			if after := e.keys(); !reflect.DeepEqual(after, keys) {
				t.Errorf("round %d: a group listing %v with no cache left keys: %v, before %v", round, order, after, keys)
			}
		}
		// With no cache, a vote shows at once.
		e.vote("bob", a, voting.Up)
		keys = e.keys()
		want[voting.ByScore] = []string{a, b}
	}
}

func TestConcurrentReadersBuildAColdGroupOnce(t *testing.T) {
	// A server of its own: INFO commandstats counts every client's
	// commands, and other tests of the suite may list groups meanwhile.
	srv := startServer(t)
	e := newEnvPool(t, srv.pool(), "", bookCache)
	for i := 0; i < 50; i++ {
		e.post("alice", fmt.Sprintf("grouped %d", i), "busy")
	}
	intersections := func() int64 {
		info := e.str("INFO", "commandstats")
		for _, line := range strings.Split(info, "\r\n") {
			if rest, ok := strings.CutPrefix(line, "cmdstat_zinterstore:calls="); ok {
				n, err := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				if err != nil {
					t.Fatalf("commandstats line %q: %v", line, err)
				}
				return n
			}
		}
		return 0
	}
	before := intersections()
	together(20, func(int) {
		articles, err := e.store.GetGroupArticles(ctx, "busy", 1, voting.ByScore)
		if err != nil || len(articles) != voting.DefaultPageSize {
			t.Errorf("GetGroupArticles = %d articles, %v", len(articles), err)
		}
	})
	if n := intersections() - before; n != 1 {
		t.Errorf("20 concurrent readers built the group %d times, want once", n)
	}
}

// TestLiveGroupsMatchTheSiteListings posts, votes, adds to groups and
// takes out of them at random over a year and a half of simulated time,
// with every order kept and live groups on; after every write, each group's
// listing of each order is the site's listing filtered to the group, with
// nothing stale, and agrees with the model.
func TestLiveGroupsMatchTheSiteListings(t *testing.T) {
	t.Parallel()
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
		for _, o := range voting.View(e.store).Orders {
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
	t.Parallel()
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
				err = e.store.Vote(ctx, fmt.Sprintf("user%d", rng.Intn(6)), id, voting.Direction(1+rng.Intn(3)))
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

// TestLiveVoteMovesEveryKind: one down-vote on an article in a group moves
// its entries in the group's live indexes of every kind of order: score,
// net votes and controversy, to exactly the site's values.
func TestLiveVoteMovesEveryKind(t *testing.T) {
	t.Parallel()
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

// TestLiveVoteRefusesARecordOfNoGroup: a record of an article's groups
// holding what no group is named (a brace would take the vote script's
// keys out of the namespace's Redis Cluster slot) is refused, naming the
// record, and the vote writes nothing.
func TestLiveVoteRefusesARecordOfNoGroup(t *testing.T) {
	t.Parallel()
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

// TestLeavingAGroupLeavesItsCachedListings: with the book's cached group
// listings, an article that leaves a group, deleted or taken out of it,
// leaves the group's cached listing of every order at once, and a deletion
// after a removal leaves nothing of it there.
func TestLeavingAGroupLeavesItsCachedListings(t *testing.T) {
	t.Parallel()
	for _, leave := range []struct {
		name string
		call func(s *voting.Store, id string) error
	}{
		{"deleted", func(s *voting.Store, id string) error { return s.DeleteArticle(ctx, id) }},
		{"removed, then deleted", func(s *voting.Store, id string) error {
			if err := s.RemoveFromGroups(ctx, id, "go"); err != nil {
				return err
			}
			return s.DeleteArticle(ctx, id)
		}},
	} {
		t.Run(leave.name, func(t *testing.T) {
			e := newEnv(t, bookCache, voting.WithOrders(voting.ByVotes))
			keep := e.post("alice", "kept", "go")
			id := e.post("bob", "leaving", "go")
			for _, o := range voting.View(e.store).Orders {
				if _, err := e.store.GetGroupArticles(ctx, "go", 1, o); err != nil {
					t.Fatal(err)
				}
			}
			if err := leave.call(e.store, id); err != nil {
				t.Fatal(err)
			}
			for _, o := range voting.View(e.store).Orders {
				if got := e.strs("ZRANGE", e.key(o.String()+":go"), 0, -1); fmt.Sprint(got) != "["+e.article(keep)+"]" {
					t.Errorf("%s:go = %v after the article left, want only %s", o, got, e.article(keep))
				}
				if got := idsOf(listAll(t, e.store, "go", o)); fmt.Sprint(got) != "["+keep+"]" {
					t.Errorf("group go by %v lists %v, want [%s]", o, got, keep)
				}
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

func TestGroupsAreExact(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithPageSize(2))
	a := e.post("alice", "a", "go", "redis")
	b := e.post("bob", "b", "go")
	c := e.post("carol", "c", "go", "lua")
	check := func(when string, want ...voting.GroupSize) {
		t.Helper()
		var all []voting.GroupSize
		for page := 1; ; page++ {
			got, err := two(e.store.Groups(ctx, voting.Paging{Page: page}))
			if err != nil {
				t.Fatalf("%s: Groups(%d): %v", when, page, err)
			}
			if len(got) == 0 {
				break
			}
			all = append(all, got...)
		}
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(all, want) {
			t.Errorf("%s: Groups = %v, want %v", when, all, want)
		}
		if n, err := e.store.CountGroups(ctx); err != nil || n != int64(len(want)) {
			t.Errorf("%s: CountGroups = %d, %v; want %d", when, n, err, len(want))
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	check("after the posts", voting.GroupSize{Name: "go", Articles: 3}, voting.GroupSize{Name: "redis", Articles: 1},
		voting.GroupSize{Name: "lua", Articles: 1})
	if err := e.store.AddToGroups(ctx, b, "lua", "go"); err != nil { // go again: no change
		t.Fatal(err)
	}
	check("after AddToGroups", voting.GroupSize{Name: "go", Articles: 3}, voting.GroupSize{Name: "lua", Articles: 2},
		voting.GroupSize{Name: "redis", Articles: 1})
	if err := e.store.RemoveFromGroups(ctx, a, "redis", "lua"); err != nil { // not in lua
		t.Fatal(err)
	}
	check("after RemoveFromGroups", voting.GroupSize{Name: "go", Articles: 3}, voting.GroupSize{Name: "lua", Articles: 2})
	if err := e.store.DeleteArticle(ctx, c); err != nil {
		t.Fatal(err)
	}
	check("after DeleteArticle", voting.GroupSize{Name: "go", Articles: 2}, voting.GroupSize{Name: "lua", Articles: 1})
	for _, id := range []string{a, b} {
		if err := e.store.DeleteArticle(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	check("after the last deletion")
	if e.exists(e.key("groupsizes:")) {
		t.Error("groupsizes: is left with no group")
	}
	if _, err := two(e.store.Groups(ctx, voting.Paging{Page: -1})); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Groups(-1) = %v, want ErrInvalid", err)
	}
}

// TestRefusedPostLeavesGroupSizes: a post refused at its last fallible
// write, the groups' sizes, undoes every earlier one.
func TestRefusedPostLeavesGroupSizes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma(), voting.WithUniqueLinks())
	e.post("alice", "first", "go")
	e.do("RENAME", e.key("groupsizes:"), e.key("aside"))
	e.do("SADD", e.key("groupsizes:"), "go")
	before := e.dump()
	if _, err := e.store.PostArticle(ctx, "bob", "second", "https://example.com/second", "go", "lua"); !errors.Is(err, voting.ErrCorrupt) ||
		!strings.Contains(err.Error(), "groupsizes:") {
		t.Errorf("post with groupsizes: a set = %v, want ErrCorrupt naming it", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("the refused post wrote:\n%s\nwas:\n%s", after, before)
	}
}

// TestGroupSizesOfBookMembers: a group the book's code filled
// gets its size from Reindex; joins, leaves and deletions after keep it.
func TestGroupSizesOfBookMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, id := range []string{"1", "2", "3"} {
		e.bookPost(id, "alice", float64(start.Unix()))
		e.do("SADD", e.key("group:news"), e.article(id))
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	id := e.post("bob", "b", "news")
	if err := e.store.AddToGroups(ctx, "1", "news", "tech"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.RemoveFromGroups(ctx, id, "tech", "news"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.DeleteArticle(ctx, "2"); err != nil {
		t.Fatal(err)
	}
	got, err := two(e.store.Groups(ctx, voting.Paging{Page: 1}))
	if want := []voting.GroupSize{{Name: "news", Articles: 2}, {Name: "tech", Articles: 1}}; err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Groups = %v, %v; want %v", got, err, want)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}
