package rconn

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// heldConn is a connection whose replies wait until release: what it is
// sent is counted once flushed, and each Receive answers "ok" once the
// gate is open.
type heldConn struct {
	mu      sync.Mutex
	sent    int
	flushed int
	open    chan struct{}
	closed  chan struct{}
	once    sync.Once
}

func newHeldConn() *heldConn {
	return &heldConn{open: make(chan struct{}), closed: make(chan struct{})}
}

func (c *heldConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}
func (c *heldConn) Err() error { return nil }
func (c *heldConn) Do(string, ...any) (any, error) {
	return nil, errors.New("heldConn: no Do")
}
func (c *heldConn) Send(string, ...any) error {
	c.mu.Lock()
	c.sent++
	c.mu.Unlock()
	return nil
}
func (c *heldConn) Flush() error {
	c.mu.Lock()
	c.flushed = c.sent
	c.mu.Unlock()
	return nil
}
func (c *heldConn) Receive() (any, error) {
	select {
	case <-c.open:
		return []byte("ok"), nil
	case <-c.closed:
		return nil, errors.New("heldConn: closed")
	}
}

func (c *heldConn) flushedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flushed
}

// TestAPipeIsNotIdleWhileAReplyIsAwaited: a call sent whose reply has not
// come keeps its pipe from idle, though the reader has taken it off the
// queue to wait for its reply; the pipe is idle once the reply is read.
func TestAPipeIsNotIdleWhileAReplyIsAwaited(t *testing.T) {
	conn := newHeldConn()
	p := newPipe(conn, time.Minute, 16)
	defer func() {
		conn.Close()
		p.close()
	}()
	c, err := p.send(context.Background(), []any{"sha", 0})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for conn.flushedCount() < 1 || len(p.queue) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the call was not flushed and taken by the reader within 10 s (flushed %d, queued %d)", conn.flushedCount(), len(p.queue))
		}
		time.Sleep(time.Millisecond)
	}
	// Flushed, off the queue, its reply held: on its way.
	if p.idle() {
		t.Fatal("the pipe is idle while its call's reply is awaited")
	}
	close(conn.open)
	reply, err := p.wait(context.Background(), c)
	if err != nil || string(reply.([]byte)) != "ok" {
		t.Fatalf("reply %v, %v; want ok", reply, err)
	}
	for !p.idle() {
		if time.Now().After(deadline) {
			t.Fatal("the pipe is not idle 10 s after its only reply was read")
		}
		time.Sleep(time.Millisecond)
	}
}
