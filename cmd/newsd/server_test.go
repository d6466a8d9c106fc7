package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// site is a newsd on miniredis, with a clock the test moves, a client
// that keeps cookies, and the site's log.
type site struct {
	t      *testing.T
	srv    *httptest.Server
	mr     *miniredis.Miniredis
	store  *voting.Store
	pool   *redis.Pool
	now    time.Time
	client *http.Client
	log    *logBuffer
}

func newSite(t *testing.T) *site {
	t.Helper()
	mr := miniredis.RunT(t)
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }}
	t.Cleanup(func() { pool.Close() })
	s := &site{t: t, mr: mr, pool: pool, now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), log: &logBuffer{}}
	var err error
	now := func() time.Time { return s.now }
	s.store, err = newStore(pool, "", now)
	if err != nil {
		t.Fatal(err)
	}
	// The test server's address is known once it listens: the site
	// answers for it as newsd for its -http.
	s.srv = httptest.NewUnstartedServer(nil)
	hosts, err := defaultHosts(s.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s.srv.Config.Handler = newServer(s.store, sessions{pool: pool, now: now}, hosts, newLogger(s.log))
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	jar, _ := cookiejar.New(nil)
	s.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s
}

// A logBuffer holds what the site logs, written by its handlers'
// goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// do sends a request with a JSON body (if body is not nil), as a page of
// the site would, and gives the status and the body.
func (s *site) do(method, path string, body any) (int, string) {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, s.srv.URL+path, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// want sends a request and checks its status, and gives the body.
func (s *site) want(code int, method, path string, body any) string {
	s.t.Helper()
	got, text := s.do(method, path, body)
	if got != code {
		s.t.Fatalf("%s %s = %d %s, want %d", method, path, got, text, code)
	}
	return text
}

// wantError checks a request's status and that its body is a JSON error.
func (s *site) wantError(code int, method, path string, body any) {
	s.t.Helper()
	text := s.want(code, method, path, body)
	var e struct{ Error string }
	if err := json.Unmarshal([]byte(text), &e); err != nil || e.Error == "" {
		s.t.Errorf("%s %s: body %q is no JSON error", method, path, text)
	}
}

func (s *site) login(user string) {
	s.t.Helper()
	s.want(http.StatusOK, "POST", "/api/login", map[string]string{"user": user})
}

func (s *site) postArticle(title, link string, groups ...string) voting.Article {
	s.t.Helper()
	var a voting.Article
	text := s.want(http.StatusCreated, "POST", "/api/articles", map[string]any{"title": title, "link": link, "groups": groups})
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		s.t.Fatal(err)
	}
	return a
}

func TestAPI(t *testing.T) {
	s := newSite(t)
	// Every write needs a session.
	s.wantError(http.StatusUnauthorized, "POST", "/api/articles", map[string]any{"title": "t", "link": "https://example.com/"})
	s.wantError(http.StatusUnauthorized, "POST", "/api/articles/1/vote", map[string]string{"direction": "up"})
	s.wantError(http.StatusUnauthorized, "DELETE", "/api/articles/1", nil)

	s.wantError(http.StatusBadRequest, "POST", "/api/login", map[string]string{"user": "a b"})
	s.wantError(http.StatusBadRequest, "POST", "/api/login", map[string]string{"name": "alice"})
	s.login("alice")
	a := s.postArticle("Sorted sets", "https://example.com/zset", "redis")
	if a.ID != "1" || a.Poster != "alice" || a.Upvotes != 1 {
		t.Errorf("posted %+v", a)
	}
	s.wantError(http.StatusConflict, "POST", "/api/articles", map[string]any{"title": "again", "link": "https://EXAMPLE.com/zset#x"})
	s.wantError(http.StatusBadRequest, "POST", "/api/articles", map[string]any{"title": "", "link": "https://example.com/"})
	s.wantError(http.StatusBadRequest, "POST", "/api/articles", map[string]any{"title": "t", "link": "ftp://example.com/"})
	s.wantError(http.StatusRequestEntityTooLarge, "POST", "/api/articles",
		map[string]any{"title": strings.Repeat("x", maxBody), "link": "https://example.com/big"})
	s.now = s.now.Add(time.Minute)
	b := s.postArticle("Lua", "https://example.com/lua", "redis", "programming")

	// bob votes b up: it moves above a in hot.
	s.login("bob")
	var after voting.Article
	json.Unmarshal([]byte(s.want(http.StatusOK, "POST", "/api/articles/1/vote", map[string]string{"direction": "up"})), &after)
	if after.Upvotes != 2 {
		t.Errorf("after bob's vote: %+v", after)
	}
	s.wantError(http.StatusBadRequest, "POST", "/api/articles/1/vote", map[string]string{"direction": "sideways"})
	s.wantError(http.StatusBadRequest, "POST", "/api/articles/1/vote", map[string]string{})
	s.wantError(http.StatusNotFound, "POST", "/api/articles/99/vote", map[string]string{"direction": "up"})
	s.wantError(http.StatusBadRequest, "POST", "/api/articles/x/vote", map[string]string{"direction": "up"})

	var l listing
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/articles?order=hot", nil)), &l)
	if len(l.Articles) != 2 || l.Articles[0].ID != "1" || l.Page != 1 || l.Pages != 1 || l.Next != "" {
		t.Errorf("hot = %+v", l)
	}
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/groups/programming/articles?order=new", nil)), &l)
	if len(l.Articles) != 1 || l.Articles[0].ID != b.ID {
		t.Errorf("programming = %+v", l)
	}
	s.wantError(http.StatusBadRequest, "GET", "/api/articles?order=sideways", nil)
	s.wantError(http.StatusBadRequest, "GET", "/api/articles?page=0", nil)
	s.wantError(http.StatusBadRequest, "GET", "/api/articles?after=nonsense", nil)
	// A cursor whose value Go reads as a number and Redis does not.
	for _, value := range []string{"1e-400", "1_0", "0x1_0p0"} {
		cursor := base64.RawURLEncoding.EncodeToString([]byte("1\nhot\n\n" + value + "\n1"))
		s.wantError(http.StatusBadRequest, "GET", "/api/articles?after="+cursor, nil)
		s.wantError(http.StatusBadRequest, "GET", "/api/groups/programming/articles?after="+
			base64.RawURLEncoding.EncodeToString([]byte("1\nhot\nprogramming\n"+value+"\n1")), nil)
	}
	s.wantError(http.StatusBadRequest, "GET", "/api/groups/a%20b/articles", nil)

	var v articleView
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/articles/1", nil)), &v)
	if v.ID != "1" || v.Rank != 1 {
		t.Errorf("article 1 = %+v, want rank 1", v)
	}
	s.wantError(http.StatusNotFound, "GET", "/api/articles/99", nil)

	// Only the poster deletes.
	s.wantError(http.StatusForbidden, "DELETE", "/api/articles/1", nil)
	var p profile
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/users/alice", nil)), &p)
	if p.Karma != 1 || p.Posts != 2 || p.Votes != 2 {
		t.Errorf("alice = %+v, want karma 1, 2 posts and 2 votes", p)
	}
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/users/alice/articles", nil)), &l)
	if len(l.Articles) != 2 || l.Articles[0].ID != b.ID || l.User != "alice" || l.Order != "new" {
		t.Errorf("alice's articles = %+v", l)
	}
	s.wantError(http.StatusBadRequest, "GET", "/api/users/alice/articles?order=hot", nil)
	var votes struct{ Votes []voting.UserVote }
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/users/bob/votes", nil)), &votes)
	if len(votes.Votes) != 1 || votes.Votes[0].Article.ID != "1" || votes.Votes[0].Direction != voting.Up {
		t.Errorf("bob's votes = %+v", votes)
	}
	s.wantError(http.StatusBadRequest, "GET", "/api/users/bob/votes?page=x", nil)

	s.login("alice")
	s.want(http.StatusNoContent, "DELETE", "/api/articles/1", nil)
	s.wantError(http.StatusNotFound, "DELETE", "/api/articles/1", nil)

	// Voting closes after a week.
	s.now = s.now.Add(8 * 24 * time.Hour)
	s.wantError(http.StatusConflict, "POST", "/api/articles/"+b.ID+"/vote", map[string]string{"direction": "down"})
}

// TestPaging: numbered pages and cursors, with "next" from either.
func TestPaging(t *testing.T) {
	s := newSite(t)
	s.login("alice")
	for i := range 45 {
		s.postArticle("story", "https://example.com/"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
		s.now = s.now.Add(time.Minute)
	}
	var l listing
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/articles?order=new&page=2", nil)), &l)
	if l.Page != 2 || l.Pages != 3 || len(l.Articles) != 20 || l.Articles[0].ID != "25" || l.Next == "" {
		t.Fatalf("page 2 = page %d of %d, %d articles from %s, next %q", l.Page, l.Pages, len(l.Articles), l.Articles[0].ID, l.Next)
	}
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/articles?order=new&after="+l.Next, nil)), &l)
	if len(l.Articles) != 5 || l.Articles[0].ID != "5" || l.Next != "" {
		t.Errorf("after page 2: %d articles from %s, next %q", len(l.Articles), l.Articles[0].ID, l.Next)
	}
}

// TestCrossOriginWriteRefused: a write another site's page sends is
// refused before it is read, session or not.
func TestCrossOriginWriteRefused(t *testing.T) {
	s := newSite(t)
	s.login("alice")
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}} {
		req, _ := http.NewRequest("POST", s.srv.URL+"/api/articles", strings.NewReader(`{"title":"t","link":"https://example.com/x"}`))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("cross-origin post with %v = %d, want 403", h, res.StatusCode)
		}
	}
	if n, _ := s.store.Count(context.Background(), voting.Query{Order: voting.ByTime}); n != 0 {
		t.Errorf("a refused write posted %d articles", n)
	}
}

// TestForgedSession: a cookie not signed by the server is no session.
func TestForgedSession(t *testing.T) {
	s := newSite(t)
	u, _ := url.Parse(s.srv.URL)
	s.client.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: "YWxpY2U.AAAA"}})
	s.wantError(http.StatusUnauthorized, "POST", "/api/articles", map[string]any{"title": "t", "link": "https://example.com/"})
}

// TestPages: the HTML pages render, escape what users write, and their
// forms work without JavaScript.
func TestPages(t *testing.T) {
	s := newSite(t)
	form := func(path string, values url.Values) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", s.srv.URL+path, strings.NewReader(values.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := form("/login", url.Values{"user": {"alice"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login = %d", res.StatusCode)
	}
	res := form("/submit", url.Values{"title": {"<script>alert(1)</script>"}, "link": {"https://example.com/x"}, "groups": {"redis, go"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/a/1" {
		t.Fatalf("submit = %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	for path, wants := range map[string][]string{
		"/":               {"&lt;script&gt;alert(1)&lt;/script&gt;", `href="/g/redis"`, `class="on">hot`},
		"/?order=top-day": {`class="on">top-day`},
		"/g/go":           {"<h1>go</h1>"},
		"/a/1":            {"#1 on the front page", `id="delete"`, "1 point", "1 up, 0 down", `href="/g/go"`},
		"/u/alice":        {`id="karma">0<`, `up</span> <span><a href="/a/1">`},
		"/submit":         {`action="/submit"`},
		"/login":          {`action="/login"`},
	} {
		text := s.want(http.StatusOK, "GET", path, nil)
		if strings.Contains(text, "<script>alert") {
			t.Errorf("%s holds the title unescaped", path)
		}
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", path, want)
			}
		}
	}
	s.want(http.StatusNotFound, "GET", "/a/99", nil)
	s.want(http.StatusBadRequest, "GET", "/?order=sideways", nil)
	if res := form("/a/1/vote", url.Values{"dir": {"down"}, "back": {"/g/go"}}); res.Header.Get("Location") != "/g/go" {
		t.Errorf("vote form sends back to %q", res.Header.Get("Location"))
	}
	if res := form("/a/1/vote", url.Values{"dir": {"up"}, "back": {"//evil.example/"}}); res.Header.Get("Location") != "/" {
		t.Errorf("vote form sends back to %q, want /", res.Header.Get("Location"))
	}
	if res := form("/a/1/delete", nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("delete form = %d", res.StatusCode)
	}
	if res := form("/logout", nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("logout = %d", res.StatusCode)
	}
	if res := form("/submit", url.Values{"title": {"t"}, "link": {"https://example.com/y"}}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("submit with no session = %d, want 401", res.StatusCode)
	}
}

// TestBackStaysOnTheSite: a form's "back" sends the browser to a page of
// the site as the site writes its pages' addresses, and anything else to
// the front page: a tab, newline or backslash that a browser drops or
// reads as '/' would otherwise make "/<TAB>/evil.example/" the address of
// another site.
func TestBackStaysOnTheSite(t *testing.T) {
	for to, want := range map[string]string{
		"/":                                  "/",
		"/?order=top-day&page=2":             "/?order=top-day&page=2",
		"/g/go":                              "/g/go",
		"/g/go?order=new&after=AbC-_9":       "/g/go?order=new&after=AbC-_9",
		"/a/17":                              "/a/17",
		"/u/alice":                           "/u/alice",
		"/u/%C3%A9mile":                      "/u/%C3%A9mile",
		"/\t/evil.example/":                  "/",
		"/\n/evil.example/":                  "/",
		"/\r\n/evil.example/":                "/",
		"/\\evil.example/":                   "/",
		"/\\/evil.example/":                  "/",
		"//evil.example/":                    "/",
		"///evil.example/":                   "/",
		"https://evil.example/":              "/",
		"javascript:alert(1)":                "/",
		"/ /evil.example/":                   "/",
		"/g/\u00e9":                          "/",
		"/g/go\x00":                          "/",
		"":                                   "/",
		"g/go":                               "/",
		"/api/articles":                      "/",
		"/g/":                                "/",
		"/login":                             "/",
		"/a/1#x":                             "/",
		"/%09/evil.example/":                 "/",
		"/u/alice?next=https://evil.example": "/u/alice?next=https://evil.example",
	} {
		r := httptest.NewRequest("POST", "/a/1/vote", strings.NewReader(url.Values{"back": {to}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if got := back(r); got != want {
			t.Errorf("back %q sends to %q, want %q", to, got, want)
		}
	}
}

// TestAPIErrorsAreJSON: every error the API answers is {"error": ...} as
// application/json with its status, those the site's handlers do not write
// included: a cross-origin write refused (403), an unknown route (404) and
// a method the route does not take (405). The HTML site answers them with
// its own pages.
func TestAPIErrorsAreJSON(t *testing.T) {
	s := newSite(t)
	s.login("alice")
	for _, c := range []struct {
		name, method, path string
		header             map[string]string
		code               int
		says               string
	}{
		{"cross-site", "POST", "/api/articles", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, "cross-origin"},
		{"other origin", "DELETE", "/api/articles/1", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, "cross-origin"},
		{"unknown route", "GET", "/api/nothing/here", nil, http.StatusNotFound, "/api/nothing/here"},
		{"unknown subroute", "GET", "/api/articles/1/likes", nil, http.StatusNotFound, "/api/articles/1/likes"},
		{"wrong method", "PUT", "/api/articles", nil, http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{"wrong method on an article", "PATCH", "/api/articles/1", nil, http.StatusMethodNotAllowed, "DELETE"},
	} {
		req, _ := http.NewRequest(c.method, s.srv.URL+c.path, strings.NewReader(`{"title":"t","link":"https://example.com/x"}`))
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		res, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var e struct{ Error string }
		if res.StatusCode != c.code || res.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal(b, &e) != nil || !strings.Contains(e.Error, c.says) {
			t.Errorf("%s: %s %s = %d %s %q, want %d application/json with an error saying %q",
				c.name, c.method, c.path, res.StatusCode, res.Header.Get("Content-Type"), b, c.code, c.says)
		}
		if c.code == http.StatusMethodNotAllowed && res.Header.Get("Allow") == "" {
			t.Errorf("%s: 405 without Allow", c.name)
		}
	}
	if n, _ := s.store.Count(context.Background(), voting.Query{Order: voting.ByTime}); n != 0 {
		t.Errorf("a refused write posted %d articles", n)
	}

	// The site's pages answer the same errors with an HTML page.
	for _, c := range []struct {
		method, path string
		header       map[string]string
		code         int
	}{
		{"GET", "/no/such/page", nil, http.StatusNotFound},
		{"DELETE", "/submit", nil, http.StatusMethodNotAllowed},
		{"POST", "/submit", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest(c.method, s.srv.URL+c.path, nil)
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		res, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.code || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(b), `<p class="error">`) {
			t.Errorf("%s %s = %d %s, want %d and the site's error page", c.method, c.path, res.StatusCode, res.Header.Get("Content-Type"), c.code)
		}
	}
}

// TestErrorsSayItOnce: an error's text says what went wrong once, with
// the library's "voting: " at most once, however it came about: a body
// whose direction the library refuses, a bad cursor, a bad page.
func TestErrorsSayItOnce(t *testing.T) {
	s := newSite(t)
	s.login("alice")
	s.postArticle("Sorted sets", "https://example.com/zset", "redis")
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/articles/1/vote", map[string]string{"direction": "sideways"}},
		{"POST", "/api/articles/1/vote", map[string]any{"direction": 3}},
		{"POST", "/api/articles/1/vote", map[string]string{}},
		{"POST", "/api/articles", map[string]any{"title": "", "link": "https://example.com/"}},
		{"POST", "/api/login", map[string]string{"user": "a b"}},
		{"GET", "/api/articles?order=sideways", nil},
		{"GET", "/api/articles?after=nonsense", nil},
		{"GET", "/api/articles?page=x", nil},
		{"GET", "/api/articles?size=5000", nil},
		{"GET", "/api/groups/a%20b/articles", nil},
	} {
		code, text := s.do(c.method, c.path, c.body)
		var e struct{ Error string }
		if code != http.StatusBadRequest || json.Unmarshal([]byte(text), &e) != nil {
			t.Errorf("%s %s = %d %s, want 400 and a JSON error", c.method, c.path, code, text)
			continue
		}
		if strings.Count(e.Error, "voting: ") > 1 || strings.Count(e.Error, "invalid input") != 1 {
			t.Errorf("%s %s says %q: the library's words twice", c.method, c.path, e.Error)
		}
	}
}

// The JSON API's comment routes, with the same error shapes as the rest.
func TestCommentAPI(t *testing.T) {
	s := newSite(t)
	s.wantError(http.StatusUnauthorized, "POST", "/api/articles/1/comments", map[string]string{"body": "hi"})
	s.login("alice")
	a := s.postArticle("Discussed", "https://example.com/discussed")
	var c voting.Comment
	json.Unmarshal([]byte(s.want(http.StatusCreated, "POST", "/api/articles/"+a.ID+"/comments", map[string]string{"body": "First"})), &c)
	if c.ID != "1" || c.Poster != "alice" || c.Upvotes != 1 || c.ArticleID != a.ID {
		t.Errorf("posted %+v", c)
	}
	s.wantError(http.StatusNotFound, "POST", "/api/articles/99/comments", map[string]string{"body": "hi"})
	s.wantError(http.StatusNotFound, "POST", "/api/articles/"+a.ID+"/comments", map[string]string{"parent": "99", "body": "hi"})
	s.wantError(http.StatusBadRequest, "POST", "/api/articles/"+a.ID+"/comments", map[string]string{"body": ""})
	s.wantError(http.StatusBadRequest, "POST", "/api/articles/"+a.ID+"/comments", map[string]string{"text": "hi"})

	s.login("bob")
	var r voting.Comment
	json.Unmarshal([]byte(s.want(http.StatusCreated, "POST", "/api/articles/"+a.ID+"/comments", map[string]string{"parent": c.ID, "body": "A reply"})), &r)
	if r.ParentID != c.ID || r.Depth != 1 {
		t.Errorf("replied %+v", r)
	}
	var voted voting.Comment
	json.Unmarshal([]byte(s.want(http.StatusOK, "POST", "/api/comments/"+c.ID+"/vote", map[string]string{"direction": "down"})), &voted)
	if voted.Downvotes != 1 || voted.Points != 0 {
		t.Errorf("after bob's down-vote: %+v", voted)
	}
	s.wantError(http.StatusBadRequest, "POST", "/api/comments/"+c.ID+"/vote", map[string]string{"direction": "sideways"})
	s.wantError(http.StatusNotFound, "POST", "/api/comments/99/vote", map[string]string{"direction": "up"})
	s.wantError(http.StatusForbidden, "DELETE", "/api/comments/"+c.ID, nil)

	var thread struct {
		Comments []voting.CommentNode `json:"comments"`
		More     int64                `json:"more"`
	}
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/articles/"+a.ID+"/thread?sort=new", nil)), &thread)
	if len(thread.Comments) != 1 || len(thread.Comments[0].Children) != 1 || thread.Comments[0].Children[0].ID != r.ID {
		t.Errorf("thread = %+v", thread)
	}
	s.wantError(http.StatusBadRequest, "GET", "/api/articles/"+a.ID+"/thread?sort=sideways", nil)
	s.wantError(http.StatusNotFound, "GET", "/api/articles/99/thread", nil)

	var alice struct {
		CommentKarma int64 `json:"commentKarma"`
		Karma        int64 `json:"karma"`
	}
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/users/alice", nil)), &alice)
	if alice.CommentKarma != -1 || alice.Karma != 0 {
		t.Errorf("alice's karma after bob's down-vote on her comment = %+v, want comment karma -1 and karma 0", alice)
	}

	s.login("alice")
	s.want(http.StatusNoContent, "DELETE", "/api/comments/"+c.ID, nil)
	var page struct {
		Comments []voting.Comment `json:"comments"`
		Next     string           `json:"next"`
	}
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/articles/"+a.ID+"/comments?parent="+c.ID, nil)), &page)
	if len(page.Comments) != 1 || page.Comments[0].ID != r.ID {
		t.Errorf("the tombstone's replies = %+v", page)
	}
	page.Comments = nil // each answer read afresh: omitted fields would keep the last one's
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/articles/"+a.ID+"/comments", nil)), &page)
	if len(page.Comments) != 1 || !page.Comments[0].Deleted || page.Comments[0].Body != "" {
		t.Errorf("the article's comments = %+v, want the tombstone", page)
	}
	page.Comments = nil
	json.Unmarshal([]byte(s.want(http.StatusOK, "GET", "/api/users/bob/comments", nil)), &page)
	if len(page.Comments) != 1 || page.Comments[0].ID != r.ID {
		t.Errorf("bob's comments = %+v", page)
	}
	// A user with a comment alone, and no karma of either kind, is known.
	s.want(http.StatusOK, "GET", "/api/users/bob", nil)
}
