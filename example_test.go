package voting_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

// exampleRedis starts an embedded Redis for the examples; a service would
// dial its own server.
func exampleRedis() (addr string, stop func()) {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	return mr.Addr(), mr.Close
}

// exampleStore opens a Store with the book's numbers (and opts) on an
// embedded Redis,
// with a clock that stands still at 2026-11-22 12:00 UTC until advance moves
// it, so that the examples print the same scores every time.
func exampleStore(opts ...voting.Option) (store *voting.Store, advance func(time.Duration), stop func()) {
	addr, stopRedis := exampleRedis()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	store, err := voting.New(pool, append([]voting.Option{voting.WithClock(func() time.Time { return now })}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	return store, func(d time.Duration) { now = now.Add(d) }, func() { pool.Close(); stopRedis() }
}

// The README's quick start: post, vote, and read the front page, a group's
// page and a user's votes. The README shows this function's lines from ctx
// to the last Printf, word for word; TestReadmeQuickStartIsCompiled checks
// that they stay so.
func Example_quickStart() {
	addr, stop := exampleRedis() // a service dials its own, such as "localhost:6379"
	defer stop()

	ctx := context.Background()
	pool := &redis.Pool{
		MaxIdle: 16,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr)
		},
	}
	defer pool.Close()
	store, err := voting.New(pool) // the book's keys and numbers
	if err != nil {
		log.Fatal(err)
	}

	id, err := store.PostArticle(ctx, "alice", "Redis in Action", "https://redis.io/ebook", "redis", "books")
	if err != nil {
		log.Fatal(err)
	}
	// voting.Up, or voting.Down, or voting.None to take the vote back.
	if err := store.Vote(ctx, "bob", id, voting.Up); err != nil {
		log.Fatal(err)
	}
	page, err := store.GetArticles(ctx, 1, voting.ByScore) // page 1, highest score first
	if err != nil {
		log.Fatal(err)
	}
	ids := make([]string, len(page))
	for i, a := range page {
		ids[i] = a.ID
	}
	arrows, err := store.UserVotes(ctx, "bob", ids...) // Up, Down or None per article, for the UI
	if err != nil {
		log.Fatal(err)
	}
	for i, a := range page {
		fmt.Printf("%d. %s (%s), %d points, bob: %v\n", i+1, a.Title, a.Link, a.Points, arrows[i])
	}
	// Any listing: the site's, a group's or a user's, in any order kept,
	// a page by number or after a cursor, of any size, with the groups.
	news, next, err := store.List(ctx, voting.Query{Group: "redis", Order: voting.ByTime, WithGroups: true,
		Paging: voting.Paging{Size: 10}})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range news {
		fmt.Printf("in redis: %s by %s, in %v\n", a.Title, a.Poster, a.Groups)
	}
	fmt.Printf("more: %t\n", next != "")
	// Output:
	// 1. Redis in Action (https://redis.io/ebook), 2 points, bob: up
	// in redis: Redis in Action by alice, in [books redis]
	// more: false
}

// A Store over a redigo pool, with the book's numbers except a page of 10
// and a namespace of its own.
func ExampleNew() {
	addr, stop := exampleRedis()
	defer stop()

	pool := &redis.Pool{
		MaxIdle:     16,
		IdleTimeout: 5 * time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr)
		},
	}
	defer pool.Close()

	store, err := voting.New(pool,
		voting.WithPrefix("news:"),
		voting.WithPageSize(10),
		voting.WithGroupCacheTTL(30*time.Second),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("page size:", store.PageSize())

	_, err = voting.New(pool, voting.WithVoteWeight(-432))
	fmt.Println(errors.Is(err, voting.ErrInvalid), err)
	// Output:
	// page size: 10
	// true voting: new store: invalid input: vote weight -432 is outside (0, 1e+09]
}

// A Store that keeps the pages it reads in memory, emptied at each write:
// Redis 6 and later tell it of every change to its namespace. On a server
// without client-side caching (this example's embedded one) every page is
// read from Redis, with the same results.
func ExampleWithClientCache() {
	addr, stop := exampleRedis()
	defer stop()
	pool := &redis.Pool{
		MaxIdle:     16,
		IdleTimeout: 5 * time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr)
		},
	}
	defer pool.Close()
	ctx := context.Background()

	store, err := voting.New(pool, voting.WithPrefix("news:"), voting.WithClientCache(1000))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close() // ends the cache's subscription and its connection

	id, err := store.PostArticle(ctx, "alice", "Redis in Action", "https://redis.io/")
	if err != nil {
		log.Fatal(err)
	}
	front, _, err := store.List(ctx, voting.Query{Paging: voting.Paging{Page: 1}}) // from Redis
	if err != nil {
		log.Fatal(err)
	}
	if err := store.Vote(ctx, "bob", id, voting.Up); err != nil { // empties the cache
		log.Fatal(err)
	}
	again, _, err := store.List(ctx, voting.Query{Paging: voting.Paging{Page: 1}}) // sees bob's vote
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(front[0].Upvotes, again[0].Upvotes)
	// Output:
	// 1 2
}

// Post articles, vote, and read the front page by score and by time.
func ExampleStore_GetArticles() {
	store, advance, stop := exampleStore()
	defer stop()
	ctx := context.Background()

	old, err := store.PostArticle(ctx, "alice", "Redis in Action", "https://redis.io/ebook")
	if err != nil {
		log.Fatal(err)
	}
	advance(time.Hour)
	if _, err := store.PostArticle(ctx, "bob", "Go 1.26 is out", "https://go.dev/blog"); err != nil {
		log.Fatal(err)
	}
	// Nine votes buy 9 x 432 = 3,888 seconds: enough to rise above an
	// article posted an hour later.
	for i := 1; i <= 9; i++ {
		if err := store.Vote(ctx, fmt.Sprintf("user%d", i), old, voting.Up); err != nil {
			log.Fatal(err)
		}
	}

	for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
		page, err := store.GetArticles(ctx, 1, order)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("by", order)
		for _, a := range page {
			fmt.Printf("  %s %-16s %2d points, ranking score %.0f\n", a.ID, a.Title, a.Points, a.RankingScore)
		}
	}
	// Output:
	// by score
	//   1 Redis in Action  10 points, ranking score 1795353120
	//   2 Go 1.26 is out    1 points, ranking score 1795352832
	// by time
	//   2 Go 1.26 is out    1 points, ranking score 1795352832
	//   1 Redis in Action  10 points, ranking score 1795353120
}

// Down-votes take the weight off; switching moves twice the weight; None
// takes a vote back. UserVotes tells a page which arrows to light.
func ExampleStore_Vote() {
	store, advance, stop := exampleStore()
	defer stop()
	ctx := context.Background()

	id, err := store.PostArticle(ctx, "alice", "Tabs or spaces?", "https://example.com/tabs")
	if err != nil {
		log.Fatal(err)
	}
	show := func(what string) {
		a, err := store.Article(ctx, id)
		if err != nil {
			log.Fatal(err)
		}
		dirs, err := store.UserVotes(ctx, "bob", id)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-10s up %d, down %d, score %.0f, bob: %v\n", what, a.Upvotes, a.Downvotes, a.RankingScore, dirs[0])
	}
	show("posted")
	for _, step := range []struct {
		dir  voting.Direction
		what string
	}{{voting.Down, "down"}, {voting.Up, "switched"}, {voting.None, "taken back"}} {
		if err := store.Vote(ctx, "bob", id, step.dir); err != nil {
			log.Fatal(err)
		}
		show(step.what)
	}

	advance(voting.DefaultCutoff)
	err = store.Vote(ctx, "bob", id, voting.Up)
	fmt.Println(errors.Is(err, voting.ErrVotingClosed), err)
	err = store.Vote(ctx, "bob", "42", voting.Up)
	fmt.Println(errors.Is(err, voting.ErrNotFound), err)
	// Output:
	// posted     up 1, down 0, score 1795349232, bob: none
	// down       up 1, down 1, score 1795348800, bob: down
	// switched   up 2, down 0, score 1795349664, bob: up
	// taken back up 1, down 0, score 1795349232, bob: none
	// true voting: vote on article 1: voting closed: the article is older than 168h0m0s
	// true voting: vote on article 42: article not found
}

// Groups are topics; a group listing is the book's cached intersection of
// the group with the score or time index.
func ExampleStore_GetGroupArticles() {
	store, advance, stop := exampleStore()
	defer stop()
	ctx := context.Background()

	post := func(poster, title string, groups ...string) string {
		id, err := store.PostArticle(ctx, poster, title, "https://example.com/"+poster, groups...)
		if err != nil {
			log.Fatal(err)
		}
		advance(time.Minute)
		return id
	}
	cats := post("alice", "Cats in boxes", "cute", "funny")
	post("bob", "Go generics", "programming")
	dogs := post("carol", "Dogs on skates", "cute")
	if err := store.AddToGroups(ctx, dogs, "funny"); err != nil {
		log.Fatal(err)
	}
	if err := store.RemoveFromGroups(ctx, cats, "funny"); err != nil {
		log.Fatal(err)
	}

	for _, group := range []string{"cute", "funny", "programming"} {
		page, err := store.GetGroupArticles(ctx, group, 1, voting.ByTime)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s:", group)
		for _, a := range page {
			fmt.Printf(" %q", a.Title)
		}
		fmt.Println()
	}
	err := store.AddToGroups(ctx, dogs, "not a group name")
	fmt.Println(errors.Is(err, voting.ErrInvalid))
	// Output:
	// cute: "Dogs on skates" "Cats in boxes"
	// funny: "Dogs on skates"
	// programming: "Go generics"
	// true
}

// Keep the top of the week beside the book's orders, and list it as a web
// handler would for ?order=top-week: the articles posted in the last 7
// days, most net votes first. Older articles stay in the all-time top.
func ExampleWithOrders() {
	store, advance, stop := exampleStore(voting.WithOrders(voting.TopWeek, voting.ByVotes))
	defer stop()
	ctx := context.Background()

	post := func(title string, ups, downs int) {
		id, err := store.PostArticle(ctx, "alice", title, "https://example.com/")
		if err != nil {
			log.Fatal(err)
		}
		for i := 0; i < ups+downs; i++ {
			dir := voting.Up
			if i >= ups {
				dir = voting.Down
			}
			if err := store.Vote(ctx, fmt.Sprintf("user%d", i), id, dir); err != nil {
				log.Fatal(err)
			}
		}
	}
	post("Last month's classic", 9, 0)
	advance(20 * 24 * time.Hour)
	post("This week's debate", 3, 2)
	advance(3 * 24 * time.Hour)
	post("Today's news", 2, 0)

	for _, name := range []string{"top-week", "top"} {
		order, err := voting.ParseOrder(name) // from the request's query
		if err != nil {
			log.Fatal(err)
		}
		page, err := store.GetArticles(ctx, 1, order)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(order)
		for _, a := range page {
			fmt.Printf("  %-20s %+d\n", a.Title, a.Points)
		}
	}
	// Output:
	// top-week
	//   Today's news         +3
	//   This week's debate   +2
	// votes
	//   Last month's classic +10
	//   Today's news         +3
	//   This week's debate   +2
}

// Turn an order on for a site that already has articles, for an operator
// who runs Reindex: the Store keeps the new indexes from its first post or
// vote, and Reindex builds them for the articles before it, in bounded
// steps, while the site runs. (By default the Store builds them itself,
// in the background: ExampleWithAutoReindex.)
func ExampleStore_Reindex() {
	addr, stop := exampleRedis()
	defer stop()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	defer pool.Close()
	ctx := context.Background()
	old, err := voting.New(pool) // the book's orders alone
	if err != nil {
		log.Fatal(err)
	}
	for _, title := range []string{"First", "Second", "Third"} {
		if _, err := old.PostArticle(ctx, "alice", title, "https://example.com/"); err != nil {
			log.Fatal(err)
		}
	}

	store, err := voting.New(pool, voting.WithOrders(voting.ByVotes, voting.TopWeek), voting.WithAutoReindex(false))
	if err != nil {
		log.Fatal(err)
	}
	if err := store.Reindex(ctx); err != nil {
		log.Fatal(err)
	}
	page, err := store.GetArticles(ctx, 1, voting.TopWeek)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page), "articles in the top of the week")
	// Output:
	// 3 articles in the top of the week
}

// With live groups, a group's page is read from its own index, kept by
// every post, vote and group change: a new post and a vote show in it at
// once, as on the site's page, however large the group.
func ExampleWithLiveGroups() {
	addr, stop := exampleRedis()
	defer stop()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	defer pool.Close()
	ctx := context.Background()

	store, err := voting.New(pool, voting.WithLiveGroups())
	if err != nil {
		log.Fatal(err)
	}
	first, err := store.PostArticle(ctx, "alice", "Redis streams", "https://example.com/streams", "redis")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := store.PostArticle(ctx, "bob", "Lua in Redis", "https://example.com/lua", "redis"); err != nil {
		log.Fatal(err)
	}
	for _, user := range []string{"carol", "dave"} {
		if err := store.Vote(ctx, user, first, voting.Up); err != nil {
			log.Fatal(err)
		}
	}
	page, err := store.GetGroupArticles(ctx, "redis", 1, voting.ByScore)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range page {
		fmt.Printf("%-14s %d votes\n", a.Title, a.Upvotes)
	}
	// Output:
	// Redis streams  3 votes
	// Lua in Redis   1 votes
}

// What a namespace stores is its own, kept in Redis: a Store given more
// options adds to it, and every Store, whatever its options, writes by it.
func ExampleStore_Settings() {
	addr, stop := exampleRedis()
	defer stop()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	defer pool.Close()
	ctx := context.Background()

	store, err := voting.New(pool, voting.WithOrders(voting.ByHot))
	if err != nil {
		log.Fatal(err)
	}
	set, err := store.Settings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(set.Orders, set.LiveGroups, set.VoteWeight)

	// A Store given no option goes by the namespace's settings; one given
	// another weight is refused.
	plain, err := voting.New(pool)
	if err != nil {
		log.Fatal(err)
	}
	if set, err = plain.Settings(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(set.Orders)
	heavy, err := voting.New(pool, voting.WithVoteWeight(1000))
	if err != nil {
		log.Fatal(err)
	}
	_, err = heavy.PostArticle(ctx, "alice", "Heavier votes", "https://example.com/heavy")
	fmt.Println(errors.Is(err, voting.ErrInvalid))
	// Output:
	// [score time hot] true 432
	// [score time hot]
	// true
}

// A web handler takes the order from the query string by its name.
func ExampleParseOrder() {
	store, _, stop := exampleStore(voting.WithOrders(voting.TopWeek))
	defer stop()
	ctx := context.Background()
	if _, err := store.PostArticle(ctx, "alice", "Hello", "https://example.com/"); err != nil {
		log.Fatal(err)
	}
	query := url.Values{"order": {"top-week"}} // r.URL.Query() in a handler

	order, err := voting.ParseOrder(query.Get("order"))
	if err != nil {
		log.Fatal(err) // a handler answers 400: errors.Is(err, voting.ErrInvalid)
	}
	page, err := store.GetArticles(ctx, 1, order)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(order, len(page))
	_, err = voting.ParseOrder("bestest")
	fmt.Println(errors.Is(err, voting.ErrInvalid))
	// Output:
	// top-week 1
	// true
}

// Two namespaces on a Redis Cluster, each in a slot of its own through its
// prefix's hash tag. (Compiled, not run: it needs a cluster.)
func Example_redisCluster() {
	cluster := &redisc.Cluster{
		StartupNodes: []string{"10.0.0.1:7000", "10.0.0.2:7000", "10.0.0.3:7000"},
		CreatePool: func(addr string, opts ...redis.DialOption) (*redis.Pool, error) {
			return &redis.Pool{MaxIdle: 16, Dial: func() (redis.Conn, error) {
				return redis.Dial("tcp", addr, opts...)
			}}, nil
		},
	}
	defer cluster.Close()
	if err := cluster.Refresh(); err != nil {
		log.Fatal(err)
	}
	news, err := voting.New(cluster, voting.WithPrefix("{news}:"))
	if err != nil {
		log.Fatal(err)
	}
	cats, err := voting.New(cluster, voting.WithPrefix("{cats}:")) // likely another node
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(news.PageSize(), cats.PageSize())
}

// A small HTTP service on a Store: each endpoint is one method, errors map
// to statuses with errors.Is, the order comes from the query through
// One handler for every listing: the query string names the order, the
// group or user, and the page (by number or cursor) and its size; ParseOrder
// reads the order, Count gives the page count, and articles are encoded as
// JSON directly.
func Example_httpHandler() {
	store, _, stop := exampleStore(voting.WithPageSize(2), voting.WithOrders(voting.ByHot))
	defer stop()
	for _, title := range []string{"One", "Two", "Three"} {
		if _, err := store.PostArticle(context.Background(), "alice", title, "https://example.com/"); err != nil {
			log.Fatal(err)
		}
	}

	// status maps the library's errors to HTTP statuses.
	status := func(err error) int {
		switch {
		case errors.Is(err, voting.ErrInvalid):
			return http.StatusBadRequest
		case errors.Is(err, voting.ErrNotFound):
			return http.StatusNotFound
		case errors.Is(err, voting.ErrVotingClosed):
			return http.StatusConflict
		case errors.Is(err, voting.ErrNotIndexed):
			return http.StatusServiceUnavailable // until the index is built
		case errors.Is(err, context.Canceled):
			return 499 // the client has gone: nginx's "client closed request"
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
			return http.StatusGatewayTimeout // the request's deadline, or WithTimeout
		}
		return http.StatusInternalServerError
	}
	mux := http.NewServeMux()
	// GET /articles?order=time&group=go&page=2&size=10, or after=CURSOR in
	// place of page; no order is the default, by score.
	mux.HandleFunc("GET /articles", func(w http.ResponseWriter, r *http.Request) {
		q := voting.Query{Group: r.FormValue("group"), User: r.FormValue("user"), Paging: voting.Paging{After: r.FormValue("after")}}
		var err error
		if name := r.FormValue("order"); name != "" {
			q.Order, err = voting.ParseOrder(name)
		}
		for _, v := range []struct {
			name string
			to   *int
		}{{"page", &q.Page}, {"size", &q.Size}} {
			if text := r.FormValue(v.name); text != "" && err == nil {
				if *v.to, err = strconv.Atoi(text); err != nil {
					err = fmt.Errorf("%s %q: %w", v.name, text, voting.ErrInvalid)
				}
			}
		}
		var articles []voting.Article
		var next string
		if err == nil {
			articles, next, err = store.List(r.Context(), q)
		}
		var n int64
		if err == nil {
			n, err = store.Count(r.Context(), q)
		}
		if err != nil {
			http.Error(w, err.Error(), status(err))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"articles": articles, "count": n, "next": next})
	})
	// POST /articles/7/vote with user=bob&dir=up
	mux.HandleFunc("POST /articles/{id}/vote", func(w http.ResponseWriter, r *http.Request) {
		dir, err := voting.ParseDirection(r.FormValue("dir"))
		if err == nil {
			err = store.Vote(r.Context(), r.FormValue("user"), r.PathValue("id"), dir)
		}
		if err != nil {
			http.Error(w, err.Error(), status(err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	// DELETE /articles/7
	mux.HandleFunc("DELETE /articles/{id}", func(w http.ResponseWriter, r *http.Request) {
		if err := store.DeleteArticle(r.Context(), r.PathValue("id")); err != nil {
			http.Error(w, err.Error(), status(err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})

	// A request whose client has gone.
	gone := httptest.NewRequest("GET", "/articles?page=1", nil)
	cancelled, cancel := context.WithCancel(gone.Context())
	cancel()
	gone = gone.WithContext(cancelled)
	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/articles?order=time&page=2&size=2", nil),
		httptest.NewRequest("POST", "/articles/2/vote?user=bob&dir=up", nil),
		httptest.NewRequest("POST", "/articles/2/vote?user=bob&dir=sideways", nil),
		httptest.NewRequest("DELETE", "/articles/3", nil),
		httptest.NewRequest("DELETE", "/articles/3", nil),
		httptest.NewRequest("GET", "/articles?order=hot", nil),
		httptest.NewRequest("GET", "/articles?size=1", nil),
		httptest.NewRequest("GET", "/articles?order=sideways", nil),
		httptest.NewRequest("GET", "/articles?page=2&after=abc", nil),
		gone,
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s: %d %s", req.Method, req.URL, rec.Code, rec.Body)))
	}
	// Output:
	// GET /articles?order=time&page=2&size=2: 200 {"articles":[{"id":"1","title":"One","link":"https://example.com/","poster":"alice","posted":"2026-11-22T12:00:00Z","points":1,"upvotes":1,"downvotes":0,"rankingScore":1795349232,"comments":0}],"count":3,"next":""}
	// POST /articles/2/vote?user=bob&dir=up: 204
	// POST /articles/2/vote?user=bob&dir=sideways: 400 voting: invalid input: unknown vote direction "sideways": want up, down or none (voting.Up, Down or None)
	// DELETE /articles/3: 204
	// DELETE /articles/3: 404 voting: delete article 3: article not found
	// GET /articles?order=hot: 200 {"articles":[{"id":"2","title":"Two","link":"https://example.com/","poster":"alice","posted":"2026-11-22T12:00:00Z","points":2,"upvotes":2,"downvotes":0,"rankingScore":1795349664,"comments":0},{"id":"1","title":"One","link":"https://example.com/","poster":"alice","posted":"2026-11-22T12:00:00Z","points":1,"upvotes":1,"downvotes":0,"rankingScore":1795349232,"comments":0}],"count":2,"next":""}
	// GET /articles?size=1: 200 {"articles":[{"id":"2","title":"Two","link":"https://example.com/","poster":"alice","posted":"2026-11-22T12:00:00Z","points":2,"upvotes":2,"downvotes":0,"rankingScore":1795349664,"comments":0}],"count":2,"next":"MQpzY29yZQoKMTc5NTM0OTY2NAoy"}
	// GET /articles?order=sideways: 400 voting: invalid input: unknown order "sideways": want one of score, time, votes, controversy, top-day, top-week, top-month, top-year, hot, best
	// GET /articles?page=2&after=abc: 400 voting: list articles by score: invalid input: page 2 and a cursor: give one or the other
	// GET /articles?page=1: 499 voting: list articles by score: context canceled (not sent to Redis)
}

// Paging by cursor, as Reddit's API pages with after=: each page gives the
// cursor of the next, and a walk lists each article once, however votes
// move the listing between pages.
func Example_cursorHandler() {
	store, advance, stop := exampleStore(voting.WithPageSize(2), voting.WithOrders(voting.ByHot))
	defer stop()
	for _, title := range []string{"One", "Two", "Three", "Four", "Five"} {
		if _, err := store.PostArticle(context.Background(), "alice", title, "https://example.com/"); err != nil {
			log.Fatal(err)
		}
		advance(time.Hour)
	}

	mux := http.NewServeMux()
	// GET /hot?after=CURSOR
	mux.HandleFunc("GET /hot", func(w http.ResponseWriter, r *http.Request) {
		articles, next, err := store.List(r.Context(), voting.Query{Order: voting.ByHot, Paging: voting.Paging{After: r.FormValue("after")}})
		if errors.Is(err, voting.ErrInvalid) {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"articles": articles, "next": next})
	})

	after := ""
	for page := 1; ; page++ {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", "/hot?after="+url.QueryEscape(after), nil))
		var body struct {
			Articles []voting.Article
			Next     string
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			log.Fatal(rec.Code, rec.Body)
		}
		var titles []string
		for _, a := range body.Articles {
			titles = append(titles, a.Title)
		}
		fmt.Println("page", page, titles)
		if page == 1 {
			// Between two pages, votes lift the oldest article, One, to
			// the top, before the cursor: the walk goes on after the
			// articles it listed, skipping none of those no vote moved,
			// and One is on the first page of a new walk.
			for _, user := range []string{"bob", "carol", "dan"} {
				if err := store.Vote(context.Background(), user, "1", voting.Up); err != nil {
					log.Fatal(err)
				}
			}
		}
		if after = body.Next; after == "" {
			break
		}
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/hot?after=nonsense", nil))
	fmt.Println(rec.Code)
	// Output:
	// page 1 [Five Four]
	// page 2 [Three Two]
	// 400
}

// A user's history: the articles they voted on, newest vote first, still
// there after voting on them has closed.
func ExampleStore_UserHistory() {
	store, advance, stop := exampleStore(voting.WithUserHistory(30 * 24 * time.Hour))
	defer stop()
	ctx := context.Background()
	var ids []string
	for _, title := range []string{"Go 1.30 is out", "Redis 9", "Lua tips"} {
		id, err := store.PostArticle(ctx, "alice", title, "https://example.com/")
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, id)
	}
	for i, dir := range []voting.Direction{voting.Up, voting.Down, voting.Up} {
		advance(time.Minute)
		if err := store.Vote(ctx, "bob", ids[i], dir); err != nil {
			log.Fatal(err)
		}
	}
	advance(time.Minute)
	if err := store.Vote(ctx, "bob", ids[2], voting.None); err != nil { // taken back
		log.Fatal(err)
	}
	history, _, err := store.UserHistory(ctx, "bob", voting.Paging{Page: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range history {
		fmt.Printf("%s %q at %s\n", v.Direction, v.Article.Title, v.At.Format(time.TimeOnly))
	}
	// Output:
	// down "Redis 9" at 12:02:00
	// up "Go 1.30 is out" at 12:01:00
}

// A user's articles, newest first, for a profile page: every post joins
// its poster's list, and a deletion leaves it.
func ExampleQuery_user() {
	store, advance, stop := exampleStore()
	defer stop()
	ctx := context.Background()

	var ids []string
	for _, p := range []struct{ poster, title string }{
		{"alice", "Redis streams"}, {"bob", "Go generics"}, {"alice", "Lua in Redis"}, {"alice", "Sorted sets"},
	} {
		id, err := store.PostArticle(ctx, p.poster, p.title, "https://example.com/")
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, id)
		advance(time.Minute)
	}
	if err := store.DeleteArticle(ctx, ids[2]); err != nil { // "Lua in Redis"
		log.Fatal(err)
	}

	articles, _, err := store.List(ctx, voting.Query{User: "alice", Order: voting.ByTime, Paging: voting.Paging{Page: 1}})
	if err != nil {
		log.Fatal(err)
	}
	n, err := store.Count(ctx, voting.Query{User: "alice", Order: voting.ByTime})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("alice has %d articles:\n", n)
	for _, a := range articles {
		fmt.Printf("  %s %q posted %s\n", a.ID, a.Title, a.Posted.Format(time.TimeOnly))
	}
	// Output:
	// alice has 2 articles:
	//   4 "Sorted sets" posted 12:03:00
	//   1 "Redis streams" posted 12:00:00
}

// Karma, as on Hacker News: the up-votes less the down-votes that others
// cast on a user's articles. The poster's own vote is in the score, never
// in the karma.
func ExampleStore_Karma() {
	store, _, stop := exampleStore(voting.WithKarma())
	defer stop()
	ctx := context.Background()

	post := func(poster, title string) string {
		id, err := store.PostArticle(ctx, poster, title, "https://example.com/")
		if err != nil {
			log.Fatal(err)
		}
		return id
	}
	vote := func(user, id string, dir voting.Direction) {
		if err := store.Vote(ctx, user, id, dir); err != nil {
			log.Fatal(err)
		}
	}
	streams := post("alice", "Redis streams")
	generics := post("bob", "Go generics")
	vote("bob", streams, voting.Up)
	vote("carol", streams, voting.Up)
	vote("dave", streams, voting.Down)
	vote("alice", generics, voting.Up)
	vote("carol", generics, voting.Up)
	vote("dave", generics, voting.Up)
	vote("alice", streams, voting.Down) // her own article: the score moves, her karma does not

	a, err := store.Article(ctx, streams)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q: up %d, down %d\n", a.Title, a.Upvotes, a.Downvotes)
	karma, err := store.Karma(ctx, "alice")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("alice's karma:", karma)
	top, _, err := store.TopPosters(ctx, voting.Paging{Size: 10})
	if err != nil {
		log.Fatal(err)
	}
	n, err := store.CountPosters(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("top %d posters:\n", n)
	for _, p := range top {
		fmt.Printf("  %-5s %+d\n", p.User, p.Karma)
	}
	// Output:
	// "Redis streams": up 2, down 2
	// alice's karma: 1
	// top 2 posters:
	//   bob   +3
	//   alice +1
}

// With unique links, a link is posted once: the same link again, in
// another case of its host or with another fragment, is refused with
// ErrDuplicate, which names the article that has it, and ArticleByLink
// finds that article. Deleting it frees the link.
func ExampleWithUniqueLinks() {
	store, _, stop := exampleStore(voting.WithUniqueLinks())
	defer stop()
	ctx := context.Background()

	first, err := store.PostArticle(ctx, "alice", "Redis streams", "https://redis.io/docs/streams")
	if err != nil {
		log.Fatal(err)
	}
	_, err = store.PostArticle(ctx, "bob", "Streams, explained", "https://Redis.IO/docs/streams#consumer-groups")
	fmt.Println(errors.Is(err, voting.ErrDuplicate), err)

	a, err := store.ArticleByLink(ctx, "https://REDIS.io/docs/streams#top")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %q by %s\n", a.ID, a.Title, a.Poster)

	if err := store.DeleteArticle(ctx, first); err != nil {
		log.Fatal(err)
	}
	_, err = store.ArticleByLink(ctx, "https://redis.io/docs/streams")
	fmt.Println(errors.Is(err, voting.ErrNotFound))
	again, err := store.PostArticle(ctx, "bob", "Streams, explained", "https://Redis.IO/docs/streams#consumer-groups")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("posted as", again)
	// Output:
	// true voting: post article: duplicate link: article 1 has the link already
	// 1 "Redis streams" by alice
	// true
	// posted as 2
}
