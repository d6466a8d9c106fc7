package main

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// loginCookie logs user in through the API and gives the cookie the
// answer sets, as it sets it.
func (s *site) loginCookie(user string) *http.Cookie {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.srv.URL+"/api/login", strings.NewReader(`{"user":"`+user+`"}`))
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie && res.StatusCode == http.StatusOK {
			return c
		}
	}
	s.t.Fatalf("login as %s = %d with no session cookie", user, res.StatusCode)
	return nil
}

// useCookie puts c in the client's jar, as a client that kept a copy of
// it would send it again.
func (s *site) useCookie(c *http.Cookie) {
	u, _ := url.Parse(s.srv.URL)
	s.client.Jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/"}})
}

// viewerOf is who the front page says is logged in, or "".
func (s *site) viewerOf() string {
	s.t.Helper()
	page := s.want(http.StatusOK, "GET", "/", nil)
	_, rest, ok := strings.Cut(page, `<a id="me" href="/u/`)
	if !ok {
		return ""
	}
	user, _, _ := strings.Cut(rest, `"`)
	return user
}

// sessionKeys are the session records in Redis, by key.
func (s *site) sessionKeys() map[string]string {
	out := map[string]string{}
	for _, k := range s.mr.Keys() {
		if strings.HasPrefix(k, sessionPart) {
			out[k], _ = s.mr.Get(k)
		}
	}
	return out
}

// TestSessionRecord: a login sets a cookie of the session's random id
// that lasts the session's 30 days, and keeps in Redis, under newsd's own
// key of the id's hash, the session's end and user, expiring then.
func TestSessionRecord(t *testing.T) {
	s := newSite(t)
	c := s.loginCookie("alice")
	if len(c.Value) != 43 || strings.Contains(c.Value, "alice") || c.MaxAge != 30*24*3600 ||
		!c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
		t.Errorf("the session cookie is %+v, want a 43-character id, Max-Age 30 days, HttpOnly, SameSite=Lax, Path /", c)
	}
	sum := sha256.Sum256([]byte(c.Value))
	key := sessionPart + base64.RawURLEncoding.EncodeToString(sum[:])
	want := map[string]string{key: fmt.Sprintf("%d alice", s.now.Add(30*24*time.Hour).Unix())}
	if got := s.sessionKeys(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the session records are %v, want %v", got, want)
	}
	if ttl := s.mr.TTL(key); ttl != 30*24*time.Hour {
		t.Errorf("the session record expires in %v, want 30 days", ttl)
	}
	// Each login its own id.
	if again := s.loginCookie("alice"); again.Value == c.Value {
		t.Error("a second login has the first's id")
	}
}

// TestLogoutEndsTheSession: a session that logged out, by the form or by
// the API, is refused when a copy of its cookie comes back; so is one
// that a later login on the same client replaced.
func TestLogoutEndsTheSession(t *testing.T) {
	for _, how := range []string{"form", "api", "login again"} {
		t.Run(how, func(t *testing.T) {
			s := newSite(t)
			c := s.loginCookie("alice")
			if got := s.viewerOf(); got != "alice" {
				t.Fatalf("logged in as %q, want alice", got)
			}
			switch how {
			case "form":
				s.want(http.StatusSeeOther, "POST", "/logout", nil)
			case "api":
				s.want(http.StatusNoContent, "POST", "/api/logout", nil)
			case "login again":
				s.loginCookie("bob")
			}
			if how != "login again" {
				if got := s.viewerOf(); got != "" {
					t.Errorf("after logout the client is logged in as %q", got)
				}
				if keys := s.sessionKeys(); len(keys) != 0 {
					t.Errorf("after logout Redis holds the sessions %v", keys)
				}
			}
			s.useCookie(c) // replayed
			if got := s.viewerOf(); got != "" {
				t.Errorf("the cookie replayed after %s is a session of %q", how, got)
			}
			s.wantError(http.StatusUnauthorized, "POST", "/api/articles", map[string]any{"title": "t", "link": "https://example.com/t"})
		})
	}
}

// TestSessionExpires: a session ends 30 days after its login by the
// site's clock, whatever Redis's clock says.
func TestSessionExpires(t *testing.T) {
	s := newSite(t)
	s.loginCookie("alice")
	s.now = s.now.Add(30*24*time.Hour - time.Second)
	if got := s.viewerOf(); got != "alice" {
		t.Fatalf("a second before its end the session is %q's, want alice's", got)
	}
	s.postArticle("Still in", "https://example.com/in")
	s.now = s.now.Add(time.Second)
	if got := s.viewerOf(); got != "" {
		t.Errorf("at its end the session is still %q's", got)
	}
	s.wantError(http.StatusUnauthorized, "POST", "/api/articles", map[string]any{"title": "t", "link": "https://example.com/t"})
}

// TestSessionIDs: a cookie that is no session id newsd made is no
// session.
func TestSessionIDs(t *testing.T) {
	s := newSite(t)
	s.loginCookie("alice")
	for _, value := range []string{"", "x", "YWxpY2U.AAAA", strings.Repeat("A", 43), strings.Repeat("A", 44)} {
		s.useCookie(&http.Cookie{Name: sessionCookie, Value: value})
		if got := s.viewerOf(); got != "" {
			t.Errorf("the cookie %q is a session of %q", value, got)
		}
	}
}
