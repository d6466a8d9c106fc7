package tracking

import (
	"context"
	"errors"
	"testing"

	"github.com/gomodule/redigo/redis"
)

// live is a cache whose subscription is taken as live, with no connection.
func live(max int) *Cache {
	c := New(func(context.Context) (redis.Conn, error) { return nil, errors.New("no server") }, "", max)
	c.start.Do(func() { close(c.done) }) // nothing runs
	c.live = true
	return c
}

func TestAReadBegunBeforeAnInvalidationIsNotKept(t *testing.T) {
	c := live(4)
	gen, ok := c.Begin()
	if !ok {
		t.Fatal("Begin: not live")
	}
	c.Invalidate() // a write lands while the read is on its way
	c.Put("page", 1, gen)
	if _, ok := c.Get("page"); ok || c.Len() != 0 {
		t.Fatalf("a read begun before an invalidation was kept (%d entries)", c.Len())
	}
	gen, _ = c.Begin()
	c.Put("page", 2, gen)
	if v, ok := c.Get("page"); !ok || v != 2 {
		t.Fatalf("Get = %v, %v; want 2, true", v, ok)
	}
	c.Invalidate()
	if _, ok := c.Get("page"); ok {
		t.Fatal("an entry outlived an invalidation")
	}
}

func TestNothingIsKeptWhileNotLive(t *testing.T) {
	c := live(4)
	gen, _ := c.Begin()
	c.mu.Lock()
	c.live = false
	c.mu.Unlock()
	c.Put("page", 1, gen)
	if c.Len() != 0 {
		t.Fatal("a cache not live kept a reply")
	}
}

func TestTheCacheIsBounded(t *testing.T) {
	c := live(3)
	for i, k := range []string{"a", "b", "c", "d", "e", "b"} {
		gen, _ := c.Begin()
		c.Put(k, i, gen)
		if c.Len() > 3 {
			t.Fatalf("after %d puts the cache holds %d entries, want at most 3", i+1, c.Len())
		}
	}
	if v, ok := c.Get("b"); !ok || v != 5 {
		t.Fatalf("Get(b) = %v, %v; want the latest, 5", v, ok)
	}
}

func TestMessageKinds(t *testing.T) {
	for _, tt := range []struct {
		reply any
		kind  string
		bad   bool
	}{
		{[]any{[]byte("message"), []byte(Channel), []any{[]byte("k")}}, "message", false},
		{[]any{[]byte("message"), []byte(Channel), nil}, "message", false}, // FLUSHALL
		{[]any{[]byte("pong"), []byte("")}, "pong", false},
		{[]any{[]byte("subscribe"), []byte(Channel), int64(1)}, "subscribe", false},
		{redis.Error("ERR no"), "", true},
		{"PONG", "", true},
		{[]any{int64(1), int64(2)}, "", true},
	} {
		kind, err := message(tt.reply)
		if kind != tt.kind || (err != nil) != tt.bad {
			t.Errorf("message(%v) = %q, %v; want %q, error %v", tt.reply, kind, err, tt.kind, tt.bad)
		}
	}
}

// A command the server refuses stops the cache for good; a state the
// server leaves does not.
func TestRefusal(t *testing.T) {
	for _, tt := range []struct {
		err  error
		stop bool
	}{
		{redis.Error("NOPERM this user has no permissions to run the 'client|id' command"), true},
		{redis.Error("ERR unknown subcommand 'ID'. Try CLIENT HELP."), true},
		{redis.Error("LOADING Redis is loading the dataset in memory"), false},
		{redis.Error("BUSY Redis is busy running a script."), false},
		{errors.New("EOF"), false},
	} {
		if got := errors.Is(refusal(tt.err), ErrUnsupported); got != tt.stop {
			t.Errorf("refusal(%v) unsupported = %v, want %v", tt.err, got, tt.stop)
		}
	}
}

// Stats counts each hit, miss and invalidation, and says why a cache that
// has not started keeps nothing.
func TestStatsCount(t *testing.T) {
	if st := New(nil, "", 4).Stats(); st.Live || !errors.Is(st.Err, ErrNotStarted) {
		t.Fatalf("a new cache's Stats = %+v; want not started", st)
	}
	c := live(4)
	c.why = nil
	gen, _ := c.Begin()
	c.Get("page") // a miss
	c.Put("page", 1, gen)
	c.Get("page") // a hit
	c.Get("page") // a hit
	c.Invalidate()
	c.Get("page") // a miss
	if st := c.Stats(); st != (Stats{Hits: 2, Misses: 2, Invalidations: 1, Live: true}) {
		t.Fatalf("Stats = %+v; want 2 hits, 2 misses, 1 invalidation, live", st)
	}
}
