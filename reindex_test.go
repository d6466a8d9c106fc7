package voting_test

// Tests of Reindex (reindex.go): from the book's layout and from a Store
// that kept fewer orders, records of groups, live groups, articles it
// cannot read, runs in small steps and runs taken up where they stopped.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

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
	t.Parallel()
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
	all, err := voting.New(e.pool, append([]voting.Option{noBuilder}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	voting.SetBatches(all, 4, 6)
	// The book keeps no record of an article's groups.
	if got, err := groupsOf(all.Article(context.Background(), "7")); err != nil || len(got) != 0 {
		t.Errorf("Article.Groups(7) before Reindex = %v, %v; want none", got, err)
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
		len(reports) != done.Steps || !reflect.DeepEqual(last, done) {
		t.Errorf("Reindex gave %+v, reports %+v", done, reports)
	}
	for id, a := range s.articles {
		want := "books"
		if a.groups["films"] {
			want = "books films"
		}
		if got, err := groupsOf(all.Article(context.Background(), id)); err != nil || strings.Join(got, " ") != want {
			t.Errorf("Article.Groups(%s) after Reindex = %v, %v; want [%s]", id, got, err, want)
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
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes))
	s := newSite(t, e)
	rng := rand.New(rand.NewSource(7))
	var ids []string
	for range 40 {
		e.advance(randomDuration(rng, 18*24*time.Hour))
		ids = append(ids, s.post("poster", "g"))
		s.randomVotes(rng, e.store, ids, 4)
	}
	all, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
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
	t.Parallel()
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

// TestReindexBuildsRecordsOfGroups: Reindex finds a namespace's groups
// with SCAN, and only its own though another namespace's prefix matches its
// own read as a glob, and records each article's groups from them; a
// member that is no article is passed over.
func TestReindexBuildsRecordsOfGroups(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	open := func(prefix string) *voting.Store {
		s, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix+prefix), voting.WithClock(e.clock.Now))
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
		if got, err := groupsOf(star.Article(ctx, id)); err != nil || strings.Join(got, " ") != want {
			t.Errorf("Article.Groups(%s) = %v, %v; want %q", id, got, err, want)
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

// TestLiveGroupsJoinOnReindex: articles posted into groups by a Store
// without live groups, and by the book's own code, are not in the live
// indexes (a vote does not bring them in), until Reindex builds them.
func TestLiveGroupsJoinOnReindex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache, voting.WithOrders(voting.TopDay))
	s := newSite(t, e)
	s.post("alice", "g")
	e.advance(time.Minute)
	e.bookPost("2", "bob", float64(e.clock.Now().UnixMicro())/1e6)
	e.do("SET", e.key("article:"), "2")
	e.do("SADD", e.key("group:g"), e.article("2"))
	s.articles["2"] = &rankedArticle{id: "2", posted: e.clock.Now(), up: 1, groups: map[string]bool{"g": true}}
	s.voters["2"] = map[string]voting.Direction{"bob": voting.Up}
	e.advance(time.Minute)

	live, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.TopDay), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}
	id := s.post("carol", "g") // through e.store, not given live groups
	s.vote(live, "dave", "1", voting.Up)
	// Until Reindex, the live indexes lack the book's article: the group's
	// listings are the book's, which by TopDay reads a site index that
	// lacks it too.
	for _, order := range voting.View(live).Orders {
		if order != voting.TopDay {
			got, err := live.GetGroupArticles(ctx, "g", 1, order)
			if n, cerr := live.Count(ctx, voting.Query{Group: "g", Order: order}); err != nil || cerr != nil || len(got) != 3 || n != 3 {
				t.Errorf("live group g by %v before Reindex: %v, %v, count %d, %v; want the book's listing of 3", order, idsOf(got),
					err, n, cerr)
			}
			continue
		}
		got, err := live.GetGroupArticles(ctx, "g", 1, order)
		if !errors.Is(err, voting.ErrNotIndexed) || got != nil {
			t.Errorf("live group g by %v before Reindex: %v, %v; want ErrNotIndexed", order, idsOf(got), err)
		}
		if n, err := live.Count(ctx, voting.Query{Group: "g", Order: order}); !errors.Is(err, voting.ErrNotIndexed) || n != 0 {
			t.Errorf("count of live group g by %v before Reindex: %d, %v; want ErrNotIndexed", order, n, err)
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

// TestLiveReindexLeavesOutWhatArticleDoesNotFind: a member of a group
// whose hash is there but whose score is not (no article, for Article) gets
// no entry in the group's live indexes, though another site index holds it.
func TestLiveReindexLeavesOutWhatArticleDoesNotFind(t *testing.T) {
	t.Parallel()
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

// TestReindexWalksALargeGroupInSmallSteps: a group larger than one step
// counts once, and with live groups and every order kept a step reads
// about 31 of its members, so that it holds Redis for about 2 ms.
func TestReindexWalksALargeGroupInSmallSteps(t *testing.T) {
	t.Parallel()
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

// TestDeletingABookArticleLeavesItsGroupsToReindex deletes articles written
// with the book's own commands, which have no record of their groups:
// DeleteArticle takes such an article out of everything but the groups its
// missing record would name (no call looks through every group), no listing
// shows it, and Reindex drops it from those groups. Once Reindex has
// recorded a book article's groups, DeleteArticle takes it out of them.
func TestDeletingABookArticleLeavesItsGroupsToReindex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithLiveGroups())
	e.post("alice", "library", "go")
	now := e.clock.Now().Unix()
	bookPost := func(id string, groups ...string) {
		member := e.article(id)
		e.do("HSET", member, "title", "book", "link", "https://example.com", "poster", "bob", "time", now, "votes", 1)
		e.do("ZADD", e.key("score:"), now+432, member)
		e.do("ZADD", e.key("time:"), now, member)
		e.do("SADD", e.key("voted:"+id), "bob")
		e.do("EXPIRE", e.key("voted:"+id), 7*86400)
		for _, g := range groups {
			e.do("SADD", e.key("group:"+g), member)
		}
	}
	bookPost("100", "go")
	if err := e.store.DeleteArticle(ctx, "100"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{e.article("100"), e.key("voted:100")} {
		if e.exists(k) {
			t.Errorf("%s is left", k)
		}
	}
	if got := e.strs("SMEMBERS", e.key("group:go")); fmt.Sprint(got) != fmt.Sprint([]string{e.article("1"), e.article("100")}) {
		t.Errorf("group:go = %v after deleting the book's article, want it still there", got)
	}
	if page, err := e.store.GetGroupArticles(ctx, "go", 1, voting.ByScore); err != nil || len(page) != 1 || page[0].ID != "1" {
		t.Errorf("group go lists %v, %v; want article 1 alone", page, err)
	}
	done, err := e.store.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.strs("SMEMBERS", e.key("group:go")); fmt.Sprint(got) != "["+e.article("1")+"]" {
		t.Errorf("group:go = %v after Reindex", got)
	}
	if done.Skipped != 1 {
		t.Errorf("Reindex skipped %d members, want the deleted article's 1", done.Skipped)
	}

	// A group only the book's code has written joins groupsizes: when
	// Reindex finds it, and leaves with its last article.
	bookPost("101", "books")
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("groupsizes:")); fmt.Sprint(got) != "[books=1 go=1]" {
		t.Errorf("groupsizes: = %v after Reindex", got)
	}
	if got, err := groupsOf(e.store.Article(ctx, "101")); err != nil || fmt.Sprint(got) != "[books]" {
		t.Errorf("Article.Groups(101) after Reindex = %v, %v; want [books]", got, err)
	}
	if err := e.store.DeleteArticle(ctx, "101"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{e.key("group:books"), e.key("live:score:books"), e.key("live:time:books"), e.key("groups:101")} {
		if e.exists(k) {
			t.Errorf("%s is left after deleting the book's article", k)
		}
	}
	if got := e.zset(e.key("groupsizes:")); fmt.Sprint(got) != "[go=1]" {
		t.Errorf("groupsizes: = %v after deleting the last article of books", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestABookArticleGivenARecordLater: an article the book's code put in a
// group has no record of its groups until AddToGroups gives it one, which
// names the groups given; Reindex adds the book's groups to it, so that
// DeleteArticle takes the article out of all of them.
func TestABookArticleGivenARecordLater(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithLiveGroups())
	e.post("alice", "library", "go")
	now := e.clock.Now().Unix()
	member := e.article("100")
	e.do("HSET", member, "title", "book", "link", "https://example.com", "poster", "bob", "time", now, "votes", 1)
	e.do("ZADD", e.key("score:"), now+432, member)
	e.do("ZADD", e.key("time:"), now, member)
	e.do("SADD", e.key("group:go"), member)
	if err := e.store.AddToGroups(ctx, "100", "lua"); err != nil {
		t.Fatal(err)
	}
	if got, err := groupsOf(e.store.Article(ctx, "100")); err != nil || fmt.Sprint(got) != "[lua]" {
		t.Errorf("Article.Groups = %v, %v; want [lua]", got, err)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := groupsOf(e.store.Article(ctx, "100")); err != nil || fmt.Sprint(got) != "[go lua]" {
		t.Errorf("Article.Groups after Reindex = %v, %v; want [go lua]", got, err)
	}
	if err := e.store.DeleteArticle(ctx, "100"); err != nil {
		t.Fatal(err)
	}
	if got := e.strs("SMEMBERS", e.key("group:go")); fmt.Sprint(got) != "["+e.article("1")+"]" {
		t.Errorf("group:go = %v after deleting article 100", got)
	}
	if e.exists(e.key("group:lua")) {
		t.Errorf("group:lua is left after deleting its only article")
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// bookSite writes n articles in the book's own layout, as the book's code
// writes them: each with some up-votes and their voter set, in the groups
// g0 (every article) and g1 (every other one), a minute apart.
func bookSite(t *testing.T, e *env, n int) {
	t.Helper()
	now := e.clock.Now().Unix()
	err := e.pipelined(func(send func(cmd string, args ...any)) {
		for i := 1; i <= n; i++ {
			id := strconv.Itoa(i)
			member, posted, votes := e.article(id), now-int64(n-i)*60, 1+i%5
			send("HSET", member, "title", "book "+id, "link", "https://example.com/"+id, "poster", "bob",
				"time", posted, "votes", votes)
			send("ZADD", e.key("score:"), posted+int64(voting.DefaultVoteWeight)*int64(votes), member)
			send("ZADD", e.key("time:"), posted, member)
			voters := []any{e.key("voted:" + id), "bob"}
			for v := 1; v < votes; v++ {
				voters = append(voters, "voter"+strconv.Itoa(v))
			}
			send("SADD", voters...)
			send("EXPIRE", e.key("voted:"+id), 7*86400)
			send("SADD", e.key("group:g0"), member)
			if i%2 == 0 {
				send("SADD", e.key("group:g1"), member)
			}
		}
		send("SET", e.key("article:"), n)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReindexGoesOnWhereItStopped: calls each cut short after eight steps
// still get a run of Reindex done, over many calls, each going on where
// the last stopped (the run's progress is kept in Redis), its counts only
// growing; and what the calls build is what one call builds. Once a run is
// complete, the next call starts a new one. It runs alone, as the bound
// on its calls counts the server's keys, and its count of groups walked
// allows for SCAN giving a group twice only as its own writes grow Redis's
// table.
func TestReindexGoesOnWhereItStopped(t *testing.T) {
	e := newEnv(t)
	n := 2000
	if !e.real() {
		n = 500 // miniredis runs Lua some six times slower
	}
	bookSite(t, e, n)
	all, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}
	voting.SetBatches(all, 500, 10)
	var last voting.ReindexProgress
	// Each call takes four steps of the run; its SCAN for groups reads
	// the server's keys (a real server may hold other tests'), 500 a step.
	most := 1000 + int(e.int("DBSIZE"))/(4*500)
	calls := 0
	for {
		calls++
		if calls > most {
			t.Fatalf("Reindex has not finished after %d calls: %+v", calls, last)
		}
		// Each call is cut short after eight steps, by its step count, not
		// a deadline, so that a loaded machine changes nothing: each call
		// trims the four windows first, then walks four steps of the run.
		cut, cancel := context.WithCancel(context.Background())
		steps := 0
		done, err := all.ReindexWithProgress(cut, func(voting.ReindexProgress) {
			if steps++; steps == 8 {
				cancel()
			}
		})
		cancel()
		if done.Articles < last.Articles || done.Steps < last.Steps || done.Groups < last.Groups {
			t.Fatalf("call %d went back: %+v after %+v", calls, done, last)
		}
		last = done
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) || done.Done {
			t.Fatalf("call %d: %+v, %v; want it cut short, not done", calls, done, err)
		}
	}
	if min := n / 10 / 4; calls < min {
		t.Fatalf("Reindex finished in %d calls of eight steps, want at least %d", calls, min)
	}
	// Each of the 2 groups walked; one that SCAN gave in two batches, as
	// it may while the run's records grow Redis's table, walked twice
	// (ReindexProgress.Groups).
	if !last.Done || last.Articles != n || last.Groups < 2 || last.Groups > 4 {
		t.Errorf("the run ended with %+v, want done, %d articles and 2 groups, each counted once or twice", last, n)
	}
	t.Logf("%d calls of eight steps: %+v", calls, last)
	if e.exists(e.key("reindex:")) {
		t.Errorf("a complete run left its progress: %v", e.hash(e.key("reindex:")))
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	for _, g := range []string{"g0", "g1"} {
		if got := e.int("ZCARD", e.key("live:votes:"+g)); got != e.int("SCARD", e.key("group:"+g)) {
			t.Errorf("live:votes:%s holds %d articles, its group %d", g, got, e.int("SCARD", e.key("group:"+g)))
		}
	}

	// The next call is a new run, which finds all built.
	again, err := all.ReindexWithProgress(context.Background(), nil)
	if err != nil || !again.Done || again.Articles != n {
		t.Errorf("a second run: %+v, %v; want done with %d articles", again, err, n)
	}
}

// TestReindexOfOtherOptionsStartsItsOwnRun: a run left unfinished by a Store
// with other orders is not gone on with: a Store's call starts a run of its
// own, which builds everything the Store keeps.
func TestReindexOfOtherOptionsStartsItsOwnRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bookSite(t, e, 50)
	some, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.ByVotes))
	if err != nil {
		t.Fatal(err)
	}
	voting.SetBatches(some, 500, 5)
	steps := 0
	cut, cancel := context.WithCancel(context.Background())
	_, err = some.ReindexWithProgress(cut, func(p voting.ReindexProgress) {
		if steps++; steps == 4 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cut-short run: %v, want context.Canceled", err)
	}
	if !e.exists(e.key("reindex:")) {
		t.Fatal("the cut-short run kept no progress")
	}
	all, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...))
	if err != nil {
		t.Fatal(err)
	}
	done, err := all.ReindexWithProgress(context.Background(), nil)
	if err != nil || !done.Done || done.Articles != 50 {
		t.Errorf("the other Store's run: %+v, %v; want all 50 articles", done, err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// scanConn is a connection that gives the keys of each SCAN batch in
// reverse order while reverse is set: Redis gives a batch in another order
// when its table has grown since the same cursor was scanned.
type scanConn struct {
	redis.Conn
	reverse *atomic.Bool
}

func (c scanConn) Do(cmd string, args ...any) (any, error) {
	reply, err := c.Conn.Do(cmd, args...)
	if parts, ok := reply.([]any); ok && err == nil && cmd == "SCAN" && c.reverse.Load() && len(parts) == 2 {
		if batch, ok := parts[1].([]any); ok {
			slices.Reverse(batch)
		}
	}
	return reply, err
}

// TestReindexResumedAfterSCANReorders: a run cut short in its groups phase
// goes on in a later call that scans the same batch again, which Redis may
// give in another order (its table grown in between): every group of the
// batch that the first call did not walk is walked, not only those after
// the last one it did. Forty one-article groups of a plain Store; a Store
// with live groups runs Reindex, cut short after one group, then again,
// with the batch reversed.
func TestReindexResumedAfterSCANReorders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	groups := map[string]string{} // article id -> its one group
	for i := range 40 {
		name := fmt.Sprintf("grp%02d", i)
		groups[e.post("alice", name, name)] = name
	}
	var reverse atomic.Bool
	p := wrapPool{e.redis(), func(c redis.Conn) redis.Conn { return scanConn{c, &reverse} }}
	live, err := voting.New(p, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}
	cut, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err = live.ReindexWithProgress(cut, func(p voting.ReindexProgress) {
		if p.Groups == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the call cut short after one group: %v, want context.Canceled", err)
	}
	reverse.Store(true)
	done, err := live.ReindexWithProgress(ctx, nil)
	if err != nil || !done.Done {
		t.Fatalf("the resumed run: %+v, %v", done, err)
	}
	if done.Groups < 40 {
		t.Errorf("the run walked %d groups, want all 40", done.Groups)
	}
	for id, name := range groups {
		if got, err := groupsOf(live.Article(ctx, id)); err != nil || len(got) != 1 || got[0] != name {
			t.Errorf("Article.Groups(%s) = %v, %v; want [%s]", id, got, err, name)
		}
		page, err := live.GetGroupArticles(ctx, name, 1, voting.ByScore)
		if err != nil || len(page) != 1 || page[0].ID != id {
			t.Errorf("group %s's live page = %v, %v; want article %s", name, idsOf(page), err, id)
		}
	}
	e.store = live
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexResumedWithANewGroupBetween: a run cut short while it walks a
// group, after it has walked another, is resumed once a new group has
// joined the namespace, whose key may sort between the two (miniredis's
// SCAN gives keys sorted, a real server's in the order of its table): the
// resumed run finishes the group it was walking, from where it stopped,
// and leaves every live index exact and marked built.
func TestReindexResumedWithANewGroupBetween(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Groups of several steps each, so that the call is cut short within
	// whichever SCAN gives second.
	const size = 60
	for i := range size {
		e.post("alice", fmt.Sprintf("in a %d", i), "a")
		e.post("alice", fmt.Sprintf("in c %d", i), "c")
	}
	live := e.with(voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	cut, cancel := context.WithCancel(ctx)
	defer cancel()
	var during map[string]string
	_, err := live.ReindexWithProgress(cut, func(p voting.ReindexProgress) {
		if during != nil || p.Groups != 1 {
			return
		}
		if h := e.hash(e.key("reindex:")); h["group"] != "" {
			during = h
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || during == nil {
		t.Fatalf("the call cut short within the second group: %v, progress %v", err, during)
	}
	if during["sscan"] == "0" {
		t.Fatalf("the second group's walk has not begun: %v", during)
	}
	if _, err := live.PostArticle(ctx, "bob", "in b", "https://example.com/b", "b"); err != nil {
		t.Fatal(err)
	}
	done, err := live.ReindexWithProgress(ctx, nil)
	if err != nil || !done.Done || done.Groups < 2 {
		t.Fatalf("the resumed run: %+v, %v; want done, both groups walked", done, err)
	}
	for g, want := range map[string]int64{"a": size, "b": 1, "c": size} {
		for _, o := range []voting.Order{voting.ByHot, voting.TopDay} {
			if n, err := live.Count(ctx, voting.Query{Group: g, Order: o}); err != nil || n != want {
				t.Errorf("group %s's live index by %v holds %d, %v; want %d", g, o, n, err, want)
			}
		}
	}
	if got := e.hash(e.key("indexed:")); got["live:hot"] != "1" || got["live:score"] != "1" {
		t.Errorf("indexed: after the run = %v, want the live indexes built", got)
	}
	e.store = live
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// failConn fails every command named fail with err, before sending it.
type failConn struct {
	redis.Conn
	fail string
	err  error
}

func (c failConn) Do(cmd string, args ...any) (any, error) {
	if cmd == c.fail {
		return nil, c.err
	}
	return c.Conn.Do(cmd, args...)
}

// TestReindexCountsNeverGoBack: a call that fails in a window's trim step
// reports the run's counts as they stood, not a count of steps of 0.
func TestReindexCountsNeverGoBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	postMany(e, 30)
	s := e.with(voting.WithOrders(voting.TopWeek))
	voting.SetBatches(s, 500, 10)
	cut, cancel := context.WithCancel(ctx)
	var before voting.ReindexProgress
	_, err := s.ReindexWithProgress(cut, func(p voting.ReindexProgress) {
		before = p
		if p.Articles > 0 {
			cancel()
		}
	})
	cancel()
	if !errors.Is(err, context.Canceled) || before.Steps == 0 {
		t.Fatalf("the first call = %v after %+v, want it cut short after a step", err, before)
	}
	broken := errors.New("broken connection")
	p := wrapPool{e.redis(), func(c redis.Conn) redis.Conn { return failConn{c, "HINCRBY", broken} }}
	failing, err := voting.New(p, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithOrders(voting.TopWeek))
	if err != nil {
		t.Fatal(err)
	}
	got, err := failing.ReindexWithProgress(ctx, nil)
	if !errors.Is(err, broken) {
		t.Fatalf("a call whose trim step fails = %v, want the broken connection", err)
	}
	if got.Steps < before.Steps || got.Articles < before.Articles {
		t.Errorf("the failed call reports %+v, after %+v: its counts went back", got, before)
	}
}
