package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/articlevote/voting"
)

//go:embed templates/*.html static/*
var assets embed.FS

// maxBody bounds a request's body: a post is a title, a link and a few
// group names.
const maxBody = 16 << 10

// The tabs of the front page and of group pages, by their names in URLs.
var tabs = []string{"hot", "new", "top", "top-day", "top-week", "top-month", "top-year", "controversial", "best"}

// A server is the site: its pages and its JSON API, on one Store.
type server struct {
	store  *voting.Store
	secret []byte
	pages  *template.Template
}

// Errors of the site's own, mapped to statuses as the library's are.
var (
	errNoSession = errors.New("log in first")
	errNotPoster = errors.New("only the poster may delete an article")
)

func newServer(store *voting.Store, secret []byte) http.Handler {
	s := &server{store: store, secret: secret,
		pages: template.Must(template.New("").Funcs(template.FuncMap{"ago": ago, "host": host, "dir": dirName,
			"rowData": rowData, "pageNumbers": pageNumbers}).
			ParseFS(assets, "templates/*.html"))}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.frontPage)
	mux.HandleFunc("GET /g/{group}", s.groupPage)
	mux.HandleFunc("GET /a/{id}", s.articlePage)
	mux.HandleFunc("GET /u/{user}", s.userPage)
	mux.HandleFunc("GET /submit", s.submitPage)
	mux.HandleFunc("POST /submit", s.submitForm)
	mux.HandleFunc("GET /login", s.loginPage)
	mux.HandleFunc("POST /login", s.loginForm)
	mux.HandleFunc("POST /logout", s.logoutForm)
	mux.HandleFunc("POST /a/{id}/vote", s.voteForm)
	mux.HandleFunc("POST /a/{id}/delete", s.deleteForm)
	mux.Handle("GET /static/", http.FileServerFS(assets))

	mux.HandleFunc("POST /api/login", s.apiLogin)
	mux.HandleFunc("GET /api/articles", s.apiList)
	mux.HandleFunc("GET /api/groups/{group}/articles", s.apiList)
	mux.HandleFunc("GET /api/articles/{id}", s.apiArticle)
	mux.HandleFunc("POST /api/articles", s.apiPost)
	mux.HandleFunc("POST /api/articles/{id}/vote", s.apiVote)
	mux.HandleFunc("DELETE /api/articles/{id}", s.apiDelete)
	mux.HandleFunc("GET /api/users/{user}", s.apiUser)
	mux.HandleFunc("GET /api/users/{user}/votes", s.apiUserVotes)

	bounded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	})
	return http.NewCrossOriginProtection().Handler(bounded)
}

// status is the HTTP status of an error.
func status(err error) int {
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, errNoSession):
		return http.StatusUnauthorized
	case errors.Is(err, errNotPoster):
		return http.StatusForbidden
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, voting.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, voting.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, voting.ErrVotingClosed), errors.Is(err, voting.ErrDuplicate):
		return http.StatusConflict
	case errors.Is(err, voting.ErrNotIndexed):
		return http.StatusServiceUnavailable
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// A listing is one page of a listing, as the front page, a group page and
// the API give it: its articles, its place among the pages, and the cursor
// of the page after it ("" for none).
type listing struct {
	Order    string           `json:"order"`
	Group    string           `json:"group,omitempty"`
	Articles []voting.Article `json:"articles"`
	Page     int              `json:"page"`
	Pages    int              `json:"pages"`
	Next     string           `json:"next"`
}

// list reads the page of the listing q asks for, of group ("" for the
// site): order (default hot), and page (default 1) or after, a cursor.
func (s *server) list(ctx context.Context, group string, q url.Values) (listing, error) {
	name := q.Get("order")
	if name == "" {
		name = "hot"
	}
	order, err := voting.ParseOrder(name)
	if err != nil {
		return listing{}, err
	}
	l := listing{Order: name, Group: group}
	var n int64
	if group == "" {
		n, err = s.store.CountArticles(ctx, order)
	} else {
		n, err = s.store.CountGroupArticles(ctx, group, order)
	}
	if err != nil {
		return listing{}, err
	}
	size := int64(s.store.PageSize())
	l.Pages = int(max(1, (n+size-1)/size))
	if after := q.Get("after"); after != "" {
		if group == "" {
			l.Articles, l.Next, err = s.store.GetArticlesAfter(ctx, order, after)
		} else {
			l.Articles, l.Next, err = s.store.GetGroupArticlesAfter(ctx, group, order, after)
		}
		return l, err
	}
	l.Page = 1
	if p := q.Get("page"); p != "" {
		if l.Page, err = strconv.Atoi(p); err != nil || l.Page < 1 {
			return listing{}, fmt.Errorf("%w: page %q is no page number", voting.ErrInvalid, p)
		}
	}
	if group == "" {
		l.Articles, err = s.store.GetArticles(ctx, l.Page, order)
	} else {
		l.Articles, err = s.store.GetGroupArticles(ctx, group, l.Page, order)
	}
	if err != nil || l.Page >= l.Pages || len(l.Articles) == 0 {
		return l, err
	}
	l.Next, err = s.store.CursorAfter(ctx, order, group, l.Articles[len(l.Articles)-1].ID)
	if errors.Is(err, voting.ErrNotFound) {
		err = nil // the last article went meanwhile: no "more"
	}
	return l, err
}

// An articleView is an article with its place in the hot listing.
type articleView struct {
	voting.Article
	Rank int64 `json:"rank"`
}

// view reads an article and its rank.
func (s *server) view(ctx context.Context, id string) (articleView, error) {
	a, err := s.store.Article(ctx, id)
	if err != nil {
		return articleView{}, err
	}
	rank, err := s.store.Rank(ctx, id, voting.ByHot)
	if errors.Is(err, voting.ErrNotFound) {
		err = nil // deleted meanwhile
	}
	return articleView{a, rank}, err
}

// A submission is a new article, as the submit form and the API take it.
type submission struct {
	Title  string   `json:"title"`
	Link   string   `json:"link"`
	Groups []string `json:"groups"`
}

// post posts a submission by user.
func (s *server) post(ctx context.Context, user string, sub submission) (voting.Article, error) {
	if user == "" {
		return voting.Article{}, errNoSession
	}
	id, err := s.store.PostArticle(ctx, user, sub.Title, sub.Link, sub.Groups...)
	if err != nil {
		return voting.Article{}, err
	}
	return s.store.Article(ctx, id)
}

// vote casts user's vote on id, and reads the article after it.
func (s *server) vote(ctx context.Context, user, id string, dir voting.Direction) (voting.Article, error) {
	if user == "" {
		return voting.Article{}, errNoSession
	}
	if err := s.store.Vote(ctx, user, id, dir); err != nil {
		return voting.Article{}, err
	}
	return s.store.Article(ctx, id)
}

// remove deletes id, by its poster alone.
func (s *server) remove(ctx context.Context, user, id string) error {
	if user == "" {
		return errNoSession
	}
	a, err := s.store.Article(ctx, id)
	if err != nil {
		return err
	}
	if a.Poster != user {
		return errNotPoster
	}
	return s.store.DeleteArticle(ctx, id)
}

// A profile is what a user page and the API show of a user.
type profile struct {
	User     string           `json:"user"`
	Karma    int64            `json:"karma"`
	Posts    int64            `json:"posts"`
	Articles []voting.Article `json:"articles"`
}

func (s *server) profile(ctx context.Context, user string, page int) (profile, error) {
	p := profile{User: user}
	var err error
	if p.Karma, err = s.store.Karma(ctx, user); err != nil {
		return p, err
	}
	if p.Posts, err = s.store.CountUserArticles(ctx, user); err != nil {
		return p, err
	}
	p.Articles, err = s.store.UserArticles(ctx, user, page)
	return p, err
}

// ago writes how long ago t was, roughly.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < 2*time.Minute:
		return "a minute ago"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 2*time.Hour:
		return "an hour ago"
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// host is a link's host, shown beside its title.
func host(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

// dirName is a direction as the templates and forms write it.
func dirName(d voting.Direction) string {
	switch d {
	case voting.Up:
		return "up"
	case voting.Down:
		return "down"
	}
	return ""
}
