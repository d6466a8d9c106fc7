package voting_test

// The tests that no call of the library holds Redis long enough to stall
// its other clients, whatever the size of the data: every operation runs
// against the largest data users can grow, and each atomic step it takes in
// Redis (a command, or a run of one of the library's scripts, whole) is
// weighed by the work it does there, which a meter counts in Redis without
// a clock, so that a busy machine cannot fail them. How long those steps
// take, and how long another client waits meanwhile, BenchmarkStalls
// (stall_bench_test.go) measures.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
	"github.com/gomodule/redigo/redis"
)

// stallArticlesEnv names the environment variable that sets how many
// articles the articles' stall workload fills: 50,000 unless it is set, so
// that the suite stays quick; BENCHMARKS.md gives the run at 10^6.
const stallArticlesEnv = "VOTING_STALL_ARTICLES"

// maxStepWork is the most work one atomic step may do in Redis, as a meter
// weighs it: the arguments of each command the step runs, the entries of
// each reply, and the elements a command frees or reads beyond them (a
// DEL's keys, a ZINTERSTORE's inputs). The library's steps stay within it
// by its own constants (MaxGroups, the page sizes, the steps of Reindex,
// of Rescore, of a window's trim, of a deletion's clean-up), whatever the
// data: the largest, a step of Rescore, weighs some 6,400, and a step of
// Reindex some 3,700, which BENCHMARKS.md gives at 1 to 3 ms. The
// workloads hold a hundred thousand voters, comments or articles of one
// link, 300,000 groups and three million votes of one user, each many times
// the bound, so that a step that walks any of them whole fails.
const maxStepWork = 10_000

// stallArticles is the number of articles the articles' stall workload
// fills: stallArticlesEnv's, or 50,000.
func stallArticles(tb testing.TB) int {
	tb.Helper()
	v := os.Getenv(stallArticlesEnv)
	if v == "" {
		return 50_000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1000 {
		tb.Fatalf("%s=%q: want a number of articles, at least 1000", stallArticlesEnv, v)
	}
	return n
}

// A stallPhase is one phase of a stall workload: its calls, which return
// an error if one fails or answers wrong.
type stallPhase struct {
	name string
	run  func() error
}

// TestNoCallStallsRedis fills a site whose one group holds every article,
// in the book's layout, then with every order kept and live groups on runs
// Reindex (which builds every index and the group's live indexes), lists
// the group by every order (a first page and a deep one), votes, posts and
// regroups; meets the worst cases of data that users control (300,000 group
// names, an article with 100,000 voters deleted with their histories kept,
// votes on an article in MaxGroups groups with everything kept, UserVotes
// of 100,000 articles with histories kept, the last page of a history of
// three million votes, and Reindex, posts, edits and deletions of a link
// that 100,000 articles posted before links were kept unique share); and
// lists the windows after a month has passed (so that their trims take
// every article out, in steps), Rescores every article and stops keeping
// every index. Meanwhile another client, a process of its own (pinger),
// PINGs, and must be answered. No step of any call may do more than
// maxStepWork (a meter counts it, in Redis: weighMeteredPhases). On a real
// server only: the worst cases are too large for miniredis.
func TestNoCallStallsRedis(t *testing.T) {
	addr := os.Getenv(redisAddrEnv)
	if addr == "" || os.Getenv(redisClusterEnv) != "" {
		t.Skip("needs a real server of its own: set " + redisAddrEnv)
	}
	m := newMeter(t)
	phases, clear := articleStall(t, addr, stallArticles(t), m.through)
	defer clear()
	weighMeteredPhases(t, addr, m, phases)
}

// TestNoCommentCallStallsRedis is TestNoCallStallsRedis for comments, on
// a namespace of their own: a thread of manyComments comments, a chain of
// replies deepChain deep, a user with userComments comments, a Reindex of
// them all, and the deletion of the thread's article.
func TestNoCommentCallStallsRedis(t *testing.T) {
	addr := os.Getenv(redisAddrEnv)
	if addr == "" || os.Getenv(redisClusterEnv) != "" {
		t.Skip("needs a real server of its own: set " + redisAddrEnv)
	}
	m := newMeter(t)
	phases, clear := commentStall(t, addr, m.through)
	defer clear()
	weighMeteredPhases(t, addr, m, phases)
}

// weighMeteredPhases runs phases in order, while a pinger PINGs the server
// at addr, and fails the test for each phase with a step of more than
// maxStepWork, for one in which no step went through the meter m, and if
// any script went unmetered. The pinger's waits, and the steps' counts, are
// logged, not checked: the time depends on the machine (BenchmarkStalls).
func weighMeteredPhases(t *testing.T, addr string, m *meter, phases []stallPhase) {
	t.Helper()
	p := startPinger(t, addr)
	for _, ph := range phases {
		p.in(ph.name)
		m.start()
		err := ph.run()
		w := m.stop()
		if err != nil {
			p.end(t)
			t.Fatalf("%s: %v", ph.name, err)
		}
		t.Logf("%s: %d steps, the most work %d (%s, %d commands)", ph.name, w.steps, w.most.work, w.most.what, w.most.commands)
		switch {
		case w.steps == 0:
			t.Errorf("%s: no step went through the meter", ph.name)
		case w.most.work > maxStepWork:
			t.Errorf("%s: a step (%s, %d commands) did work %d in Redis, past the bound of %d", ph.name, w.most.what,
				w.most.commands, w.most.work, maxStepWork)
		}
	}
	waits := p.end(t)
	if len(waits) == 0 {
		t.Fatal("no PING was answered")
	}
	t.Logf("%d PINGs, median %v, longest %v (not checked); the longest of each phase:%s", len(waits), waits[len(waits)/2],
		waits[len(waits)-1], p.report())
	if unmetered := m.unmetered(); len(unmetered) > 0 {
		t.Errorf("scripts the meter has no copy of were run, unweighed: %v", unmetered)
	}
}

// TestMeterWeighsSteps: the meter weighs a step by what it touches in
// Redis. A metered copy of a script counts its commands and their elements
// exactly; a page of MaxPageSize articles weighs some MaxPageSize entries;
// a step of Reindex with its batch raised to all the site's articles weighs
// past maxStepWork, and one of the default batch within it, on miniredis
// after SCRIPT FLUSH too (the library then sends each script whole); every
// step of a call is counted.
func TestMeterWeighsSteps(t *testing.T) {
	e := newEnv(t)
	// SADD: its key, its three members and its reply; SMEMBERS: its key
	// and the three; DEL: its key, the three it frees and its reply.
	src := meteredSource(`redis.call('SADD', KEYS[1], 'a', 'b', 'c')
local members = redis.call('SMEMBERS', KEYS[1])
redis.call('DEL', KEYS[1])
return #members`)
	got, err := redis.Values(e.do("EVAL", src, 1, e.key("metered")), nil)
	if err != nil || len(got) != 3 || got[0] != int64(3) || got[1] != int64(5+4+5) || got[2] != int64(3) {
		t.Errorf("the metered script answered %v, %v; want [3 14 3]: 3 commands, 14 elements, its reply", got, err)
	}

	const n = 1000
	fill(t, e, n, 0)
	m := newMeter(t)
	open := func() *voting.Store {
		s, err := voting.New(m.through(e.redis()), noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
			voting.WithOrders(voting.Orders()...), voting.WithPageSize(voting.MaxPageSize))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	m.start()
	page, err := s.GetArticles(ctx, 1, voting.ByScore)
	w := m.stop()
	if err != nil || len(page) != voting.MaxPageSize {
		t.Fatalf("GetArticles = %d articles, %v; want a page of %d", len(page), err, voting.MaxPageSize)
	}
	if w.most.work < voting.MaxPageSize || w.most.work > 10*voting.MaxPageSize {
		t.Errorf("a page of %d articles: its largest step (%s) weighed %d, want some %d", voting.MaxPageSize, w.most.what,
			w.most.work, voting.MaxPageSize)
	}

	for _, batch := range []int{n, 0} {
		s := open()
		if batch > 0 {
			voting.SetBatches(s, 500, batch)
		}
		e.do("DEL", e.key("indexed:"), e.key("reindex:"))
		if batch == 0 && !e.real() {
			// The scripts go: the library sends each whole (EVAL), and the
			// meter its copy.
			e.do("SCRIPT", "FLUSH")
		}
		m.start()
		done, err := s.ReindexWithProgress(ctx, nil)
		w := m.stop()
		if err != nil || done.Articles != n {
			t.Fatalf("Reindex = %+v, %v; want %d articles", done, err, n)
		}
		if over := w.most.work > maxStepWork; over != (batch > 0) || w.most.what != "reindex_orders.lua" {
			t.Errorf("Reindex in steps of %d articles (0 for the default): its largest step (%s, %d commands) weighed %d; "+
				"past %d: %v, want %v", batch, w.most.what, w.most.commands, w.most.work, maxStepWork, over, batch > 0)
		}
		if w.steps < done.Steps {
			t.Errorf("Reindex took %d steps, the meter counted %d", done.Steps, w.steps)
		}
	}
	if unmetered := m.unmetered(); len(unmetered) > 0 {
		t.Errorf("scripts the meter has no copy of were run, unweighed: %v", unmetered)
	}
}

// A meter weighs the work that Stores' calls make Redis do, one atomic step
// at a time: each command they send, and each run of one of the library's
// scripts, whole. Stores take their connections from its pools (through),
// which run each of the library's scripts as a metered copy of it
// (meteredSource): the same Lua, whose redis.call and redis.pcall count
// what each command touches and which answers that count before the
// script's own reply; the pool's connection takes the count off again, so
// the Store sees the script's reply. So the work is counted in Redis, by
// what each command touches, and no clock is read.
type meter struct {
	tb      testing.TB
	metered map[string]string // the metered copy's SHA-1, by the script's
	sources map[string]string // the metered copy, by the script's source
	names   map[string]string // the script's file name, by its SHA-1
	mu      sync.Mutex
	loaded  map[*redis.Pool]bool // the pools whose server has the copies
	current *phaseWork           // nil between start and stop
	unknown map[string]bool      // scripts run that the meter has no copy of
}

// A phaseWork is the work of the steps of one phase: how many there were,
// and the one of the most work.
type phaseWork struct {
	steps int
	most  step
}

// A step is one atomic step in Redis: a command, or a run of a script.
type step struct {
	what     string // the command, or the script's file name
	commands int64  // the commands it ran: 1 for a command
	work     int64
}

// newMeter makes the metered copies of every script of the library and of
// each of its variants.
func newMeter(tb testing.TB) *meter {
	m := &meter{tb: tb, metered: map[string]string{}, sources: map[string]string{}, names: map[string]string{},
		loaded: map[*redis.Pool]bool{}, unknown: map[string]bool{}}
	for _, s := range append(script.All(), script.Variants()...) {
		sha := fmt.Sprint(s.SHA())
		if _, ok := m.names[sha]; ok {
			continue
		}
		src := meteredSource(s.Source())
		m.names[sha], m.names[s.Source()] = s.Name(), s.Name()
		m.sources[s.Source()], m.metered[sha] = src, redis.NewScript(0, src).Hash()
	}
	return m
}

// through is a pool of pool's connections, metered, for a Store: the
// metered copies of the scripts are loaded on its server first.
func (m *meter) through(pool *redis.Pool) voting.Pool {
	m.tb.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded[pool] {
		c := pool.Get()
		defer c.Close()
		for _, src := range m.sources {
			if _, err := c.Do("SCRIPT", "LOAD", src); err != nil {
				m.tb.Fatalf("SCRIPT LOAD of a metered script: %v", err)
			}
		}
		m.loaded[pool] = true
	}
	return meteredPool{pool, m}
}

// start starts counting the steps of a phase; stop ends it and gives its
// work.
func (m *meter) start() {
	m.mu.Lock()
	m.current = &phaseWork{}
	m.mu.Unlock()
}

func (m *meter) stop() phaseWork {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := *m.current
	m.current = nil
	return w
}

// unmetered are the SHA-1s of the scripts run through the meter's pools
// that it has no copy of, which it could not weigh.
func (m *meter) unmetered() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for sha := range m.unknown {
		out = append(out, sha)
	}
	slices.Sort(out)
	return out
}

// A sent is a command that a metered connection has sent and whose reply
// it has not read: what it is, the work of its arguments, and whether it
// runs a metered script.
type sent struct {
	what    string
	work    int64
	metered bool
}

// sending is what a metered connection sends for cmd and args: a
// library's script's metered copy in its place, and the command's
// arguments' work. A SCAN of any kind reads the COUNT it asks for (10 by
// default) beyond what it answers.
func (m *meter) sending(cmd string, args []any) ([]any, sent) {
	s := sent{what: cmd, work: int64(len(args))}
	switch cmd {
	case "EVALSHA", "EVAL":
		if len(args) < 2 {
			break
		}
		s.work -= 2 // the script and the number of keys
		script := fmt.Sprint(args[0])
		copied := m.metered[script]
		if cmd == "EVAL" {
			copied = m.sources[script]
		}
		if copied == "" {
			m.mu.Lock()
			m.unknown[script[:min(40, len(script))]] = true
			m.mu.Unlock()
			break
		}
		args = slices.Clone(args)
		args[0], s.what, s.metered = copied, m.names[script], true
	case "SCAN", "SSCAN", "HSCAN", "ZSCAN":
		count := int64(10)
		for i := 0; i+1 < len(args); i++ {
			if strings.EqualFold(fmt.Sprint(args[i]), "COUNT") {
				count, _ = strconv.ParseInt(fmt.Sprint(args[i+1]), 10, 64)
			}
		}
		s.work += count
	}
	return args, s
}

// answered counts the step of s, now answered with reply, and gives the
// reply the sender expects: a metered script's own.
func (m *meter) answered(s sent, reply any) any {
	st := step{what: s.what, commands: 1, work: s.work}
	if r, ok := reply.([]any); ok && s.metered && len(r) >= 2 {
		// The script's count, then its reply, none for nil.
		st.commands, _ = r[0].(int64)
		elements, _ := r[1].(int64)
		st.work += elements
		reply = nil
		if len(r) > 2 {
			reply = r[2]
		}
	} else if !s.metered {
		st.work += entries(reply)
	}
	m.mu.Lock()
	if w := m.current; w != nil {
		w.steps++
		if st.work > w.most.work {
			w.most = st
		}
	}
	m.mu.Unlock()
	return reply
}

// entries is the number of entries of a reply: an array's, all the way
// down, else 1.
func entries(reply any) int64 {
	r, ok := reply.([]any)
	if !ok {
		return 1
	}
	var n int64
	for _, v := range r {
		n += entries(v)
	}
	return n
}

// meteredSource is the metered copy of a script's source: the script as it
// is, in a function of its own, after code that gives it its own redis
// whose call and pcall count each command it runs and the elements the
// command touches (its arguments, the entries of its reply, and what it
// frees or reads beyond them: a DEL's keys, the key a RENAME replaces, a
// ZINTERSTORE's or ZUNIONSTORE's inputs and the key it replaces), and that
// answers those two counts, then the script's reply.
func meteredSource(src string) string {
	return `local meterRedis, meterCommands, meterElements = redis, 0, 0
local meterCards = {zset = 'ZCARD', set = 'SCARD', hash = 'HLEN', list = 'LLEN', stream = 'XLEN'}
local function meterEntries(r)
	if type(r) ~= 'table' or r.ok or r.err then
		return 1
	end
	local n = 0
	for _, v in ipairs(r) do
		n = n + meterEntries(v)
	end
	return n
end
local function meterSize(key)
	local kind = meterRedis.call('TYPE', key)
	kind = type(kind) == 'table' and kind.ok or kind
	if kind == 'none' then
		return 0
	end
	local card = meterCards[kind]
	return card and meterRedis.call(card, key) or 1
end
local function meterWork(cmd, ...)
	local args, name = {...}, string.upper(cmd)
	local n = #args
	if name == 'DEL' then
		for i = 1, #args do
			n = n + meterSize(args[i])
		end
	elseif name == 'RENAME' then
		n = n + meterSize(args[2])
	elseif name == 'ZINTERSTORE' or name == 'ZUNIONSTORE' then
		n = n + meterSize(args[1])
		for i = 3, 2 + tonumber(args[2]) do
			n = n + meterSize(args[i])
		end
	end
	return n
end
local function meterCounted(call)
	return function(cmd, ...)
		local n = meterWork(cmd, ...)
		local r = call(cmd, ...)
		meterCommands, meterElements = meterCommands + 1, meterElements + n + meterEntries(r)
		return r
	end
end
local redis = setmetatable({call = meterCounted(meterRedis.call), pcall = meterCounted(meterRedis.pcall)}, {__index = meterRedis})
local meterReply = (function()
` + src + `
end)()
return {meterCommands, meterElements, meterReply}
`
}

// A meteredPool hands out a pool's connections, metered: through them a
// library's script runs as its metered copy, and every step's work is
// counted.
type meteredPool struct {
	pool *redis.Pool
	m    *meter
}

func (p meteredPool) Get() redis.Conn { return &meteredConn{Conn: p.pool.Get(), m: p.m} }

// GetContext is the pool's GetContext, metered, so that a Store takes the
// same path through a meteredPool as through the pool.
func (p meteredPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &meteredConn{Conn: c, m: p.m}, nil
}

// A meteredConn is a pool's connection, metered. Its methods with a timeout
// or a context are the pool connection's own.
type meteredConn struct {
	redis.Conn
	m       *meter
	pending []sent // sent, in order, and not yet answered
}

func (c *meteredConn) Do(cmd string, args ...any) (any, error) {
	return c.do(cmd, args, func(cmd string, args []any) (any, error) { return c.Conn.Do(cmd, args...) })
}

func (c *meteredConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	return c.do(cmd, args, func(cmd string, args []any) (any, error) { return redis.DoWithTimeout(c.Conn, d, cmd, args...) })
}

func (c *meteredConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	return c.do(cmd, args, func(cmd string, args []any) (any, error) { return redis.DoContext(c.Conn, ctx, cmd, args...) })
}

// do sends cmd, and reads its reply and those of the commands sent before
// it, as redigo's Do does: with cmd "" it gives those replies as one []any,
// a Redis error among them as its redis.Error; else cmd's reply, and the
// first Redis error as the error.
func (c *meteredConn) do(cmd string, args []any, call func(string, []any) (any, error)) (any, error) {
	var s sent
	if cmd != "" {
		args, s = c.m.sending(cmd, args)
	}
	reply, err := call(cmd, args)
	pending := c.pending
	c.pending = nil
	if cmd == "" {
		replies, ok := reply.([]any)
		if err != nil || !ok || len(replies) != len(pending) {
			return reply, err
		}
		for i, p := range pending {
			replies[i] = c.m.answered(p, replies[i])
		}
		return replies, nil
	}
	for _, p := range pending {
		c.m.answered(p, nil) // replies redigo read and dropped
	}
	if _, isReply := err.(redis.Error); err != nil && !isReply {
		return reply, err
	}
	reply = c.m.answered(s, reply)
	if rerr, ok := reply.(redis.Error); ok {
		return rerr, rerr
	}
	return reply, err
}

func (c *meteredConn) Send(cmd string, args ...any) error {
	args, s := c.m.sending(cmd, args)
	if err := c.Conn.Send(cmd, args...); err != nil {
		return err
	}
	c.pending = append(c.pending, s)
	return nil
}

func (c *meteredConn) Receive() (any, error) { return c.received(c.Conn.Receive()) }

func (c *meteredConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	return c.received(redis.ReceiveWithTimeout(c.Conn, d))
}

func (c *meteredConn) ReceiveContext(ctx context.Context) (any, error) {
	return c.received(redis.ReceiveContext(c.Conn, ctx))
}

// received counts the step of the oldest command sent, now answered, and
// gives its reply as redigo's Receive does: a Redis error as the error.
func (c *meteredConn) received(reply any, err error) (any, error) {
	if len(c.pending) == 0 {
		return reply, err
	}
	if rerr, ok := err.(redis.Error); ok {
		reply = rerr
	} else if err != nil {
		return reply, err
	}
	s := c.pending[0]
	c.pending = c.pending[1:]
	reply = c.m.answered(s, reply)
	if rerr, ok := reply.(redis.Error); ok {
		return nil, rerr
	}
	return reply, nil
}

// articleStall fills the site of TestNoCallStallsRedis, n articles, on the
// server at addr, with the worst cases of data that users control, and
// gives the phases of its calls, made through Stores on pools that
// through gives, and what deletes its keys (which go when tb ends
// otherwise).
func articleStall(tb testing.TB, addr string, n int, through func(*redis.Pool) voting.Pool) (phases []stallPhase, clear func()) {
	tb.Helper()
	e := newEnvOn(tb, addr, "")
	ln := newEnvOn(tb, addr, "ln:")
	clear = func() {
		e.deleteAll()
		ln.deleteAll()
	}
	ids := fill(tb, e, n, n)
	e.clock.set(e.clock.Now().Add(time.Second))
	live, err := voting.New(through(e.redis()), noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	if err != nil {
		tb.Fatal(err)
	}
	// The worst cases of data that users control: a namespace of 300,000
	// groups, an article with 100,000 voters whose histories are kept,
	// and, in a phase, an article in MaxGroups groups with everything
	// kept.
	if err := addGroupNames(e, 300_000); err != nil {
		tb.Fatal(err)
	}
	everything, err := voting.New(through(e.redis()), noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), voting.WithUserHistory(30*24*time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	popular, err := everything.PostArticle(ctx, "poster", "popular", "https://example.com/popular", "big")
	if err != nil {
		tb.Fatal(err)
	}
	if err := addVoters(e, popular, manyVoters); err != nil {
		tb.Fatal(err)
	}
	// A user whose history holds three million votes, and a namespace of
	// its own whose articles, posted before links were kept unique, all
	// have one link.
	if err := addHistory(e, "deep", deepHistory); err != nil {
		tb.Fatal(err)
	}
	if err := fillOneLink(ln, sharedLink, manySharing); err != nil {
		tb.Fatal(err)
	}
	linked, err := voting.New(through(ln.redis()), noBuilder, voting.WithPrefix(ln.prefix), voting.WithClock(ln.clock.Now), voting.WithUniqueLinks())
	if err != nil {
		tb.Fatal(err)
	}

	add := func(name string, run func() error) { phases = append(phases, stallPhase{name, run}) }
	add("Reindex", func() error {
		done, err := live.ReindexWithProgress(ctx, nil)
		if err == nil && (done.Articles != n+1 || done.Groups != 1) {
			err = fmt.Errorf("indexed %+v, want %d articles (the popular one too) in 1 group", done, n+1)
		}
		return err
	})
	add("group listings", func() error {
		for _, order := range voting.Orders() {
			for _, page := range []int{1, n / live.PageSize() / 2} {
				got, err := live.GetGroupArticles(ctx, "big", page, order)
				if err != nil {
					return err
				}
				site, err := live.GetArticles(ctx, page, order)
				if err != nil {
					return err
				}
				if strings.Join(idsOf(got), " ") != strings.Join(idsOf(site), " ") {
					return fmt.Errorf("group page %d by %v is %v, the site's %v", page, order, idsOf(got), idsOf(site))
				}
			}
		}
		return nil
	})
	add("writes", func() error {
		for i := range 200 {
			id := ids[i*7919%n]
			if err := live.Vote(ctx, "voter"+strconv.Itoa(i), id, voting.Up); err != nil {
				return err
			}
			if err := live.AddToGroups(ctx, id, "other"); err != nil {
				return err
			}
			if err := live.RemoveFromGroups(ctx, id, "big"); err != nil {
				return err
			}
			if _, err := live.PostArticle(ctx, "poster", "late", "https://example.com/", "big"); err != nil {
				return err
			}
		}
		return nil
	})
	add("calls among 300,000 groups", func() error {
		alone, err := live.PostArticle(ctx, "poster", "alone", "https://example.com/alone")
		if err != nil {
			return err
		}
		if err := live.DeleteArticle(ctx, alone); err != nil {
			return err
		}
		moving, err := live.PostArticle(ctx, "poster", "moving", "https://example.com/moving")
		if err != nil {
			return err
		}
		if err := live.AddToGroups(ctx, moving, "from"); err != nil {
			return err
		}
		if err := live.RemoveFromGroups(ctx, moving, "from"); err != nil {
			return err
		}
		if err := live.AddToGroups(ctx, moving, "to"); err != nil {
			return err
		}
		if n, err := live.CountGroups(ctx); err != nil || n < 300_000 {
			return fmt.Errorf("CountGroups = %d, %v; want the 300,000 and more", n, err)
		}
		page, err := two(live.Groups(ctx, voting.Paging{Page: 300_000 / live.PageSize() / 2}))
		if err == nil && len(page) != live.PageSize() {
			err = fmt.Errorf("a deep page of Groups holds %d groups", len(page))
		}
		return err
	})
	add("deleting an article with 100,000 voters and their histories", func() error {
		if err := everything.DeleteArticle(ctx, popular); err != nil {
			return err
		}
		for i := 0; i < manyVoters; i += manyVoters / 100 {
			user := "voter" + strconv.Itoa(i)
			if got := e.do("ZSCORE", e.key("history:"+user), "up:"+e.article(popular)); got != nil {
				return fmt.Errorf("%s's history still holds the deleted article", user)
			}
		}
		return nil
	})
	add("votes on an article in MaxGroups groups, everything kept", func() error {
		groups := make([]string, voting.MaxGroups)
		for i := range groups {
			groups[i] = "g" + strconv.Itoa(i)
		}
		id, err := everything.PostArticle(ctx, "poster", "everywhere", "https://example.com/everywhere", groups...)
		if err != nil {
			return err
		}
		for i := range 100 {
			dir := []voting.Direction{voting.Up, voting.Down}[i%2]
			if err := everything.Vote(ctx, "voter"+strconv.Itoa(i), id, dir); err != nil {
				return err
			}
		}
		return nil
	})
	add("UserVotes of 100,000 articles, histories kept", func() error {
		many := make([]string, 100_000)
		for i := range many {
			many[i] = strconv.Itoa(i + 1)
		}
		dirs, err := everything.UserVotes(ctx, "voter1", many...)
		if err == nil && len(dirs) != len(many) {
			err = fmt.Errorf("%d directions for %d articles", len(dirs), len(many))
		}
		return err
	})
	add("the last page of a history of three million votes", func() error {
		last := deepHistory / everything.PageSize()
		votes, err := two(everything.UserHistory(ctx, "deep", voting.Paging{Page: last}))
		if err != nil {
			return err
		}
		if len(votes) != everything.PageSize() || votes[len(votes)-1].Article.ID != "1" {
			return fmt.Errorf("page %d of the deep history = %d votes, the last on %v; want a full page ending with article 1",
				last, len(votes), votes[len(votes)-1].Article.ID)
		}
		n, err := everything.CountUserHistory(ctx, "deep")
		if err == nil && n != deepHistory {
			err = fmt.Errorf("CountUserHistory = %d, want %d", n, deepHistory)
		}
		return err
	})
	add("Reindex of 100,000 articles of one link", func() error {
		done, err := linked.ReindexWithProgress(ctx, nil)
		if err == nil && done.Duplicates != manySharing-1 {
			err = fmt.Errorf("Reindex found %d duplicates, want %d", done.Duplicates, manySharing-1)
		}
		return err
	})
	add("calls on a link 100,000 articles share", func() error {
		// The oldest holds it, the others share it, oldest first.
		if _, err := linked.PostArticle(ctx, "poster", "again", sharedLink); !errors.Is(err, voting.ErrDuplicate) {
			return fmt.Errorf("a post of the shared link: %v, want ErrDuplicate", err)
		}
		if err := linked.EditArticle(ctx, "500", "moved", "https://example.com/moved"); err != nil {
			return err
		}
		if err := linked.DeleteArticle(ctx, "600"); err != nil {
			return err
		}
		if err := linked.EditArticle(ctx, "1", "moved away", "https://example.com/moved-away"); err != nil {
			return err
		}
		if err := linked.DeleteArticle(ctx, "2"); err != nil {
			return err
		}
		a, err := linked.ArticleByLink(ctx, sharedLink)
		if err == nil && a.ID != "3" {
			err = fmt.Errorf("the link is article %s's, want the oldest left, 3", a.ID)
		}
		return err
	})
	add("window listings after a month", func() error {
		e.clock.set(e.clock.Now().Add(31 * 24 * time.Hour))
		for _, order := range []voting.Order{voting.TopDay, voting.TopWeek, voting.TopMonth} {
			for _, list := range []func() ([]voting.Article, error){
				func() ([]voting.Article, error) { return live.GetArticles(ctx, 1, order) },
				func() ([]voting.Article, error) { return live.GetGroupArticles(ctx, "big", 1, order) },
			} {
				if got, err := list(); err != nil {
					return err
				} else if len(got) != 0 {
					return fmt.Errorf("%d articles by %v a month later, want none", len(got), order)
				}
			}
		}
		return nil
	})
	add("Rescore of every article", func() error {
		return live.Rescore(ctx, 2*voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
	add("StopKeeping every index", func() error {
		var extra []voting.Order
		for _, o := range voting.Orders() {
			if o != voting.ByScore && o != voting.ByTime {
				extra = append(extra, o)
			}
		}
		return live.StopKeeping(ctx, voting.WithOrders(extra...), voting.WithLiveGroups(), voting.WithUserHistory(time.Hour))
	})
	return phases, clear
}

// commentStall writes the discussions of TestNoCommentCallStallsRedis on
// the server at addr: a thread of manyComments comments, a chain of replies
// deepChain deep and a user with userComments comments; and gives the
// phases of its calls, made through a Store on a pool that through gives,
// and what deletes its keys (which go when tb ends otherwise).
func commentStall(tb testing.TB, addr string, through func(*redis.Pool) voting.Pool) (phases []stallPhase, clear func()) {
	tb.Helper()
	e := newEnvOn(tb, addr, "")
	everything, err := voting.New(through(e.redis()), noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), voting.WithUserHistory(30*24*time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	discussed, err := everything.PostArticle(ctx, "poster", "discussed", "https://example.com/discussed")
	if err != nil {
		tb.Fatal(err)
	}
	chained, err := everything.PostArticle(ctx, "poster", "chained", "https://example.com/chained")
	if err != nil {
		tb.Fatal(err)
	}
	if err := errors.Join(addComments(e, discussed, 1, manyComments, false, "talker"),
		addComments(e, chained, manyComments+1, deepChain, true, "talker"), addUserComments(e, "prolific", userComments)); err != nil {
		tb.Fatal(err)
	}

	add := func(name string, run func() error) { phases = append(phases, stallPhase{name, run}) }
	add("calls on a thread of 100,000 comments", func() error {
		nodes, more, err := everything.Thread(ctx, discussed, voting.ThreadQuery{})
		if err == nil && (len(nodes) != everything.PageSize() || more != int64(manyComments-len(nodes))) {
			err = fmt.Errorf("Thread = %d comments and %d more, want %d and %d", len(nodes), more, everything.PageSize(),
				manyComments-everything.PageSize())
		}
		if err != nil {
			return err
		}
		for o := range 5 {
			q := voting.CommentQuery{Order: voting.CommentOrder(o)}
			first, next, err := everything.Comments(ctx, discussed, q)
			if err != nil {
				return err
			}
			q.After = next
			if _, _, err := everything.Comments(ctx, discussed, q); err != nil {
				return err
			}
			q.After, q.Page = "", manyComments/everything.PageSize()
			last, _, err := everything.Comments(ctx, discussed, q)
			if err == nil && (len(first) != everything.PageSize() || len(last) != everything.PageSize()) {
				err = fmt.Errorf("by %v: pages of %d and %d comments", q.Order, len(first), len(last))
			}
			if err != nil {
				return err
			}
		}
		middle := strconv.Itoa(manyComments / 2)
		reply, err := everything.PostComment(ctx, "talker", discussed, middle, "a reply")
		if err != nil {
			return err
		}
		return errors.Join(everything.VoteComment(ctx, "voter1", middle, voting.Down), everything.DeleteComment(ctx, middle),
			everything.VoteComment(ctx, "voter1", reply, voting.Up))
	})
	add("calls on a chain of replies 10,000 deep", func() error {
		last := strconv.Itoa(manyComments + deepChain)
		reply, err := everything.PostComment(ctx, "talker", chained, last, "deeper still")
		if err != nil {
			return err
		}
		if err := everything.DeleteComment(ctx, reply); err != nil {
			return err
		}
		// The deepest goes, and with it the tombstones above, at most a
		// hundred of them in the step.
		if err := everything.DeleteComment(ctx, last); err != nil {
			return err
		}
		nodes, _, err := everything.Thread(ctx, chained, voting.ThreadQuery{Top: 1, Replies: 1, Depth: voting.MaxThreadDepth})
		if err == nil && len(nodes) != 1 {
			err = fmt.Errorf("the chain's thread has %d comments on the article, want 1", len(nodes))
		}
		return err
	})
	add("calls of a user with 1,000,000 comments", func() error {
		if _, err := everything.PostComment(ctx, "prolific", chained, "", "once more"); err != nil {
			return err
		}
		_, _, err := everything.UserComments(ctx, "prolific", voting.Paging{Page: userComments / everything.PageSize()})
		return err
	})
	add("Reindex of 110,000 comments", func() error {
		p, err := everything.ReindexWithProgress(ctx, nil)
		if err == nil && p.Comments < manyComments {
			err = fmt.Errorf("Reindex walked %d comments, want %d or more", p.Comments, manyComments)
		}
		return err
	})
	add("deleting an article with 100,000 comments", func() error {
		if err := everything.DeleteArticle(ctx, discussed); err != nil {
			return err
		}
		if n := e.int("EXISTS", e.key("thread:"+discussed)); n != 0 {
			return fmt.Errorf("the deleted article's thread is left")
		}
		return nil
	})
	return phases, e.deleteAll
}

// A pinger is another client of the same Redis: a process of its own
// (this test binary, run as TestPingerProcess) that sends PING after PING
// on a connection of its own and keeps each PING's wait, the longest of
// each phase the test names. A process of its own, at a higher priority
// than this one where the system allows it, so that the waits are
// Redis's and not this process's: a call that builds a pipeline of 200,000
// commands keeps this process's one core busy for a tenth of a second, and
// a goroutine of it that PINGs waits that long for the core, while another
// client of Redis waits a millisecond or two.
type pinger struct {
	cmd    *exec.Cmd
	phases io.WriteCloser // a line per phase, to the pinger process
	out    bytes.Buffer
	names  []string // the phases, in the order named
	result pingResult
}

// A pingResult is what a pinger process writes when its input ends.
type pingResult struct {
	Waits   []time.Duration          // every PING's wait, sorted
	Longest map[string]time.Duration // the longest wait of each phase
	Err     string                   // why it stopped early
}

// pingerAddrEnv names the environment variable that makes
// TestPingerProcess a pinger of the server at its address.
const pingerAddrEnv = "VOTING_PINGER_ADDR"

// TestPingerProcess is not a test: run by startPinger, with pingerAddrEnv
// set, it PINGs the server at that address until its input ends, taking
// each line of its input as the name of the phase that the PINGs from then
// on belong to, and then writes its pingResult as JSON.
func TestPingerProcess(t *testing.T) {
	addr := os.Getenv(pingerAddrEnv)
	if addr == "" {
		t.Skip("a pinger, run by TestNoCallStallsRedis")
	}
	// Ahead of the test's process for the CPU they share, where allowed.
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, -10)
	var mu sync.Mutex
	phase, ended := "", false
	go func() {
		lines := bufio.NewScanner(os.Stdin)
		for lines.Scan() {
			mu.Lock()
			phase = lines.Text()
			mu.Unlock()
		}
		mu.Lock()
		ended = true
		mu.Unlock()
	}()
	r := pingResult{Longest: map[string]time.Duration{}}
	c, err := redis.Dial("tcp", addr)
	for err == nil {
		mu.Lock()
		now, done := phase, ended
		mu.Unlock()
		if done {
			break
		}
		began := time.Now()
		if _, err = c.Do("PING"); err != nil {
			break
		}
		wait := time.Since(began)
		r.Waits = append(r.Waits, wait)
		r.Longest[now] = max(r.Longest[now], wait)
		time.Sleep(200 * time.Microsecond)
	}
	if err != nil {
		r.Err = err.Error()
	}
	slices.Sort(r.Waits)
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		t.Fatal(err)
	}
}

// startPinger starts a pinger process of the server at addr.
func startPinger(t testing.TB, addr string) *pinger {
	t.Helper()
	p := &pinger{cmd: exec.Command(os.Args[0], "-test.run=^TestPingerProcess$", "-test.count=1")}
	p.cmd.Env = append(os.Environ(), pingerAddrEnv+"="+addr)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	var err error
	if p.phases, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// in names the phase the PINGs from now on belong to.
func (p *pinger) in(phase string) {
	p.names = append(p.names, phase)
	fmt.Fprintln(p.phases, phase)
}

// end stops the pinger and returns the PINGs' waits, sorted.
func (p *pinger) end(t testing.TB) []time.Duration {
	t.Helper()
	p.phases.Close()
	err := p.cmd.Wait()
	// The test binary writes its own lines around the result.
	for _, line := range strings.Split(p.out.String(), "\n") {
		if strings.HasPrefix(line, "{") {
			err = errors.Join(err, json.Unmarshal([]byte(line), &p.result))
		}
	}
	if err != nil || p.result.Err != "" {
		t.Fatalf("the pinger: %v %s\n%s", err, p.result.Err, p.out.String())
	}
	return p.result.Waits
}

// report is the longest PING wait of each phase.
func (p *pinger) report() string {
	var b strings.Builder
	for _, phase := range p.names {
		fmt.Fprintf(&b, "\n\t%s: %v", phase, p.result.Longest[phase])
	}
	return b.String()
}

// manyVoters is how many voters the stall test's popular article has.
const manyVoters = 100_000

// addVoters writes n up-voters (voter0, voter1, ...) of the article id, each
// with the vote in their history, as n votes would, in one round trip.
func addVoters(e *env, id string, n int) error {
	member, at := e.article(id), unix(e.clock.Now())
	return e.pipelined(func(send func(cmd string, args ...any)) {
		for i := 0; i < n; i += 1000 {
			args := []any{e.key("voted:" + id)}
			for j := i; j < min(i+1000, n); j++ {
				user := "voter" + strconv.Itoa(j)
				args = append(args, user)
				send("ZADD", e.key("history:"+user), at, "up:"+member)
			}
			send("SADD", args...)
		}
		send("HINCRBY", member, "votes", n)
		send("ZINCRBY", e.key("score:"), n*432, member)
	})
}

// addGroupNames writes n groups (n1, n2, ...) of one article each into the
// namespace's sorted set of group sizes, as a namespace that holds so many
// groups has them, in one round trip.
func addGroupNames(e *env, n int) error {
	return e.pipelined(func(send func(cmd string, args ...any)) {
		for i := 0; i < n; i += 1000 {
			args := []any{e.key("groupsizes:")}
			for j := i + 1; j <= min(i+1000, n); j++ {
				args = append(args, 1, "n"+strconv.Itoa(j))
			}
			send("ZADD", args...)
		}
	})
}

// deepHistory is how many votes the stall test's deepest history holds;
// manySharing how many articles share one link there.
const (
	deepHistory = 3_000_000
	manySharing = 100_000
)

// sharedLink is the link that manySharing articles share.
const sharedLink = "https://example.com/shared"

// addHistory writes n votes into user's history, half a second apart, the
// newest a second ago, on articles n down to 1 (the oldest vote on article
// 1), in steps of a hundred thousand.
func addHistory(e *env, user string, n int) error {
	key, now := e.key("history:"+user), e.clock.Now().Unix()
	for lo := 0; lo < n; lo += 100_000 {
		err := e.pipelined(func(send func(cmd string, args ...any)) {
			for i := lo; i < min(lo+100_000, n); i += 1000 {
				args := []any{key}
				for j := i; j < min(i+1000, n); j++ {
					args = append(args, strconv.FormatFloat(float64(now)-1-float64(j)/2, 'f', -1, 64),
						"up:"+e.article(strconv.Itoa(n-j)))
				}
				send("ZADD", args...)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// fillOneLink writes n articles (1 to n, a second apart, the oldest first)
// that all have the link, in the book's layout, as a site that did not
// keep links unique holds them.
func fillOneLink(e *env, link string, n int) error {
	now := e.clock.Now().Unix()
	for lo := 0; lo < n; lo += 10_000 {
		err := e.pipelined(func(send func(cmd string, args ...any)) {
			for i := lo; i < min(lo+10_000, n); i++ {
				id := strconv.Itoa(i + 1)
				member, posted := e.article(id), now-int64(n-i)
				send("HSET", member, "title", "Article "+id, "link", link, "poster", "poster", "time", posted, "votes", 0)
				send("ZADD", e.key("score:"), posted, member)
				send("ZADD", e.key("time:"), posted, member)
			}
		})
		if err != nil {
			return err
		}
	}
	e.do("SET", e.key("article:"), n)
	return nil
}

// The stall test's largest discussion: a thread of manyComments comments
// on one article, a chain of replies deepChain deep on another (each
// comment but the last a tombstone), and a user with userComments
// comments.
const (
	manyComments = 100_000
	deepChain    = 10_000
	userComments = 1_000_000
)

// addComments writes n comments on the article id from the comment id
// first up, as PostComment lays them out: on the article itself, or with
// chain each a reply to the one before, all but the last deleted (the
// tombstones of a discussion whose every comment but the deepest went).
// Each is posted a millisecond after the one before, by poster.
func addComments(e *env, id string, first, n int, chain bool, poster string) error {
	k := schema.NewKeys(e.prefix)
	at := unix(e.clock.Now())
	return e.pipelined(func(send func(cmd string, args ...any)) {
		live := 0
		for i := range n {
			cid := strconv.Itoa(first + i)
			member, posted := k.CommentHash(cid), strconv.FormatFloat(at+float64(i)/1000, 'f', -1, 64)
			parent, parentName, depth := "", schema.ParentName(id, ""), 0
			if chain && i > 0 {
				parent, parentName, depth = strconv.Itoa(first+i-1), schema.ParentName(id, strconv.Itoa(first+i-1)), i
			}
			fields := []any{member, "article", id, "parent", parent, "time", posted, "votes", 1, "depth", depth}
			if chain && i < n-1 {
				fields = append(fields, "deleted", "1", "replies", 1)
			} else {
				fields = append(fields, "poster", poster, "body", "a comment")
				send("ZADD", k.UserComments(poster), posted, member)
				send("SADD", k.CommentVoted(cid), poster)
				send("PEXPIRE", k.CommentVoted(cid), voting.DefaultCutoff.Milliseconds())
				live++
			}
			send("HSET", fields...)
			for _, kind := range schema.CommentKinds {
				value := map[schema.Kind]string{schema.KindBest: "0.37844750322520615", schema.KindNet: "1", schema.KindTime: posted,
					schema.KindControversy: "0"}[kind]
				send("ZADD", k.Replies(kind, parentName), value, member)
			}
			send("ZADD", k.Thread(id), posted, member)
		}
		send("HINCRBY", k.ArticleHash(id), "comments", live)
		send("SET", k.CommentCounter(), first+n-1)
	})
}

// addUserComments puts n entries in user's comments, as a user who has
// posted that many has them; the comments' hashes are not written.
func addUserComments(e *env, user string, n int) error {
	k := schema.NewKeys(e.prefix)
	return e.pipelined(func(send func(cmd string, args ...any)) {
		for i := 0; i < n; i += 1000 {
			args := []any{k.UserComments(user)}
			for j := i; j < min(i+1000, n); j++ {
				args = append(args, j, k.CommentHash("u"+strconv.Itoa(j)))
			}
			send("ZADD", args...)
		}
	})
}
