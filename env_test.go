package voting_test

// This file holds the one helper every test opens its Store with, so that
// the whole behavioural suite runs on miniredis by default, on a real Redis
// when VOTING_REDIS_ADDR is set and on a Redis Cluster when
// VOTING_REDIS_CLUSTER is, and reads raw state the same way on each; and
// the small helpers that the tests of several files share.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

// TestMain runs the tests with the garbage collector set to run a fifth as
// often as Go's default (GOGC=400), unless GOGC says otherwise: miniredis
// builds a Lua interpreter for each script it runs, so the suite makes
// garbage fast while it keeps little, and at the default the suite took
// two thirds more CPU time.
//
// Most tests call t.Parallel: each has a namespace of its own (on
// miniredis a server of its own). Those left sequential start redis-server
// processes on ports of their own (a restart could find its port taken by
// another test's connection), read numbers of the whole server (INFO,
// CLIENT LIST, DBSIZE), flush its scripts, move the cluster's slots, or
// weigh stalls (stall_test.go). Benchmarks run with Go's default
// collector, as a service runs the library, so that their figures hold.
func TestMain(m *testing.M) {
	flag.Parse()
	if bench := flag.Lookup("test.bench"); os.Getenv("GOGC") == "" && (bench == nil || bench.Value.String() == "") {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}

// noBuilder is the option every Store of env and with is given first: no
// background builds, so that a test sees an index its Store adds unbuilt
// until it runs Reindex itself, whatever the scheduler does. A test of the
// background build gives WithAutoReindex(true) after it (build_test.go).
var noBuilder = voting.WithAutoReindex(false)

// redisAddrEnv names the environment variable that points the suite at a
// real Redis server, such as 127.0.0.1:6379. Tests there never flush the
// server: each uses its own random prefix and deletes its keys at the end.
const redisAddrEnv = "VOTING_REDIS_ADDR"

// start is the fake clock's first reading: Unix 1795305600.
var start = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

// A clock is a fake time source that tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// env is one test's Store and a raw view of the Redis under it.
type env struct {
	t      testing.TB
	store  *voting.Store
	pool   pool
	mr     *miniredis.Miniredis // nil on a real server
	prefix string
	clock  *clock
	// closedDeletes tells the invariant checker that the test deleted
	// articles after their voting closed, which may leave entries of them
	// in their voters' histories.
	closedDeletes bool
	// foreign tells the invariant checker that the test wrote articles as
	// another writer (the book's code) does, which the library's count of
	// the articles it indexed leaves out.
	foreign bool
}

// A pool is a *redis.Pool or, on Redis Cluster, a *redisc.Cluster.
type pool interface {
	Get() redis.Conn
	Close() error
}

// redisClusterEnv names the environment variable that points the suite at
// a Redis Cluster instead: its nodes' addresses, separated by commas. Each
// test then works under a prefix with a hash tag of its own.
const redisClusterEnv = "VOTING_REDIS_CLUSTER"

// bookCache is the option of a Store that lists groups through the book's
// cached intersections, as before live groups were the default: a
// namespace it makes keeps no live group indexes.
var bookCache = voting.WithGroupCacheTTL(voting.DefaultGroupCacheTTL)

// newEnv opens a Store on a fresh miniredis with the book's layout (no
// prefix), or on the real server under a random prefix. opts come after the
// env's own, so a test may change the clock or the numbers; tests that need
// a prefix of their own use newEnvPrefix.
func newEnv(t testing.TB, opts ...voting.Option) *env {
	return newEnvPrefix(t, "", opts...)
}

// newEnvPrefix is newEnv with prefix at the end of the namespace's prefix.
func newEnvPrefix(t testing.TB, prefix string, opts ...voting.Option) *env {
	t.Helper()
	if nodes := os.Getenv(redisClusterEnv); nodes != "" {
		return newEnvCluster(t, strings.Split(nodes, ","), prefix, opts...)
	}
	return newEnvOn(t, os.Getenv(redisAddrEnv), prefix, opts...)
}

// newEnvCluster is an env on a Redis Cluster, under a prefix with a hash
// tag of its own.
func newEnvCluster(t testing.TB, nodes []string, prefix string, opts ...voting.Option) *env {
	t.Helper()
	cluster := newCluster(t, nodes)
	e := &env{t: t, clock: &clock{now: start}, prefix: "{votingtest-" + randomHex(6) + "}:" + prefix, pool: cluster}
	e.open(opts)
	return e
}

// newCluster is a cluster client on nodes.
func newCluster(t testing.TB, nodes []string) *redisc.Cluster {
	t.Helper()
	cluster := &redisc.Cluster{
		StartupNodes: nodes,
		DialOptions:  []redis.DialOption{redis.DialConnectTimeout(2 * time.Second)},
		CreatePool: func(addr string, opts ...redis.DialOption) (*redis.Pool, error) {
			return &redis.Pool{
				MaxIdle:     16,
				IdleTimeout: time.Minute,
				Dial:        func() (redis.Conn, error) { return redis.Dial("tcp", addr, opts...) },
			}, nil
		},
	}
	if err := cluster.Refresh(); err != nil {
		t.Fatalf("cluster at %v: %v", nodes, err)
	}
	return cluster
}

// redis is the env's *redis.Pool, for tests that need one; they skip on a
// cluster.
func (e *env) redis() *redis.Pool {
	p, ok := e.pool.(*redis.Pool)
	if !ok {
		e.t.Skip("this test needs a *redis.Pool, not a cluster client")
	}
	return p
}

// pipeConn is a raw connection of the namespace that can pipeline; on a
// cluster it is bound to the namespace's slot.
func (e *env) pipeConn() redis.Conn {
	c := e.pool.Get()
	if _, ok := c.(*redisc.Conn); ok {
		if err := redisc.BindConn(c, e.key("article:")); err != nil {
			e.t.Fatalf("bind to the namespace's slot: %v", err)
		}
	}
	return c
}

// conn is a raw connection of the namespace; on a cluster it is bound to
// the namespace's slot and follows redirections, but cannot pipeline.
func (e *env) conn() redis.Conn {
	c := e.pipeConn()
	if rc, err := redisc.RetryConn(c, 10, 50*time.Millisecond); err == nil {
		return rc
	}
	return c
}

// newEnvOn is newEnvPrefix on the server at addr, or on miniredis if addr is
// empty.
func newEnvOn(t testing.TB, addr, prefix string, opts ...voting.Option) *env {
	t.Helper()
	if addr != "" {
		return newEnvPool(t, &redis.Pool{
			MaxIdle:     32,
			IdleTimeout: time.Minute,
			DialContext: func(ctx context.Context) (redis.Conn, error) {
				return redis.DialContext(ctx, "tcp", addr)
			},
		}, prefix, opts...)
	}
	e := newEnvMiniredis(t, start, prefix)
	e.open(opts)
	return e
}

// newEnvMiniredis is an env on a fresh miniredis at now, its Store not yet
// opened.
func newEnvMiniredis(t testing.TB, now time.Time, prefix string) *env {
	e := &env{t: t, clock: &clock{now: now}, prefix: prefix}
	e.mr = miniredis.RunT(t)
	e.mr.SetTime(now)
	e.pool = &redis.Pool{
		MaxIdle: 32,
		Dial:    func() (redis.Conn, error) { return redis.Dial("tcp", e.mr.Addr()) },
	}
	return e
}

// A snapshot is an env's keys, their contents and TTLs, and its clock, for
// newEnvFrom to copy.
type snapshot struct {
	now    time.Time
	prefix string
	keys   []snapshotKey
	// foreign and closedDeletes are the env's, for the invariant checker.
	foreign, closedDeletes bool
}

// A snapshotKey is one key of a snapshot: its type, its contents as
// arguments of the command that writes them, and its time to live.
type snapshotKey struct {
	name, typ string
	args      []any
	pttl      int64
}

// snapshot takes the env's keys, for an env on miniredis.
func (e *env) snapshot() snapshot {
	e.t.Helper()
	if e.mr == nil {
		e.t.Fatal("a snapshot is of an env on miniredis")
	}
	keys, types, replies := e.readKeys()
	for i, k := range keys {
		if !slices.Contains([]string{"string", "hash", "set", "zset"}, types[i]) {
			e.t.Fatalf("a snapshot of %s, a %s", k, types[i])
		}
	}
	snap := snapshot{now: e.clock.Now(), prefix: e.prefix, foreign: e.foreign, closedDeletes: e.closedDeletes}
	for i, k := range keys {
		var vals []string
		if types[i] == "string" {
			v, _ := redis.String(replies[2*i], nil)
			vals = []string{v}
		} else {
			vals, _ = redis.Strings(replies[2*i], nil)
		}
		if types[i] == "zset" { // ZADD takes the score first
			for j := 0; j+1 < len(vals); j += 2 {
				vals[j], vals[j+1] = vals[j+1], vals[j]
			}
		}
		args := make([]any, len(vals))
		for j, v := range vals {
			args[j] = v
		}
		pttl, _ := redis.Int64(replies[2*i+1], nil)
		snap.keys = append(snap.keys, snapshotKey{name: k, typ: types[i], args: args, pttl: pttl})
	}
	return snap
}

// newEnvFrom is newEnv on a fresh miniredis that holds a copy of snap's
// keys, at its time, its Store opened after the copy: for a table of many
// cases that each start from one state costly to build.
func newEnvFrom(t testing.TB, snap snapshot, opts ...voting.Option) *env {
	t.Helper()
	e := newEnvMiniredis(t, snap.now, snap.prefix)
	e.foreign, e.closedDeletes = snap.foreign, snap.closedDeletes
	writes := map[string]string{"string": "SET", "hash": "HSET", "set": "SADD", "zset": "ZADD"}
	e.pipe(func(send func(cmd string, args ...any)) {
		for _, k := range snap.keys {
			send(writes[k.typ], append([]any{k.name}, k.args...)...)
			if k.pttl > 0 {
				send("PEXPIRE", k.name, k.pttl)
			}
		}
	})
	e.open(opts)
	return e
}

// newEnvPool is an env on a real server's pool, under a random prefix
// ending in prefix.
func newEnvPool(t testing.TB, pool *redis.Pool, prefix string, opts ...voting.Option) *env {
	t.Helper()
	e := &env{t: t, clock: &clock{now: start}, prefix: "votingtest:" + randomHex(6) + ":" + prefix, pool: pool}
	e.open(opts)
	return e
}

// open opens the env's Store, with opts after the env's own, and deletes
// the namespace's keys on a real server when the test ends.
func (e *env) open(opts []voting.Option) {
	e.t.Helper()
	e.t.Cleanup(func() {
		if e.mr == nil {
			e.deleteAll()
		}
		e.pool.Close()
	})
	all := append([]voting.Option{voting.WithClock(e.clock.Now), voting.WithPrefix(e.prefix), noBuilder}, opts...)
	s, err := voting.New(e.pool, all...)
	if err != nil {
		e.t.Fatalf("New: %v", err)
	}
	// The Store's first call writes the namespace's settings: read them
	// now, as a service does on its first call, so that each test sees
	// what its own calls write.
	if _, err := s.Settings(context.Background()); err != nil {
		e.t.Fatalf("Settings: %v", err)
	}
	e.store = s
}

// deleteAll deletes the namespace's keys.
func (e *env) deleteAll() {
	keys := e.keys()
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		args := make([]any, n)
		for i, k := range keys[:n] {
			args[i] = k
		}
		e.do("UNLINK", args...)
		keys = keys[n:]
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// real reports whether the env runs on a real server.
func (e *env) real() bool { return e.mr == nil }

// key is the namespace's name for a key of the book's layout.
func (e *env) key(name string) string { return e.prefix + name }

// advance moves the Store's clock and, on miniredis, the server's clock for
// TTLs. A real server's TTLs keep real time.
func (e *env) advance(d time.Duration) {
	e.clock.set(e.clock.Now().Add(d))
	if e.mr != nil {
		e.mr.FastForward(d)
		e.mr.SetTime(e.clock.Now())
	}
}

// do runs a raw command and fails the test on an error.
func (e *env) do(cmd string, args ...any) any {
	e.t.Helper()
	c := e.conn()
	defer c.Close()
	reply, err := c.Do(cmd, args...)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return reply
}

func (e *env) str(cmd string, args ...any) string {
	e.t.Helper()
	s, err := redis.String(e.do(cmd, args...), nil)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return s
}

func (e *env) strs(cmd string, args ...any) []string {
	e.t.Helper()
	s, err := redis.Strings(e.do(cmd, args...), nil)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	sort.Strings(s)
	return s
}

func (e *env) int(cmd string, args ...any) int64 {
	e.t.Helper()
	n, err := redis.Int64(e.do(cmd, args...), nil)
	if err != nil {
		e.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return n
}

// exists reports whether key is in Redis.
func (e *env) exists(key string) bool { return e.int("EXISTS", key) == 1 }

// hash returns a hash's fields.
func (e *env) hash(key string) map[string]string {
	e.t.Helper()
	m, err := redis.StringMap(e.do("HGETALL", key), nil)
	if err != nil {
		e.t.Fatalf("HGETALL %s: %v", key, err)
	}
	return m
}

// zset returns a zset as "member=score" lines, lowest score first.
func (e *env) zset(key string) []string {
	e.t.Helper()
	vals, err := redis.Strings(e.do("ZRANGE", key, 0, -1, "WITHSCORES"), nil)
	if err != nil {
		e.t.Fatalf("ZRANGE %s: %v", key, err)
	}
	out := make([]string, 0, len(vals)/2)
	for i := 0; i+1 < len(vals); i += 2 {
		out = append(out, vals[i]+"="+vals[i+1])
	}
	return out
}

// zscore returns a member's score, failing the test if it has none.
func (e *env) zscore(key, member string) float64 {
	e.t.Helper()
	f, err := redis.Float64(e.do("ZSCORE", key, member), nil)
	if err != nil {
		e.t.Fatalf("ZSCORE %s %s: %v", key, member, err)
	}
	return f
}

// pttl returns a key's time to live.
func (e *env) pttl(key string) time.Duration {
	return time.Duration(e.int("PTTL", key)) * time.Millisecond
}

// keys lists the namespace's keys, sorted.
func (e *env) keys() []string {
	e.t.Helper()
	var all []string
	cursor := "0"
	for {
		reply, err := redis.Values(e.do("SCAN", cursor, "MATCH", e.prefix+"*", "COUNT", 1000), nil)
		if err != nil {
			e.t.Fatalf("SCAN: %v", err)
		}
		cursor, _ = redis.String(reply[0], nil)
		batch, _ := redis.Strings(reply[1], nil)
		all = append(all, batch...)
		if cursor == "0" {
			break
		}
	}
	// SCAN may give a key twice, while Redis grows its table.
	sort.Strings(all)
	return slices.Compact(all)
}

// readKeys reads the namespace's keys, their types in one round trip, and
// in another each key's contents (PING for a type the library writes
// none of) and PTTL: replies holds two for each key, in keys' order.
func (e *env) readKeys() (keys, types []string, replies []any) {
	e.t.Helper()
	keys = e.keys()
	types, err := redis.Strings(e.pipe(func(send func(cmd string, args ...any)) {
		for _, k := range keys {
			send("TYPE", k)
		}
	}), nil)
	if err != nil {
		e.t.Fatalf("TYPE: %v", err)
	}
	replies = e.pipe(func(send func(cmd string, args ...any)) {
		for i, k := range keys {
			switch types[i] {
			case "string":
				send("GET", k)
			case "hash":
				send("HGETALL", k)
			case "set":
				send("SMEMBERS", k)
			case "zset":
				send("ZRANGE", k, 0, -1, "WITHSCORES")
			default:
				send("PING")
			}
			send("PTTL", k)
		}
	})
	return keys, types, replies
}

// dump writes the namespace's whole state, each key with its type, contents
// and whether it has a TTL, for comparing before and after a call. It reads
// the keys' types in one round trip and their contents in another.
func (e *env) dump() string {
	e.t.Helper()
	keys, types, replies := e.readKeys()
	var b strings.Builder
	for i, k := range keys {
		typ := types[i]
		reply := replies[2*i]
		var contents any
		switch typ {
		case "string":
			contents, _ = redis.String(reply, nil)
		case "hash":
			contents, _ = redis.StringMap(reply, nil)
		case "set":
			members, _ := redis.Strings(reply, nil)
			sort.Strings(members)
			contents = members
		case "zset":
			vals, _ := redis.Strings(reply, nil)
			pairs := make([]string, 0, len(vals)/2)
			for j := 0; j+1 < len(vals); j += 2 {
				pairs = append(pairs, vals[j]+"="+vals[j+1])
			}
			contents = pairs
		}
		pttl, _ := redis.Int64(replies[2*i+1], nil)
		fmt.Fprintf(&b, "%s %s ttl=%v %v\n", k, typ, pttl > 0, contents)
	}
	return b.String()
}

// article is the hash key of an article id in the namespace.
func (e *env) article(id string) string { return e.key("article:" + id) }

// post posts an article at the clock's time and fails the test on an error.
func (e *env) post(poster, title string, groups ...string) string {
	e.t.Helper()
	id, err := e.store.PostArticle(context.Background(), poster, title, "https://example.com/"+strings.ReplaceAll(title, " ", "-"), groups...)
	if err != nil {
		e.t.Fatalf("PostArticle(%q, %q): %v", poster, title, err)
	}
	return id
}

// vote votes and fails the test on an error.
func (e *env) vote(user, id string, dir voting.Direction) {
	e.t.Helper()
	if err := e.store.Vote(context.Background(), user, id, dir); err != nil {
		e.t.Fatalf("Vote(%q, %s, %v): %v", user, id, dir, err)
	}
}

// together runs f(0) to f(n-1) in n goroutines and waits for them all.
func together(n int, f func(g int)) {
	var wg sync.WaitGroup
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			f(g)
		}(g)
	}
	wg.Wait()
}

// unix is t in the book's time format for whole seconds.
func unix(t time.Time) float64 { return float64(t.Unix()) }

// ctx is the context of the tests' calls that need no deadline of their own.
var ctx = context.Background()

// idsOf lists the ids of articles.
func idsOf(articles []voting.Article) []string {
	ids := make([]string, len(articles))
	for i, a := range articles {
		ids[i] = a.ID
	}
	return ids
}

// sorted is a sorted copy of s.
func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j-1] > out[j]; j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}

// postMany posts n articles a minute apart and gives article i (from 0)
// i%7 up-votes, so score and time order differ.
func postMany(e *env, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		e.advance(time.Minute)
		ids[i] = e.post("poster", fmt.Sprintf("article %d", i))
		for v := 0; v < i%7; v++ {
			e.vote(fmt.Sprintf("user%d", v), ids[i], voting.Up)
		}
	}
	return ids
}

// expectedOrder sorts ids as the Store should list them: by the stored
// score or time, highest first, ties broken by member name, highest first,
// as ZREVRANGE does.
func (e *env) expectedOrder(ids []string, order voting.Order) []string {
	e.t.Helper()
	index := e.key("score:")
	if order == voting.ByTime {
		index = e.key("time:")
	}
	type entry struct {
		id     string
		member string
		score  float64
	}
	entries := make([]entry, len(ids))
	for i, id := range ids {
		entries[i] = entry{id, e.article(id), e.zscore(index, e.article(id))}
	}
	for i := 1; i < len(entries); i++ {
		for j := i; j > 0; j-- {
			a, b := entries[j-1], entries[j]
			if a.score > b.score || (a.score == b.score && a.member > b.member) {
				break
			}
			entries[j-1], entries[j] = b, a
		}
	}
	out := make([]string, len(entries))
	for i, en := range entries {
		out[i] = en.id
	}
	return out
}

// bookPost writes an article the way the book's Python code does, with
// time.time()'s fractional seconds.
func (e *env) bookPost(id, user string, now float64) {
	e.t.Helper()
	e.foreign = true
	member := e.article(id)
	e.do("INCR", e.key("article:"))
	e.do("SADD", e.key("voted:"+id), user)
	e.do("EXPIRE", e.key("voted:"+id), 7*86400)
	e.do("HSET", member, "title", "from the book", "link", "http://example.com/book", "poster", user,
		"time", strconv.FormatFloat(now, 'f', -1, 64), "votes", 1)
	e.do("ZADD", e.key("score:"), now+432, member)
	e.do("ZADD", e.key("time:"), now, member)
}

// pipelined sends the commands write gives send on one connection of the
// namespace, in one round trip, and reads every reply: for tests that write
// much raw data at once. It returns the first error.
func (e *env) pipelined(write func(send func(cmd string, args ...any))) error {
	c := e.pipeConn()
	defer c.Close()
	sent := 0
	var err error
	write(func(cmd string, args ...any) {
		if err == nil {
			err = c.Send(cmd, args...)
			sent++
		}
	})
	if err == nil {
		err = c.Flush()
	}
	for ; sent > 0 && err == nil; sent-- {
		_, err = c.Receive()
	}
	return err
}

// pipe sends the commands write gives send on one connection of the
// namespace, in one round trip, and gives their replies, failing the test
// on an error.
func (e *env) pipe(write func(send func(cmd string, args ...any))) []any {
	e.t.Helper()
	c := e.pipeConn()
	defer c.Close()
	var cmds []string
	write(func(cmd string, args ...any) {
		if err := c.Send(cmd, args...); err != nil {
			e.t.Fatalf("%s %v: %v", cmd, args, err)
		}
		cmds = append(cmds, cmd)
	})
	if err := c.Flush(); err != nil {
		e.t.Fatalf("flush: %v", err)
	}
	replies := make([]any, len(cmds))
	for i, cmd := range cmds {
		reply, err := c.Receive()
		if err != nil {
			e.t.Fatalf("%s: %v", cmd, err)
		}
		replies[i] = reply
	}
	return replies
}

// with is another Store on the env's namespace and clock, with opts.
func (e *env) with(opts ...voting.Option) *voting.Store {
	e.t.Helper()
	s, err := voting.New(e.pool, append([]voting.Option{voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), noBuilder}, opts...)...)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// two drops a page's next cursor, for a test of numbered pages.
func two[T any](v T, _ string, err error) (T, error) { return v, err }

// groupsOf is an article's groups, as Article reads them.
func groupsOf(a voting.Article, err error) ([]string, error) { return a.Groups, err }
