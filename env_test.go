package voting_test

// This file holds the one helper every test opens its Store with, so that
// the whole behavioural suite runs on miniredis by default and on a real
// Redis when VOTING_REDIS_ADDR is set, and reads raw state the same way on
// both.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// redisAddrEnv names the environment variable that points the suite at a
// real Redis server, such as 127.0.0.1:6379. Tests there never flush the
// server: each uses its own random prefix and deletes its keys at the end.
const redisAddrEnv = "VOTING_REDIS_ADDR"

// start is the fake clock's first reading: Unix 1795305600.
var start = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

// A clock is a fake time source that tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// env is one test's Store and a raw view of the Redis under it.
type env struct {
	t      testing.TB
	store  *voting.Store
	pool   *redis.Pool
	mr     *miniredis.Miniredis // nil on a real server
	prefix string
	clock  *clock
}

// newEnv opens a Store on a fresh miniredis with the book's layout (no
// prefix), or on the real server under a random prefix. opts come after the
// env's own, so a test may change the clock or the numbers; tests that need
// a prefix of their own use newEnvPrefix.
func newEnv(t testing.TB, opts ...voting.Option) *env {
	return newEnvPrefix(t, "", opts...)
}

// newEnvPrefix is newEnv with prefix at the end of the namespace's prefix.
func newEnvPrefix(t testing.TB, prefix string, opts ...voting.Option) *env {
	t.Helper()
	e := &env{t: t, clock: &clock{now: start}}
	addr := os.Getenv(redisAddrEnv)
	if addr == "" {
		e.mr = miniredis.RunT(t)
		e.mr.SetTime(start)
		addr = e.mr.Addr()
		e.prefix = prefix
	} else {
		e.prefix = "votingtest:" + randomHex(6) + ":" + prefix
	}
	e.pool = &redis.Pool{
		MaxIdle:     8,
		IdleTimeout: time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr)
		},
	}
	t.Cleanup(func() {
		if e.mr == nil {
			for _, k := range e.keys() {
				e.do("DEL", k)
			}
		}
		e.pool.Close()
	})
	all := append([]voting.Option{voting.WithClock(e.clock.Now), voting.WithPrefix(e.prefix)}, opts...)
	s, err := voting.New(e.pool, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.store = s
	return e
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// real reports whether the env runs on a real server.
func (e *env) real() bool { return e.mr == nil }

// key is the namespace's name for a key of the book's layout.
func (e *env) key(name string) string { return e.prefix + name }

// advance moves the Store's clock and, on miniredis, the server's clock for
// TTLs. A real server's TTLs keep real time.
func (e *env) advance(d time.Duration) {
	e.clock.set(e.clock.Now().Add(d))
	if e.mr != nil {
		e.mr.FastForward(d)
		e.mr.SetTime(e.clock.Now())
	}
}

// do runs a raw command and fails the test on an error.
func (e *env) do(cmd string, args ...any) any {
	e.t.Helper()
	c := e.pool.Get()
	defer c.Close()
	reply, err := c.Do(cmd, args...)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return reply
}

func (e *env) str(cmd string, args ...any) string {
	e.t.Helper()
	s, err := redis.String(e.do(cmd, args...), nil)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return s
}

func (e *env) strs(cmd string, args ...any) []string {
	e.t.Helper()
	s, err := redis.Strings(e.do(cmd, args...), nil)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	sort.Strings(s)
	return s
}

func (e *env) int(cmd string, args ...any) int64 {
	e.t.Helper()
	n, err := redis.Int64(e.do(cmd, args...), nil)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return n
}

// exists reports whether key is in Redis.
func (e *env) exists(key string) bool { return e.int("EXISTS", key) == 1 }

// hash returns a hash's fields.
func (e *env) hash(key string) map[string]string {
	e.t.Helper()
	m, err := redis.StringMap(e.do("HGETALL", key), nil)
	if err != nil {
		e.t.Fatalf("HGETALL %s: %v", key, err)
	}
	return m
}

// zset returns a zset as "member=score" lines, lowest score first.
func (e *env) zset(key string) []string {
	e.t.Helper()
	vals, err := redis.Strings(e.do("ZRANGE", key, 0, -1, "WITHSCORES"), nil)
	if err != nil {
		e.t.Fatalf("ZRANGE %s: %v", key, err)
	}
	out := make([]string, 0, len(vals)/2)
	for i := 0; i+1 < len(vals); i += 2 {
		out = append(out, vals[i]+"="+vals[i+1])
	}
	return out
}

// zscore returns a member's score, failing the test if it has none.
func (e *env) zscore(key, member string) float64 {
	e.t.Helper()
	f, err := redis.Float64(e.do("ZSCORE", key, member), nil)
	if err != nil {
		e.t.Fatalf("ZSCORE %s %s: %v", key, member, err)
	}
	return f
}

// pttl returns a key's time to live.
func (e *env) pttl(key string) time.Duration {
	return time.Duration(e.int("PTTL", key)) * time.Millisecond
}

// keys lists the namespace's keys, sorted.
func (e *env) keys() []string {
	e.t.Helper()
	var all []string
	cursor := "0"
	for {
		reply, err := redis.Values(e.do("SCAN", cursor, "MATCH", e.prefix+"*", "COUNT", 1000), nil)
		if err != nil {
			e.t.Fatalf("SCAN: %v", err)
		}
		cursor, _ = redis.String(reply[0], nil)
		batch, _ := redis.Strings(reply[1], nil)
		all = append(all, batch...)
		if cursor == "0" {
			break
		}
	}
	sort.Strings(all)
	return all
}

// dump writes the namespace's whole state, each key with its type, contents
// and whether it has a TTL, for comparing before and after a call.
func (e *env) dump() string {
	e.t.Helper()
	var b strings.Builder
	for _, k := range e.keys() {
		typ := e.str("TYPE", k)
		var contents any
		switch typ {
		case "string":
			contents = e.str("GET", k)
		case "hash":
			contents = e.hash(k)
		case "set":
			contents = e.strs("SMEMBERS", k)
		case "zset":
			contents = e.zset(k)
		}
		fmt.Fprintf(&b, "%s %s ttl=%v %v\n", k, typ, e.int("PTTL", k) > 0, contents)
	}
	return b.String()
}

// article is the hash key of an article id in the namespace.
func (e *env) article(id string) string { return e.key("article:" + id) }

// post posts an article at the clock's time and fails the test on an error.
func (e *env) post(poster, title string, groups ...string) string {
	e.t.Helper()
	id, err := e.store.PostArticle(context.Background(), poster, title, "https://example.com/"+strings.ReplaceAll(title, " ", "-"), groups...)
	if err != nil {
		e.t.Fatalf("PostArticle(%q, %q): %v", poster, title, err)
	}
	return id
}

// vote votes and fails the test on an error.
func (e *env) vote(user, id string, dir voting.Direction) {
	e.t.Helper()
	if err := e.store.Vote(context.Background(), user, id, dir); err != nil {
		e.t.Fatalf("Vote(%q, %s, %v): %v", user, id, dir, err)
	}
}

// unix is t in the book's time format for whole seconds.
func unix(t time.Time) float64 { return float64(t.Unix()) }
