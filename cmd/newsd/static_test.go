package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStaticFilesAlone: /static/ serves the static folder's files by their
// names, and 404 for anything else: no listing of a folder, and no file
// outside the folder, however its path is escaped.
func TestStaticFilesAlone(t *testing.T) {
	s := newSite(t)
	for path, want := range map[string]string{"/static/site.css": "text/css; charset=utf-8", "/static/site.js": "text/javascript; charset=utf-8"} {
		file, err := assets.ReadFile(strings.TrimPrefix(path, "/"))
		if err != nil {
			t.Fatal(err)
		}
		code, typ, body := s.raw("GET", path)
		if code != http.StatusOK || typ != want || body != string(file) {
			t.Errorf("GET %s = %d %s, %d bytes; want 200 %s and the file's %d bytes", path, code, typ, len(body), want, len(file))
		}
	}
	for _, path := range []string{
		"/static/",
		"/static/%2e%2e/",
		"/static/%2e%2e/templates/layout.html",
		"/static/%2E%2E/templates/layout.html",
		"/static/%2e%2e%2ftemplates%2flayout.html",
		"/static/..%2ftemplates%2flayout.html",
		"/static/.%2fsite.css",
		"/static/%2e",
		"/static/%5c..%5ctemplates%5clayout.html",
		"/static/missing.css",
		"/static/site.css/x",
		"/templates/layout.html",
		"/templates/",
	} {
		code, _, body := s.raw("GET", path)
		if code != http.StatusNotFound || strings.Contains(body, "{{") || strings.Contains(body, "<pre>") {
			t.Errorf("GET %s = %d %q, want 404 and the site's error page", path, code, body)
		}
	}
}

// raw sends a request for path exactly as written (no cleaning of dots or
// escapes), and gives the status, the Content-Type and the body.
func (s *site) raw(method, path string) (int, string, string) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.srv.URL, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.URL.Opaque = path // sent as it is
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), string(b)
}
