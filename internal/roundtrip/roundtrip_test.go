package roundtrip

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/gomodule/redigo/redis"
)

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
