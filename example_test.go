package voting_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
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

// exampleStore opens a Store with the book's numbers on an embedded Redis,
// with a clock that stands still at 2026-11-22 12:00 UTC until advance moves
// it, so that the examples print the same scores every time.
func exampleStore() (store *voting.Store, advance func(time.Duration), stop func()) {
	addr, stopRedis := exampleRedis()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	store, err := voting.New(pool, voting.WithClock(func() time.Time { return now }))
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
	news, err := store.GetGroupArticles(ctx, "redis", 1, voting.ByTime) // a topic, newest first
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
		fmt.Printf("%s. %s (%s), %d votes, bob: %v\n", a.ID, a.Title, a.Link, a.Votes, arrows[i])
	}
	for _, a := range news {
		fmt.Printf("in redis: %s by %s\n", a.Title, a.Poster)
	}
	// Output:
	// 1. Redis in Action (https://redis.io/ebook), 2 votes, bob: up
	// in redis: Redis in Action by alice
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
	// true voting: invalid input: vote weight -432 is outside (0, 1e+09]
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
		fmt.Println(order)
		for _, a := range page {
			fmt.Printf("  %s %-16s score %.0f, %d votes\n", a.ID, a.Title, a.Score, a.Votes)
		}
	}
	// Output:
	// by score
	//   1 Redis in Action  score 1795353120, 10 votes
	//   2 Go 1.26 is out   score 1795352832, 1 votes
	// by time
	//   2 Go 1.26 is out   score 1795352832, 1 votes
	//   1 Redis in Action  score 1795353120, 10 votes
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
		fmt.Printf("%-10s up %d, down %d, score %.0f, bob: %v\n", what, a.Votes, a.Downvotes, a.Score, dirs[0])
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
	// true voting: voting closed: article 1 is older than 168h0m0s
	// true voting: article not found: article 42
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
