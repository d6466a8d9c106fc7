// Command newsload puts cmd/newsd under load on a real Redis and measures,
// in the same run, the same operations through the library directly, so
// that what the HTTP layer costs (routing, sessions, templates, JSON) shows
// as a ratio:
//
//	go run ./cmd/newsload -redis 127.0.0.1:6379
//
// Run from the repository's root, it builds and starts newsd itself
// (./cmd/newsd) on a free port over that Redis, under a fresh prefix with
// -seed sample articles, and deletes the prefix's keys at the end; with
// -newsd URL it loads a newsd already running instead, whose -prefix it
// must be given. Each operation runs -clients concurrent clients for
// -duration, over HTTP and directly, in turn, -rounds times; it prints a
// Markdown table of requests per second, the 50th and 99th percentiles of
// latency, and Redis commands per operation (from INFO commandstats), which
// load does not move.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "newsload:", err)
		os.Exit(1)
	}
}

// config is the command's flags.
type config struct {
	redisAddr, newsd, prefix string
	clients, seed, rounds    int
	duration                 time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("newsload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.redisAddr, "redis", "", "address of the real Redis `host:port` newsd serves from (required)")
	fs.StringVar(&c.newsd, "newsd", "", "URL of a running newsd (default: start one)")
	fs.StringVar(&c.prefix, "prefix", "", "the running newsd's key prefix (with -newsd)")
	fs.IntVar(&c.clients, "clients", 16, "concurrent clients")
	fs.IntVar(&c.seed, "seed", 1000, "sample articles newsd posts at start")
	fs.IntVar(&c.rounds, "rounds", 2, "rounds, each every operation over HTTP and directly")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "how long each operation runs in a round")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case c.redisAddr == "":
		return c, fmt.Errorf("-redis is required: newsload measures a real Redis")
	case c.newsd != "" && c.prefix == "":
		return c, fmt.Errorf("-newsd needs the -prefix newsd writes under")
	case c.clients < 1 || c.rounds < 1 || c.duration <= 0:
		return c, fmt.Errorf("-clients, -rounds and -duration must be positive")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	pool := &redis.Pool{
		MaxIdle: 2 * c.clients,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", c.redisAddr)
		},
	}
	defer pool.Close()
	if c.newsd == "" {
		b := make([]byte, 4)
		rand.Read(b)
		c.prefix = "newsload:" + hex.EncodeToString(b) + ":"
		stop, url, err := startNewsd(c, stderr)
		if err != nil {
			return err
		}
		defer stop()
		defer deletePrefix(pool, c.prefix)
		c.newsd = url
	}
	// The options newsd's Store has (cmd/newsd's newStore).
	store, err := voting.New(pool, voting.WithPrefix(c.prefix), voting.WithOrders(voting.Orders()...),
		voting.WithLiveGroups(), voting.WithKarma(), voting.WithUniqueLinks(),
		voting.WithUserHistory(30*24*time.Hour), voting.WithPageSize(20))
	if err != nil {
		return err
	}
	ids, err := voteTargets(ctx, store)
	if err != nil {
		return err
	}
	ops := operations(c.newsd, store, ids)
	results := make([]result, len(ops)*2)
	for round := range c.rounds {
		for i, op := range ops {
			for j, way := range []way{op.http, op.direct} {
				fmt.Fprintf(stderr, "round %d: %s %s\n", round+1, op.name, []string{"over HTTP", "directly"}[j])
				r, err := measure(ctx, pool, c.clients, c.duration, way)
				if err != nil {
					return fmt.Errorf("%s: %w", op.name, err)
				}
				results[2*i+j].add(r)
			}
		}
	}
	fmt.Fprintf(stdout, "%d clients, %d rounds of %v per operation and way, newsd at %s\n\n", c.clients, c.rounds, c.duration, c.newsd)
	writeTable(stdout, ops, results)
	return nil
}

// startNewsd builds ./cmd/newsd and starts it on a free port, and gives
// its URL, from the line it prints when it serves.
func startNewsd(c config, stderr io.Writer) (stop func(), url string, err error) {
	dir, err := os.MkdirTemp("", "newsload")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir) // the running binary stays open
	bin := filepath.Join(dir, "newsd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/newsd")
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		return nil, "", fmt.Errorf("build newsd (run newsload from the repository's root): %w", err)
	}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-redis", c.redisAddr,
		"-prefix", c.prefix, "-seed", fmt.Sprint(c.seed))
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	_, rest, ok := strings.Cut(line, "serving ")
	url, _, _ = strings.Cut(rest, " ")
	if err != nil || !ok || !strings.HasPrefix(url, "http://") {
		stop()
		return nil, "", fmt.Errorf("newsd did not say where it serves (%q, %v)", line, err)
	}
	fmt.Fprint(stderr, line)
	go io.Copy(io.Discard, out)
	return stop, url, nil
}

// voteTargets are the articles the vote operation votes on: the first
// page of the hot listing.
func voteTargets(ctx context.Context, store *voting.Store) ([]string, error) {
	page, err := store.GetArticles(ctx, 1, voting.ByHot)
	if err != nil {
		return nil, err
	}
	if len(page) == 0 {
		return nil, fmt.Errorf("no articles to vote on: give -seed")
	}
	ids := make([]string, len(page))
	for i, a := range page {
		ids[i] = a.ID
	}
	return ids, nil
}

// deletePrefix deletes the keys under prefix.
func deletePrefix(pool *redis.Pool, prefix string) error {
	c := pool.Get()
	defer c.Close()
	cursor := "0"
	for {
		reply, err := redis.Values(c.Do("SCAN", cursor, "MATCH", prefix+"*", "COUNT", 1000))
		if err != nil {
			return err
		}
		var keys []string
		if _, err := redis.Scan(reply, &cursor, &keys); err != nil {
			return err
		}
		if len(keys) > 0 {
			args := make([]any, len(keys))
			for i, k := range keys {
				args[i] = k
			}
			if _, err := c.Do("UNLINK", args...); err != nil {
				return err
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}
