package voting_test

// Tests of posting and reading articles (articles.go, article_reads.go): the book's layout
// they are stored in, the book's own data, fractional times and large ids.

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
)

func TestPostArticleWritesTheBookLayout(t *testing.T) {
	t.Parallel()
	// A Store that lists groups through the book's cache makes a namespace
	// with no live group indexes: the book's layout and the library's own.
	e := newEnv(t, voting.WithGroupCacheTTL(voting.DefaultGroupCacheTTL))
	id, err := e.store.PostArticle(ctx, "alice", "Redis in Action", "https://example.com/ria", "redis", "books")
	if err != nil {
		t.Fatal(err)
	}
	if id != "1" {
		t.Errorf("first id = %q, want 1", id)
	}
	now := unix(start)
	member := e.article("1")
	if got := e.str("GET", e.key("article:")); got != "1" {
		t.Errorf("counter = %q, want 1", got)
	}
	wantHash := map[string]string{
		"title": "Redis in Action", "link": "https://example.com/ria", "poster": "alice",
		"time": strconv.FormatInt(start.Unix(), 10), "votes": "1",
	}
	if got := e.hash(member); !reflect.DeepEqual(got, wantHash) {
		t.Errorf("hash = %v, want %v", got, wantHash)
	}
	if got, want := e.zset(e.key("score:")), []string{fmt.Sprintf("%s=%d", member, int64(now)+432)}; !reflect.DeepEqual(got, want) {
		t.Errorf("score: = %v, want %v", got, want)
	}
	if got, want := e.zset(e.key("time:")), []string{fmt.Sprintf("%s=%d", member, int64(now))}; !reflect.DeepEqual(got, want) {
		t.Errorf("time: = %v, want %v", got, want)
	}
	if got := e.strs("SMEMBERS", e.key("voted:1")); !reflect.DeepEqual(got, []string{"alice"}) {
		t.Errorf("voted:1 = %v, want [alice]", got)
	}
	if ttl := e.pttl(e.key("voted:1")); ttl > voting.DefaultCutoff || ttl < voting.DefaultCutoff-5*time.Second {
		t.Errorf("voted:1 TTL = %v, want the cutoff %v", ttl, voting.DefaultCutoff)
	}
	for _, g := range []string{"redis", "books"} {
		if got := e.strs("SMEMBERS", e.key("group:"+g)); !reflect.DeepEqual(got, []string{member}) {
			t.Errorf("group:%s = %v, want [%s]", g, got, member)
		}
	}
	// The book's keys, and this library's record of the article's groups,
	// sizes of the namespace's groups, index of the poster's articles, the
	// namespace's settings and its count of the articles indexed.
	if got := e.strs("SMEMBERS", e.key("groups:1")); !reflect.DeepEqual(sorted(got), []string{"books", "redis"}) {
		t.Errorf("groups:1 = %v, want [books redis]", got)
	}
	if got, want := e.zset(e.key("groupsizes:")), []string{"books=1", "redis=1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("groupsizes: = %v, want %v", got, want)
	}
	if got, want := e.zset(e.key("posts:alice")), []string{fmt.Sprintf("%s=%d", member, int64(now))}; !reflect.DeepEqual(got, want) {
		t.Errorf("posts:alice = %v, want %v", got, want)
	}
	wantKeys := []string{"article:", "article:1", "group:books", "group:redis", "groups:1", "groupsizes:", "indexed:", "posts:alice",
		"score:", "settings:", "time:", "voted:1"}
	for i := range wantKeys {
		wantKeys[i] = e.key(wantKeys[i])
	}
	if got := e.keys(); !reflect.DeepEqual(got, wantKeys) {
		t.Errorf("keys = %v, want %v", got, wantKeys)
	}

	e.advance(90 * time.Second)
	id, err = e.store.PostArticle(ctx, "bob", "Second", "http://example.com/2")
	if err != nil || id != "2" {
		t.Fatalf("second PostArticle = %q, %v; want 2", id, err)
	}
	if got := e.zscore(e.key("time:"), e.article("2")); got != now+90 {
		t.Errorf("second time = %v, want %v", got, now+90)
	}
}

func TestPostArticleKeepsFractionalTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock.set(time.Unix(1795304999, 330980000))
	id := e.post("alice", "fractional")
	if got := e.hash(e.article(id))["time"]; got != "1795304999.33098" {
		t.Errorf("time = %q, want 1795304999.33098", got)
	}
	if got := e.zscore(e.key("score:"), e.article(id)); got != 1795304999.33098+432 {
		t.Errorf("score = %v, want %v", got, 1795304999.33098+432)
	}
	a, err := e.store.Article(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Unix(1795304999, 330980000).UTC(); !a.Posted.Equal(want) {
		t.Errorf("Posted = %v, want %v", a.Posted, want)
	}
}

// TestPostArticleStoresFractionalTimesExactly: a fractional posting time is
// written exactly, before 1970 too (not a second early, "-1.75" for -0.25),
// and reads back as the time it was posted at.
func TestPostArticleStoresFractionalTimesExactly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		at   time.Time
		want string
	}{
		{time.Unix(-14182940, 500_000_000), "-14182939.5"},
		{time.Unix(-1, 750_000_000), "-0.25"},
		{time.Unix(-2, 999_999_000), "-1.000001"},
		{time.Unix(0, 500_000_000), "0.5"},
		{time.Unix(1795305600, 123_456_000), "1795305600.123456"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := newEnv(t)
			e.clock.set(tt.at)
			id := e.post("alice", "when")
			member := e.article(id)
			if got := e.hash(member)["time"]; got != tt.want {
				t.Errorf("time = %q, want %q", got, tt.want)
			}
			a, err := e.store.Article(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Posted.Equal(tt.at) {
				t.Errorf("Posted = %v, want %v", a.Posted, tt.at.UTC())
			}
			posted, _ := strconv.ParseFloat(tt.want, 64)
			if got := e.zscore(e.key("time:"), member); got != posted {
				t.Errorf("time: = %v, want %v", got, posted)
			}
			if got := e.zscore(e.key("score:"), member); got != posted+voting.DefaultVoteWeight {
				t.Errorf("score: = %v, want %v", got, posted+voting.DefaultVoteWeight)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestPostArticleKeepsLargeIdsExact: ids past 2^53, up to the largest
// int64, are kept exact, not rounded as INCR's reply read as a Lua number
// would be, nor the largest turned negative; a post past the largest id
// fails and writes nothing.
func TestPostArticleKeepsLargeIdsExact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct{ counter, want string }{
		{"9007199254740992", "9007199254740993"}, // 2^53: the next id is odd
		{"9007199254740993", "9007199254740994"},
		{"9223372036854775806", "9223372036854775807"}, // the largest int64
	} {
		e.do("SET", e.key("article:"), tt.counter)
		id, err := e.store.PostArticle(ctx, "alice", "big", "https://example.com/big")
		if err != nil || id != tt.want {
			t.Errorf("PostArticle after %s = %q, %v; want %s", tt.counter, id, err, tt.want)
			continue
		}
		if got := e.str("GET", e.key("article:")); got != tt.want {
			t.Errorf("counter = %s, want %s", got, tt.want)
		}
		if got := e.hash(e.article(tt.want)); got["title"] != "big" || got["votes"] != "1" {
			t.Errorf("article:%s = %v, want the new article", tt.want, got)
		}
		a, err := e.store.Article(ctx, tt.want)
		if err != nil || a.ID != tt.want || a.Title != "big" || a.Upvotes != 1 {
			t.Errorf("Article(%s) = %+v, %v", tt.want, a, err)
		}
	}
	// The counter is at the largest id: no more articles.
	before := e.dump()
	if id, err := e.store.PostArticle(ctx, "alice", "one too many", "https://example.com/more"); err == nil {
		t.Errorf("PostArticle past the largest id = %q, want an error", id)
	}
	if after := e.dump(); after != before {
		t.Errorf("PostArticle past the largest id wrote:\nbefore %s\nafter  %s", before, after)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestPostArticleRefusesATakenID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("alice", "one")
	e.do("SET", e.key("article:"), 0) // the counter was reset
	if _, err := e.store.PostArticle(ctx, "bob", "clash", "https://example.com/"); err == nil {
		t.Fatal("PostArticle over an existing article succeeded")
	}
	if got := e.hash(e.article("1"))["poster"]; got != "alice" {
		t.Errorf("article 1's poster = %q, want alice", got)
	}
}

func TestArticle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "read me")
	e.vote("bob", id, voting.Down)
	e.vote("carol", id, voting.Up)
	a, err := e.store.Article(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := voting.Article{
		ID: id, Title: "read me", Link: "https://example.com/read-me", Poster: "alice",
		Posted: start, Points: 1, Upvotes: 2, Downvotes: 1, RankingScore: unix(start) + 432, Groups: []string{},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("Article = %+v, want %+v", a, want)
	}
	if _, err := e.store.Article(ctx, "2"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Article(2) = %v, want ErrNotFound", err)
	}
}

func TestServesTheBooksData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	now := unix(start) - 0.6690195 // time.time() as the book would store it
	e.bookPost("1", "user:83271", now)
	e.do("SADD", e.key("group:programming"), e.article("1"))

	a, err := e.store.Article(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	if a.RankingScore != now+432 || a.Upvotes != 1 || a.Downvotes != 0 || a.Poster != "user:83271" {
		t.Errorf("Article = %+v", a)
	}
	if want := time.Unix(1795305599, 330981000).UTC(); !a.Posted.Equal(want) {
		t.Errorf("Posted = %v, want %v", a.Posted, want)
	}
	e.vote("user:1", "1", voting.Up)
	e.vote("user:2", "1", voting.Down)
	e.vote("user:2", "1", voting.Up)
	if got, want := e.zscore(e.key("score:"), e.article("1")), now+3*432; math.Abs(got-want) > 1e-6 {
		t.Errorf("score = %v, want %v", got, want)
	}
	if got := e.hash(e.article("1"))["votes"]; got != "3" {
		t.Errorf("votes = %q, want 3", got)
	}
	articles, err := e.store.GetGroupArticles(ctx, "programming", 1, voting.ByTime)
	if err != nil || len(articles) != 1 || articles[0].ID != "1" {
		t.Errorf("group listing = %v, %v", articles, err)
	}
	// Our next article takes the book's counter on.
	if id := e.post("alice", "ours"); id != "2" {
		t.Errorf("next id = %s, want 2", id)
	}
}

// TestArticlesReadsABatch: the articles of many ids in the order given, in
// one round trip, ids with no article left out, an id given twice given
// twice, each article as Article gives it; a malformed id is ErrInvalid.
func TestArticlesReadsABatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ids := postMany(e, 30)
	if err := e.store.DeleteArticle(ctx, ids[3]); err != nil {
		t.Fatal(err)
	}
	ask := []string{ids[7], "9999", ids[3], ids[0], ids[7], ids[29]}
	got, err := e.store.Articles(ctx, ask...)
	if err != nil {
		t.Fatal(err)
	}
	var want []voting.Article
	for _, id := range []string{ids[7], ids[0], ids[7], ids[29]} {
		a, err := e.store.Article(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, a)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Articles(%v) = %v, want %v", ask, got, want)
	}
	if got, err := e.store.Articles(ctx); err != nil || got == nil || len(got) != 0 {
		t.Errorf("Articles() = %v, %v; want an empty slice", got, err)
	}
	for _, bad := range [][]string{{"x"}, {ids[0], ""}, {"0" + ids[1]}} {
		if _, err := e.store.Articles(ctx, bad...); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("Articles(%q): %v, want ErrInvalid", bad, err)
		}
	}
	// Thousands of ids, more than one ZMSCORE takes, in one round trip.
	counter := roundtrip.New(e.redis())
	s, err := voting.New(counter, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	many := make([]string, 0, 2500)
	gone := 0
	for i := range cap(many) {
		many = append(many, ids[i%len(ids)])
		if i%len(ids) == 3 {
			gone++
		}
	}
	if _, err := s.Articles(ctx, many...); err != nil { // loads nothing: no script
		t.Fatal(err)
	}
	counter.Reset()
	got, err = s.Articles(ctx, many...)
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.Trips(); n != 1 {
		t.Errorf("Articles of %d ids took %d round trips, want 1", len(many), n)
	}
	if len(got) != len(many)-gone { // ids[3] is gone
		t.Fatalf("Articles of %d ids gave %d", len(many), len(got))
	}
	byID := map[string]voting.Article{}
	for _, id := range ids {
		if a, err := e.store.Article(ctx, id); err == nil {
			byID[id] = a
		}
	}
	for i, a := range got {
		if !reflect.DeepEqual(a, byID[a.ID]) {
			t.Fatalf("article %d of the batch = %+v, want %+v", i, a, byID[a.ID])
		}
	}
}

// TestEditArticleChangesTitleAndLinkAlone: an edit sets the title and the
// link and writes nothing else; no article is ErrNotFound, bad input
// ErrInvalid, and neither writes anything.
func TestEditArticleChangesTitleAndLinkAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), voting.WithUserHistory(time.Hour))
	id := e.post("alice", "first", "go", "redis")
	e.vote("bob", id, voting.Down)
	before := e.dump()
	if err := e.store.EditArticle(ctx, id, "First, edited", "https://example.com/edited"); err != nil {
		t.Fatal(err)
	}
	changed := dumpDiff(before, e.dump())
	if !strings.Contains(changed, "1 keys gone or changed") || !strings.Contains(changed, e.article(id)+" hash") {
		t.Errorf("the edit wrote more than the article's hash: %s", changed)
	}
	got, err := e.store.Article(ctx, id)
	want := voting.Article{ID: id, Title: "First, edited", Link: "https://example.com/edited", Poster: "alice",
		Posted: start, Upvotes: 1, Downvotes: 1, RankingScore: unix(start), Groups: []string{"go", "redis"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Article after the edit = %+v, %v; want %+v", got, err, want)
	}
	before = e.dump()
	for what, call := range map[string]func() error{
		"no article":  func() error { return e.store.EditArticle(ctx, "99", "t", "https://example.com/") },
		"bad id":      func() error { return e.store.EditArticle(ctx, "x", "t", "https://example.com/") },
		"blank title": func() error { return e.store.EditArticle(ctx, id, "  ", "https://example.com/") },
		"bad link":    func() error { return e.store.EditArticle(ctx, id, "t", "ftp://example.com/") },
	} {
		err := call()
		want := voting.ErrInvalid
		if what == "no article" {
			want = voting.ErrNotFound
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("refused edits wrote: %s", dumpDiff(before, after))
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestAUsersArticlesNewestFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithPageSize(2))
	var alice []string
	for i := range 3 {
		alice = append(alice, e.post("alice", fmt.Sprintf("alice %d", i)))
		e.advance(time.Minute)
		e.post("bob", fmt.Sprintf("bob %d", i))
	}
	for page, want := range map[int][]string{1: {alice[2], alice[1]}, 2: {alice[0]}, 3: {}} {
		got, err := two(e.store.List(ctx, voting.Query{User: "alice", Order: voting.ByTime, Paging: voting.Paging{Page: page}}))
		if err != nil || !reflect.DeepEqual(idsOf(got), want) {
			t.Errorf("List(user alice, %d) = %v, %v; want %v", page, idsOf(got), err, want)
		}
	}
	if n, err := e.store.Count(ctx, voting.Query{User: "alice", Order: voting.ByTime}); n != 3 || err != nil {
		t.Errorf("Count(user alice) = %d, %v; want 3", n, err)
	}
	if n, err := e.store.Count(ctx, voting.Query{User: "nobody", Order: voting.ByTime}); n != 0 || err != nil {
		t.Errorf("Count(user nobody) = %d, %v; want 0", n, err)
	}
	// Each entry is the article's member scored with its posting time.
	first := fmt.Sprintf("%s=%d", e.article(alice[0]), start.Unix())
	if got := e.zset(e.key("posts:alice")); len(got) != 3 || got[0] != first {
		t.Errorf("posts:alice = %v, want 3 entries, the first %s", got, first)
	}
	if err := e.store.DeleteArticle(ctx, alice[1]); err != nil {
		t.Fatal(err)
	}
	got, err := two(e.store.List(ctx, voting.Query{User: "alice", Order: voting.ByTime, Paging: voting.Paging{Page: 1}}))
	if want := []string{alice[2], alice[0]}; err != nil || !reflect.DeepEqual(idsOf(got), want) {
		t.Errorf("after deleting %s, List(user) = %v, %v; want %v", alice[1], idsOf(got), err, want)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	before := e.dump()
	for _, bad := range []struct {
		user string
		page int
	}{{"alice", -1}, {"a\nb", 1}} {
		if _, err := two(e.store.List(ctx, voting.Query{User: bad.user, Order: voting.ByTime, Paging: voting.Paging{Page: bad.page}})); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("List(user %q, %d) = %v, want ErrInvalid", bad.user, bad.page, err)
		}
	}
	for _, q := range []voting.Query{
		{User: "a\nb", Order: voting.ByTime},
		{User: "alice"}, // by score: a user's articles are kept by time alone
		{User: "alice", Group: "go", Order: voting.ByTime},
	} {
		if _, err := e.store.Count(ctx, q); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("Count(%+v) = %v, want ErrInvalid", q, err)
		}
		if _, _, err := e.store.List(ctx, q); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("List(%+v) = %v, want ErrInvalid", q, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("bad input wrote:\n%s\nwas:\n%s", after, before)
	}
}
