package voting_test

// Tests of what a site needs around the votes: DeleteArticle, the counts
// and a user's history of votes.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// withoutCounter is a dump with the id counter's line taken out.
func (e *env) withoutCounter(dump string) string {
	var lines []string
	for _, line := range strings.Split(dump, "\n") {
		if !strings.HasPrefix(line, e.key("article:")+" ") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// TestDeleteLeavesTheKeySpaceAsBeforeThePost posts an article into groups
// that already hold another, votes on it up, down, switched and taken back,
// moves it between groups and lists it every way (filling the book's group
// cache, or the live indexes and window marks); deleting it leaves every key
// of the namespace exactly as it was before the post, the id counter aside.
func TestDeleteLeavesTheKeySpaceAsBeforeThePost(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []voting.Option
	}{
		{"every order, live groups, history", []voting.Option{voting.WithOrders(extraOrders...), voting.WithLiveGroups(),
			voting.WithUserHistory(30 * 24 * time.Hour)}},
		{"the book's cached groups", nil},
		{"uncached groups, history", []voting.Option{voting.WithGroupCacheTTL(0), voting.WithUserHistory(time.Hour)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.opts...)
			groups := []string{"go", "redis", "lua"}
			listEverything := func() {
				for _, o := range e.store.Orders() {
					listAll(t, e.store, "", o)
					for _, g := range groups {
						if _, err := e.store.GetGroupArticles(ctx, g, 1, o); err != nil && !errors.Is(err, voting.ErrInvalid) {
							t.Fatalf("GetGroupArticles(%s, %v): %v", g, o, err)
						}
					}
				}
			}
			old := e.post("alice", "old", groups...)
			e.vote("bob", old, voting.Up)
			e.vote("carol", old, voting.Down)
			listEverything()
			// Within the group cache's TTL, so that the cached listings are
			// the same before and after.
			e.advance(30 * time.Second)
			before := e.withoutCounter(e.dump())

			id := e.post("dave", "new", "go", "redis")
			e.vote("bob", id, voting.Up)
			e.vote("carol", id, voting.Down)
			e.vote("erin", id, voting.Up)
			e.vote("erin", id, voting.Down)
			e.vote("frank", id, voting.Up)
			e.vote("frank", id, voting.None)
			if err := e.store.AddToGroups(ctx, id, "lua"); err != nil {
				t.Fatal(err)
			}
			if err := e.store.RemoveFromGroups(ctx, id, "redis"); err != nil {
				t.Fatal(err)
			}
			listEverything()
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			if err := e.store.DeleteArticle(ctx, id); err != nil {
				t.Fatalf("DeleteArticle: %v", err)
			}
			if after := e.withoutCounter(e.dump()); after != before {
				t.Errorf("after the deletion:\n%s\nbefore the post:\n%s", after, before)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			if err := e.store.DeleteArticle(ctx, id); !errors.Is(err, voting.ErrNotFound) {
				t.Errorf("a second DeleteArticle: %v, want ErrNotFound", err)
			}
		})
	}
}

// TestDeletedArticleIsUnknown: after DeleteArticle every method treats the
// id as unknown, and the next post takes a new id.
func TestDeletedArticleIsUnknown(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.TopWeek), voting.WithLiveGroups(), voting.WithUserHistory(time.Hour))
	keep := e.post("alice", "kept", "go")
	id := e.post("bob", "deleted", "go")
	e.vote("carol", id, voting.Up)
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Article(ctx, id); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Article: %v, want ErrNotFound", err)
	}
	if err := e.store.Vote(ctx, "carol", id, voting.Down); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Vote: %v, want ErrNotFound", err)
	}
	if err := e.store.AddToGroups(ctx, id, "go"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("AddToGroups: %v, want ErrNotFound", err)
	}
	if _, err := e.store.ArticleGroups(ctx, id); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("ArticleGroups: %v, want ErrNotFound", err)
	}
	for _, o := range e.store.Orders() {
		for _, g := range []string{"", "go"} {
			if got := idsOf(listAll(t, e.store, g, o)); fmt.Sprint(got) != "["+keep+"]" {
				t.Errorf("group %q by %v lists %v, want [%s]", g, o, got, keep)
			}
		}
		if n, err := e.store.CountArticles(ctx, o); err != nil || n != 1 {
			t.Errorf("CountArticles(%v) = %d, %v; want 1", o, n, err)
		}
		if n, err := e.store.CountGroupArticles(ctx, "go", o); err != nil || n != 1 {
			t.Errorf("CountGroupArticles(go, %v) = %d, %v; want 1", o, n, err)
		}
	}
	if dirs, err := e.store.UserVotes(ctx, "carol", id); err != nil || dirs[0] != voting.None {
		t.Errorf("UserVotes = %v, %v; want [none]", dirs, err)
	}
	if h, err := e.store.UserHistory(ctx, "carol", 1); err != nil || len(h) != 0 {
		t.Errorf("UserHistory = %v, %v; want none", h, err)
	}
	if next := e.post("dave", "next"); next == id {
		t.Errorf("the next post took the deleted id %s", id)
	}
	for _, k := range e.keys() {
		if strings.HasSuffix(k, ":"+id) || strings.Contains(k, "article:"+id) {
			t.Errorf("%s is left of the deleted article", k)
		}
	}
	if err := e.store.DeleteArticle(ctx, "999"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("DeleteArticle of no article: %v, want ErrNotFound", err)
	}
}

// TestDeletingABookArticleLeavesItsGroupsToReindex deletes articles written
// with the book's own commands, which have no record of their groups:
// DeleteArticle takes such an article out of everything but the groups its
// missing record would name (no call looks through every group), no listing
// shows it, and Reindex drops it from those groups. Once Reindex has
// recorded a book article's groups, DeleteArticle takes it out of them.
func TestDeletingABookArticleLeavesItsGroupsToReindex(t *testing.T) {
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

	// A group only the book's code has written joins groupnames: when
	// Reindex finds it, and leaves with its last article.
	bookPost("101", "books")
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.strs("SMEMBERS", e.key("groupnames:")); fmt.Sprint(got) != "[books go]" {
		t.Errorf("groupnames: = %v after Reindex", got)
	}
	if got, err := e.store.ArticleGroups(ctx, "101"); err != nil || fmt.Sprint(got) != "[books]" {
		t.Errorf("ArticleGroups(101) after Reindex = %v, %v; want [books]", got, err)
	}
	if err := e.store.DeleteArticle(ctx, "101"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{e.key("group:books"), e.key("live:score:books"), e.key("live:time:books"), e.key("groups:101")} {
		if e.exists(k) {
			t.Errorf("%s is left after deleting the book's article", k)
		}
	}
	if got := e.strs("SMEMBERS", e.key("groupnames:")); fmt.Sprint(got) != "[go]" {
		t.Errorf("groupnames: = %v after deleting the last article of books", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestConcurrentVotesAndDeletes: votes, group changes, history reads and
// deletions of the same articles at once leave no entry of a deleted article
// anywhere (the invariant checker, histories included), and each call
// either takes effect whole or reports ErrNotFound.
func TestConcurrentVotesAndDeletes(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.ByControversy, voting.TopDay), voting.WithLiveGroups(),
		voting.WithUserHistory(24*time.Hour))
	groups := []string{"a", "b"}
	rounds := 6
	if testing.Short() {
		rounds = 3
	}
	var deleted atomic.Int64
	for round := range rounds {
		var ids []string
		for i := range 8 {
			ids = append(ids, e.post(fmt.Sprintf("poster%d", i), "t", groups[:1+i%2]...))
		}
		together(6, func(g int) {
			rng := rand.New(rand.NewSource(int64(round*10 + g)))
			for i := range 30 {
				id := ids[rng.Intn(len(ids))]
				var err error
				switch {
				case g == 0 && i%4 == 3:
					if err = e.store.DeleteArticle(ctx, id); err == nil {
						deleted.Add(1)
					}
				case g == 1 && i%3 == 0:
					err = e.store.AddToGroups(ctx, id, groups[rng.Intn(2)])
				case g == 2 && i%3 == 0:
					_, err = e.store.UserHistory(ctx, fmt.Sprintf("user%d", rng.Intn(4)), 1)
				default:
					dir := []voting.Direction{voting.Up, voting.Down, voting.None}[rng.Intn(3)]
					err = e.store.Vote(ctx, fmt.Sprintf("user%d", rng.Intn(4)), id, dir)
				}
				if err != nil && !errors.Is(err, voting.ErrNotFound) {
					t.Errorf("goroutine %d: %v", g, err)
				}
			}
		})
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		e.advance(time.Minute)
	}
	if deleted.Load() == 0 {
		t.Fatal("no deletion took effect")
	}
}

// TestCountsEqualTheListings: after posts, votes and group changes over a
// year of simulated time, each count equals the length of its listing, for
// every kept order (windows included), site and group, live or not.
func TestCountsEqualTheListings(t *testing.T) {
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live=%v", live), func(t *testing.T) {
			opts := []voting.Option{voting.WithOrders(extraOrders...), voting.WithPageSize(3), voting.WithGroupCacheTTL(0)}
			if live {
				opts = append(opts, voting.WithLiveGroups())
			}
			e := newEnv(t, opts...)
			s := newSite(t, e)
			rng := rand.New(rand.NewSource(13))
			groups := []string{"go", "redis"}
			var ids []string
			check := func(what string) {
				t.Helper()
				for _, o := range e.store.Orders() {
					n, err := e.store.CountArticles(ctx, o)
					if want := len(listAll(t, e.store, "", o)); err != nil || n != int64(want) {
						t.Fatalf("%s: CountArticles(%v) = %d, %v; the listing holds %d", what, o, n, err, want)
					}
					for _, g := range groups {
						n, err := e.store.CountGroupArticles(ctx, g, o)
						if _, isWindow := windows[o]; !live && isWindow {
							if !errors.Is(err, voting.ErrInvalid) {
								t.Fatalf("%s: CountGroupArticles(%s, %v) without live groups: %d, %v; want ErrInvalid", what, g, o, n, err)
							}
							continue
						}
						if want := len(listAll(t, e.store, g, o)); err != nil || n != int64(want) {
							t.Fatalf("%s: CountGroupArticles(%s, %v) = %d, %v; the listing holds %d", what, g, o, n, err, want)
						}
					}
				}
			}
			for i := range 40 {
				e.advance(randomDuration(rng, 5*24*time.Hour))
				if len(ids) == 0 || rng.Intn(3) > 0 {
					ids = append(ids, s.post("poster", randomGroups(rng, groups)...))
				} else {
					s.randomVotes(rng, e.store, ids, 3)
				}
				check(fmt.Sprintf("step %d", i))
			}
			e.advance(400 * 24 * time.Hour)
			check("a year on")
		})
	}
}

// TestUserHistoryPages checks a user's history page by page after up,
// down, a switch and a take-back, the times of the votes, and its end d
// after each vote.
func TestUserHistoryPages(t *testing.T) {
	const d = 10 * 24 * time.Hour
	e := newEnv(t, voting.WithPageSize(2), voting.WithUserHistory(d))
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	c := e.post("alice", "c")
	t0 := e.clock.Now()
	type want struct {
		id  string
		dir voting.Direction
		at  time.Duration // after t0
	}
	check := func(what, user string, wants ...want) {
		t.Helper()
		var got []voting.UserVote
		for page := 1; ; page++ {
			h, err := e.store.UserHistory(ctx, user, page)
			if err != nil {
				t.Fatalf("%s: UserHistory page %d: %v", what, page, err)
			}
			if len(h) > 2 {
				t.Fatalf("%s: page %d holds %d votes in pages of 2", what, page, len(h))
			}
			got = append(got, h...)
			if len(h) < 2 {
				break
			}
		}
		var gotS, wantS []string
		for _, v := range got {
			gotS = append(gotS, fmt.Sprintf("%s %v %v", v.Article.ID, v.Direction, v.At.Sub(t0)))
		}
		for _, w := range wants {
			wantS = append(wantS, fmt.Sprintf("%s %v %v", w.id, w.dir, w.at))
		}
		if strings.Join(gotS, "; ") != strings.Join(wantS, "; ") {
			t.Fatalf("%s: history of %s\ngot  %v\nwant %v", what, user, gotS, wantS)
		}
		for _, v := range got {
			if v.Article.Title == "" || v.Article.Poster != "alice" || v.At.Location() != time.UTC {
				t.Fatalf("%s: %+v is not the article as Article reads it", what, v)
			}
		}
	}
	check("no votes", "bob")
	e.vote("bob", a, voting.Up)
	e.advance(time.Minute)
	e.vote("bob", b, voting.Down)
	e.advance(time.Minute)
	e.vote("bob", c, voting.Up)
	check("up, down, up", "bob", want{c, voting.Up, 2 * time.Minute}, want{b, voting.Down, time.Minute}, want{a, voting.Up, 0})
	e.advance(time.Minute)
	e.vote("bob", a, voting.Down)
	check("a switched", "bob", want{a, voting.Down, 3 * time.Minute}, want{c, voting.Up, 2 * time.Minute}, want{b, voting.Down, time.Minute})
	e.vote("bob", c, voting.Down)
	e.vote("bob", c, voting.Down) // no change
	e.advance(time.Minute)
	e.vote("bob", b, voting.None)
	check("c switched, b taken back", "bob", want{c, voting.Down, 3 * time.Minute}, want{a, voting.Down, 3 * time.Minute})
	check("the posters' own up-votes", "alice", want{c, voting.Up, 0}, want{b, voting.Up, 0}, want{a, voting.Up, 0})
	if h, err := e.store.UserHistory(ctx, "bob", 1<<40); err != nil || len(h) != 0 {
		t.Errorf("a page far past the end: %v, %v", h, err)
	}
	if got := e.zset(e.key("history:bob")); len(got) != 2 {
		t.Errorf("history:bob = %v, want 2 entries", got)
	}
	if ttl := e.pttl(e.key("history:bob")); ttl <= d-time.Minute || ttl > d {
		t.Errorf("history:bob lives %v, want about %v", ttl, d)
	}

	// Voting on a closes at the cutoff; from then on UserVotes reads the
	// history. On a real server the voter sets expire by real time: they
	// are deleted here as Redis would at the cutoff.
	e.advance(voting.DefaultCutoff)
	for _, id := range []string{a, b, c} {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	dirs, err := e.store.UserVotes(ctx, "bob", a, b, c, "999")
	if err != nil || fmt.Sprint(dirs) != "[down none down none]" {
		t.Errorf("UserVotes after the cutoff = %v, %v; want [down none down none] from the history", dirs, err)
	}
	// Past d after the last vote, the history holds nothing.
	e.advance(d - voting.DefaultCutoff)
	check("d after the votes", "bob")
	if dirs, err := e.store.UserVotes(ctx, "bob", a, c); err != nil || fmt.Sprint(dirs) != "[none none]" {
		t.Errorf("UserVotes past the history = %v, %v; want [none none]", dirs, err)
	}
}

// TestHistoryDropsOldVotes: a vote older than d leaves the history when the
// user votes again, and is never listed.
func TestHistoryDropsOldVotes(t *testing.T) {
	e := newEnv(t, voting.WithUserHistory(2*time.Hour))
	a := e.post("alice", "a")
	e.vote("bob", a, voting.Up)
	e.advance(90 * time.Minute)
	b := e.post("alice", "b")
	e.vote("bob", b, voting.Up)
	e.advance(time.Hour)
	h, err := e.store.UserHistory(ctx, "bob", 1)
	if err != nil || len(h) != 1 || h[0].Article.ID != b {
		t.Fatalf("UserHistory = %+v, %v; want only article %s", h, err, b)
	}
	c := e.post("alice", "c")
	e.vote("bob", c, voting.Down)
	if got := e.zset(e.key("history:bob")); len(got) != 2 || strings.Contains(strings.Join(got, " "), e.article(a)) {
		t.Errorf("history:bob = %v, want b and c only", got)
	}
}

// TestHistoryOfADeletedClosedArticle: an article deleted after its voting
// closed (its voter sets expired, so the deletion cannot name its voters)
// is left out of the history and its entry dropped when the history is read.
func TestHistoryOfADeletedClosedArticle(t *testing.T) {
	e := newEnv(t, voting.WithUserHistory(30*24*time.Hour))
	e.closedDeletes = true
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	e.vote("bob", a, voting.Up)
	e.vote("bob", b, voting.Down)
	e.advance(voting.DefaultCutoff + time.Second)
	for _, id := range []string{a, b} {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	if err := e.store.DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("history:bob")); len(got) != 2 {
		t.Fatalf("history:bob = %v: the deletion should not have found bob", got)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a, b); err != nil || fmt.Sprint(dirs) != "[none down]" {
		t.Errorf("UserVotes = %v, %v; want [none down]", dirs, err)
	}
	h, err := e.store.UserHistory(ctx, "bob", 1)
	if err != nil || len(h) != 1 || h[0].Article.ID != b || h[0].Direction != voting.Down {
		t.Fatalf("UserHistory = %+v, %v; want only b, down", h, err)
	}
	if got := e.zset(e.key("history:bob")); len(got) != 1 || !strings.HasPrefix(got[0], "down:"+e.article(b)+"=") {
		t.Errorf("history:bob = %v after reading it, want only b's entry", got)
	}
}

// TestUserVoteJSON: a history entry encodes with the documented names, the
// direction by name and times in RFC 3339.
func TestUserVoteJSON(t *testing.T) {
	v := voting.UserVote{
		Article:   voting.Article{ID: "7", Title: "t", Link: "https://x", Poster: "p", Posted: start, Score: 1, Votes: 2, Downvotes: 1},
		Direction: voting.Down,
		At:        start.Add(time.Second),
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"article":{"id":"7","title":"t","link":"https://x","poster":"p","posted":"2026-11-22T00:00:00Z","score":1,"votes":2,"downvotes":1},"direction":"down","at":"2026-11-22T00:00:01Z"}`
	if string(b) != want {
		t.Errorf("JSON:\ngot  %s\nwant %s", b, want)
	}
	var back voting.UserVote
	if err := json.Unmarshal(b, &back); err != nil || back.Direction != voting.Down || !back.At.Equal(v.At) || back.Article != v.Article {
		t.Errorf("read back %+v, %v", back, err)
	}
}

// TestLifecycleRefusesBadInput: each new method refuses bad input with
// ErrInvalid, writing nothing.
func TestLifecycleRefusesBadInput(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, time.Millisecond, 999 * time.Millisecond} {
		if _, err := voting.New(newEnv(t).pool, voting.WithUserHistory(d)); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("WithUserHistory(%v): %v, want ErrInvalid", d, err)
		}
	}
	e := newEnv(t, voting.WithUserHistory(time.Hour), voting.WithOrders(voting.TopDay))
	id := e.post("alice", "a", "go")
	e.vote("bob", id, voting.Up)
	noHistory, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	before := e.dump()
	long := strings.Repeat("x", voting.MaxUserLen+1)
	for what, call := range map[string]func() error{
		"DeleteArticle empty id":   func() error { return e.store.DeleteArticle(ctx, "") },
		"DeleteArticle bad id":     func() error { return e.store.DeleteArticle(ctx, "1 OR 2") },
		"DeleteArticle leading 0":  func() error { return e.store.DeleteArticle(ctx, "0"+id) },
		"CountArticles unkept":     func() error { _, err := e.store.CountArticles(ctx, voting.ByVotes); return err },
		"CountArticles no order":   func() error { _, err := e.store.CountArticles(ctx, voting.Order(99)); return err },
		"CountGroupArticles group": func() error { _, err := e.store.CountGroupArticles(ctx, "", voting.ByScore); return err },
		"CountGroupArticles brace": func() error { _, err := e.store.CountGroupArticles(ctx, "{x}", voting.ByScore); return err },
		"CountGroupArticles unkept": func() error {
			_, err := e.store.CountGroupArticles(ctx, "go", voting.TopWeek)
			return err
		},
		"CountGroupArticles window without live": func() error {
			_, err := e.store.CountGroupArticles(ctx, "go", voting.TopDay)
			return err
		},
		"UserHistory empty user": func() error { _, err := e.store.UserHistory(ctx, "", 1); return err },
		"UserHistory long user":  func() error { _, err := e.store.UserHistory(ctx, long, 1); return err },
		"UserHistory page 0":     func() error { _, err := e.store.UserHistory(ctx, "bob", 0); return err },
		"UserHistory page -1":    func() error { _, err := e.store.UserHistory(ctx, "bob", -1); return err },
		"UserHistory off":        func() error { _, err := noHistory.UserHistory(ctx, "bob", 1); return err },
	} {
		if err := call(); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", what, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("refused calls wrote:\n%s\nwas:\n%s", after, before)
	}
}

// TestABookArticleGivenARecordLater: an article the book's code put in a
// group has no record of its groups until AddToGroups gives it one, which
// names the groups given; Reindex adds the book's groups to it, so that
// DeleteArticle takes the article out of all of them.
func TestABookArticleGivenARecordLater(t *testing.T) {
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
	if got, err := e.store.ArticleGroups(ctx, "100"); err != nil || fmt.Sprint(got) != "[lua]" {
		t.Errorf("ArticleGroups = %v, %v; want [lua]", got, err)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := e.store.ArticleGroups(ctx, "100"); err != nil || fmt.Sprint(got) != "[go lua]" {
		t.Errorf("ArticleGroups after Reindex = %v, %v; want [go lua]", got, err)
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

// TestHistoryPagesAfterPruning: when UserHistory drops the entry of an
// article deleted after its voting closed, it reads the page again, so
// that reading page after page still gives every other vote once.
func TestHistoryPagesAfterPruning(t *testing.T) {
	e := newEnv(t, voting.WithPageSize(2), voting.WithUserHistory(30*24*time.Hour))
	e.closedDeletes = true
	var ids []string
	for _, title := range []string{"a", "b", "c", "d", "f", "g"} {
		ids = append(ids, e.post("alice", title))
	}
	for _, id := range ids { // newest vote last
		e.vote("bob", id, voting.Up)
		e.advance(time.Minute)
	}
	e.advance(voting.DefaultCutoff)
	for _, id := range ids {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	for _, id := range []string{ids[5], ids[3]} {
		if err := e.store.DeleteArticle(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for page := 1; page < 10; page++ {
		h, err := e.store.UserHistory(ctx, "bob", page)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range h {
			got = append(got, v.Article.ID)
		}
		if len(h) < 2 {
			break
		}
	}
	if want := []string{ids[4], ids[2], ids[1], ids[0]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history read page by page: %v, want %v", got, want)
	}
	if n := e.int("ZCARD", e.key("history:bob")); n != 4 {
		t.Errorf("history:bob holds %d entries after the reads, want 4", n)
	}
}

// TestRemoveFromGroupsLeavesTheCache: with the book's cached group
// listings, an article taken out of a group leaves its cached listings at
// once, so that a deletion afterwards leaves nothing of it there.
func TestRemoveFromGroupsLeavesTheCache(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes))
	keep := e.post("alice", "kept", "go")
	id := e.post("bob", "deleted", "go")
	for _, o := range e.store.Orders() {
		if _, err := e.store.GetGroupArticles(ctx, "go", 1, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.RemoveFromGroups(ctx, id, "go"); err != nil {
		t.Fatal(err)
	}
	for _, o := range e.store.Orders() {
		if got := idsOf(listAll(t, e.store, "go", o)); fmt.Sprint(got) != "["+keep+"]" {
			t.Errorf("group go by %v lists %v after the removal, want [%s]", o, got, keep)
		}
	}
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatal(err)
	}
	for _, o := range e.store.Orders() {
		for _, m := range e.zset(e.key(o.String() + ":go")) {
			if strings.HasPrefix(m, e.article(id)+"=") {
				t.Errorf("%s:go still holds the deleted %s", o, m)
			}
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// Once voting has closed, UserVotes reads the history only for votes newer
// than d: an old entry the history still holds (the user voted since, so
// the key lives on, and no vote has pruned it) answers None, exactly at d
// too, as UserHistory leaves it out.
func TestUserVotesIgnoresEntriesOlderThanTheHistory(t *testing.T) {
	const d = 3 * time.Hour
	e := newEnv(t, voting.WithCutoff(time.Hour), voting.WithUserHistory(d))
	t0 := e.clock.Now()
	a := e.post("alice", "a")
	e.vote("bob", a, voting.Up)
	e.advance(2 * time.Hour)
	e.do("DEL", e.key("voted:"+a), e.key("downvoted:"+a))
	b := e.post("alice", "b")
	e.vote("bob", b, voting.Up) // keeps the history alive, does not prune a
	e.clock.set(t0.Add(d - 500*time.Millisecond))
	if h, err := e.store.UserHistory(ctx, "bob", 1); err != nil || len(h) != 2 {
		t.Errorf("half a second before d: UserHistory = %+v, %v; want a and b", h, err)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.Up {
		t.Errorf("half a second before d: UserVotes = %v, %v; want [up]", dirs, err)
	}
	e.clock.set(t0.Add(d))
	if h, err := e.store.UserHistory(ctx, "bob", 1); err != nil || len(h) != 1 || h[0].Article.ID != b {
		t.Errorf("at d: UserHistory = %+v, %v; want only b", h, err)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.None {
		t.Errorf("at d: UserVotes = %v, %v; want [none]", dirs, err)
	}
	e.clock.set(t0.Add(d + time.Minute))
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.None {
		t.Errorf("past d: UserVotes = %v, %v; want [none]", dirs, err)
	}
}

// A down-vote on an article deleted after voting closed is dropped from
// the history when UserHistory meets it.
func TestHistoryDropsADeletedDownVote(t *testing.T) {
	e := newEnv(t, voting.WithUserHistory(30*24*time.Hour))
	e.closedDeletes = true
	a := e.post("alice", "a")
	e.vote("bob", a, voting.Down)
	e.advance(voting.DefaultCutoff + time.Second)
	e.do("DEL", e.key("voted:"+a), e.key("downvoted:"+a))
	if err := e.store.DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	if h, err := e.store.UserHistory(ctx, "bob", 1); err != nil || len(h) != 0 {
		t.Fatalf("UserHistory = %+v, %v; want none", h, err)
	}
	if e.exists(e.key("history:bob")) {
		t.Errorf("history:bob = %v, want it gone", e.zset(e.key("history:bob")))
	}
}

// A cached group listing built after the post holds the article; the
// deletion takes it out of the listings of every order.
func TestDeleteClearsCachedListings(t *testing.T) {
	e := newEnv(t, voting.WithOrders(voting.ByVotes))
	keep := e.post("alice", "kept", "go")
	id := e.post("bob", "deleted", "go")
	for _, o := range e.store.Orders() {
		if _, err := e.store.GetGroupArticles(ctx, "go", 1, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatal(err)
	}
	for _, o := range e.store.Orders() {
		if got := e.strs("ZRANGE", e.key(o.String()+":go"), 0, -1); fmt.Sprint(got) != "["+e.article(keep)+"]" {
			t.Errorf("%s:go = %v after the deletion", o, got)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// An article whose hash is gone but whose index entries are left is still
// deleted: only an article of which nothing is stored is not found.
func TestDeleteCleansUpAnArticleWithoutItsHash(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "a", "go")
	e.do("DEL", e.article(id))
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatalf("DeleteArticle: %v", err)
	}
	for _, k := range []string{"score:", "time:", "group:go", "groups:" + id, "voted:" + id} {
		if e.exists(e.key(k)) {
			t.Errorf("%s is left", k)
		}
	}
}

// Group names read from a record that are no group names make DeleteArticle
// report ErrCorrupt naming the record, writing nothing.
func TestDeleteRefusesBadGroupNames(t *testing.T) {
	e := newEnv(t)
	id := e.post("alice", "a", "go")
	key := e.key("groups:" + id)
	e.do("SADD", key, "a{b}")
	before := e.dump()
	err := e.store.DeleteArticle(ctx, id)
	if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
		t.Errorf("%s holding a{b}: %v, want ErrCorrupt naming it", key, err)
	}
	if after := e.dump(); after != before {
		t.Errorf("%s holding a{b}: the deletion wrote", key)
	}
}

// DeleteArticle refuses each key it reads or writes of the wrong type with
// ErrCorrupt naming it, and writes nothing.

// TestHistoryEntriesTheLibraryDoesNotWrite: a history entry that is no
// vote ("none:", "sideways:" or no article) is skipped; one whose time is
// outside the range of times is ErrCorrupt naming the history, from
// UserHistory and, once voting has closed, from UserVotes; a voter set of
// the wrong type is ErrCorrupt naming it.
func TestHistoryEntriesTheLibraryDoesNotWrite(t *testing.T) {
	e := newEnv(t, voting.WithUserHistory(365*24*time.Hour))
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	e.vote("bob", a, voting.Up)
	key := e.key("history:bob")
	at := e.clock.Now().Unix()
	e.do("ZADD", key, at+1, "none:"+e.article(b), at+2, "sideways:"+e.article(b), at+3, "up:", at+4, "up:nothing")
	h, err := e.store.UserHistory(ctx, "bob", 1)
	if err != nil || len(h) != 1 || h[0].Article.ID != a || h[0].Direction != voting.Up {
		t.Fatalf("UserHistory = %+v, %v; want only a, up", h, err)
	}
	e.do("ZADD", key, 2e11, "down:"+e.article(b))
	if _, err := e.store.UserHistory(ctx, "bob", 1); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
		t.Errorf("UserHistory with a time of 2e11: %v, want ErrCorrupt naming %s", err, key)
	}
	e.advance(voting.DefaultCutoff + time.Second)
	for _, id := range []string{a, b} {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	if _, err := e.store.UserVotes(ctx, "bob", a, b); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
		t.Errorf("UserVotes with a time of 2e11: %v, want ErrCorrupt naming %s", err, key)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.Up {
		t.Errorf("UserVotes of a alone = %v, %v; want [up] from the history", dirs, err)
	}
	e.do("SET", e.key("voted:"+a), "x")
	if _, err := e.store.UserVotes(ctx, "bob", a); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("voted:"+a)) {
		t.Errorf("UserVotes with voted:%s a string: %v, want ErrCorrupt naming it", a, err)
	}
}

// TestHistoryOfAUserWithBraces: a user's name may hold braces; the history
// key still lies in the namespace's slot on Redis Cluster (the prefix's
// hash tag comes first), so the vote, the post, the history and the
// deletion all work for such a user.
func TestHistoryOfAUserWithBraces(t *testing.T) {
	e := newEnv(t, voting.WithUserHistory(time.Hour), voting.WithLiveGroups())
	const user = "{other}x{y}"
	id := e.post(user, "by braces", "go")
	other := e.post("alice", "a", "go")
	e.advance(time.Second)
	e.vote(user, other, voting.Down)
	h, err := e.store.UserHistory(ctx, user, 1)
	if err != nil || len(h) != 2 || h[0].Article.ID != other || h[0].Direction != voting.Down || h[1].Article.ID != id {
		t.Fatalf("UserHistory = %+v, %v", h, err)
	}
	for _, d := range []string{id, other} {
		if err := e.store.DeleteArticle(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if e.exists(e.key("history:" + user)) {
		t.Errorf("the history of %q is left after deleting both articles", user)
	}
}
