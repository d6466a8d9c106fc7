package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
)

// sessionCookie is the name of the cookie that holds who is logged in: the
// user's id and an HMAC-SHA256 of it under the server's secret, so that a
// client cannot make one up. It is HttpOnly (no script reads it) and
// SameSite=Lax (no other site's form sends it).
const sessionCookie = "session"

// sign writes user's session value.
func (s *server) sign(user string) string {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte(user))
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(user)) + "." + enc.EncodeToString(mac.Sum(nil))
}

// viewer is the user of r's session, or "" for none (or a forged one).
func (s *server) viewer(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	name, sum, ok := strings.Cut(c.Value, ".")
	user, err1 := base64.RawURLEncoding.DecodeString(name)
	got, err2 := base64.RawURLEncoding.DecodeString(sum)
	if !ok || err1 != nil || err2 != nil {
		return ""
	}
	mac := hmac.New(sha256.New, s.secret)
	mac.Write(user)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return ""
	}
	return string(user)
}

// setSession logs user in on w; with user "" it logs out.
func (s *server) setSession(w http.ResponseWriter, user string) {
	c := &http.Cookie{Name: sessionCookie, Value: s.sign(user), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, MaxAge: int((30 * 24 * time.Hour).Seconds())}
	if user == "" {
		c.Value, c.MaxAge = "", -1
	}
	http.SetCookie(w, c)
}
