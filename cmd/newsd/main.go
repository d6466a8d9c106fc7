// Command newsd is a small news site on the voting library, the way a Go
// service would use it: a front page with a tab per order, group pages, an
// article page with its rank, a submit form, user pages with posts, karma
// and votes, a name-only login, and a JSON API under /api/ with the names
// Reddit's and Lemmy's APIs use.
//
// The API's lists (/api/articles, /api/groups/{group}/articles,
// /api/groups, /api/posters, /api/users/{user}/articles and
// /api/users/{user}/votes) page alike: page=N, or after=<cursor> from the
// page before's "next", and size=N up to the library's maximum. Every
// answer of the API is JSON, its errors {"error": "..."} with their status.
//
// With no flags it serves on 127.0.0.1:8080 from an embedded Redis
// (miniredis) filled with sample articles, groups, users and votes, and
// needs nothing installed:
//
//	go run ./cmd/newsd
//
// With -redis it serves from a real server instead, under -prefix (a fresh
// newsd:<random>: by default, which it prints), and writes only under that
// prefix; it adds sample data only to an empty namespace, so that a restart
// with the same -prefix serves what is there, and none with -seed 0.
//
// It answers only for the hosts of -hosts (by default 127.0.0.1, localhost
// and [::1] with the port it serves on), so that another name that
// resolves to it (DNS rebinding) gets 421; and no page of it may be framed.
// A session is a random id in a cookie and a record in Redis beside the
// library's keys, under the same prefix, that logout deletes and that ends
// 30 days after the login. A request that fails on the server's side is
// answered with the status's words and the request's id, and logged on
// stderr with its error; one refused is logged too.
//
// It is a demonstration: a login is a name with no password, and there are
// no rate limits. Every write needs a session, and checks that it comes
// from the site's own pages (http.CrossOriginProtection).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "newsd:", err)
		os.Exit(1)
	}
}

// config is the command's flags.
type config struct {
	http, redisAddr, prefix string
	seed                    int
	hosts                   hostSet // nil: those of the address served on
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("newsd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.http, "http", "127.0.0.1:8080", "address to serve on")
	fs.StringVar(&c.redisAddr, "redis", "", "address of a real Redis `host:port` (default: embedded miniredis)")
	fs.StringVar(&c.prefix, "prefix", "", "key prefix (default: none on miniredis, a fresh newsd:<random>: on -redis)")
	fs.IntVar(&c.seed, "seed", len(sampleArticles), "sample articles to post at start")
	fs.Func("hosts", "the `hosts` the site answers for, comma-separated, each a name or name:port (a name alone: on any port);"+
		" another Host is refused with 421 (default: 127.0.0.1, localhost and [::1] with the port served on,"+
		" or the address served on if it is neither a loopback nor every address)", func(list string) error {
		hosts, err := parseHosts(list)
		c.hosts = hosts
		return err
	})
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.seed < 0 {
		return c, fmt.Errorf("-seed %d is negative", c.seed)
	}
	return c, nil
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	pool, where, closeRedis, err := openRedis(&c)
	if err != nil {
		return err
	}
	defer closeRedis()
	// The site's pages are read far more often than anything is written:
	// a real Redis keeps the Store told of every change, and the pages
	// read again are served from memory.
	store, err := newStore(pool, c.prefix, time.Now, voting.WithClientCache(1000))
	if err != nil {
		return err
	}
	defer store.Close()
	// Sample data goes only into an empty namespace: a restart on the same
	// -redis and -prefix serves what is there.
	all := voting.Query{Order: voting.ByTime}
	had, err := store.Count(ctx, all)
	if err != nil {
		return err
	}
	if c.seed > 0 && had == 0 {
		if err := seed(ctx, pool, c.prefix, c.seed, time.Now()); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	ln, err := net.Listen("tcp", c.http)
	if err != nil {
		return err
	}
	if c.hosts == nil {
		// From the listener's address, whose port is known even for
		// -http host:0.
		if c.hosts, err = defaultHosts(ln.Addr().String()); err != nil {
			ln.Close()
			return err
		}
	}
	n, _ := store.Count(ctx, all)
	groups, _ := store.CountGroups(ctx)
	fmt.Fprintf(stdout, "newsd: serving http://%s from %s (prefix %q): %d articles in %d groups\n",
		ln.Addr(), where, c.prefix, n, groups)
	fmt.Fprintf(stdout, "newsd: answering for hosts %s (-hosts)\n", c.hosts)
	log := newLogger(stderr)
	srv := newHTTPServer(newServer(store, sessions{pool: pool, prefix: c.prefix, now: time.Now}, c.hosts, log), log)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHTTPServer is the site's server, with timeouts that a slow client
// cannot hold a connection past, logging what net/http logs (a broken
// connection, say) to log.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// openRedis opens the pool: an embedded miniredis, or the server of
// -redis. It gives where that is, for the start-up line.
func openRedis(c *config) (pool *redis.Pool, where string, closeRedis func(), err error) {
	addr, where := c.redisAddr, "a real Redis at "+c.redisAddr
	closeRedis = func() {}
	if addr == "" {
		mr := miniredis.NewMiniRedis()
		if err := mr.Start(); err != nil {
			return nil, "", nil, err
		}
		addr, where, closeRedis = mr.Addr(), "an embedded Redis (miniredis)", mr.Close
	} else if c.prefix == "" {
		b := make([]byte, 4)
		rand.Read(b)
		c.prefix = "newsd:" + hex.EncodeToString(b) + ":"
	}
	pool = &redis.Pool{
		MaxIdle:     64,
		IdleTimeout: time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr,
				redis.DialReadTimeout(5*time.Second), redis.DialWriteTimeout(5*time.Second))
		},
	}
	closePool := closeRedis
	return pool, where, func() { pool.Close(); closePool() }, nil
}

// newStore is the site's Store: every order, live groups, karma, unique
// links and a month of each user's votes; and more, as opts say.
func newStore(pool voting.Pool, prefix string, now func() time.Time, opts ...voting.Option) (*voting.Store, error) {
	return voting.New(pool, append([]voting.Option{
		voting.WithPrefix(prefix),
		voting.WithClock(now),
		voting.WithOrders(voting.Orders()...),
		voting.WithLiveGroups(),
		voting.WithKarma(),
		voting.WithUniqueLinks(),
		voting.WithUserHistory(30 * 24 * time.Hour),
		voting.WithPageSize(20),
	}, opts...)...)
}
