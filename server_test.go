package voting_test

// This file starts redis-server processes of the tests' own, for the tests
// that kill, restart or reconfigure a server, which the shared server of
// VOTING_REDIS_ADDR must never suffer.

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// A server is a redis-server process on a loopback port of its own.
type server struct {
	t        testing.TB
	addr     string
	password string // for admin, when the server wants one
	dir      string
	args     []string
	cmd      *exec.Cmd
}

// startServer starts redis-server with no persistence unless args say
// otherwise, or skips the test if there is no redis-server binary.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (scripts/test installs it): " + err.Error())
	}
	s := &server{t: t, addr: freeAddr(t), dir: t.TempDir(), args: args}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// freeAddr finds a free loopback port.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func (s *server) port() string {
	_, port, _ := net.SplitHostPort(s.addr)
	return port
}

func (s *server) start() {
	s.t.Helper()
	args := append([]string{"--port", s.port(), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--logfile", s.dir + "/redis.log"}, s.args...)
	s.cmd = exec.Command("redis-server", args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	// Ready once it answers PING (or asks for a password), not LOADING,
	// after reading its data.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		pong, err := redis.String(s.admin("PING"))
		if err == nil && pong == "PONG" || err != nil && strings.HasPrefix(err.Error(), "NOAUTH") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("redis-server on %s did not start", s.addr)
}

// kill stops the server at once, as a crash would.
func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
	s.cmd = nil
}

// restart starts the server again on the same port and directory.
func (s *server) restart() {
	s.t.Helper()
	s.kill()
	s.start()
}

func (s *server) stop() { s.kill() }

// pool is a pool on the server with the given dial options; the caller
// closes it (an env does). Reads are bounded, so that no test waits forever
// on a dead server.
func (s *server) pool(opts ...redis.DialOption) *redis.Pool {
	opts = append([]redis.DialOption{redis.DialConnectTimeout(2 * time.Second), redis.DialReadTimeout(5 * time.Second)}, opts...)
	p := &redis.Pool{
		MaxIdle:     32,
		IdleTimeout: time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", s.addr, opts...)
		},
	}
	return p
}

// admin runs one command on a connection of its own.
func (s *server) admin(cmd string, args ...any) (any, error) {
	c, err := redis.Dial("tcp", s.addr, redis.DialConnectTimeout(2*time.Second), redis.DialReadTimeout(5*time.Second),
		redis.DialPassword(s.password))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(cmd, args...)
}

// info returns one field of INFO.
func (s *server) info(section, field string) string {
	s.t.Helper()
	text, err := redis.String(s.admin("INFO", section))
	if err != nil {
		s.t.Fatalf("INFO %s: %v", section, err)
	}
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	s.t.Fatalf("INFO %s has no %s", section, field)
	return ""
}

// infoInt is info as a number.
func (s *server) infoInt(section, field string) int64 {
	s.t.Helper()
	n, err := strconv.ParseInt(s.info(section, field), 10, 64)
	if err != nil {
		s.t.Fatalf("INFO %s %s: %v", section, field, err)
	}
	return n
}

// freeze stops the server with SIGSTOP, so that it reads and answers
// nothing, and returns the function that lets it run again; the test's
// end lets it run in any case.
func (s *server) freeze() (thaw func()) {
	s.t.Helper()
	cont := func() {
		if s.cmd != nil {
			s.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	s.t.Cleanup(cont)
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("SIGSTOP: %v", err)
	}
	return func() {
		s.t.Helper()
		if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			s.t.Fatalf("SIGCONT: %v", err)
		}
	}
}
