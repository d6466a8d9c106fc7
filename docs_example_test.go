package voting_test

// The examples of the guides in docs/: each ```go block of a guide is a run
// of lines of one of these functions (or of example_test.go's), which go
// test compiles and runs, output included; TestDocsGoBlocksAreCompiled
// keeps the copies true.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// A docSite is an embedded Redis, a pool on it, and a clock that stands
// still at 2026-11-22 12:00 UTC until advance moves it, for the guides'
// examples: any number of Stores of one namespace over it share the clock.
type docSite struct {
	pool   *redis.Pool
	now    time.Time
	stores []*voting.Store
	stop   func()
}

func newDocSite() *docSite {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }}
	d := &docSite{pool: pool, now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	d.stop = func() {
		// The Stores first: a Store that added an index builds it in the
		// background, and that build must not dial a Redis already closed.
		for _, s := range d.stores {
			s.Close()
		}
		pool.Close()
		mr.Close()
	}
	return d
}

// store opens a Store of the site's namespace with opts, on its clock;
// stop closes it.
func (d *docSite) store(opts ...voting.Option) *voting.Store {
	store, err := voting.New(d.pool, append([]voting.Option{voting.WithClock(func() time.Time { return d.now })}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	d.stores = append(d.stores, store)
	return store
}

func (d *docSite) advance(by time.Duration) { d.now = d.now.Add(by) }

// post posts an article by poster with votes from ups and downs other
// users, and returns its id.
func (d *docSite) post(store *voting.Store, poster, title string, ups, downs int, groups ...string) string {
	ctx := context.Background()
	id, err := store.PostArticle(ctx, poster, title, "https://example.com/"+poster+"/"+fmt.Sprint(d.now.Unix()), groups...)
	if err != nil {
		log.Fatal(err)
	}
	for i := range ups + downs {
		dir := voting.Up
		if i >= ups {
			dir = voting.Down
		}
		if err := store.Vote(ctx, fmt.Sprintf("voter%d", i), id, dir); err != nil {
			log.Fatal(err)
		}
	}
	return id
}

// The orders beyond the book's two, by the names a request gives, listed
// through one Query: a week's top, the all-time top and Reddit's hot
// ranking. Points is the net votes a
// site shows; RankingScore is the book's score, a time.
func ExampleQuery_orders() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithOrders(voting.ByHot, voting.ByVotes, voting.TopWeek))
	site.post(store, "alice", "Last month's classic", 9, 0)
	site.advance(20 * 24 * time.Hour)
	site.post(store, "bob", "This week's debate", 4, 3)
	site.advance(3 * 24 * time.Hour)
	site.post(store, "carol", "Today's news", 2, 0)

	for _, name := range []string{"top-week", "top", "hot"} {
		order, err := voting.ParseOrder(name) // ?order= of a request
		if err != nil {
			log.Fatal(err) // a handler answers 400: errors.Is(err, voting.ErrInvalid)
		}
		articles, _, err := store.List(ctx, voting.Query{Order: order, Paging: voting.Paging{Page: 1}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(order)
		for _, a := range articles {
			fmt.Printf("  %-20s %+d points (%d up, %d down)\n", a.Title, a.Points, a.Upvotes, a.Downvotes)
		}
	}
	// Output:
	// top-week
	//   Today's news         +3 points (3 up, 0 down)
	//   This week's debate   +2 points (5 up, 3 down)
	// votes
	//   Last month's classic +10 points (10 up, 0 down)
	//   Today's news         +3 points (3 up, 0 down)
	//   This week's debate   +2 points (5 up, 3 down)
	// hot
	//   Today's news         +3 points (3 up, 0 down)
	//   This week's debate   +2 points (5 up, 3 down)
	//   Last month's classic +10 points (10 up, 0 down)
}

// An article's place in a listing, for "#2 today", across the site and
// within a group.
func ExampleStore_Rank_today() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithOrders(voting.TopDay))
	site.post(store, "alice", "Redis streams", 5, 0, "redis")
	lua := site.post(store, "bob", "Lua in Redis", 2, 0, "redis")
	site.post(store, "carol", "Go generics", 3, 0, "go")

	today, err := store.Rank(ctx, lua, voting.Query{Order: voting.TopDay})
	if err != nil {
		log.Fatal(err)
	}
	inRedis, err := store.Rank(ctx, lua, voting.Query{Order: voting.TopDay, Group: "redis"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("#%d today, #%d in redis\n", today, inRedis)
	_, err = store.Rank(ctx, lua, voting.Query{Order: voting.TopDay, Group: "go"})
	fmt.Println(errors.Is(err, voting.ErrNotFound))
	// Output:
	// #3 today, #2 in redis
	// true
}

// Turning an order on for a site that has articles, for an operator who
// runs Reindex (WithAutoReindex(false)): its listings answer ErrNotIndexed
// until Reindex has built its index for the articles posted before.
func ExampleStore_ReindexWithProgress_newOrder() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	old := site.store() // the book's orders alone
	for _, title := range []string{"First", "Second", "Third"} {
		site.post(old, "alice", title, 1, 0)
	}

	store := site.store(voting.WithOrders(voting.ByVotes), voting.WithAutoReindex(false))
	_, _, err := store.List(ctx, voting.Query{Order: voting.ByVotes})
	fmt.Println(errors.Is(err, voting.ErrNotIndexed))

	var steps int
	done, err := store.ReindexWithProgress(ctx, func(p voting.ReindexProgress) {
		steps = p.Steps // a progress bar would move here
	})
	if err != nil {
		log.Fatal(err) // call it again: the run goes on where it stopped
	}
	fmt.Println(done.Done, done.Articles, steps == done.Steps)
	n, err := store.Count(ctx, voting.Query{Order: voting.ByVotes})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "articles by votes")
	// Output:
	// true
	// true 3 true
	// 3 articles by votes
}

// A group's page, its articles' groups in the same round trips, the
// groups by size for a sidebar, and a group that holds nothing.
func ExampleQuery_groupPage() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	cats := site.post(store, "alice", "Cats in boxes", 0, 0, "cute", "funny")
	site.advance(time.Minute)
	site.post(store, "bob", "Go generics", 0, 0, "programming")
	site.advance(time.Minute)
	dogs := site.post(store, "carol", "Dogs on skates", 0, 0, "cute")

	if err := store.AddToGroups(ctx, dogs, "funny"); err != nil {
		log.Fatal(err)
	}
	if err := store.RemoveFromGroups(ctx, cats, "funny"); err != nil {
		log.Fatal(err)
	}
	page, _, err := store.List(ctx, voting.Query{Group: "cute", Order: voting.ByTime, WithGroups: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range page {
		fmt.Printf("%s %v\n", a.Title, a.Groups)
	}
	groups, _, err := store.Groups(ctx, voting.Paging{Page: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(groups)

	// A group that never held an article, and one that held one and
	// emptied, both list as empty pages, and neither is in Groups.
	if err := store.RemoveFromGroups(ctx, cats, "cute"); err != nil {
		log.Fatal(err)
	}
	for _, group := range []string{"never-used", "programming-2"} {
		page, _, err := store.List(ctx, voting.Query{Group: group})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(group, len(page))
	}
	// Output:
	// Dogs on skates [cute funny]
	// Cats in boxes [cute]
	// [{cute 2} {programming 1} {funny 1}]
	// never-used 0
	// programming-2 0
}

// A site that lists its groups through the book's cache switches to live
// groups: a Store given WithLiveGroups adds them to the namespace, and
// Reindex builds them for the articles before (or, by default, the Store
// in the background).
func ExampleWithLiveGroups_reindex() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	old := site.store(voting.WithGroupCacheTTL(time.Minute)) // the book's cached group listings
	streams := site.post(old, "alice", "Redis streams", 3, 0, "redis")
	site.post(old, "bob", "Lua in Redis", 1, 0, "redis")

	store := site.store(voting.WithLiveGroups(), voting.WithAutoReindex(false))
	_, err := store.Rank(ctx, streams, voting.Query{Group: "redis"})
	fmt.Println(errors.Is(err, voting.ErrNotIndexed)) // until Reindex
	if err := store.Reindex(ctx); err != nil {
		log.Fatal(err)
	}
	rank, err := store.Rank(ctx, streams, voting.Query{Group: "redis"})
	if err != nil {
		log.Fatal(err)
	}
	set, err := store.Settings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rank, set.LiveGroups)
	// Output:
	// true
	// 1 true
}

// A profile page: a user's articles, their count, their karma and their
// votes; and what the same calls answer for a user who never posted.
func Example_profilePage() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithKarma(), voting.WithUserHistory(30*24*time.Hour))
	site.post(store, "alice", "Redis streams", 2, 1)
	site.advance(time.Minute)
	generics := site.post(store, "bob", "Go generics", 0, 0)
	site.advance(time.Minute)
	if err := store.Vote(ctx, "alice", generics, voting.Up); err != nil {
		log.Fatal(err)
	}

	for _, user := range []string{"alice", "nobody"} {
		posts := voting.Query{User: user, Order: voting.ByTime}
		articles, _, err := store.List(ctx, posts)
		if err != nil {
			log.Fatal(err)
		}
		n, err := store.Count(ctx, posts)
		if err != nil {
			log.Fatal(err)
		}
		karma, err := store.Karma(ctx, user)
		if err != nil {
			log.Fatal(err)
		}
		votes, _, err := store.UserHistory(ctx, user, voting.Paging{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d articles, karma %d\n", user, n, karma)
		for _, a := range articles {
			fmt.Printf("  posted %q, %+d points\n", a.Title, a.Points)
		}
		for _, v := range votes {
			fmt.Printf("  voted %s on %q\n", v.Direction, v.Article.Title)
		}
	}
	// Output:
	// alice: 1 articles, karma 1
	//   posted "Redis streams", +2 points
	//   voted up on "Go generics"
	//   voted up on "Redis streams"
	// nobody: 0 articles, karma 0
}

// With unique links, a link is posted once; an edit that gives an article
// another link frees its old one.
func ExampleStore_EditArticle_link() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithUniqueLinks())
	id, err := store.PostArticle(ctx, "alice", "Redis streams", "https://redis.io/docs/streams")
	if err != nil {
		log.Fatal(err)
	}
	_, err = store.PostArticle(ctx, "bob", "Streams, explained", "https://Redis.IO/docs/streams#consumer-groups")
	fmt.Println(errors.Is(err, voting.ErrDuplicate))

	if err := store.EditArticle(ctx, id, "Redis streams, a tour", "https://redis.io/docs/data-types/streams"); err != nil {
		log.Fatal(err)
	}
	a, err := store.ArticleByLink(ctx, "https://REDIS.io/docs/data-types/streams#top")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %q\n", a.ID, a.Title)
	again, err := store.PostArticle(ctx, "bob", "Streams, explained", "https://Redis.IO/docs/streams#consumer-groups")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("posted as", again)
	// Output:
	// true
	// 1 "Redis streams, a tour"
	// posted as 2
}

// Deleting an article takes it out of everything at once: every listing,
// its groups, its poster's articles; the id is unknown from then on.
func ExampleStore_DeleteArticle_everywhere() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	id := site.post(store, "alice", "Spam", 2, 0, "redis")
	site.post(store, "bob", "Lua in Redis", 0, 0, "redis")

	if err := store.DeleteArticle(ctx, id); err != nil {
		log.Fatal(err)
	}
	err := store.Vote(ctx, "carol", id, voting.Up)
	fmt.Println(errors.Is(err, voting.ErrNotFound), err)
	mine, err := store.Count(ctx, voting.Query{User: "alice", Order: voting.ByTime})
	if err != nil {
		log.Fatal(err)
	}
	groups, _, err := store.Groups(ctx, voting.Paging{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mine, groups)
	// Output:
	// true voting: vote on article 1: article not found
	// 0 [{redis 1}]
}

// Any number of articles by id, and a user's vote on each, for a page
// that lists articles it did not get from a listing (a user's saved
// articles, say).
func ExampleStore_Articles_saved() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	a := site.post(store, "alice", "Redis streams", 0, 0, "redis")
	b := site.post(store, "bob", "Go generics", 0, 0)
	if err := store.Vote(ctx, "carol", b, voting.Down); err != nil {
		log.Fatal(err)
	}

	saved := []string{b, "99", a} // 99 was deleted
	articles, err := store.Articles(ctx, saved...)
	if err != nil {
		log.Fatal(err)
	}
	ids := make([]string, len(articles))
	for i, a := range articles {
		ids[i] = a.ID
	}
	arrows, err := store.UserVotes(ctx, "carol", ids...)
	if err != nil {
		log.Fatal(err)
	}
	for i, a := range articles {
		fmt.Printf("%s %q %v, carol: %v\n", a.ID, a.Title, a.Groups, arrows[i])
	}
	// Output:
	// 2 "Go generics" [], carol: down
	// 1 "Redis streams" [redis], carol: none
}

// An Article, a page of them or a user's vote encodes as JSON as it is.
func ExampleArticle_json() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	id := site.post(store, "alice", "Redis in Action", 4, 1, "books", "redis")

	a, err := store.Article(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	out, err := json.Marshal(a)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"id":"1","title":"Redis in Action","link":"https://example.com/alice/1795348800","poster":"alice","posted":"2026-11-22T12:00:00Z","points":4,"upvotes":5,"downvotes":1,"rankingScore":1795350528,"comments":0,"groups":["books","redis"]}
}

// A walk through a listing by cursor, as Reddit's API pages with after=:
// each page gives the cursor of the next, "" after the last.
func ExamplePaging_walk() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	for _, title := range []string{"One", "Two", "Three", "Four", "Five"} {
		site.post(store, "alice", title, 0, 0)
		site.advance(time.Hour)
	}

	q := voting.Query{Order: voting.ByTime, Paging: voting.Paging{Size: 2}}
	for {
		articles, next, err := store.List(ctx, q)
		if err != nil {
			log.Fatal(err)
		}
		for _, a := range articles {
			fmt.Print(a.Title, " ")
		}
		fmt.Println("|")
		if next == "" {
			break
		}
		q.After = next
	}
	q.Page = 2
	_, _, err := store.List(ctx, q)
	fmt.Println(errors.Is(err, voting.ErrInvalid)) // a page and a cursor
	// Output:
	// Five Four |
	// Three Two |
	// One |
	// true
}

// A numbered page, "page 1 of 3", whose "more" link goes on by cursor
// from its last article.
func ExampleStore_Cursor_more() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithPageSize(2))
	for _, title := range []string{"One", "Two", "Three", "Four", "Five"} {
		site.post(store, "alice", title, 0, 0)
		site.advance(time.Hour)
	}

	q := voting.Query{Order: voting.ByTime, Paging: voting.Paging{Page: 1}}
	page, _, err := store.List(ctx, q)
	if err != nil {
		log.Fatal(err)
	}
	n, err := store.Count(ctx, q)
	if err != nil {
		log.Fatal(err)
	}
	size := int64(store.PageSize())
	more, err := store.Cursor(ctx, page[len(page)-1].ID, q)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("page 1 of %d: %s, %s\n", (n+size-1)/size, page[0].Title, page[1].Title)

	next, _, err := store.List(ctx, voting.Query{Order: voting.ByTime, Paging: voting.Paging{After: more}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("more: %s, %s\n", next[0].Title, next[1].Title)
	// Output:
	// page 1 of 3: Five, Four
	// more: Three, Two
}

// Every list pages as Paging says: the groups, the top posters and a
// user's history as the listings of articles do.
func ExampleStore_Groups_allPages() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	for i, group := range []string{"go", "lua", "redis"} {
		for range i + 1 {
			site.post(store, "alice", "About "+group, 0, 0, group)
		}
	}

	var all []voting.GroupSize
	p := voting.Paging{Size: 2}
	for {
		groups, next, err := store.Groups(ctx, p)
		if err != nil {
			log.Fatal(err)
		}
		all = append(all, groups...)
		if next == "" {
			break
		}
		p.After = next
	}
	n, err := store.CountGroups(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, all)
	// Output:
	// 3 [{redis 3} {lua 2} {go 1}]
}

// A Store whose calls wait for Redis at most two seconds a round trip
// when their context has no earlier deadline, and a call whose context
// has one.
func ExampleWithTimeout_deadline() {
	site := newDocSite()
	defer site.stop()
	store := site.store(voting.WithTimeout(2 * time.Second))

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := store.GetArticles(ctx, 1, voting.ByScore)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		log.Print("Redis did not answer in time: ", err) // 504 in a handler
	}
	fmt.Println(err, store.Timeout())
	// Output:
	// <nil> 2s
}

// Reading the namespace's settings, and changing its vote weight and
// cutoff for every Store of it.
func ExampleStore_Rescore_weight() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	id := site.post(store, "alice", "Redis in Action", 2, 0)

	if err := store.Rescore(ctx, 864, 3*24*time.Hour); err != nil {
		log.Fatal(err) // call it again with the same values to finish
	}
	set, err := store.Settings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	a, err := store.Article(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(set.VoteWeight, set.Cutoff, a.RankingScore-float64(a.Posted.Unix()))

	// A Store still given the old weight is refused, and writes nothing.
	stale := site.store(voting.WithVoteWeight(432))
	_, err = stale.PostArticle(ctx, "bob", "Old weight", "https://example.com/old")
	fmt.Println(errors.Is(err, voting.ErrInvalid))
	// Output:
	// 864 72h0m0s 2592
	// true
}

// Stopping an order: the namespace no longer keeps its index, whose keys
// go in bounded steps.
func ExampleStore_StopKeeping_order() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithOrders(voting.ByVotes, voting.ByHot))
	site.post(store, "alice", "Redis in Action", 2, 0)

	if err := store.StopKeeping(ctx, voting.WithOrders(voting.ByHot)); err != nil {
		log.Fatal(err) // call it again to finish
	}
	set, err := store.Settings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(set.Orders)
	_, _, err = store.List(ctx, voting.Query{Order: voting.ByHot})
	fmt.Println(errors.Is(err, voting.ErrInvalid))
	// Output:
	// [score time votes]
	// true
}

// The users active in the last hour and the last day, and when one last
// posted (WithActiveUsers).
func ExampleWithActiveUsers() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithActiveUsers())
	site.post(store, "alice", "Redis in Action", 0, 0)
	site.advance(2 * time.Hour)
	article := site.post(store, "bob", "Go generics", 0, 0)
	if _, err := store.PostComment(ctx, "carol", article, "", "Nice."); err != nil {
		log.Fatal(err)
	}
	hour, err := store.ActiveUsers(ctx, site.now.Add(-time.Hour))
	if err != nil {
		log.Fatal(err)
	}
	day, _ := store.ActiveUsers(ctx, site.now.Add(-24*time.Hour))
	seen, _ := store.LastActive(ctx, "alice")
	fmt.Println(hour, day, seen.Format(time.Kitchen))
	// Output:
	// 2 3 12:00PM
}

// Testing code that uses a Store: an embedded Redis (miniredis), a clock
// that moves only when the test moves it, and a namespace of its own.
func Example_testing() {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }}
	defer pool.Close()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	store, err := voting.New(pool,
		voting.WithPrefix("test:"),
		voting.WithClock(func() time.Time { return now }),
	)
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	id, err := store.PostArticle(ctx, "alice", "Redis in Action", "https://redis.io/ebook")
	if err != nil {
		log.Fatal(err)
	}
	now = now.Add(voting.DefaultCutoff) // a week later, without waiting
	err = store.Vote(ctx, "bob", id, voting.Up)
	fmt.Println(errors.Is(err, voting.ErrVotingClosed))
	fmt.Println(mr.Exists("test:article:1"))
	// Output:
	// true
	// true
}

// The calls of the API before v1, each written the new way.
func Example_upgrading() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithOrders(voting.ByVotes), voting.WithKarma(), voting.WithUserHistory(24*time.Hour))
	id := site.post(store, "alice", "Redis in Action", 2, 0, "redis")
	order, group, user, page := voting.ByVotes, "redis", "alice", 1
	check := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}

	// GetArticlesAfter(ctx, order, cursor) and GetGroupArticlesAfter(ctx, group, order, cursor)
	site1, next, err := store.List(ctx, voting.Query{Order: order, Paging: voting.Paging{After: ""}})
	check(err)
	group1, next, err := store.List(ctx, voting.Query{Group: group, Order: order, Paging: voting.Paging{After: next}})
	check(err)
	// CursorAfter(ctx, order, group, id)
	cursor, err := store.Cursor(ctx, id, voting.Query{Order: order, Group: group})
	check(err)
	// CountArticles(ctx, order) and CountGroupArticles(ctx, group, order)
	inSite, err := store.Count(ctx, voting.Query{Order: order})
	check(err)
	inGroup, err := store.Count(ctx, voting.Query{Group: group, Order: order})
	check(err)
	// UserArticles(ctx, user, page) and CountUserArticles(ctx, user)
	posts, _, err := store.List(ctx, voting.Query{User: user, Order: voting.ByTime, Paging: voting.Paging{Page: page}})
	check(err)
	posted, err := store.Count(ctx, voting.Query{User: user, Order: voting.ByTime})
	check(err)
	// ArticleGroups(ctx, id)
	a, err := store.Article(ctx, id)
	check(err)
	groups := a.Groups
	// Rank(ctx, id, order)
	rank, err := store.Rank(ctx, id, voting.Query{Order: order})
	check(err)
	// Groups(ctx, page), TopPosters(ctx, page) and UserHistory(ctx, user, page)
	sizes, _, err := store.Groups(ctx, voting.Paging{Page: page})
	check(err)
	top, _, err := store.TopPosters(ctx, voting.Paging{Page: page})
	check(err)
	votes, _, err := store.UserHistory(ctx, user, voting.Paging{Page: page})
	check(err)
	// Orders(), Cutoff(), LiveGroups(), HistoryTime(), KeepsKarma() and UniqueLinks()
	set, err := store.Settings(ctx)
	check(err)
	closes := a.Posted.Add(set.Cutoff)
	// a.Votes and a.Score
	up, score := a.Upvotes, a.RankingScore

	fmt.Println(len(site1), len(group1), next == "", cursor != "", inSite, inGroup, len(posts), posted)
	fmt.Println(groups, rank, sizes, top, len(votes))
	fmt.Println(set.Orders, set.LiveGroups, set.UserHistory, set.Karma, set.UniqueLinks, closes.Format(time.DateOnly))
	fmt.Println(up, score)
	// Output:
	// 1 1 true true 1 1 1 1
	// [redis] 1 [{redis 1}] [{alice 2}] 1
	// [score time votes] true 24h0m0s true false 2026-11-29
	// 3 1.795350096e+09
}

// An order turned on for a site that has articles builds itself: the
// Store that adds it runs Reindex in the background, one Store of the
// namespace at a time, and Settings says how far it has come; its
// listings answer ErrNotIndexed until it is built.
func ExampleWithAutoReindex() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	old := site.store() // the book's orders alone
	for _, title := range []string{"First", "Second", "Third"} {
		site.post(old, "alice", title, 1, 0)
	}

	store := site.store(voting.WithOrders(voting.ByHot)) // builds hot in the background
	defer store.Close()                                  // stops the build, if it runs
	for {
		set, err := store.Settings(ctx)
		if err != nil {
			log.Fatal(err)
		}
		if len(set.Building.Unbuilt) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond) // a status page would show set.Building
	}
	n, err := store.Count(ctx, voting.Query{Order: voting.ByHot})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "articles by hot")
	// Output:
	// 3 articles by hot
}
