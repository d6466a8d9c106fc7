package voting_test

// Tests of group listings past their first page, and of the group cache's
// time to live.

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

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
						if want := unix(start) + scores[a.ID]; a.Score != want {
							t.Errorf("article %s listed with score %v, want %v", a.ID, a.Score, want)
						}
					}
				}
			}
		})
	}
}

func TestGroupCacheTTLOption(t *testing.T) {
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

func TestGroupCacheTTLZeroKeepsNoCache(t *testing.T) {
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

// TestArticleGroups: the record of an article's groups follows every post,
// add and remove, and reads back sorted; an unknown article is not found.
func TestArticleGroups(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "grouped", "redis", "books")
	lone := e.post("bob", "alone")
	check := func(id string, want ...string) {
		t.Helper()
		got, err := e.store.ArticleGroups(ctx, id)
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") || got == nil {
			t.Errorf("ArticleGroups(%s) = %q, %v; want %q", id, got, err, want)
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
	if _, err := e.store.ArticleGroups(ctx, "99"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("ArticleGroups(99) = %v, want ErrNotFound", err)
	}
	if _, err := e.store.ArticleGroups(ctx, "x"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("ArticleGroups(x) = %v, want ErrInvalid", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexBuildsRecordsOfGroups: Reindex finds a namespace's groups
// with SCAN, and only its own though another namespace's prefix matches its
// own read as a glob, and records each article's groups from them; a
// member that is no article is passed over.
func TestReindexBuildsRecordsOfGroups(t *testing.T) {
	e := newEnv(t)
	open := func(prefix string) *voting.Store {
		s, err := voting.New(e.pool, voting.WithPrefix(e.prefix+prefix), voting.WithClock(e.clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	star, other := open("n*:"), open("nb:")
	for _, s := range []*voting.Store{star, other} {
		for range 3 {
			if _, err := s.PostArticle(ctx, "alice", "t", "https://example.com/"); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Groups as the book's code writes them: the sets alone.
	for _, g := range []struct{ prefix, name, id string }{
		{"n*:", "redis", "1"}, {"n*:", "redis", "2"}, {"n*:", "go", "2"}, {"nb:", "redis", "3"},
	} {
		e.do("SADD", e.key(g.prefix+"group:"+g.name), e.key(g.prefix+"article:"+g.id))
	}
	e.do("SADD", e.key("n*:group:redis"), "not-an-article", e.key("n*:article:99"))
	done, err := star.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done.Groups != 2 {
		t.Errorf("Reindex found %d groups, want 2: %+v", done.Groups, done)
	}
	for id, want := range map[string]string{"1": "redis", "2": "go redis", "3": ""} {
		if got, err := star.ArticleGroups(ctx, id); err != nil || strings.Join(got, " ") != want {
			t.Errorf("ArticleGroups(%s) = %v, %v; want %q", id, got, err, want)
		}
	}
	if e.exists(e.key("nb:groups:3")) || e.exists(e.key("n*:groups:99")) {
		t.Errorf("Reindex wrote a record outside its namespace or for no article: %v", e.keys())
	}
	// A record of the wrong type stops it, naming the key.
	e.do("SET", e.key("n*:groups:1"), "x")
	if err := star.Reindex(ctx); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("n*:groups:1")) {
		t.Errorf("Reindex with a record of the wrong type = %v, want ErrCorrupt naming it", err)
	}
}

// TestLongestGroupNameInBytes: a group name of MaxGroupLen letters of four
// bytes each, the longest in bytes, goes through a post, a vote and a
// deletion with live groups and every order kept, as any other name does:
// the scripts check names read back from Redis by their length in bytes.
func TestLongestGroupNameInBytes(t *testing.T) {
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
	} else if f, _ := redis.Float64(got, nil); f != a.Score || a.Votes != 2 {
		t.Errorf("live:score:%s gives %v; the article has score %v and %d votes, want 2", name, f, a.Score, a.Votes)
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
