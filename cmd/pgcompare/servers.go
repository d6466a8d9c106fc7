package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// freePort is a loopback TCP port free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startRedis starts a private redis-server on a free loopback port with no
// persistence, and gives its address and how to stop it.
func startRedis(ctx context.Context) (addr string, stop func() error, err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if bin, err = exec.LookPath("/usr/bin/redis-server"); err != nil {
			return "", nil, fmt.Errorf("no redis-server on PATH: install it, or give -redis")
		}
	}
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	var out bytes.Buffer
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	cmd.Stdout, cmd.Stderr = &out, &out
	ownGroup(cmd) // Ctrl-C reaches us alone, and we stop it
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop = func() error {
		cmd.Process.Signal(os.Interrupt) // redis-server shuts down, saving nothing
		select {
		case <-exited:
			return nil
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("redis-server on %s did not stop in 10 s: killed", addr)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := redis.Dial("tcp", addr)
		if err == nil {
			_, err = c.Do("PING")
			c.Close()
			if err == nil {
				return addr, stop, nil
			}
		}
		select {
		case <-exited:
			return "", nil, fmt.Errorf("redis-server exited: %s", out.String())
		case <-ctx.Done():
			stop()
			return "", nil, ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("redis-server did not answer on %s within 10 s: %v", addr, err)
		}
	}
}

// startPostgres makes a throwaway PostgreSQL cluster in a temporary
// directory, serving on a free loopback port with synchronous_commit=off,
// and gives its DSN and how to stop it and remove the directory. Run as
// root, it runs the server as the user nobody, since PostgreSQL refuses
// to run as root.
func startPostgres(ctx context.Context, binDir string) (dsn string, stop func() error, err error) {
	initdb, pgctl, err := postgresBinaries(binDir)
	if err != nil {
		return "", nil, err
	}
	var as *user.User
	if os.Geteuid() == 0 {
		if as, err = user.Lookup("nobody"); err != nil {
			return "", nil, fmt.Errorf("running as root, PostgreSQL needs another user: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "pgcompare-")
	if err != nil {
		return "", nil, err
	}
	removeDir := func() error { return os.RemoveAll(dir) }
	if as != nil {
		uid, _ := strconv.Atoi(as.Uid)
		gid, _ := strconv.Atoi(as.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			removeDir()
			return "", nil, err
		}
	}
	data, logFile := filepath.Join(dir, "data"), filepath.Join(dir, "log")
	// command runs a binary of PostgreSQL's as the server's user, in dir
	// (which that user can enter).
	command := func(ctx context.Context, bin string, args ...string) error {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		ownGroup(cmd)
		if as != nil {
			if err := runAs(cmd, as); err != nil {
				return err
			}
		}
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), args[0], err, tail(out.String(), 2000))
		}
		return nil
	}
	if err := command(ctx, initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		removeDir()
		return "", nil, err
	}
	port, err := freePort()
	if err != nil {
		removeDir()
		return "", nil, err
	}
	conf := fmt.Sprintf("\n# pgcompare\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nsynchronous_commit = off\n", port, dir)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		removeDir()
		return "", nil, err
	}
	if err := command(ctx, pgctl, "start", "-D", data, "-l", logFile, "-w", "-t", "60"); err != nil {
		log, _ := os.ReadFile(logFile)
		command(context.Background(), pgctl, "stop", "-D", data, "-m", "immediate", "-w")
		removeDir()
		return "", nil, fmt.Errorf("%w\nserver log:\n%s", err, tail(string(log), 2000))
	}
	stop = func() error {
		// Not ctx, which Ctrl-C has cancelled.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := command(ctx, pgctl, "stop", "-D", data, "-m", "fast", "-w")
		return errors.Join(err, removeDir())
	}
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable", port), stop, nil
}

// postgresBinaries finds initdb and pg_ctl: in binDir if given, else on
// PATH, else in the newest /usr/lib/postgresql/*/bin.
func postgresBinaries(binDir string) (initdb, pgctl string, err error) {
	var dirs []string
	if binDir != "" {
		dirs = []string{binDir}
	} else {
		if p, err := exec.LookPath("initdb"); err == nil {
			if p, err = filepath.EvalSymlinks(p); err == nil {
				dirs = append(dirs, filepath.Dir(p))
			}
		}
		found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		slices.SortFunc(found, func(a, b string) int { return versionOf(b) - versionOf(a) })
		dirs = append(dirs, found...)
	}
	for _, d := range dirs {
		initdb, pgctl = filepath.Join(d, "initdb"), filepath.Join(d, "pg_ctl")
		if isFile(initdb) && isFile(pgctl) {
			return initdb, pgctl, nil
		}
	}
	return "", "", fmt.Errorf("no initdb and pg_ctl found (looked in %v): give -pgbin, or -postgres", dirs)
}

// versionOf is the major version in a path /usr/lib/postgresql/15/bin.
func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// tail is the last n bytes of s, at most.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
