package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// send sends a request as a client that sets Host and headers as it
// likes, and gives the answer with its body read.
func (s *site) send(method, path, host string, header map[string]string) (*http.Response, string) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestEveryAnswerForbidsFraming: every answer, a page, the API's, a static
// file, a redirect and every kind of refusal alike, forbids framing (so
// that no page, not even one of the same site, can frame a delete button
// and get a click on it), holds scripts to the site's own, forbids
// sniffing, and gives the request's id.
func TestEveryAnswerForbidsFraming(t *testing.T) {
	s := newSite(t)
	s.login("alice")
	s.postArticle("Framed", "https://example.com/framed")
	for _, c := range []struct {
		method, path, host string
		header             map[string]string
		code               int
	}{
		{"GET", "/", "", nil, http.StatusOK},
		{"GET", "/a/1", "", nil, http.StatusOK},
		{"GET", "/api/articles", "", nil, http.StatusOK},
		{"GET", "/static/site.css", "", nil, http.StatusOK},
		{"POST", "/logout", "", nil, http.StatusSeeOther},
		{"GET", "/no/such/page", "", nil, http.StatusNotFound},
		{"GET", "/static/%2e%2e/templates/layout.html", "", nil, http.StatusNotFound},
		{"PUT", "/api/articles", "", nil, http.StatusMethodNotAllowed},
		{"POST", "/a/1/delete", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"GET", "/", "evil.example", nil, http.StatusMisdirectedRequest},
	} {
		res, _ := s.send(c.method, c.path, c.host, c.header)
		h := res.Header
		if res.StatusCode != c.code || h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("Content-Security-Policy") != "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'" ||
			len(h.Get("X-Request-Id")) != 12 {
			t.Errorf("%s %s = %d with X-Frame-Options %q, X-Content-Type-Options %q, Content-Security-Policy %q, X-Request-Id %q; want %d, DENY, nosniff, frame-ancestors 'none' and an id",
				c.method, c.path, res.StatusCode, h.Get("X-Frame-Options"), h.Get("X-Content-Type-Options"),
				h.Get("Content-Security-Policy"), h.Get("X-Request-Id"), c.code)
		}
	}
}

// TestHostsServed: the site answers for the hosts it serves, and refuses
// any other with 421 before it reads anything of Redis, so that a page of
// another name that resolves to the site (DNS rebinding) reads nothing of
// it.
func TestHostsServed(t *testing.T) {
	s := newSite(t)
	s.login("alice")
	s.postArticle("Rebound", "https://example.com/rebound")
	u, _ := url.Parse(s.srv.URL)
	port := u.Port()
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port, "[::1]:" + port} {
		for _, path := range []string{"/", "/api/articles/1"} {
			if res, body := s.send("GET", path, host, nil); res.StatusCode != http.StatusOK {
				t.Errorf("GET %s with Host %s = %d %s, want 200", path, host, res.StatusCode, body)
			}
		}
	}
	for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1", "127.0.0.1:1", "localhost",
		"127.0.0.2:" + port, "[::2]:" + port, "localhost.evil.example:" + port, "localhost:" + port + "0", "a@localhost:" + port} {
		before := s.mr.CommandCount()
		res, body := s.send("GET", "/", host, nil)
		if res.StatusCode != http.StatusMisdirectedRequest || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") ||
			strings.Contains(body, "Rebound") {
			t.Errorf("GET / with Host %s = %d %s %q, want 421 in plain text", host, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		res, body = s.send("POST", "/api/articles/1/vote", host, map[string]string{"Content-Type": "application/json"})
		var e apiError
		if res.StatusCode != http.StatusMisdirectedRequest || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, "does not serve host") {
			t.Errorf("POST /api/articles/1/vote with Host %s = %d %q, want 421 and a JSON error", host, res.StatusCode, body)
		}
		if n := s.mr.CommandCount() - before; n != 0 {
			t.Errorf("requests with Host %s sent %d commands to Redis", host, n)
		}
	}
	if log := s.log.String(); !strings.Contains(log, `msg="request refused"`) || !strings.Contains(log, "status=421") || !strings.Contains(log, "host=evil.example") {
		t.Errorf("the log does not say a host was refused:\n%s", log)
	}
}

// TestHosts: -hosts and the hosts served by default, from the address
// served on; a host names its port, or takes any port.
func TestHosts(t *testing.T) {
	for _, c := range []struct {
		list, addr  string // -hosts, or the address served on if it is ""
		want        string // the set, or the error's start
		serves, not []string
	}{
		{addr: "127.0.0.1:8080", want: "127.0.0.1:8080,[::1]:8080,localhost:8080",
			serves: []string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"},
			not:    []string{"localhost", "localhost:8081", "127.0.0.1", "evil.example:8080", "", ":8080", "[::1]", "::1:8080"}},
		{addr: "[::1]:8080", want: "127.0.0.1:8080,[::1]:8080,localhost:8080"},
		{addr: "0.0.0.0:80", want: "127.0.0.1:80,[::1]:80,localhost:80", serves: []string{"localhost", "localhost:80", "[::1]"}},
		{addr: "[::]:8080", want: "127.0.0.1:8080,[::1]:8080,localhost:8080"},
		{addr: "192.168.1.5:8080", want: "192.168.1.5:8080", not: []string{"localhost:8080", "127.0.0.1:8080"}},
		{addr: "[2001:DB8::1]:8080", want: "[2001:db8::1]:8080", serves: []string{"[2001:db8::1]:8080"}},
		{list: "news.example.org, localhost:8080", want: "localhost:8080,news.example.org",
			serves: []string{"news.example.org", "news.example.org:443", "News.Example.Org:8080", "localhost:8080"},
			not:    []string{"localhost", "localhost:80", "example.org", "evil.news.example.org"}},
		{list: "[::1]:9000,[fe80::1]", want: "[::1]:9000,fe80::1", serves: []string{"[::1]:9000", "[fe80::1]:1234"}},
		{list: "", want: "-hosts names no host"},
		{list: " , ", want: "-hosts names no host"},
		{list: "localhost:http", want: `-hosts: "localhost:http" is no host`},
		{list: "localhost:0", want: `-hosts: "localhost:0" is no host`},
		{list: "localhost:70000", want: `-hosts: "localhost:70000" is no host`},
		{list: "a/b", want: `-hosts: "a/b" is no host`},
		{list: ":8080", want: `-hosts: ":8080" is no host`},
	} {
		var hosts hostSet
		var err error
		if c.addr != "" {
			hosts, err = defaultHosts(c.addr)
		} else {
			var conf config
			conf, err = parseFlags([]string{"-hosts", c.list}, io.Discard)
			hosts = conf.hosts
		}
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = hosts.String()
		}
		if !strings.Contains(got, c.want) || err == nil && got != c.want {
			t.Errorf("%q%q: %q, want %q", c.list, c.addr, got, c.want)
		}
		for _, h := range c.serves {
			if !hosts.serves(h) {
				t.Errorf("%q%q does not serve %q", c.list, c.addr, h)
			}
		}
		for _, h := range c.not {
			if hosts.serves(h) {
				t.Errorf("%q%q serves %q", c.list, c.addr, h)
			}
		}
	}
}

// TestFailuresLogged: a request that fails on the server's side (Redis
// refuses every command here) is answered with the status's generic words
// and the request's id, never Redis's words, as a page and in the API
// alike; the log gives the id, the method, the path and the real error.
func TestFailuresLogged(t *testing.T) {
	s := newSite(t)
	s.login("alice")
	s.postArticle("Failing", "https://example.com/failing")
	const secret = "ERR planted failure at 10.0.0.7:6379"
	s.mr.SetError(secret)
	for _, c := range []struct {
		method, path string
		session      bool // a session to read, which fails first
	}{
		{"GET", "/a/1", false},
		{"GET", "/api/articles?order=hot", false},
		{"GET", "/api/groups", false},
		{"GET", "/", true},
		{"GET", "/api/articles/1", true},
	} {
		u, _ := url.Parse(s.srv.URL)
		if !c.session {
			s.client.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Path: "/", MaxAge: -1}})
		}
		res, body := s.send(c.method, c.path, "", map[string]string{"Content-Type": "application/json"})
		id := res.Header.Get("X-Request-Id")
		says := "internal server error: the failure is logged as request " + id
		if res.StatusCode != http.StatusInternalServerError || strings.Contains(body, "planted") || strings.Contains(body, "10.0.0.7") {
			t.Errorf("%s %s = %d %s, want 500 without Redis's words", c.method, c.path, res.StatusCode, body)
		}
		if isAPI(res.Request) {
			var e apiError
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error != says || e.RequestID != id {
				t.Errorf("%s %s says %s, want %q and the request id %s", c.method, c.path, body, says, id)
			}
		} else if !strings.Contains(body, `<p class="error">`+says+`</p>`) {
			t.Errorf("%s %s says %s, want the error page saying %q", c.method, c.path, body, says)
		}
		var line string
		for l := range strings.Lines(s.log.String()) {
			if strings.Contains(l, "level=ERROR") && strings.Contains(l, "id="+id) {
				line = l
			}
		}
		for _, want := range []string{`msg="request failed"`, "method=" + c.method, "path=" + strings.Split(c.path, "?")[0],
			"status=500", secret} {
			if !strings.Contains(line, want) {
				t.Errorf("%s %s: the log's line of request %s %q lacks %q", c.method, c.path, id, line, want)
			}
		}
		if c.session {
			s.mr.SetError("")
			s.login("alice")
			s.mr.SetError(secret)
		}
	}
	s.mr.SetError("")
	s.want(http.StatusOK, "GET", "/a/1", nil)
}

// TestPanicAnswered: a handler's panic is answered as any failure is, with
// a 500 that says nothing of it, and logged with its stack; one after the
// answer has begun is logged all the same.
func TestPanicAnswered(t *testing.T) {
	log := &logBuffer{}
	s := &server{log: newLogger(log), hosts: hostSet{{"example.org", ""}: true}}
	for _, c := range []struct {
		name  string
		begun bool
		code  int
	}{{"before", false, http.StatusInternalServerError}, {"after", true, http.StatusOK}} {
		w := httptest.NewRecorder()
		s.handle(w, httptest.NewRequest("GET", "http://example.org/api/articles", nil), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c.begun {
				w.WriteHeader(http.StatusOK)
			}
			panic("planted " + c.name)
		}))
		id := w.Header().Get("X-Request-Id")
		var e apiError
		if w.Code != c.code || !c.begun && (json.Unmarshal(w.Body.Bytes(), &e) != nil || e.RequestID != id || strings.Contains(e.Error, "planted")) {
			t.Errorf("a panic %s the answer began = %d %q, want %d and a JSON error of its id", c.name, w.Code, w.Body, c.code)
		}
		var line string
		for l := range strings.Lines(log.String()) {
			if strings.Contains(l, "id="+id) {
				line = l
			}
		}
		if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, `error="panic: planted `+c.name) || !strings.Contains(line, "goroutine") {
			t.Errorf("a panic %s the answer began is logged as %q, want an error with the panic and its stack", c.name, line)
		}
	}
}
