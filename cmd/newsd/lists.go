package main

// This file holds the site's lists, each read a page at a time the same
// way, from a request's page, after and size: the listings of articles (the
// site's, a group's, a user's), the groups, the top posters and a user's
// votes.

import (
	"context"
	"errors"
	"net/url"
	"strconv"

	"github.com/articlevote/voting"
)

// pagingOf reads which page of a list a request asks for: page, from 1, or
// after, the cursor that the page before gave as next ("after=" alone for
// the first page by cursor); and size, how many items a page holds, the
// Store's page size if none. With neither page nor after it is page 1.
// Page and after together are refused, even an empty after, which the
// library would take for no cursor; the library refuses a size above
// voting.MaxPageSize.
func pagingOf(q url.Values) (voting.Paging, error) {
	p := voting.Paging{After: q.Get("after")}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, invalid("page %q is no page number: give 1 or more", v)
		}
		p.Page = n
		if q.Has("after") {
			return p, invalid("page %d and after %q: give one or the other", n, p.After)
		}
	}
	if v := q.Get("size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, invalid("size %q is no page size: give 1 to %d", v, voting.MaxPageSize)
		}
		p.Size = n
	}
	if p.Page == 0 && !q.Has("after") {
		p.Page = 1
	}
	return p, nil
}

// A pageInfo is where a page sits in its list: its number (0 for a page
// read by cursor), how many pages of its size the list holds, that size,
// and the cursor of the page after it, "" for none.
type pageInfo struct {
	Page  int    `json:"page"`
	Pages int    `json:"pages"`
	Size  int    `json:"size"`
	Next  string `json:"next"`
}

// pageInfo is the place of page p of a list of n items that gave next.
func (s *server) pageInfo(p voting.Paging, n int64, next string) pageInfo {
	size := p.Size
	if size == 0 {
		size = s.store.PageSize()
	}
	return pageInfo{Page: p.Page, Pages: int(max(1, (n+int64(size)-1)/int64(size))), Size: size, Next: next}
}

// A ranked is an article with its place in a listing, from 1; 0 if it has
// none (it left the listing as the page was read).
type ranked struct {
	voting.Article
	Rank int64 `json:"rank,omitempty"`
}

// A listing is one page of a listing of articles, as the front page, a
// group page, a user page and the API give it: its order, its group or
// user, and its articles with their ranks.
type listing struct {
	Order    string   `json:"order"`
	Group    string   `json:"group,omitempty"`
	User     string   `json:"user,omitempty"`
	Articles []ranked `json:"articles"`
	pageInfo
}

// list reads the page of a listing that q asks for: the site's (group and
// user ""), a group's or a user's, in the order q names (hot by default; a
// user's articles are listed newest first alone), each article with its
// rank and its groups. A numbered page that is not the last gives as next
// the cursor that goes on from its last article, for a "more" link that
// does not skip or repeat articles that votes move.
func (s *server) list(ctx context.Context, group, user, viewer string, q url.Values) (listing, error) {
	name := q.Get("order")
	switch {
	case user != "" && name != "" && name != "new":
		return listing{}, invalid("a user's articles are listed by new alone, not %q", name)
	case user != "":
		name = "new"
	case name == "":
		name = "hot"
	}
	order, err := voting.ParseOrder(name)
	if err != nil {
		return listing{}, err
	}
	query := voting.Query{Order: order, Group: group, User: user, WithGroups: true}
	if query.Paging, err = pagingOf(q); err != nil {
		return listing{}, err
	}
	articles, next, err := s.store.List(ctx, query)
	if err != nil {
		return listing{}, err
	}
	n, err := s.store.Count(ctx, query)
	if err != nil {
		return listing{}, err
	}
	if n == 0 {
		if err := s.known(ctx, group, user, viewer); err != nil {
			return listing{}, err
		}
	}
	l := listing{Order: name, Group: group, User: user, pageInfo: s.pageInfo(query.Paging, n, next)}
	first, err := s.firstRank(ctx, query, l.Size, articles)
	if err != nil {
		return listing{}, err
	}
	l.Articles = make([]ranked, len(articles))
	for i, a := range articles {
		l.Articles[i] = ranked{Article: a}
		if first > 0 {
			l.Articles[i].Rank = first + int64(i)
		}
	}
	if l.Page > 0 && l.Page < l.Pages && len(articles) > 0 {
		l.Next, err = s.store.Cursor(ctx, articles[len(articles)-1].ID, query)
		if errors.Is(err, voting.ErrNotFound) {
			err = nil // the last article left the listing meanwhile: no "more"
		}
	}
	return l, err
}

// firstRank is the rank of the first of a page's articles: from its number
// for a numbered page, else its place in the listing now; 0 if it has left
// it, or if a group's live index, which a rank in a group is read from, is
// not built yet (the page itself came from the book's listing then).
func (s *server) firstRank(ctx context.Context, q voting.Query, size int, articles []voting.Article) (int64, error) {
	switch {
	case len(articles) == 0:
		return 0, nil
	case q.Page > 0:
		return int64(q.Page-1)*int64(size) + 1, nil
	}
	rank, err := s.store.Rank(ctx, articles[0].ID, q)
	if errors.Is(err, voting.ErrNotFound) || errors.Is(err, voting.ErrNotIndexed) {
		return 0, nil
	}
	return rank, err
}

// known checks that the site knows the group or user of an empty listing,
// answering 404 if not.
//
// The library keeps no record of a group that has emptied: a group the
// site knows is one that holds an article now, whatever the order (a
// window's listing may be empty while the group is not). A user is known
// as profile says.
func (s *server) known(ctx context.Context, group, user, viewer string) error {
	switch {
	case group != "":
		n, err := s.store.Count(ctx, voting.Query{Group: group, Order: voting.ByTime})
		if err == nil && n == 0 {
			err = notFound("no group %q: no article is in it", group)
		}
		return err
	case user != "":
		_, err := s.profile(ctx, user, viewer)
		return err
	}
	return nil
}

// A groupsPage is a page of the groups that hold an article, largest first.
type groupsPage struct {
	Groups []voting.GroupSize `json:"groups"`
	pageInfo
}

func (s *server) groups(ctx context.Context, q url.Values) (groupsPage, error) {
	p, err := pagingOf(q)
	if err != nil {
		return groupsPage{}, err
	}
	groups, next, err := s.store.Groups(ctx, p)
	if err != nil {
		return groupsPage{}, err
	}
	n, err := s.store.CountGroups(ctx)
	return groupsPage{groups, s.pageInfo(p, n, next)}, err
}

// A postersPage is a page of the posters with the highest karma.
type postersPage struct {
	Posters []voting.UserKarma `json:"posters"`
	pageInfo
}

func (s *server) posters(ctx context.Context, q url.Values) (postersPage, error) {
	p, err := pagingOf(q)
	if err != nil {
		return postersPage{}, err
	}
	posters, next, err := s.store.TopPosters(ctx, p)
	if err != nil {
		return postersPage{}, err
	}
	n, err := s.store.CountPosters(ctx)
	return postersPage{posters, s.pageInfo(p, n, next)}, err
}

// A votesPage is a page of a user's votes, newest first.
type votesPage struct {
	User  string            `json:"user"`
	Votes []voting.UserVote `json:"votes"`
	pageInfo
}

func (s *server) userVotes(ctx context.Context, user, viewer string, q url.Values) (votesPage, error) {
	p, err := pagingOf(q)
	if err != nil {
		return votesPage{}, err
	}
	votes, next, err := s.store.UserHistory(ctx, user, p)
	if err != nil {
		return votesPage{}, err
	}
	n, err := s.store.CountUserHistory(ctx, user)
	if err == nil && n == 0 {
		err = s.known(ctx, "", user, viewer)
	}
	return votesPage{user, votes, s.pageInfo(p, n, next)}, err
}
