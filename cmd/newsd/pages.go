package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/articlevote/voting"
)

// pageData is what a page's template reads.
type pageData struct {
	Title   string
	Viewer  string
	Groups  []voting.GroupSize // the sidebar's groups
	Posters []voting.UserKarma // the sidebar's top posters
	Tabs    []string
	Base    string // the listing's path: "/", "/g/<group>" or "/u/<user>"
	List    *listing
	Votes   map[string]string // the viewer's votes by article id: "up", "down"
	Article *articleView
	Profile *profile
	History []voting.UserVote
	Thread  *thread          // an article's discussion
	Said    []voting.Comment // a user's latest comments
	Form    submission
	Error   string
	Back    string // the page's own path and query, for its forms to come back to

	pageSize int // the Store's
}

// PageHref is the address of page n of the listing shown, in its order and
// page size.
func (p *pageData) PageHref(n int) string {
	return p.listHref(url.Values{"page": {strconv.Itoa(n)}})
}

// MoreHref is the address of the page after the listing shown, by cursor.
func (p *pageData) MoreHref() string {
	return p.listHref(url.Values{"after": {p.List.Next}})
}

// listHref is the address of the listing shown with the query q, which
// keeps its order (a user's has one alone) and a page size other than the
// Store's.
func (p *pageData) listHref(q url.Values) string {
	if p.List.User == "" {
		q.Set("order", p.List.Order)
	}
	if p.List.Size != p.pageSize {
		q.Set("size", strconv.Itoa(p.List.Size))
	}
	return p.Base + "?" + q.Encode()
}

// A row is one article of a list as the "row" template reads it: the
// article and its rank, the viewer's votes by article id, the page to come
// back to, and whether the page is the article's own (which does not link
// to itself).
type row struct {
	ranked
	Mine map[string]string
	Back string
	Own  bool
}

func rowData(p *pageData, a ranked) row { return row{a, p.Votes, p.Back, p.Article != nil} }

// pageNumbers are the page numbers a list shows: the first, the last, and
// those near the current one, with 0 for a gap where pages are skipped (a
// single page skipped is shown instead).
func pageNumbers(current, pages int) []int {
	var out []int
	for n := 1; n <= pages; n++ {
		if n == 1 || n == pages || n >= current-3 && n <= current+3 {
			switch last := len(out) - 1; {
			case last < 0 || out[last] == n-1:
			case out[last] == n-2:
				out = append(out, n-1)
			default:
				out = append(out, 0)
			}
			out = append(out, n)
		}
	}
	return out
}

// render writes the page name with data, the viewer and the sidebar.
func (s *server) render(w http.ResponseWriter, r *http.Request, code int, name string, data *pageData) {
	data.Viewer = s.viewer(r)
	data.Tabs = tabs
	data.Back = r.URL.RequestURI()
	data.pageSize = s.store.PageSize()
	// A page goes without its sidebar rather than fail for it.
	groups, _, err := s.store.Groups(r.Context(), voting.Paging{Page: 1, Size: sidebarGroups})
	s.warn(r, "read the sidebar's groups", err)
	posters, _, err := s.store.TopPosters(r.Context(), voting.Paging{Page: 1, Size: sidebarPosters})
	s.warn(r, "read the sidebar's posters", err)
	data.Groups, data.Posters = groups, posters
	// The page is written whole, or not at all: a template that fails
	// half-way answers as any failure does.
	var page bytes.Buffer
	if err := s.pages.ExecuteTemplate(&page, name, data); err != nil {
		err = fmt.Errorf("newsd: render %s: %w", name, err)
		if name == "error.html" {
			http.Error(w, serverFault(r, http.StatusInternalServerError, err), http.StatusInternalServerError)
			return
		}
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(page.Bytes())
}

// warn logs err, if it is not nil, as a failure to do what, which r's
// page goes on without.
func (s *server) warn(r *http.Request, what string, err error) {
	if err != nil {
		s.log.WarnContext(r.Context(), "could not "+what, "id", requestOf(r).id, "method", r.Method,
			"path", r.URL.Path, "error", err.Error())
	}
}

// How many groups and posters the sidebar shows.
const (
	sidebarGroups  = 30
	sidebarPosters = 5
)

// fail writes err's page, with its status.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := refusal(r, err)
	s.render(w, r, code, "error.html", &pageData{Title: "Error", Error: msg})
}

// votes reads the viewer's votes on the articles.
func (s *server) votes(r *http.Request, articles []ranked) map[string]string {
	viewer := s.viewer(r)
	if viewer == "" || len(articles) == 0 {
		return nil
	}
	ids := make([]string, len(articles))
	for i, a := range articles {
		ids[i] = a.ID
	}
	dirs, err := s.store.UserVotes(r.Context(), viewer, ids...)
	if err != nil {
		s.warn(r, "read the viewer's votes", err) // the arrows show none
		return nil
	}
	out := map[string]string{}
	for i, d := range dirs {
		out[ids[i]] = dirName(d)
	}
	return out
}

func (s *server) frontPage(w http.ResponseWriter, r *http.Request) { s.listPage(w, r, "") }

func (s *server) groupPage(w http.ResponseWriter, r *http.Request) {
	s.listPage(w, r, r.PathValue("group"))
}

func (s *server) listPage(w http.ResponseWriter, r *http.Request, group string) {
	l, err := s.list(r.Context(), group, "", s.viewer(r), r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := &pageData{Title: "News", Base: "/", List: &l, Votes: s.votes(r, l.Articles)}
	if group != "" {
		data.Title, data.Base = group, "/g/"+group
	}
	s.render(w, r, http.StatusOK, "list.html", data)
}

func (s *server) articlePage(w http.ResponseWriter, r *http.Request) {
	v, err := s.view(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	t, err := s.threadOf(r, v.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "article.html", &pageData{Title: v.Title, Article: &v,
		Votes: s.votes(r, []ranked{v}), Thread: t})
}

// userPage shows a user's karma, a page of their articles (paged as any
// listing) and their latest votes.
func (s *server) userPage(w http.ResponseWriter, r *http.Request) {
	user, viewer := r.PathValue("user"), s.viewer(r)
	p, err := s.profile(r.Context(), user, viewer)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	l, err := s.list(r.Context(), "", user, viewer, r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	history, _, err := s.store.UserHistory(r.Context(), user, voting.Paging{Page: 1})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	said, _, err := s.store.UserComments(r.Context(), user, voting.Paging{Page: 1, Size: 10})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "user.html", &pageData{Title: user, Base: "/u/" + url.PathEscape(user), Profile: &p, List: &l,
		History: history, Said: said, Votes: s.votes(r, l.Articles)})
}

func (s *server) submitPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "submit.html", &pageData{Title: "Submit"})
}

func (s *server) submitForm(w http.ResponseWriter, r *http.Request) {
	sub := submission{Title: r.PostFormValue("title"), Link: r.PostFormValue("link"),
		Groups: strings.FieldsFunc(r.PostFormValue("groups"), func(r rune) bool { return r == ',' || r == ' ' })}
	a, err := s.post(r.Context(), s.viewer(r), sub)
	if err != nil {
		code, msg := refusal(r, err)
		s.render(w, r, code, "submit.html", &pageData{Title: "Submit", Form: sub, Error: msg})
		return
	}
	http.Redirect(w, r, "/a/"+a.ID, http.StatusSeeOther)
}

func (s *server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "login.html", &pageData{Title: "Log in"})
}

func (s *server) loginForm(w http.ResponseWriter, r *http.Request) {
	user := r.PostFormValue("user")
	if err := checkName(user); err != nil {
		s.render(w, r, http.StatusBadRequest, "login.html", &pageData{Title: "Log in", Error: err.Error()})
		return
	}
	if err := s.login(w, r, user); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *server) logoutForm(w http.ResponseWriter, r *http.Request) {
	if err := s.logout(w, r); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *server) voteForm(w http.ResponseWriter, r *http.Request) {
	dir, err := voting.ParseDirection(r.PostFormValue("dir"))
	if err == nil {
		_, err = s.vote(r.Context(), s.viewer(r), r.PathValue("id"), dir)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}

func (s *server) deleteForm(w http.ResponseWriter, r *http.Request) {
	if err := s.remove(r.Context(), s.viewer(r), r.PathValue("id")); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/u/"+s.viewer(r), http.StatusSeeOther)
}

// back is where a form sends the browser after it: the page it names in
// "back", if that is a page's path and query as this site writes them in
// its forms (r.URL.RequestURI()), else the front page.
func back(r *http.Request) string {
	to := r.PostFormValue("back")
	if !pageURI(to) {
		return "/"
	}
	return to
}

// pagePaths begin the paths of the pages whose forms send "back", beside
// the front page's, "/": a group's, an article's and a user's.
var pagePaths = []string{"/g/", "/a/", "/u/"}

// pageURI reports whether to is the path and query of one of the site's
// pages as RequestURI writes it: printable ASCII with no space, backslash
// or fragment (a browser drops a tab or newline, and reads a backslash as a
// slash, so that "/\t/evil.example/" would be "//evil.example/", another
// site), a path that is "/" or a page's, and no scheme or host.
func pageURI(to string) bool {
	for i := 0; i < len(to); i++ {
		if c := to[i]; c <= ' ' || c >= 0x7f || c == '\\' || c == '#' {
			return false
		}
	}
	u, err := url.ParseRequestURI(to)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || strings.HasPrefix(to, "//") {
		return false
	}
	if u.Path == "/" {
		return true
	}
	for _, p := range pagePaths {
		if len(u.Path) > len(p) && strings.HasPrefix(u.Path, p) {
			return true
		}
	}
	return false
}

// checkName checks a login's name: a user id within the library's length,
// printable (strconv.Quote leaves it as it is), with no space, and none of
// the characters a user page's path would need escaped.
func checkName(user string) error {
	if user == "" || len(user) > voting.MaxUserLen || strings.ContainsAny(user, " /?#%\"") ||
		strings.TrimSpace(user) != user || strconv.Quote(user) != `"`+user+`"` {
		return invalid("%s is no user name: use letters, digits and punctuation, no spaces, slashes or quotes", strconv.Quote(user))
	}
	return nil
}

// host is a link's host, shown beside its title.
func host(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}
