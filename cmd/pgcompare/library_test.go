package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// nullConn answers every command with nil.
type nullConn struct{ redis.Conn }

func (nullConn) Do(string, ...any) (any, error) { return nil, nil }
func (nullConn) Send(string, ...any) error      { return nil }

func TestCommandConnCountsCommandsSent(t *testing.T) {
	var sent atomic.Int64
	c := &commandConn{Conn: nullConn{}, sent: &sent}
	c.Do("EVALSHA", "abc", 0)
	c.Send("ZREVRANGE", "k", 0, 24)
	c.Send("HGETALL", "article:1")
	c.Do("") // flushes the two; sends nothing of its own
	c.DoWithTimeout(time.Second, "GET", "k")
	c.DoContext(context.Background(), "GET", "k")
	if got := sent.Load(); got != 5 {
		t.Errorf("%d commands counted, want 5", got)
	}
}

func TestInfoField(t *testing.T) {
	info := "# Memory\r\nused_memory:1234\r\nused_memory_human:1.21K\r\n"
	if got := infoField(info, "used_memory"); got != "1234" {
		t.Errorf("used_memory = %q", got)
	}
	if got := infoField(info, "maxmemory"); got != "" {
		t.Errorf("maxmemory = %q, want none", got)
	}
}
