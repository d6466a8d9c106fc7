package voting_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

var ctx = context.Background()

func TestNewRejectsBadOptions(t *testing.T) {
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return nil, errors.New("no dialing in this test") }}
	tests := []struct {
		name string
		opt  voting.Option
	}{
		{"negative weight", voting.WithVoteWeight(-1)},
		{"zero weight", voting.WithVoteWeight(0)},
		{"NaN weight", voting.WithVoteWeight(math.NaN())},
		{"infinite weight", voting.WithVoteWeight(math.Inf(1))},
		{"weight that overflows a score", voting.WithVoteWeight(1e308)},
		{"weight just past the largest", voting.WithVoteWeight(math.Nextafter(voting.MaxVoteWeight, math.Inf(1)))},
		{"zero cutoff", voting.WithCutoff(0)},
		{"sub-second cutoff", voting.WithCutoff(time.Millisecond)},
		{"zero page size", voting.WithPageSize(0)},
		{"huge page size", voting.WithPageSize(voting.MaxPageSize + 1)},
		{"negative group TTL", voting.WithGroupCacheTTL(-time.Second)},
		{"sub-millisecond group TTL", voting.WithGroupCacheTTL(time.Microsecond)},
		{"nil clock", voting.WithClock(nil)},
		{"prefix with space", voting.WithPrefix("my news:")},
		{"prefix with newline", voting.WithPrefix("news\n")},
		{"prefix too long", voting.WithPrefix(strings.Repeat("p", voting.MaxPrefixLen+1))},
		{"prefix not UTF-8", voting.WithPrefix("news\xff:")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := voting.New(pool, tt.opt)
			if !errors.Is(err, voting.ErrInvalid) {
				t.Fatalf("New = %v, %v; want an error wrapping ErrInvalid", s, err)
			}
		})
	}
	if _, err := voting.New(nil); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("New(nil) = %v; want ErrInvalid", err)
	}
	good := []voting.Option{
		voting.WithPrefix("{news}:"), voting.WithVoteWeight(voting.MaxVoteWeight), voting.WithCutoff(time.Second),
		voting.WithPageSize(voting.MaxPageSize), voting.WithGroupCacheTTL(0), voting.WithClock(time.Now),
	}
	s, err := voting.New(pool, good...)
	if err != nil {
		t.Fatalf("New with good options: %v", err)
	}
	if s.PageSize() != voting.MaxPageSize {
		t.Errorf("PageSize = %d, want %d", s.PageSize(), voting.MaxPageSize)
	}
}

func TestPostArticleWritesTheBookLayout(t *testing.T) {
	e := newEnv(t)
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
	// The book's keys, and this library's record of the article's groups
	// and set of the namespace's group names.
	if got := e.strs("SMEMBERS", e.key("groups:1")); !reflect.DeepEqual(sorted(got), []string{"books", "redis"}) {
		t.Errorf("groups:1 = %v, want [books redis]", got)
	}
	if got := e.strs("SMEMBERS", e.key("groupnames:")); !reflect.DeepEqual(sorted(got), []string{"books", "redis"}) {
		t.Errorf("groupnames: = %v, want [books redis]", got)
	}
	wantKeys := []string{"article:", "article:1", "group:books", "group:redis", "groupnames:", "groups:1", "score:", "time:", "voted:1"}
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

func TestPostArticleUsesPrefixAndOptions(t *testing.T) {
	e := newEnvPrefix(t, "news:", voting.WithVoteWeight(100.5), voting.WithCutoff(time.Hour))
	id := e.post("alice", "prefixed", "tech")
	if !strings.HasSuffix(e.prefix, "news:") {
		t.Fatalf("prefix %q does not end in news:", e.prefix)
	}
	member := e.key("article:" + id)
	if got := e.zscore(e.key("score:"), member); got != unix(start)+100.5 {
		t.Errorf("score = %v, want %v", got, unix(start)+100.5)
	}
	if got := e.strs("SMEMBERS", e.key("group:tech")); !reflect.DeepEqual(got, []string{member}) {
		t.Errorf("group = %v, want [%s]", got, member)
	}
	if ttl := e.pttl(e.key("voted:" + id)); ttl > time.Hour || ttl < time.Hour-5*time.Second {
		t.Errorf("voted TTL = %v, want 1h", ttl)
	}
	for _, k := range e.keys() {
		if !strings.HasPrefix(k, e.prefix) {
			t.Errorf("key %q is outside the prefix", k)
		}
	}
	// Every key of the namespace is there, under the prefix.
	if n := len(e.keys()); n != 8 {
		t.Errorf("%d keys, want 8: %v", n, e.keys())
	}
}

// voteState is what a vote test checks after each step.
type voteState struct {
	votes, downvotes string // hash fields; "" for absent
	net              int    // up minus down, for the score
	up, down         []string
}

func (e *env) checkVoteState(t *testing.T, id string, want voteState) {
	t.Helper()
	h := e.hash(e.article(id))
	if h["votes"] != want.votes || h["downvotes"] != want.downvotes {
		t.Errorf("votes, downvotes = %q, %q; want %q, %q", h["votes"], h["downvotes"], want.votes, want.downvotes)
	}
	posted, _ := strconv.ParseFloat(h["time"], 64)
	if got, wantScore := e.zscore(e.key("score:"), e.article(id)), posted+432*float64(want.net); got != wantScore {
		t.Errorf("score = %v, want %v", got, wantScore)
	}
	if got := e.strs("SMEMBERS", e.key("voted:"+id)); !reflect.DeepEqual(got, want.up) && len(got)+len(want.up) > 0 {
		t.Errorf("voted = %v, want %v", got, want.up)
	}
	if got := e.strs("SMEMBERS", e.key("downvoted:"+id)); !reflect.DeepEqual(got, want.down) && len(got)+len(want.down) > 0 {
		t.Errorf("downvoted = %v, want %v", got, want.down)
	}
}

func TestVote(t *testing.T) {
	type step struct {
		user string
		dir  voting.Direction
		want voteState
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"up-vote", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
		}},
		{"same up-vote twice changes nothing", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
		}},
		{"down-vote", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
		}},
		{"same down-vote twice changes nothing", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
		}},
		{"switch up to down moves two votes", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
		}},
		{"switch down to up moves two votes", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
			{"bob", voting.Up, voteState{"2", "0", 2, []string{"alice", "bob"}, nil}},
		}},
		{"take back an up-vote", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"bob", voting.None, voteState{"1", "", 1, []string{"alice"}, nil}},
		}},
		{"take back a down-vote", []step{
			{"bob", voting.Down, voteState{"1", "1", 0, []string{"alice"}, []string{"bob"}}},
			{"bob", voting.None, voteState{"1", "0", 1, []string{"alice"}, nil}},
		}},
		{"take back no vote changes nothing", []step{
			{"bob", voting.None, voteState{"1", "", 1, []string{"alice"}, nil}},
		}},
		{"poster takes back and votes again", []step{
			{"alice", voting.None, voteState{"0", "", 0, nil, nil}},
			{"alice", voting.Down, voteState{"0", "1", -1, nil, []string{"alice"}}},
			{"alice", voting.Up, voteState{"1", "0", 1, []string{"alice"}, nil}},
		}},
		{"many users", []step{
			{"bob", voting.Up, voteState{"2", "", 2, []string{"alice", "bob"}, nil}},
			{"carol", voting.Down, voteState{"2", "1", 1, []string{"alice", "bob"}, []string{"carol"}}},
			{"dave", voting.Down, voteState{"2", "2", 0, []string{"alice", "bob"}, []string{"carol", "dave"}}},
			{"carol", voting.Up, voteState{"3", "1", 2, []string{"alice", "bob", "carol"}, []string{"dave"}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := e.post("alice", "voted on")
			for i, s := range tt.steps {
				e.advance(time.Minute)
				e.vote(s.user, id, s.dir)
				t.Logf("step %d: %s votes %v", i, s.user, s.dir)
				e.checkVoteState(t, id, s.want)
			}
		})
	}
}

func TestVoteSetsExpireAtTheCutoff(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "expiring")
	e.vote("alice", id, voting.None) // the voted set is now gone
	if e.exists(e.key("voted:" + id)) {
		t.Fatal("voted set still exists after its only member left")
	}
	e.advance(24 * time.Hour)
	e.vote("bob", id, voting.Up)
	e.vote("carol", id, voting.Down)
	left := voting.DefaultCutoff - 24*time.Hour
	for _, k := range []string{"voted:" + id, "downvoted:" + id} {
		if ttl := e.pttl(e.key(k)); ttl > left || ttl < left-5*time.Second {
			t.Errorf("%s TTL = %v, want %v (the cutoff)", k, ttl, left)
		}
	}
	if e.real() {
		return // a real server's TTLs run on real time
	}
	e.advance(left)
	if e.exists(e.key("voted:"+id)) || e.exists(e.key("downvoted:"+id)) {
		t.Error("voter sets outlive the cutoff")
	}
}

func TestVoteErrors(t *testing.T) {
	e := newEnv(t, voting.WithCutoff(time.Hour))
	id := e.post("alice", "closing")
	before := e.dump()

	err := e.store.Vote(ctx, "bob", "99", voting.Up)
	if !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("vote on unknown article = %v, want ErrNotFound", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("vote on unknown article wrote:\nbefore %s\nafter  %s", before, after)
	}
	e.advance(time.Hour - time.Second)
	e.vote("bob", id, voting.Up) // a second before the cutoff
	e.advance(time.Second)       // the voter set expires now, on miniredis
	before = e.dump()
	for _, dir := range []voting.Direction{voting.Up, voting.Down, voting.None} {
		if err := e.store.Vote(ctx, "carol", id, dir); !errors.Is(err, voting.ErrVotingClosed) {
			t.Errorf("vote %v at the cutoff = %v, want ErrVotingClosed", dir, err)
		}
		if err := e.store.Vote(ctx, "bob", id, dir); !errors.Is(err, voting.ErrVotingClosed) {
			t.Errorf("vote %v by an earlier voter at the cutoff = %v, want ErrVotingClosed", dir, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("failed votes wrote:\nbefore %s\nafter  %s", before, after)
	}
}

func TestArticle(t *testing.T) {
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
		Posted: start, Score: unix(start) + 432, Votes: 2, Downvotes: 1,
	}
	if a != want {
		t.Errorf("Article = %+v, want %+v", a, want)
	}
	if _, err := e.store.Article(ctx, "2"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Article(2) = %v, want ErrNotFound", err)
	}
}

// postMany posts n articles a minute apart and gives article i (from 0)
// i%7 up-votes, so score and time order differ.
func postMany(e *env, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		e.advance(time.Minute)
		ids[i] = e.post("poster", fmt.Sprintf("article %d", i))
		for v := 0; v < i%7; v++ {
			e.vote(fmt.Sprintf("user%d", v), ids[i], voting.Up)
		}
	}
	return ids
}

// idsOf lists the ids of articles.
func idsOf(articles []voting.Article) []string {
	ids := make([]string, len(articles))
	for i, a := range articles {
		ids[i] = a.ID
	}
	return ids
}

// expectedOrder sorts ids as the Store should list them: by the stored
// score or time, highest first, ties broken by member name, highest first,
// as ZREVRANGE does.
func (e *env) expectedOrder(ids []string, order voting.Order) []string {
	e.t.Helper()
	index := e.key("score:")
	if order == voting.ByTime {
		index = e.key("time:")
	}
	type entry struct {
		id     string
		member string
		score  float64
	}
	entries := make([]entry, len(ids))
	for i, id := range ids {
		entries[i] = entry{id, e.article(id), e.zscore(index, e.article(id))}
	}
	for i := 1; i < len(entries); i++ {
		for j := i; j > 0; j-- {
			a, b := entries[j-1], entries[j]
			if a.score > b.score || (a.score == b.score && a.member > b.member) {
				break
			}
			entries[j-1], entries[j] = b, a
		}
	}
	out := make([]string, len(entries))
	for i, en := range entries {
		out[i] = en.id
	}
	return out
}

func TestGetArticles(t *testing.T) {
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
				if err != nil || a != want {
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

func TestGetArticlesSkipsGoneArticles(t *testing.T) {
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

func TestGetArticlesOnEmptyStore(t *testing.T) {
	e := newEnv(t)
	articles, err := e.store.GetArticles(ctx, 1, voting.ByScore)
	if err != nil || len(articles) != 0 {
		t.Errorf("GetArticles on nothing = %v, %v; want none", articles, err)
	}
	if articles == nil {
		t.Error("GetArticles gave a nil slice; want an empty one")
	}
}

func TestGroups(t *testing.T) {
	e := newEnv(t)
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

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j-1] > out[j]; j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}

func TestGroupCache(t *testing.T) {
	e := newEnv(t)
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
	if articles[1].Votes != 2 {
		t.Errorf("a listed article is read fresh: votes = %d, want 2", articles[1].Votes)
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

func TestGroupCacheTTLZeroIsAlwaysFresh(t *testing.T) {
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

func TestEmptyGroupLeavesNoCache(t *testing.T) {
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

func TestAddToGroupsOnUnknownArticleWritesNothing(t *testing.T) {
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

func TestUserVotes(t *testing.T) {
	e := newEnv(t, voting.WithCutoff(time.Hour))
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	c := e.post("alice", "c")
	e.vote("bob", a, voting.Up)
	e.vote("bob", b, voting.Down)
	got, err := e.store.UserVotes(ctx, "bob", a, b, c, "99", a)
	if err != nil {
		t.Fatal(err)
	}
	want := []voting.Direction{voting.Up, voting.Down, voting.None, voting.None, voting.Up}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UserVotes(bob) = %v, want %v", got, want)
	}
	got, err = e.store.UserVotes(ctx, "alice", a, b)
	if err != nil || !reflect.DeepEqual(got, []voting.Direction{voting.Up, voting.Up}) {
		t.Errorf("UserVotes(alice) = %v, %v; want [up up]", got, err)
	}
	got, err = e.store.UserVotes(ctx, "alice")
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("UserVotes with no ids = %v, %v; want an empty slice", got, err)
	}
}

// bookPost writes an article the way the book's Python code does, with
// time.time()'s fractional seconds.
func (e *env) bookPost(id, user string, now float64) {
	e.t.Helper()
	member := e.article(id)
	e.do("INCR", e.key("article:"))
	e.do("SADD", e.key("voted:"+id), user)
	e.do("EXPIRE", e.key("voted:"+id), 7*86400)
	e.do("HSET", member, "title", "from the book", "link", "http://example.com/book", "poster", user,
		"time", strconv.FormatFloat(now, 'f', -1, 64), "votes", 1)
	e.do("ZADD", e.key("score:"), now+432, member)
	e.do("ZADD", e.key("time:"), now, member)
}

func TestServesTheBooksData(t *testing.T) {
	e := newEnv(t)
	now := unix(start) - 0.6690195 // time.time() as the book would store it
	e.bookPost("1", "user:83271", now)
	e.do("SADD", e.key("group:programming"), e.article("1"))

	a, err := e.store.Article(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	if a.Score != now+432 || a.Votes != 1 || a.Downvotes != 0 || a.Poster != "user:83271" {
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

func TestPostArticleRefusesATakenID(t *testing.T) {
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

func TestBadInputWritesNothing(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "target", "news")
	long := strings.Repeat("x", 301)
	tests := []struct {
		name string
		call func() error
	}{
		{"empty poster", func() error { _, err := e.store.PostArticle(ctx, "", "t", "https://a.example/"); return err }},
		{"long poster", func() error {
			_, err := e.store.PostArticle(ctx, strings.Repeat("p", 101), "t", "https://a.example/")
			return err
		}},
		{"empty title", func() error { _, err := e.store.PostArticle(ctx, "p", "", "https://a.example/"); return err }},
		{"blank title", func() error { _, err := e.store.PostArticle(ctx, "p", "   ", "https://a.example/"); return err }},
		{"long title", func() error { _, err := e.store.PostArticle(ctx, "p", long, "https://a.example/"); return err }},
		{"title with control", func() error { _, err := e.store.PostArticle(ctx, "p", "a\x00b", "https://a.example/"); return err }},
		{"title not UTF-8", func() error { _, err := e.store.PostArticle(ctx, "p", "a\xffb", "https://a.example/"); return err }},
		{"relative link", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "/path"); return err }},
		{"ftp link", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "ftp://a.example/"); return err }},
		{"javascript link", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "javascript:alert(1)"); return err }},
		{"link without host", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "https:///x"); return err }},
		{"link with space", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "https://a.example/a b"); return err }},
		{"link whose :// is in its fragment", func() error {
			_, err := e.store.PostArticle(ctx, "p", "t", "http:#://example.com")
			return err
		}},
		{"link with only a port", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://:80/"); return err }},
		{"link with two ports", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://a.example:80:80/"); return err }},
		{"link with brackets in the host", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://a<b>/"); return err }},
		{"link with an IPv4 in brackets", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://[1.2.3.4]/"); return err }},
		{"bad group on post", func() error {
			_, err := e.store.PostArticle(ctx, "p", "t", "https://a.example/", "ok", "{x}")
			return err
		}},
		{"empty user", func() error { return e.store.Vote(ctx, "", id, voting.Up) }},
		{"user with newline", func() error { return e.store.Vote(ctx, "bob\n", id, voting.Up) }},
		{"user with trailing space", func() error { return e.store.Vote(ctx, "bob ", id, voting.Up) }},
		{"id 0", func() error { return e.store.Vote(ctx, "bob", "0", voting.Up) }},
		{"id -1", func() error { return e.store.Vote(ctx, "bob", "-1", voting.Up) }},
		{"id 1e3", func() error { return e.store.Vote(ctx, "bob", "1e3", voting.Up) }},
		{"id with space", func() error { return e.store.Vote(ctx, "bob", id+" ", voting.Up) }},
		{"id with key name", func() error { return e.store.Vote(ctx, "bob", "article:"+id, voting.Up) }},
		{"id with leading zero", func() error { return e.store.Vote(ctx, "bob", "0"+id, voting.Up) }},
		{"unknown direction", func() error { return e.store.Vote(ctx, "bob", id, voting.Direction(7)) }},
		{"Article bad id", func() error { _, err := e.store.Article(ctx, "x"); return err }},
		{"page 0", func() error { _, err := e.store.GetArticles(ctx, 0, voting.ByScore); return err }},
		{"page -1", func() error { _, err := e.store.GetArticles(ctx, -1, voting.ByTime); return err }},
		{"unknown order", func() error { _, err := e.store.GetArticles(ctx, 1, voting.Order(5)); return err }},
		{"group page 0", func() error { _, err := e.store.GetGroupArticles(ctx, "news", 0, voting.ByScore); return err }},
		{"empty group name", func() error { _, err := e.store.GetGroupArticles(ctx, "", 1, voting.ByScore); return err }},
		{"group with brace", func() error { return e.store.AddToGroups(ctx, id, "{news}") }},
		{"group with colon", func() error { return e.store.AddToGroups(ctx, id, "a:b") }},
		{"group with star", func() error { return e.store.AddToGroups(ctx, id, "news*") }},
		{"group with space", func() error { return e.store.AddToGroups(ctx, id, "big news") }},
		{"long group", func() error { return e.store.AddToGroups(ctx, id, strings.Repeat("g", 65)) }},
		{"no groups to add", func() error { return e.store.AddToGroups(ctx, id) }},
		{"no groups to remove", func() error { return e.store.RemoveFromGroups(ctx, id) }},
		{"remove bad group", func() error { return e.store.RemoveFromGroups(ctx, id, "news", "") }},
		{"UserVotes bad user", func() error { _, err := e.store.UserVotes(ctx, "", id); return err }},
		{"UserVotes bad id", func() error { _, err := e.store.UserVotes(ctx, "bob", id, "7x"); return err }},
	}
	before := e.dump()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, voting.ErrInvalid) {
				t.Fatalf("error = %v, want one wrapping ErrInvalid", err)
			}
			if after := e.dump(); after != before {
				t.Errorf("bad input wrote:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestGoodEdgeInput(t *testing.T) {
	e := newEnv(t)
	title := strings.Repeat("é", voting.MaxTitleLen)
	group := strings.Repeat("ü", voting.MaxGroupLen)
	id, err := e.store.PostArticle(ctx, "Ünïcode user", title, "HTTPS://example.com:8443/a?b=c#d", group, "a-b_c.d")
	if err != nil {
		t.Fatalf("PostArticle at the limits: %v", err)
	}
	a, err := e.store.Article(ctx, id)
	if err != nil || a.Title != title {
		t.Errorf("Article = %+v, %v", a, err)
	}
	articles, err := e.store.GetGroupArticles(ctx, group, 1, voting.ByScore)
	if err != nil || len(articles) != 1 {
		t.Errorf("group at the length limit = %v, %v", articles, err)
	}
	// A page so far past the end that its offset overflows is still just
	// past the end.
	if articles, err := e.store.GetArticles(ctx, math.MaxInt, voting.ByTime); err != nil || articles == nil || len(articles) != 0 {
		t.Errorf("GetArticles(MaxInt) = %v, %v; want an empty page", articles, err)
	}
	if articles, err := e.store.GetGroupArticles(ctx, group, math.MaxInt, voting.ByScore); err != nil || articles == nil || len(articles) != 0 {
		t.Errorf("GetGroupArticles(MaxInt) = %v, %v; want an empty page", articles, err)
	}
	for _, link := range []string{"http://[::1]:8080/", "https://[fe80::1%25eth0]/", "http://xn--bcher-kva.example/", "http://b%C3%BCcher.example/"} {
		if _, err := e.store.PostArticle(ctx, "p", "t", link); err != nil {
			t.Errorf("PostArticle with link %q: %v", link, err)
		}
	}
}

func TestConcurrentVotesKeepScoreAndCountersTogether(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "contested")
	const workers, votes = 8, 40
	errs := make(chan error, 3*workers*votes)
	together(workers, func(w int) {
		for v := 0; v < votes; v++ {
			user := fmt.Sprintf("user-%d-%d", w, v)
			// Each user votes down, then half switch up: final net per
			// worker is votes/2 up and votes/2 down.
			if err := e.store.Vote(ctx, user, id, voting.Down); err != nil {
				errs <- err
			}
			if v%2 == 0 {
				if err := e.store.Vote(ctx, user, id, voting.Up); err != nil {
					errs <- err
				}
			}
			// Every user also takes back and recasts to race the sets.
			if err := e.store.Vote(ctx, "shared", id, voting.Direction(v%3)); err != nil {
				errs <- err
			}
		}
	})
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	h := e.hash(e.article(id))
	up := e.int("SCARD", e.key("voted:"+id))
	down := e.int("SCARD", e.key("downvoted:"+id))
	if h["votes"] != strconv.FormatInt(up, 10) || h["downvotes"] != strconv.FormatInt(down, 10) {
		t.Errorf("counters %s/%s disagree with sets %d/%d", h["votes"], h["downvotes"], up, down)
	}
	wantUp, wantDown := int64(1+workers*votes/2), int64(workers*votes/2)
	shared := 0
	if e.int("SISMEMBER", e.key("voted:"+id), "shared") == 1 {
		shared = 1
	}
	if e.int("SISMEMBER", e.key("downvoted:"+id), "shared") == 1 {
		shared = -1
	}
	if shared == 1 {
		wantUp++
	} else if shared == -1 {
		wantDown++
	}
	if up != wantUp || down != wantDown {
		t.Errorf("sets hold %d up, %d down; want %d, %d", up, down, wantUp, wantDown)
	}
	if got, want := e.zscore(e.key("score:"), e.article(id)), unix(start)+432*float64(up-down); got != want {
		t.Errorf("score = %v, want %v", got, want)
	}
}

func TestConcurrentReadersBuildAColdGroupOnce(t *testing.T) {
	e := newEnv(t)
	if !e.real() {
		t.Skip("needs INFO commandstats, which miniredis does not keep")
	}
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
