package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// prefix is the library's namespace. It holds a hash tag, as a namespace
// on Redis Cluster does.
const prefix = "{bench}:"

// pageSize is a page's length on both sides: the library's default.
const pageSize = voting.DefaultPageSize

// storeOptions are the options of every Store here: the orders measured
// beyond the book's two (ByTime is one of those).
func storeOptions(more ...voting.Option) []voting.Option {
	return append([]voting.Option{voting.WithPrefix(prefix), voting.WithOrders(voting.ByVotes, voting.ByHot)}, more...)
}

// library is the Redis side: a pool, a Store, and what the load left.
type library struct {
	addr    string
	pool    *redis.Pool
	store   *voting.Store
	version string
	given   bool // a server pgcompare did not start, whose keys it removes at exit
	// ids are the library's ids of the posts, by index.
	ids []string
	// memPosts and memVotes are what used_memory grew by as the posts,
	// then the votes, were loaded.
	memPosts, memVotes int64
}

func newRedisPool(addr string, conns int, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *redis.Pool {
	var opts []redis.DialOption
	if dial != nil {
		opts = append(opts, redis.DialContextFunc(dial))
	}
	return &redis.Pool{
		MaxIdle: conns,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr, opts...)
		},
	}
}

// openLibrary opens a Store on the Redis at addr, whose namespace must be
// empty (or is emptied, with reset).
func openLibrary(ctx context.Context, addr string, conns int, given, reset bool) (*library, error) {
	l := &library{addr: addr, pool: newRedisPool(addr, conns, nil), given: given}
	c, err := l.pool.GetContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("redis at %s: %w", addr, err)
	}
	info, err := redis.String(c.Do("INFO", "server"))
	c.Close()
	if err != nil {
		l.pool.Close()
		return nil, fmt.Errorf("redis at %s: %w", addr, err)
	}
	l.version = infoField(info, "redis_version")
	keys, err := l.keys(ctx, 1)
	if err == nil && len(keys) > 0 {
		if reset {
			err = l.deleteKeys(ctx)
		} else {
			err = fmt.Errorf("redis at %s holds keys under %s (%s, ...), from an earlier run: give -reset to delete them", addr, prefix, keys[0])
		}
	}
	if err == nil {
		l.store, err = voting.New(l.pool, storeOptions()...)
	}
	if err != nil {
		l.pool.Close()
		return nil, err
	}
	return l, nil
}

// close deletes the namespace from a server pgcompare did not start, and
// closes the pool.
func (l *library) close() error {
	var err error
	if l.given {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		err = l.deleteKeys(ctx)
	}
	l.pool.Close()
	return err
}

// keys gives the namespace's keys, up to n (all, for n 0).
func (l *library) keys(ctx context.Context, n int) ([]string, error) {
	c, err := l.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var all []string
	cursor := "0"
	for {
		reply, err := redis.Values(c.Do("SCAN", cursor, "MATCH", prefix+"*", "COUNT", 1000))
		if err != nil {
			return nil, err
		}
		var keys []string
		if _, err := redis.Scan(reply, &cursor, &keys); err != nil {
			return nil, err
		}
		all = append(all, keys...)
		if cursor == "0" || n > 0 && len(all) >= n {
			return all, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// deleteKeys deletes the namespace's keys.
func (l *library) deleteKeys(ctx context.Context) error {
	keys, err := l.keys(ctx, 0)
	if err != nil {
		return err
	}
	c, err := l.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for len(keys) > 0 {
		batch := keys[:min(len(keys), 1000)]
		keys = keys[len(batch):]
		args := make([]any, len(batch))
		for i, k := range batch {
			args[i] = k
		}
		if _, err := c.Do("UNLINK", args...); err != nil {
			return err
		}
	}
	return nil
}

// load posts d's posts and casts its votes through the library, workers
// calls at a time, and notes the ids and what used_memory grew by.
func (l *library) load(ctx context.Context, d *dataset, workers int, logf func(string, ...any)) error {
	m0, err := l.usedMemory(ctx)
	if err != nil {
		return err
	}
	// Each poster has a Store of its own, whose clock gives the posting
	// time of the post it posts.
	clocks := make([]time.Time, workers)
	stores := make([]*voting.Store, workers)
	for w := range stores {
		if stores[w], err = voting.New(l.pool, storeOptions(voting.WithClock(func() time.Time { return clocks[w] }))...); err != nil {
			return err
		}
	}
	l.ids = make([]string, d.posts)
	t := time.Now()
	err = parallel(ctx, d.posts, workers, func(ctx context.Context, w, i int) error {
		clocks[w] = d.published(i)
		id, err := stores[w].PostArticle(ctx, poster(i), title(i), link(i))
		l.ids[i] = id
		return err
	})
	if err != nil {
		return err
	}
	m1, err := l.usedMemory(ctx)
	if err != nil {
		return err
	}
	logf("library: %d posts in %v", d.posts, time.Since(t).Round(time.Millisecond))
	t = time.Now()
	err = parallel(ctx, len(d.votes), workers, func(ctx context.Context, _, i int) error {
		v := d.votes[i]
		dir := voting.Down
		if v.up {
			dir = voting.Up
		}
		return l.store.Vote(ctx, voter(v.voter), l.ids[v.post], dir)
	})
	if err != nil {
		return err
	}
	m2, err := l.usedMemory(ctx)
	if err != nil {
		return err
	}
	logf("library: %d votes in %v", len(d.votes), time.Since(t).Round(time.Millisecond))
	l.memPosts, l.memVotes = m1-m0, m2-m1
	return nil
}

// usedMemory is Redis's used_memory, in bytes.
func (l *library) usedMemory(ctx context.Context) (int64, error) {
	info, err := l.info(ctx, "memory")
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(infoField(info, "used_memory"), 10, 64)
}

// commandCalls is the number of commands Redis has run, from INFO
// commandstats: those in scripts among them, and this INFO not yet.
func (l *library) commandCalls(ctx context.Context) (int64, error) {
	info, err := l.info(ctx, "commandstats")
	if err != nil {
		return 0, err
	}
	var total int64
	for _, line := range strings.Split(info, "\n") {
		_, rest, ok := strings.Cut(line, ":calls=")
		if !ok {
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		n, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("INFO commandstats: %q: %w", line, err)
		}
		total += n
	}
	return total, nil
}

func (l *library) info(ctx context.Context, section string) (string, error) {
	c, err := l.pool.GetContext(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return redis.String(c.Do("INFO", section))
}

// infoField is a field's value in INFO's text, "" if it has none.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// libraryOps are the measured operations through store, and those of the
// client-side cache through cached.
func libraryOps(store, cached *voting.Store, t *targets) [numOps]doFunc {
	pageOf := func(store *voting.Store, order voting.Order, n int) doFunc {
		q := voting.Query{Order: order, Paging: voting.Paging{Page: n, Size: pageSize}}
		return func(ctx context.Context, _, _ int) error {
			articles, _, err := store.List(ctx, q)
			if err == nil && len(articles) == 0 {
				err = fmt.Errorf("page %d of %v is empty", n, order)
			}
			return err
		}
	}
	page := func(order voting.Order, n int) doFunc { return pageOf(store, order, n) }
	rankQuery := voting.Query{Order: voting.ByVotes}
	voteOf := func(store *voting.Store, suffix string) doFunc {
		return func(ctx context.Context, client, i int) error {
			k, up := voteAt(len(t.votes), len(t.users), client, i)
			dir := voting.Down
			if up {
				dir = voting.Up
			}
			return store.Vote(ctx, t.users[client]+suffix, t.ids[t.votes[k]], dir)
		}
	}
	return [numOps]doFunc{
		opVote:      voteOf(store, ""),
		opTop:       page(voting.ByVotes, 1),
		opNew:       page(voting.ByTime, 1),
		opHot:       page(voting.ByHot, 1),
		opDeep:      page(voting.ByVotes, t.deep),
		opTopCached: pageOf(cached, voting.ByVotes, 1),
		opNewCached: pageOf(cached, voting.ByTime, 1),
		opHotCached: pageOf(cached, voting.ByHot, 1),
		opMixed100:  mixed(100, voteOf(cached, mixedVoter(100)), pageOf(cached, voting.ByVotes, 1)),
		opMixed10:   mixed(10, voteOf(cached, mixedVoter(10)), pageOf(cached, voting.ByVotes, 1)),
		opRank: func(ctx context.Context, client, i int) error {
			_, err := store.Rank(ctx, t.ids[t.ranks[rankAt(len(t.ranks), client, i)]], rankQuery)
			return err
		},
	}
}

// A commandPool counts the commands sent on its connections, each given to
// Do or Send. Its connections keep the timeouts and contexts of the
// *redis.Pool's, so that the Store takes the same paths through them.
type commandPool struct {
	pool *redis.Pool
	sent *atomic.Int64
}

func (p commandPool) Get() redis.Conn { return &commandConn{Conn: p.pool.Get(), sent: p.sent} }

func (p commandPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &commandConn{Conn: c, sent: p.sent}, nil
}

type commandConn struct {
	redis.Conn
	sent *atomic.Int64
}

// count counts cmd, unless it is Do's empty command, which sends nothing
// but flushes what Send buffered.
func (c *commandConn) count(cmd string) {
	if cmd != "" {
		c.sent.Add(1)
	}
}

func (c *commandConn) Do(cmd string, args ...any) (any, error) {
	c.count(cmd)
	return c.Conn.Do(cmd, args...)
}

func (c *commandConn) DoWithTimeout(timeout time.Duration, cmd string, args ...any) (any, error) {
	c.count(cmd)
	return redis.DoWithTimeout(c.Conn, timeout, cmd, args...)
}

func (c *commandConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.count(cmd)
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *commandConn) Send(cmd string, args ...any) error {
	c.count(cmd)
	return c.Conn.Send(cmd, args...)
}

func (c *commandConn) ReceiveWithTimeout(timeout time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.Conn, timeout)
}

func (c *commandConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}
