package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// postN posts n articles a minute apart as user, the i-th in group
// groups[i%len(groups)], and gives their ids, oldest first.
func (s *site) postN(user string, n int, groups ...string) []string {
	s.t.Helper()
	var ids []string
	for i := range n {
		id, err := s.store.PostArticle(context.Background(), user, fmt.Sprintf("Article %d", i+1),
			fmt.Sprintf("https://news.example.org/%s/%d", user, i+1), groups[i%len(groups)])
		if err != nil {
			s.t.Fatal(err)
		}
		ids = append(ids, id)
		s.now = s.now.Add(time.Minute)
	}
	return ids
}

// get reads a JSON answer of status 200 into v.
func (s *site) get(path string, v any) {
	s.t.Helper()
	if err := json.Unmarshal([]byte(s.want(http.StatusOK, "GET", path, nil)), v); err != nil {
		s.t.Fatalf("GET %s: %v", path, err)
	}
}

// TestEveryListPages: each of the API's lists takes page or after, and
// size, alike: size is honoured, a size past the library's maximum (or no
// number) is refused, page and after together are refused, and a page by
// cursor gives next.
func TestEveryListPages(t *testing.T) {
	s := newSite(t)
	s.postN("alice", 5, "redis", "go", "books")
	s.postN("bob", 3, "redis")
	for _, id := range []string{"1", "2", "3"} {
		if err := s.store.Vote(context.Background(), "carol", id, voting.Up); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path, items string
		total       int
	}{
		{"/api/articles?order=new", "articles", 8},
		{"/api/groups/redis/articles?order=new", "articles", 5},
		{"/api/users/alice/articles", "articles", 5},
		{"/api/users/carol/votes", "votes", 3},
		{"/api/posters", "posters", 2},
		{"/api/groups", "groups", 3},
	} {
		sep := "?"
		if strings.Contains(c.path, "?") {
			sep = "&"
		}
		read := func(query string) (items []json.RawMessage, info pageInfo) {
			t.Helper()
			var page map[string]json.RawMessage
			s.get(c.path+sep+query, &page)
			json.Unmarshal(page[c.items], &items)
			for name, v := range map[string]any{"page": &info.Page, "pages": &info.Pages, "size": &info.Size, "next": &info.Next} {
				if err := json.Unmarshal(page[name], v); err != nil {
					t.Fatalf("%s%s: %s: %v", c.path, query, name, err)
				}
			}
			return items, info
		}
		items, info := read("size=2&page=2")
		if want := min(2, c.total-2); len(items) != want || info.Page != 2 || info.Size != 2 || info.Pages != (c.total+1)/2 {
			t.Errorf("%s page 2 of size 2: %d %s, %+v; want %d of %d pages", c.path, len(items), c.items, info, want, (c.total+1)/2)
		}
		// A walk by cursor, two at a time, lists each item once.
		var walked int
		for after, steps := "", 0; ; steps++ {
			items, info = read("size=2&after=" + after)
			walked += len(items)
			if info.Page != 0 || info.Next == "" || steps > c.total {
				break
			}
			after = info.Next
		}
		if walked != c.total {
			t.Errorf("%s by cursor, two at a time: %d %s, want %d", c.path, walked, c.items, c.total)
		}
		_, first := read("size=1&after=")
		if first.Next == "" {
			t.Fatalf("%s: a page by cursor short of the end gives no next", c.path)
		}
		for _, bad := range []string{"size=1001", "size=0", "size=-1", "size=x", "page=0", "page=x",
			"page=1&after=" + first.Next, "page=3&after=" + first.Next, "page=1&after="} {
			s.wantError(http.StatusBadRequest, "GET", c.path+sep+bad, nil)
		}
		if items, _ := read(fmt.Sprintf("size=%d", voting.MaxPageSize)); len(items) != c.total {
			t.Errorf("%s size %d: %d %s, want all %d", c.path, voting.MaxPageSize, len(items), c.items, c.total)
		}
	}
}

// TestRowsCarryRankPointsGroups: each article of a listing carries its
// rank (its place in the listing, by page number or by cursor), its points
// and its groups, in the API and on the pages.
func TestRowsCarryRankPointsGroups(t *testing.T) {
	s := newSite(t)
	ids := s.postN("alice", 7, "redis", "go")
	s.store.AddToGroups(context.Background(), ids[6], "databases")
	s.store.Vote(context.Background(), "bob", ids[6], voting.Down)
	s.store.Vote(context.Background(), "carol", ids[6], voting.Down)

	var l listing
	s.get("/api/articles?order=new&size=3&page=2", &l)
	if got := ranks(l); !slices.Equal(got, []int64{4, 5, 6}) {
		t.Errorf("ranks of page 2 of 3 = %v, want 4 5 6", got)
	}
	s.get("/api/articles?order=new&size=3&after="+l.Next, &l)
	if got := ranks(l); !slices.Equal(got, []int64{7}) {
		t.Errorf("ranks of the page after page 2 = %v, want 7", got)
	}
	s.get("/api/articles?order=new&size=2", &l)
	first := l.Articles[0]
	if first.ID != ids[6] || first.Rank != 1 || first.Points != -1 || first.Upvotes != 1 || first.Downvotes != 2 ||
		!slices.Equal(first.Groups, []string{"databases", "redis"}) {
		t.Errorf("first of new = %+v, want rank 1, -1 point, groups databases and redis", first)
	}
	// A cursor of another listing is refused.
	s.wantError(http.StatusBadRequest, "GET", "/api/groups/go/articles?order=new&after="+l.Next, nil)
	s.get("/api/groups/go/articles?order=new", &l)
	if got := ranks(l); !slices.Equal(got, []int64{1, 2, 3}) || !slices.Equal(l.Articles[0].Groups, []string{"go"}) {
		t.Errorf("go by new = %+v, want ranks 1 2 3 and groups", l.Articles)
	}

	page := s.want(http.StatusOK, "GET", "/?order=new", nil)
	for _, want := range []string{`<span class="rank">1.</span>`, `<span class="rank">7.</span>`, "-1 points",
		`1 point<`, `<a class="group" href="/g/databases">databases</a>, <a class="group" href="/g/redis">redis</a>`,
		`<a class="ago" href="/a/` + ids[6] + `"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the front page lacks %q", want)
		}
	}
	article := s.want(http.StatusOK, "GET", "/a/"+ids[6], nil)
	for _, want := range []string{"-1 points", "1 up, 2 down", `href="/g/databases"`, "by <a href=\"/u/alice\">alice</a>", "a minute ago"} {
		if !strings.Contains(article, want) {
			t.Errorf("the article page lacks %q", want)
		}
	}
	for _, not := range []string{`href="/a/` + ids[6] + `"`, ">details<", "rankingScore", "179"} {
		if strings.Contains(article, not) {
			t.Errorf("the article page holds %q", not)
		}
	}
}

func ranks(l listing) []int64 {
	var out []int64
	for _, a := range l.Articles {
		out = append(out, a.Rank)
	}
	return out
}

// TestUnknownGroupAndUser: a group that holds no article and a user who
// has neither posted nor voted are not found, in the API and on the pages,
// while a known group's empty window and a known user's empty list are
// found and empty.
func TestUnknownGroupAndUser(t *testing.T) {
	s := newSite(t)
	ids := s.postN("alice", 2, "redis", "emptied")
	if err := s.store.RemoveFromGroups(context.Background(), ids[1], "emptied"); err != nil {
		t.Fatal(err)
	}
	if err := s.store.Vote(context.Background(), "voter", ids[0], voting.Up); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/groups/nothing/articles", "/api/groups/emptied/articles",
		"/api/users/nobody", "/api/users/nobody/articles", "/api/users/nobody/votes"} {
		s.wantError(http.StatusNotFound, "GET", path, nil)
	}
	for _, path := range []string{"/g/nothing", "/g/emptied", "/u/nobody"} {
		if page := s.want(http.StatusNotFound, "GET", path, nil); !strings.Contains(page, `<p class="error">`) {
			t.Errorf("%s is not the site's error page", path)
		}
	}
	// Days later the group's top-day window is empty, but it is known.
	s.now = s.now.Add(3 * 24 * time.Hour)
	var l listing
	s.get("/api/groups/redis/articles?order=top-day", &l)
	if len(l.Articles) != 0 {
		t.Errorf("redis's top-day = %+v, want none", l.Articles)
	}
	s.want(http.StatusOK, "GET", "/g/redis?order=top-day", nil)
	// A voter who never posted has an empty list of articles.
	s.get("/api/users/voter/articles", &l)
	if len(l.Articles) != 0 {
		t.Errorf("voter's articles = %+v, want none", l.Articles)
	}
	s.want(http.StatusOK, "GET", "/u/voter", nil)
	// One's own page is there before one posts or votes.
	s.login("newcomer")
	s.want(http.StatusOK, "GET", "/u/newcomer", nil)
	s.want(http.StatusOK, "GET", "/api/users/newcomer", nil)
}

// TestPageNumbers: the pages a list links, with a gap where pages are
// skipped and none where one page alone would be.
func TestPageNumbers(t *testing.T) {
	for _, c := range []struct {
		current, pages int
		want           []int
	}{
		{1, 1, []int{1}},
		{1, 4, []int{1, 2, 3, 4}},
		{1, 15, []int{1, 2, 3, 4, 0, 15}},
		{8, 15, []int{1, 0, 5, 6, 7, 8, 9, 10, 11, 0, 15}},
		{5, 15, []int{1, 2, 3, 4, 5, 6, 7, 8, 0, 15}},
		{15, 15, []int{1, 0, 12, 13, 14, 15}},
		{1, 6, []int{1, 2, 3, 4, 5, 6}},
	} {
		if got := pageNumbers(c.current, c.pages); !slices.Equal(got, c.want) {
			t.Errorf("pageNumbers(%d, %d) = %v, want %v", c.current, c.pages, got, c.want)
		}
	}
	s := newSite(t)
	s.postN("alice", 30, "redis")
	page := s.want(http.StatusOK, "GET", "/?order=new&size=2&page=1", nil)
	if !strings.Contains(page, `<a href="/?order=new&amp;page=4&amp;size=2">4</a> <span class="gap">…</span> <a href="/?order=new&amp;page=15&amp;size=2">15</a>`) {
		t.Errorf("the pages of page 1 of 15 show no gap before the last, or lose the size:\n%s", page)
	}
}
