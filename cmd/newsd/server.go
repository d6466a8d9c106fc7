package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"os"
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

// A server is the site: its pages and its JSON API, on one Store, with
// its sessions beside the Store's keys.
type server struct {
	store    *voting.Store
	sessions sessions
	hosts    hostSet
	log      *slog.Logger
	now      func() time.Time // the Store's clock, which pages tell ages and sessions their end by
	pages    *template.Template
}

// A siteError is a refusal of newsd's own, before or beside the library's:
// the status it answers with and what it says, once.
type siteError struct {
	code int
	msg  string
}

func (e *siteError) Error() string { return e.msg }

// invalid is a request newsd refuses as malformed (400).
func invalid(format string, args ...any) error {
	return &siteError{http.StatusBadRequest, "invalid input: " + fmt.Sprintf(format, args...)}
}

// notFound is a thing newsd does not know (404).
func notFound(format string, args ...any) error {
	return &siteError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// Refusals that need no detail.
var (
	errNoSession   = &siteError{http.StatusUnauthorized, "log in first"}
	errNotPoster   = &siteError{http.StatusForbidden, "only the poster may delete an article"}
	errCrossOrigin = &siteError{http.StatusForbidden,
		"cross-origin request refused: a write must come from this site's own pages"}
)

// newServer is the site on store, with the sessions ss (on ss's clock,
// which the Store shares), answering for hosts alone and logging to log.
func newServer(store *voting.Store, ss sessions, hosts hostSet, log *slog.Logger) http.Handler {
	s := &server{store: store, sessions: ss, hosts: hosts, log: log, now: ss.now}
	s.pages = template.Must(template.New("").Funcs(template.FuncMap{
		"ago": s.ago, "host": host, "dir": dirName, "points": points,
		"rowData": rowData, "pageNumbers": pageNumbers, "nodeData": nodeData}).
		ParseFS(assets, "templates/*.html"))
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
	mux.HandleFunc("GET /a/{id}/comments", s.repliesPage)
	mux.HandleFunc("POST /a/{id}/comment", s.commentForm)
	mux.HandleFunc("POST /c/{cid}/vote", s.commentVoteForm)
	mux.HandleFunc("POST /c/{cid}/delete", s.commentDeleteForm)
	mux.HandleFunc("GET /static/{name}", s.static)

	mux.HandleFunc("POST /api/login", s.apiLogin)
	mux.HandleFunc("POST /api/logout", s.apiLogout)
	mux.HandleFunc("GET /api/articles", s.apiList)
	mux.HandleFunc("GET /api/groups", s.apiGroups)
	mux.HandleFunc("GET /api/groups/{group}/articles", s.apiList)
	mux.HandleFunc("GET /api/articles/{id}", s.apiArticle)
	mux.HandleFunc("POST /api/articles", s.apiPost)
	mux.HandleFunc("POST /api/articles/{id}/vote", s.apiVote)
	mux.HandleFunc("DELETE /api/articles/{id}", s.apiDelete)
	mux.HandleFunc("GET /api/posters", s.apiPosters)
	mux.HandleFunc("GET /api/users/{user}", s.apiUser)
	mux.HandleFunc("GET /api/users/{user}/articles", s.apiUserArticles)
	mux.HandleFunc("GET /api/users/{user}/votes", s.apiUserVotes)
	mux.HandleFunc("GET /api/users/{user}/comments", s.apiUserComments)
	mux.HandleFunc("GET /api/articles/{id}/comments", s.apiComments)
	mux.HandleFunc("GET /api/articles/{id}/thread", s.apiThread)
	mux.HandleFunc("POST /api/articles/{id}/comments", s.apiPostComment)
	mux.HandleFunc("POST /api/comments/{cid}/vote", s.apiVoteComment)
	mux.HandleFunc("DELETE /api/comments/{cid}", s.apiDeleteComment)

	routed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			// No route takes the request: the mux answers 404, or 405
			// with the methods the path takes in Allow, in plain text,
			// which the site's own error answer replaces.
			w = &noRoute{ResponseWriter: w, fail: func(rw http.ResponseWriter, code int) { s.noRoute(rw, r, code) }}
		}
		mux.ServeHTTP(w, r)
	})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.failAny(w, r, errCrossOrigin)
	}))
	protected := cop.Handler(routed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.handle(w, r, protected) })
}

// isAPI reports whether r is a request to the JSON API, whose every answer,
// errors included, is JSON.
func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

// failAny answers err as the API does for a request to it, and as an
// HTML page for any other.
func (s *server) failAny(w http.ResponseWriter, r *http.Request, err error) {
	if isAPI(r) {
		apiFail(w, r, err)
		return
	}
	s.fail(w, r, err)
}

// refusal is the status err answers with and what the answer says: err's
// own words, but for a 5xx, whose error goes to the log alone.
func refusal(r *http.Request, err error) (code int, msg string) {
	code = status(err)
	if code >= 500 {
		return code, serverFault(r, code, err)
	}
	return code, err.Error()
}

// noRoute answers a request no route takes with code: 404 for a path the
// site does not have, 405 for a method its path does not take.
func (s *server) noRoute(w http.ResponseWriter, r *http.Request, code int) {
	what := "page"
	if isAPI(r) {
		what = "API route"
	}
	err := &siteError{code, fmt.Sprintf("no %s %s", what, r.URL.Path)}
	if code == http.StatusMethodNotAllowed {
		err.msg = fmt.Sprintf("%s takes no %s: use %s", r.URL.Path, r.Method, w.Header().Get("Allow"))
	}
	s.failAny(w, r, err)
}

// A noRoute is the writer of a request that no route takes: an error the
// mux writes (its 404 or 405) goes to fail instead, with the headers the
// mux set, such as 405's Allow; a redirect to a cleaned path passes.
type noRoute struct {
	http.ResponseWriter
	fail   func(w http.ResponseWriter, code int)
	failed bool
}

func (w *noRoute) WriteHeader(code int) {
	if code < 400 {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.failed = true
	w.fail(w.ResponseWriter, code)
}

func (w *noRoute) Write(b []byte) (int, error) {
	if w.failed {
		return len(b), nil // the mux's plain text, answered already
	}
	return w.ResponseWriter.Write(b)
}

// status is the HTTP status of an error.
func status(err error) int {
	var tooBig *http.MaxBytesError
	var own *siteError
	switch {
	case errors.As(err, &own):
		return own.code
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

// An articleView is an article with its place in the hot listing (0 if it
// is not listed there).
type articleView = ranked

// view reads an article, with its groups, and its rank.
func (s *server) view(ctx context.Context, id string) (articleView, error) {
	a, err := s.store.Article(ctx, id)
	if err != nil {
		return articleView{}, err
	}
	rank, err := s.store.Rank(ctx, id, voting.Query{Order: voting.ByHot})
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

// A profile is what a user page and the API show of a user: the library's
// Profile, read in one round trip.
type profile = voting.Profile

// profile reads user's profile in one call, or an error answering 404 for
// a user the site does not know, but to the viewer, whose own page is never
// missing: the library knows a user by their articles, comments, karma and
// the votes their history keeps.
func (s *server) profile(ctx context.Context, user, viewer string) (profile, error) {
	p, err := s.store.Profile(ctx, user)
	switch {
	case errors.Is(err, voting.ErrNotFound) && user == viewer:
		return profile{User: user}, nil
	case errors.Is(err, voting.ErrNotFound):
		return p, notFound("no user %q: they have neither posted, commented nor voted", user)
	}
	return p, err
}

// ago writes how long before the site's clock t was, roughly.
func (s *server) ago(t time.Time) string {
	d := s.now().Sub(t)
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

// points writes an article's net votes as a row shows them.
func points(n int64) string {
	if n == 1 {
		return fmt.Sprintf("%d point", n)
	}
	return fmt.Sprintf("%d points", n)
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
