package roundtrip

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/gomodule/redigo/redis"
)

// readTimeout bounds the tests' reads with a timeout: long, since a reply
// from the test's own miniredis can wait for a busy machine's CPU.
const readTimeout = 10 * time.Second

func TestCountsRoundTrips(t *testing.T) {
	mr := miniredis.RunT(t)
	p := New(&redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }})
	c, err := p.GetContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	steps := []struct {
		name string
		run  func() error
		want int64
	}{
		{"Do", func() error { _, err := c.Do("SET", "k", "v"); return err }, 1},
		{"DoContext", func() error { _, err := redis.DoContext(c, context.Background(), "GET", "k"); return err }, 1},
		{"pipeline of three", func() error {
			for i := 0; i < 3; i++ {
				if err := c.Send("INCR", "n"); err != nil {
					return err
				}
			}
			if err := c.Flush(); err != nil {
				return err
			}
			for i := 0; i < 3; i++ {
				if _, err := redis.ReceiveContext(c, context.Background()); err != nil {
					return err
				}
			}
			return nil
		}, 1},
	}
	for _, s := range steps {
		p.Reset()
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := p.Trips(); got != s.want {
			t.Errorf("%s counted %d round trips, want %d", s.name, got, s.want)
		}
	}
	if n, _ := redis.Int(c.Do("GET", "n")); n != 3 {
		t.Errorf("n = %d, want 3: the pipeline did not run", n)
	}
}

func TestKeepsTheConnectionsInterfaces(t *testing.T) {
	mr := miniredis.RunT(t)
	p := New(&redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }})
	c := p.Get()
	defer c.Close()
	if _, ok := c.(redis.ConnWithTimeout); !ok {
		t.Error("a connection is not a redis.ConnWithTimeout")
	}
	if _, ok := c.(redis.ConnWithContext); !ok {
		t.Error("a connection is not a redis.ConnWithContext")
	}
	var _ interface {
		GetContext(context.Context) (redis.Conn, error)
	} = p
	p.Reset()
	if _, err := redis.DoWithTimeout(c, readTimeout, "SET", "k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := c.Send("GET", "k"); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if v, err := redis.String(redis.ReceiveWithTimeout(c, readTimeout)); err != nil || v != "v" {
		t.Fatalf("GET k = %q, %v", v, err)
	}
	if p.Trips() != 2 {
		t.Errorf("counted %d round trips, want 2", p.Trips())
	}
}

func TestRecords(t *testing.T) {
	mr := miniredis.RunT(t)
	p := New(&redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }})
	c := p.Get()
	defer c.Close()
	if _, err := c.Do("SET", "before", 1); err != nil { // not recorded
		t.Fatal(err)
	}
	p.Record()
	arg := []byte("k")
	if _, err := redis.DoWithTimeout(c, readTimeout, "SET", arg, "v"); err != nil {
		t.Fatal(err)
	}
	arg[0] = 'x' // the recording keeps its own copy
	for _, k := range []string{"k", "missing"} {
		if err := c.Send("GET", k); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Send("HGET", "k", "f"); err != nil { // a wrong type: an error reply
		t.Fatal(err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Receive(); err != nil {
		t.Fatal(err)
	}
	if _, err := redis.ReceiveContext(c, context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := redis.ReceiveWithTimeout(c, readTimeout); err == nil {
		t.Fatal("HGET on a string did not fail")
	}
	got := p.Recorded()
	if _, err := c.Do("SET", "after", 1); err != nil { // not recorded
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("recorded %d round trips, want 2: %+v", len(got), got)
	}
	set, pipe := got[0], got[1]
	if set.Via != "DoWithTimeout" || set.Pipelined() || len(set.Commands) != 1 ||
		set.Commands[0].String() != `SET "k" "v"` || set.Replies[0] != "OK" {
		t.Errorf("the SET was recorded as %+v", set)
	}
	if !pipe.Pipelined() || len(pipe.Commands) != 3 || pipe.Commands[2].String() != `HGET "k" "f"` {
		t.Errorf("the pipeline was recorded as %+v", pipe)
	}
	wantReads := []string{"Receive", "ReceiveContext", "ReceiveWithTimeout"}
	if len(pipe.Replies) != 3 || string(pipe.Replies[0].([]byte)) != "v" || pipe.Replies[1] != nil ||
		!strings.HasPrefix(string(pipe.Replies[2].(redis.Error)), "WRONGTYPE") || !reflect.DeepEqual(pipe.Reads, wantReads) {
		t.Errorf("the pipeline's replies were recorded as %q read with %v", pipe.Replies, pipe.Reads)
	}
	if p.Trips() != 4 {
		t.Errorf("counted %d round trips, want 4", p.Trips())
	}
}

// TestRecordsAPipelineFlushedByDo: Sends flushed by a Do of the empty
// command, which reads all their replies as one, are one pipelined trip
// with a reply per command, as with Flush and Receive.
func TestRecordsAPipelineFlushedByDo(t *testing.T) {
	mr := miniredis.RunT(t)
	p := New(&redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", mr.Addr()) }})
	c := p.Get()
	defer c.Close()
	p.Record()
	c.Send("SET", "k", "v")
	c.Send("GET", "k")
	c.Send("INCR", "k") // an error reply, in its place
	reply, err := redis.Values(redis.DoWithTimeout(c, readTimeout, ""))
	if err != nil || len(reply) != 3 {
		t.Fatalf("Do(\"\") = %v, %v", reply, err)
	}
	trips := p.Recorded()
	if len(trips) != 1 || p.Trips() != 1 {
		t.Fatalf("recorded %d trips, counted %d; want 1", len(trips), p.Trips())
	}
	tr := trips[0]
	if !tr.Pipelined() || len(tr.Commands) != 3 || len(tr.Replies) != 3 || tr.Err != nil {
		t.Fatalf("trip = %+v", tr)
	}
	if got := fmt.Sprint(tr.Reads); got != "[DoWithTimeout DoWithTimeout DoWithTimeout]" {
		t.Errorf("reads = %s", got)
	}
	if v, _ := redis.String(tr.Replies[1], nil); v != "v" {
		t.Errorf("reply 2 = %v, want v", tr.Replies[1])
	}
	if _, ok := tr.Replies[2].(redis.Error); !ok {
		t.Errorf("reply 3 = %#v, want a redis.Error", tr.Replies[2])
	}
}
