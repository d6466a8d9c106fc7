package replay

import (
	"sort"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting/internal/roundtrip"
	"github.com/gomodule/redigo/redis"
)

// op is an operation as a library might send it: one command, then a
// pipeline whose commands depend on its reply.
func op(c redis.Conn, prefix, user string) error {
	n, err := redis.Int64(c.Do("SADD", prefix+"users", user))
	if err != nil {
		return err
	}
	for _, cmd := range []string{"SCARD", "SMEMBERS"} {
		if err := c.Send(cmd, prefix+"users"); err != nil {
			return err
		}
	}
	if err := c.Send("HINCRBY", prefix+"counts", user, n); err != nil {
		return err
	}
	if err := c.Flush(); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if _, err := c.Receive(); err != nil {
			return err
		}
	}
	return nil
}

func TestReplaysWhatWasRecorded(t *testing.T) {
	mr := miniredis.RunT(t)
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }}
	rec := roundtrip.New(pool)
	run := func(f func(c redis.Conn) error) {
		t.Helper()
		c := rec.Get()
		defer c.Close()
		if err := f(c); err != nil {
			t.Fatal(err)
		}
	}
	// The library's side in namespace a:, the replay's in b:, alike.
	run(func(c redis.Conn) error { return op(c, "a:", "first") })
	rec.Record()
	run(func(c redis.Conn) error { return op(c, "a:", "marked") })
	want := rec.Recorded()

	toB := func(s string) string { return strings.ReplaceAll(s, "a:", "b:") }
	s, err := From(want, toB)
	if err != nil {
		t.Fatal(err)
	}
	if s.Trips() != 2 || s.Commands() != 4 {
		t.Fatalf("%d trips of %d commands, want 2 of 4", s.Trips(), s.Commands())
	}
	user, err := s.Find("marked")
	if err != nil {
		t.Fatal(err)
	}
	if len(user) != 2 {
		t.Fatalf("found the user in %d places, want 2", len(user))
	}
	s.Set(user, "first")
	run(s.Run)
	s.Set(user, "marked")
	rec.Record()
	run(s.Run)
	got := rec.Recorded()
	if err := Compare(want, got, toB); err != nil {
		t.Fatal(err)
	}
	// Both namespaces hold the same.
	for _, key := range []string{"users", "counts"} {
		a, b := strings.ReplaceAll(dump(t, pool, "a:"+key), "a:", "b:"), dump(t, pool, "b:"+key)
		if a != b || b == "" {
			t.Errorf("a:%s holds %q, b:%s %q", key, a, key, b)
		}
	}

	// A replay that sends something else, or gets other replies, is told apart.
	s.Set(user, "marked") // the user is no longer new: SADD answers 0
	rec.Record()
	run(s.Run)
	if err := Compare(want, rec.Recorded(), toB); err == nil || !strings.Contains(err.Error(), "reply 1") {
		t.Errorf("a repeated SADD compared as %v", err)
	}
	s.Set(user, "other")
	rec.Record()
	run(s.Run)
	if err := Compare(want, rec.Recorded(), toB); err == nil || !strings.Contains(err.Error(), "argument") {
		t.Errorf("another user compared as %v", err)
	}

	// Clones are independent; Send pipelines the whole script.
	c1 := s.Clone()
	c1.Set(user, "clone")
	if _, err := s.Find("clone"); err == nil {
		t.Error("setting a clone's argument changed the original")
	}
	run(func(c redis.Conn) error {
		n, err := c1.Send(c)
		if err != nil {
			return err
		}
		if err := c.Flush(); err != nil {
			return err
		}
		for ; n > 0; n-- {
			if _, err := c.Receive(); err != nil {
				return err
			}
		}
		return nil
	})
	if ok, _ := mr.SIsMember("b:users", "clone"); !ok {
		t.Error("the pipelined clone did not run")
	}
}

func TestFromRefusesAFailedRecording(t *testing.T) {
	if _, err := From(nil, nil); err == nil {
		t.Error("an empty recording was taken")
	}
	bad := []roundtrip.Trip{{Via: "Do", Commands: []roundtrip.Command{{Name: "A"}, {Name: "B"}}}}
	if _, err := From(bad, nil); err == nil {
		t.Error("a Do of two commands was taken")
	}
}

// dump is a key's contents, sorted.
func dump(t *testing.T, pool *redis.Pool, key string) string {
	t.Helper()
	c := pool.Get()
	defer c.Close()
	typ, err := redis.String(c.Do("TYPE", key))
	if err != nil {
		t.Fatal(err)
	}
	cmd := map[string]string{"set": "SMEMBERS", "hash": "HGETALL"}[typ]
	if cmd == "" {
		t.Fatalf("%s is a %s", key, typ)
	}
	vals, err := redis.Strings(c.Do(cmd, key))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(vals)
	return strings.Join(vals, " ")
}
