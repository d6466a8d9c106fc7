package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/articlevote/voting"
)

// checkFrontPages checks that both stores hold the same data, where a
// reader sees it: the front page of top (net votes), page 1, on both sides
// has the same net votes, place by place; each article on the library's
// has the counts the generator gave its post, and so has Postgres's row of
// it; and both pages start with the same article, or, where several share
// the top score, with one of them. It says what they start with.
func checkFrontPages(ctx context.Context, d *dataset, lib *library, pg *postgres) (string, error) {
	fail := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("the stores differ after the load: "+format, args...)
	}
	articles, _, err := lib.store.List(ctx, voting.Query{Order: voting.ByVotes, Paging: voting.Paging{Page: 1, Size: pageSize}})
	if err != nil {
		return "", fmt.Errorf("the library's front page: %w", err)
	}
	posts, err := page(ctx, pg.pool, pageSQL(orderTop), 1)
	if err != nil {
		return "", fmt.Errorf("the front page of Postgres: %w", err)
	}
	if want := min(pageSize, d.posts); len(articles) != want || len(posts) != want {
		return fail("front pages of %d and %d articles, want %d", len(articles), len(posts), want)
	}
	index := make(map[string]int, len(lib.ids))
	for i, id := range lib.ids {
		index[id] = i
	}
	pgByID := map[int64]pgPost{}
	for _, p := range posts {
		pgByID[p.ID] = p
	}
	ids := make([]int64, len(articles))
	for k, a := range articles {
		ids[k], _ = strconv.ParseInt(a.ID, 10, 64)
	}
	// The library's articles that Postgres's page lacks (a tie at the
	// bottom of the page), read by id.
	rows, err := pg.pool.Query(ctx, "SELECT id, title, link, poster, published, score, upvotes, downvotes, hot_rank FROM post WHERE id = ANY($1)", ids)
	if err != nil {
		return "", err
	}
	for rows.Next() {
		var p pgPost
		if err := rows.Scan(&p.ID, &p.Title, &p.Link, &p.Poster, &p.Published, &p.Score, &p.Upvotes, &p.Downvotes, &p.HotRank); err != nil {
			rows.Close()
			return "", err
		}
		pgByID[p.ID] = p
	}
	if rows.Close(); rows.Err() != nil {
		return "", rows.Err()
	}
	for k, a := range articles {
		if a.Points != int64(posts[k].Score) {
			return fail("place %d has %d net votes in the library (article %s), %d in Postgres (post %d)", k+1, a.Points, a.ID, posts[k].Score, posts[k].ID)
		}
		i, ok := index[a.ID]
		if !ok {
			return fail("the library's article %s is none it was loaded with", a.ID)
		}
		p := pgByID[ids[k]]
		if a.Upvotes != int64(d.up[i]) || a.Downvotes != int64(d.down[i]) || int64(p.Upvotes) != a.Upvotes || int64(p.Downvotes) != a.Downvotes {
			return fail("article %s (post %d) has %d up and %d down in the library, %d and %d in Postgres; generated %d and %d",
				a.ID, i, a.Upvotes, a.Downvotes, p.Upvotes, p.Downvotes, d.up[i], d.down[i])
		}
		if a.Title != p.Title || a.Poster != p.Poster || !a.Posted.Equal(p.Published) {
			return fail("article %s is %q by %s at %v in the library, %q by %s at %v in Postgres",
				a.ID, a.Title, a.Poster, a.Posted, p.Title, p.Poster, p.Published)
		}
	}
	top := articles[0]
	tied := 0
	for _, a := range articles {
		if a.Points == top.Points {
			tied++
		}
	}
	if tied == 1 && strconv.FormatInt(posts[0].ID, 10) != top.ID {
		return fail("the library's front page starts with article %s, Postgres's with post %d", top.ID, posts[0].ID)
	}
	what := fmt.Sprintf("both front pages (top, page 1) start with article %s: %d net votes, %d up, %d down", top.ID, top.Points, top.Upvotes, top.Downvotes)
	if tied > 1 {
		what = fmt.Sprintf("both front pages (top, page 1) start with one of %d articles of %d net votes, the same place by place in net votes", tied, top.Points)
	}
	return what, nil
}
