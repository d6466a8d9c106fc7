package main

// This file holds the site's sessions: a random id in a cookie, and a
// record of it in Redis that says whose session it is and when it ends. A
// cookie alone, however well signed, cannot be taken back: a copy of one
// would stay good after its user logged out. The record can, and is, at
// logout; and it ends by itself after sessionMaxAge, checked against the
// site's clock on every request and dropped by Redis then.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// sessionCookie is the name of the cookie that holds the session's id. It
// is HttpOnly (no script reads it) and SameSite=Lax (no other site's form
// sends it), and lasts as long as the session.
const sessionCookie = "session"

// sessionMaxAge is how long a session lasts from its login.
const sessionMaxAge = 30 * 24 * time.Hour

// sessionPart names newsd's own keys, beside the library's under the same
// prefix and named by no part of its schema: <prefix>newsd-session:<hash>
// holds a session's end, as Unix seconds, and its user ("1767225600
// alice"), and expires at that end. The key holds a SHA-256 of the id,
// not the id itself, so that whoever reads the key space (a SCAN, a
// backup) learns no session they could use.
const sessionPart = "newsd-session:"

// sessionIDLen is the length of a session's id: 32 random bytes, in
// unpadded base64url.
var sessionIDLen = base64.RawURLEncoding.EncodedLen(32)

// sessions keeps the site's sessions in Redis.
type sessions struct {
	pool   *redis.Pool
	prefix string
	now    func() time.Time
}

// key is the key of the session id.
func (ss sessions) key(id string) string {
	sum := sha256.Sum256([]byte(id))
	return ss.prefix + sessionPart + base64.RawURLEncoding.EncodeToString(sum[:])
}

// do runs one command on a connection of the pool.
func (ss sessions) do(ctx context.Context, cmd string, args ...any) (any, error) {
	c, err := ss.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return redis.DoContext(c, ctx, cmd, args...)
}

// start opens a session for user, and gives its id.
func (ss sessions) start(ctx context.Context, user string) (string, error) {
	b := make([]byte, 32)
	rand.Read(b) // crypto/rand's Read does not fail
	id := base64.RawURLEncoding.EncodeToString(b)
	ends := ss.now().Add(sessionMaxAge).Unix()
	_, err := ss.do(ctx, "SET", ss.key(id), strconv.FormatInt(ends, 10)+" "+user,
		"EX", int64(sessionMaxAge/time.Second))
	if err != nil {
		return "", fmt.Errorf("newsd: open a session: %w", err)
	}
	return id, nil
}

// user is the user of session id, or "" for no session: an id that is not
// one (forged, logged out) or one whose time has run out.
func (ss sessions) user(ctx context.Context, id string) (string, error) {
	if len(id) != sessionIDLen {
		return "", nil // no id newsd made, and no key to build of it
	}
	value, err := redis.String(ss.do(ctx, "GET", ss.key(id)))
	if errors.Is(err, redis.ErrNil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("newsd: read a session: %w", err)
	}
	end, user, ok := strings.Cut(value, " ")
	ends, err := strconv.ParseInt(end, 10, 64)
	if !ok || err != nil {
		return "", fmt.Errorf("newsd: session record %q holds %q, not its end and user", ss.key(id), value)
	}
	// Redis drops the record when it ends by its own clock; the site's
	// is the one pages go by.
	if !ss.now().Before(time.Unix(ends, 0)) {
		return "", nil
	}
	return user, nil
}

// end ends session id for good.
func (ss sessions) end(ctx context.Context, id string) error {
	if len(id) != sessionIDLen {
		return nil
	}
	if _, err := ss.do(ctx, "DEL", ss.key(id)); err != nil {
		return fmt.Errorf("newsd: end a session: %w", err)
	}
	return nil
}

// sessionID is the id r's cookie holds, or "".
func sessionID(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// viewer is the user of r's session, or "" for none, as the site's
// handler read it before the request's route.
func (s *server) viewer(r *http.Request) string { return requestOf(r).viewer }

// login ends r's session, if it has one, and opens one for user on w.
func (s *server) login(w http.ResponseWriter, r *http.Request, user string) error {
	if err := s.sessions.end(r.Context(), sessionID(r)); err != nil {
		return err
	}
	id, err := s.sessions.start(r.Context(), user)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, MaxAge: int(sessionMaxAge / time.Second)})
	return nil
}

// logout ends r's session for good, and drops its cookie.
func (s *server) logout(w http.ResponseWriter, r *http.Request) error {
	if err := s.sessions.end(r.Context(), sessionID(r)); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
	return nil
}
