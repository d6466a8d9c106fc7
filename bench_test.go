package voting_test

// Benchmarks of every operation, side by side with the book's own approach
// (one command per round trip, one HGETALL per listed article) and with a
// bare PING, on the same server in the same run. Each runs on miniredis and,
// when VOTING_REDIS_ADDR is set, on that server; the figures that matter are
// the real server's ratios. Each reports its Redis round trips per op.
//
// BenchmarkOverhead sets each operation beside a replay of the library's own
// commands through plain redigo, so that the library's client-side overhead
// is measured; BenchmarkParallel runs votes and pages from 16 goroutines in
// the library, in that replay and at the server's ceiling for the same
// commands (see the comments before them).
//
//	bash scripts/bench     # starts a redis-server and runs them all

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/replay"
	"github.com/articlevote/voting/internal/roundtrip"
	"github.com/gomodule/redigo/redis"
)

// servers are the backends each benchmark runs on, by name.
func servers() []struct{ name, addr string } {
	return []struct{ name, addr string }{
		{"miniredis", ""},
		{"redis", os.Getenv(redisAddrEnv)},
	}
}

// onServers runs bench once per backend, skipping the real server when
// none is given.
func onServers(b *testing.B, bench func(b *testing.B, e *env)) {
	for _, srv := range servers() {
		b.Run(srv.name, func(b *testing.B) {
			if srv.name == "redis" && srv.addr == "" {
				b.Skip("set " + redisAddrEnv + " to a real Redis (bash scripts/bench does) to run on it")
			}
			bench(b, newEnvOn(b, srv.addr, ""))
		})
	}
}

// counted is a Store on e's pool that counts its round trips.
func counted(b *testing.B, e *env, opts ...voting.Option) (*voting.Store, *roundtrip.Pool) {
	b.Helper()
	p := roundtrip.New(e.redis())
	s, err := voting.New(p, append([]voting.Option{noBuilder, voting.WithClock(e.clock.Now), voting.WithPrefix(e.prefix)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	return s, p
}

// measure runs op b.N times and reports round trips per op.
func measure(b *testing.B, trips *roundtrip.Pool, op func(i int) error) {
	b.Helper()
	if err := op(-1); err != nil { // load scripts, open a connection
		b.Fatal(err)
	}
	b.ReportAllocs()
	trips.Reset()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := op(i); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(trips.Trips())/float64(b.N), "trips/op")
}

// book is the book's code written plainly in Go: one command per round trip.
type book struct {
	e      *env
	weight float64
	cutoff time.Duration
}

func (k book) post(c redis.Conn, user, title, link string) (string, error) {
	n, err := redis.Int64(c.Do("INCR", k.e.key("article:")))
	if err != nil {
		return "", err
	}
	id := strconv.FormatInt(n, 10)
	voted := k.e.key("voted:" + id)
	if _, err := c.Do("SADD", voted, user); err != nil {
		return "", err
	}
	if _, err := c.Do("EXPIRE", voted, int64(k.cutoff/time.Second)); err != nil {
		return "", err
	}
	now := float64(k.e.clock.Now().Unix())
	article := k.e.article(id)
	if _, err := c.Do("HSET", article, "title", title, "link", link, "poster", user, "time", now, "votes", 1); err != nil {
		return "", err
	}
	if _, err := c.Do("ZADD", k.e.key("score:"), now+k.weight, article); err != nil {
		return "", err
	}
	_, err = c.Do("ZADD", k.e.key("time:"), now, article)
	return id, err
}

func (k book) vote(c redis.Conn, user, id string) error {
	article := k.e.article(id)
	posted, err := redis.Float64(c.Do("ZSCORE", k.e.key("time:"), article))
	if err != nil {
		return err
	}
	if posted < float64(k.e.clock.Now().Add(-k.cutoff).Unix()) {
		return voting.ErrVotingClosed
	}
	added, err := redis.Int(c.Do("SADD", k.e.key("voted:"+id), user))
	if err != nil || added == 0 {
		return err
	}
	if _, err := c.Do("ZINCRBY", k.e.key("score:"), k.weight, article); err != nil {
		return err
	}
	_, err = c.Do("HINCRBY", article, "votes", 1)
	return err
}

func (k book) articles(c redis.Conn, page int, index string) ([]map[string]string, error) {
	start := (page - 1) * voting.DefaultPageSize
	ids, err := redis.Strings(c.Do("ZREVRANGE", index, start, start+voting.DefaultPageSize-1))
	if err != nil {
		return nil, err
	}
	articles := make([]map[string]string, 0, len(ids))
	for _, id := range ids {
		a, err := redis.StringMap(c.Do("HGETALL", id))
		if err != nil {
			return nil, err
		}
		a["id"] = id
		articles = append(articles, a)
	}
	return articles, nil
}

func (k book) groupArticles(c redis.Conn, group string, page int, index string) ([]map[string]string, error) {
	key := index + group
	exists, err := redis.Bool(c.Do("EXISTS", key))
	if err != nil {
		return nil, err
	}
	if !exists {
		if _, err := c.Do("ZINTERSTORE", key, 2, k.e.key("group:"+group), index, "AGGREGATE", "MAX"); err != nil {
			return nil, err
		}
		if _, err := c.Do("EXPIRE", key, 60); err != nil {
			return nil, err
		}
	}
	return k.articles(c, page, key)
}

// userVotes asks, article by article, whether user is among its up- and
// down-voters.
func (k book) userVotes(c redis.Conn, user string, ids []string) ([]voting.Direction, error) {
	dirs := make([]voting.Direction, len(ids))
	for i, id := range ids {
		up, err := redis.Bool(c.Do("SISMEMBER", k.e.key("voted:"+id), user))
		if err != nil {
			return nil, err
		}
		if up {
			dirs[i] = voting.Up
			continue
		}
		down, err := redis.Bool(c.Do("SISMEMBER", k.e.key("downvoted:"+id), user))
		if err != nil {
			return nil, err
		}
		if down {
			dirs[i] = voting.Down
		}
	}
	return dirs, nil
}

// withConn runs op on a connection of trips' pool, as the library takes one
// per call.
func withConn(trips *roundtrip.Pool, op func(redis.Conn) error) error {
	c := trips.Get()
	defer c.Close()
	return op(c)
}

// fill writes n articles in the book's layout with pipelining, all open for
// voting, and puts every article whose number is below groupSize in the
// group "big". It returns the ids, oldest first.
func fill(b testing.TB, e *env, n, groupSize int) []string {
	b.Helper()
	c := e.pipeConn()
	defer c.Close()
	now := e.clock.Now().Unix()
	ids := make([]string, n)
	const batch = 2000
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		sent := 0
		for i := lo; i < hi; i++ {
			ids[i] = strconv.Itoa(i + 1)
			member := e.article(ids[i])
			// Within the last six days, so voting is open on every one.
			posted := now - int64(n-i)%(6*86400)
			// No votes, so no voter sets to write: a count above zero
			// without its set would read as voting closed.
			c.Send("HSET", member, "title", "Article "+ids[i], "link", "https://example.com/"+ids[i],
				"poster", "poster", "time", posted, "votes", 0)
			c.Send("ZADD", e.key("score:"), float64(posted)+voting.DefaultVoteWeight*float64(1+i%50), member)
			c.Send("ZADD", e.key("time:"), posted, member)
			sent += 3
			if i < groupSize {
				c.Send("SADD", e.key("group:big"), member)
				sent++
			}
		}
		if err := c.Flush(); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < sent; j++ {
			if _, err := c.Receive(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := c.Do("SET", e.key("article:"), n); err != nil {
		b.Fatal(err)
	}
	// Counted as articles the library has indexed, as if posted through
	// it: the book's two indexes hold them, and the indexes beyond them,
	// with no mark, are not built (a listing of one answers ErrNotIndexed
	// until Reindex), as before the namespace counted its articles.
	if _, err := c.Do("HINCRBY", e.key("indexed:"), "articles", n); err != nil {
		b.Fatal(err)
	}
	return ids
}

func BenchmarkPing(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		trips := roundtrip.New(e.redis())
		measure(b, trips, func(int) error {
			return withConn(trips, func(c redis.Conn) error { _, err := c.Do("PING"); return err })
		})
	})
}

func BenchmarkPostArticle(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		b.Run("library", func(b *testing.B) {
			s, trips := counted(b, e)
			measure(b, trips, func(int) error {
				_, err := s.PostArticle(ctx, "alice", "A title of a usual length for a news site", "https://example.com/a/b")
				return err
			})
		})
		b.Run("book", func(b *testing.B) {
			k := book{e: e, weight: voting.DefaultVoteWeight, cutoff: voting.DefaultCutoff}
			trips := roundtrip.New(e.redis())
			measure(b, trips, func(int) error {
				return withConn(trips, func(c redis.Conn) error {
					_, err := k.post(c, "alice", "A title of a usual length for a news site", "https://example.com/a/b")
					return err
				})
			})
		})
	})
}

func BenchmarkVote(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		ids := fill(b, e, 1000, 0)
		// Each vote is a new user's, across the rounds of b.N too.
		var users atomic.Int64
		user := func() string { return "u" + strconv.FormatInt(users.Add(1), 10) }
		b.Run("library", func(b *testing.B) {
			s, trips := counted(b, e)
			measure(b, trips, func(int) error { return s.Vote(ctx, user(), ids[500], voting.Up) })
		})
		b.Run("book", func(b *testing.B) {
			k := book{e: e, weight: voting.DefaultVoteWeight, cutoff: voting.DefaultCutoff}
			trips := roundtrip.New(e.redis())
			measure(b, trips, func(int) error {
				return withConn(trips, func(c redis.Conn) error { return k.vote(c, user(), ids[501]) })
			})
		})
		b.Run("switch", func(b *testing.B) {
			// The same user switching between up and down: the costliest vote.
			s, trips := counted(b, e)
			measure(b, trips, func(i int) error {
				dir := voting.Up
				if i%2 == 0 {
					dir = voting.Down
				}
				return s.Vote(ctx, "switcher", ids[502], dir)
			})
		})
	})
}

func BenchmarkGetArticles(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		fill(b, e, 1000, 0)
		for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
			index := e.key("score:")
			if order == voting.ByTime {
				index = e.key("time:")
			}
			name := map[voting.Order]string{voting.ByScore: "score", voting.ByTime: "time"}[order]
			b.Run(name+"/library", func(b *testing.B) {
				s, trips := counted(b, e)
				measure(b, trips, func(int) error { return full(s.GetArticles(ctx, 1, order)) })
			})
			// The second page again, by its cursor: a cursor's page against
			// a numbered one.
			b.Run(name+"/after", func(b *testing.B) {
				s, trips := counted(b, e)
				_, cursor, err := s.List(ctx, voting.Query{Order: order, Paging: voting.Paging{After: ""}})
				if err != nil {
					b.Fatal(err)
				}
				measure(b, trips, func(int) error {
					page, _, err := s.List(ctx, voting.Query{Order: order, Paging: voting.Paging{After: cursor}})
					return full(page, err)
				})
			})
			b.Run(name+"/book", func(b *testing.B) {
				k := book{e: e}
				trips := roundtrip.New(e.redis())
				measure(b, trips, func(int) error {
					return withConn(trips, func(c redis.Conn) error {
						articles, err := k.articles(c, 1, index)
						if err == nil && len(articles) != voting.DefaultPageSize {
							err = fmt.Errorf("%d articles", len(articles))
						}
						return err
					})
				})
			})
		}
	})
}

// BenchmarkArticles: Articles of 25 ids, those of page 1 by score, against
// that page itself (GetArticles, ByScore), over 1,000 articles, with a PING
// of the same pool to read them against. VOTING_BENCH_ROUNDS interleaves
// rounds of the three, each round starting at a different one. Besides
// trips/op, each reports cmds/op: the Redis commands of one call, recorded
// before timing.
func BenchmarkArticles(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		fill(b, e, 1000, 0)
		s, err := storeOn(e.pool, e)
		if err != nil {
			b.Fatal(err)
		}
		first, err := s.GetArticles(ctx, 1, voting.ByScore)
		if err := full(first, err); err != nil {
			b.Fatal(err)
		}
		ids := make([]string, len(first))
		for i, a := range first {
			ids[i] = a.ID
		}
		// The same articles either way, the same fields and scores; Articles
		// reads the groups too, as a listing does WithGroups.
		byIDs, err := s.Articles(ctx, ids...)
		if err != nil {
			b.Fatal(err)
		}
		withGroups, _, err := s.List(ctx, voting.Query{WithGroups: true, Paging: voting.Paging{Page: 1}})
		if err != nil {
			b.Fatal(err)
		}
		if !reflect.DeepEqual(byIDs, withGroups) {
			b.Fatalf("Articles of page 1's ids gave\n%v\nwant\n%v", byIDs, withGroups)
		}
		for i := range byIDs {
			byIDs[i].Groups = nil
		}
		if !reflect.DeepEqual(byIDs, first) {
			b.Fatalf("Articles of page 1's ids gave\n%v\nwant\n%v", byIDs, first)
		}
		subs := []struct {
			name string
			op   func(s *voting.Store) error
		}{
			{"ids-25", func(s *voting.Store) error {
				articles, err := s.Articles(ctx, ids...)
				if err == nil && len(articles) != len(ids) {
					err = fmt.Errorf("%d articles of %d ids", len(articles), len(ids))
				}
				return err
			}},
			{"page-25", func(s *voting.Store) error { return full(s.GetArticles(ctx, 1, voting.ByScore)) }},
			{"page-25-groups", func(s *voting.Store) error {
				return full(two(s.List(ctx, voting.Query{WithGroups: true, Paging: voting.Paging{Page: 1}})))
			}},
			{"ping", nil},
		}
		for r := range benchRounds(b) {
			for i := range subs {
				sub := subs[(r+i)%len(subs)]
				b.Run(sub.name, func(b *testing.B) {
					if sub.op == nil {
						ping(b, e)
						return
					}
					s, trips := counted(b, e)
					cmds := commandsOf(b, trips, func() error { return sub.op(s) })
					measure(b, trips, func(int) error { return sub.op(s) })
					b.ReportMetric(float64(cmds), "cmds/op")
				})
			}
		}
	})
}

// commandsOf runs op once, then once more recording it through trips, and
// returns the Redis commands the second run sent (the first reads the
// namespace's settings and loads scripts, as a Store does once; a script's
// own commands are not seen here: its EVALSHA is one).
func commandsOf(b *testing.B, trips *roundtrip.Pool, op func() error) int {
	b.Helper()
	if err := op(); err != nil {
		b.Fatal(err)
	}
	trips.Record()
	err := op()
	rec := trips.Recorded()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, t := range rec {
		n += len(t.Commands)
	}
	return n
}

func BenchmarkGetGroupArticles(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		fill(b, e, 1000, 500)
		cache := e.key("score:big")
		for _, cold := range []bool{false, true} {
			name := map[bool]string{false: "warm", true: "cold"}[cold]
			// A cold listing has no cache: drop it before each call.
			drop := func(i int) {
				if cold && i >= 0 {
					b.StopTimer()
					e.do("DEL", cache)
					b.StartTimer()
				}
			}
			b.Run(name+"/library", func(b *testing.B) {
				s, trips := counted(b, e, bookCache) // the book's cached listing, as "book" reads it
				measure(b, trips, func(i int) error {
					drop(i)
					return full(s.GetGroupArticles(ctx, "big", 1, voting.ByScore))
				})
			})
			b.Run(name+"/book", func(b *testing.B) {
				k := book{e: e}
				trips := roundtrip.New(e.redis())
				measure(b, trips, func(i int) error {
					drop(i)
					return withConn(trips, func(c redis.Conn) error {
						_, err := k.groupArticles(c, "big", 1, e.key("score:"))
						return err
					})
				})
			})
		}
	})
}

func BenchmarkUserVotes(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		ids := fill(b, e, 100, 0)[:25]
		for i, id := range ids {
			if i%3 == 0 {
				e.vote("viewer", id, voting.Up)
			} else if i%3 == 1 {
				e.vote("viewer", id, voting.Down)
			}
		}
		b.Run("library", func(b *testing.B) {
			s, trips := counted(b, e)
			measure(b, trips, func(int) error { _, err := s.UserVotes(ctx, "viewer", ids...); return err })
		})
		b.Run("book", func(b *testing.B) {
			k := book{e: e}
			trips := roundtrip.New(e.redis())
			measure(b, trips, func(int) error {
				return withConn(trips, func(c redis.Conn) error { _, err := k.userVotes(c, "viewer", ids); return err })
			})
		})
	})
}

// The overhead benchmarks: what the library costs on the client, measured
// rather than guessed. Each operation is recorded as the library sends it
// (internal/roundtrip), then sent again by a replay (internal/replay) through
// plain redigo: pool.Get, c.Do for a command on its own, c.Send ... c.Flush
// and c.Receive for each reply of a pipeline, c.Close; no context, no
// checks, no conversion of replies. library / replay is the library's own
// overhead.
//
// Both sides do the same work on the server. Each has a namespace of its own
// on the same server (the library's prefix ends in ".lib:", the replay's in
// ".rep:", so every key and argument has the same length), filled alike from
// the same clock. The replay's commands are the library's recording with the
// one prefix put for the other, and, for a vote, each call's new user put in
// the user's place. Before timing, each side runs the operation twice, alike
// (the library first, its second call recorded; then the replay, its second
// run recorded too); the benchmark fails unless the replay sent the same
// commands with the same arguments byte for byte, in the same round trips,
// and got the same replies ("ok" for a vote, the same id for a post, the same
// page), and unless the two namespaces then hold the same, key by key. After
// timing it checks that every call did its work: each vote was a new one,
// each post a new article.

// Users of the two untimed calls of each side: the first, and the
// recorded one, whose name marks the user's place in the recording.
const (
	warmUser   = "warm-user"
	markedUser = "marked-user-0123456789"
)

// twin is a namespace on e's server, under e's prefix and then name, with a
// Store on e's bare *redis.Pool.
func twin(b *testing.B, e *env, name string, opts ...voting.Option) *env {
	b.Helper()
	t := &env{t: b, pool: e.pool, mr: e.mr, prefix: e.prefix + name, clock: e.clock}
	s, err := storeOn(e.redis(), t, opts...)
	if err != nil {
		b.Fatal(err)
	}
	// The namespace's settings, as its first call writes them: both twins
	// alike, so that a replayed write finds those it was made for.
	if _, err := s.Settings(context.Background()); err != nil {
		b.Fatal(err)
	}
	t.store = s
	return t
}

// storeOn is a Store of e's namespace and clock on p.
func storeOn(p voting.Pool, e *env, opts ...voting.Option) (*voting.Store, error) {
	return voting.New(p, append([]voting.Option{noBuilder, voting.WithClock(e.clock.Now), voting.WithPrefix(e.prefix)}, opts...)...)
}

// deadline is a context with a deadline, as a web handler's has.
func deadline() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Minute)
}

// An overheadOp is an operation of BenchmarkOverhead.
type overheadOp struct {
	articles, group int // fill's numbers
	opts            []voting.Option
	// prepare sets a namespace up after fill, the same for each side.
	prepare func(e *env, ids []string)
	// call runs the operation once in the library; user is a new user for
	// each call if fresh, and is put in the replay's place for it.
	call  func(ctx context.Context, s *voting.Store, ids []string, user string) error
	fresh bool
	// check checks, after timing, that calls calls did their work on a
	// namespace; nil if there is nothing to check.
	check func(c redis.Conn, e *env, ids []string, calls int) error
}

// record runs op twice in lib's namespace, through a recording pool with
// lib's options, and returns what the second call sent and got.
func record(b *testing.B, lib *env, ids []string, opts []voting.Option,
	call func(ctx context.Context, s *voting.Store, ids []string, user string) error) []roundtrip.Trip {
	b.Helper()
	rec := roundtrip.New(lib.redis())
	s, err := storeOn(rec, lib, opts...)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := deadline()
	defer cancel()
	if err := call(ctx, s, ids, warmUser); err != nil { // loads the script
		b.Fatal(err)
	}
	rec.Record()
	err = call(ctx, s, ids, markedUser)
	trips := rec.Recorded()
	if err != nil {
		b.Fatal(err)
	}
	return trips
}

// moveTo rewrites strings of namespace from into namespace to.
func moveTo(from, to *env) func(string) string {
	return func(s string) string { return strings.ReplaceAll(s, from.prefix, to.prefix) }
}

// mirror makes the replay of rec, recorded in lib's namespace, in side's. It
// runs it twice there as record ran the library (the first user, then the
// marked one), and fails b unless the second run sent what the library sent
// and got the same replies, and the two namespaces then hold the same. With
// fresh, slot is the user's place.
func mirror(b *testing.B, lib, side *env, rec []roundtrip.Trip, fresh bool) (*replay.Script, replay.Slot) {
	b.Helper()
	rewrite := moveTo(lib, side)
	sc, err := replay.From(rec, rewrite)
	if err != nil {
		b.Fatal(err)
	}
	var slot replay.Slot
	if fresh {
		if slot, err = sc.Find(markedUser); err != nil {
			b.Fatal(err)
		}
	}
	p := roundtrip.New(side.redis())
	run := func(user string) []roundtrip.Trip {
		if fresh {
			sc.Set(slot, user)
		}
		p.Record()
		c := p.Get()
		err := sc.Run(c)
		c.Close()
		trips := p.Recorded()
		if err != nil {
			b.Fatalf("replay in %s: %v", side.prefix, err)
		}
		return trips
	}
	run(warmUser)
	if err := replay.Compare(rec, run(markedUser), rewrite); err != nil {
		b.Fatalf("%v\nthe library sent:\n%s", err, showTrips(rec))
	}
	want, err := state(lib)
	if err != nil {
		b.Fatal(err)
	}
	got, err := state(side)
	if err != nil {
		b.Fatal(err)
	}
	if want != got {
		b.Fatalf("after the same calls, %s and %s hold different data:\n%s", lib.prefix, side.prefix, firstDiff(want, got))
	}
	return sc, slot
}

func showTrips(trips []roundtrip.Trip) string {
	var s strings.Builder
	for i, t := range trips {
		fmt.Fprintf(&s, "  round trip %d, %s:\n", i+1, t.Via)
		for _, c := range t.Commands {
			fmt.Fprintf(&s, "    %.200s\n", c.String())
		}
	}
	return s.String()
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("  %.300s\n  %.300s", la[i], lb[i])
		}
	}
	return fmt.Sprintf("  %d lines against %d", len(la), len(lb))
}

// state is everything in e's namespace, key by key, with the prefix written
// as "<p>", so that two namespaces that hold the same give the same string.
// It takes a few pipelined round trips. Of a time to live it keeps only
// whether there is one.
func state(e *env) (string, error) {
	c := e.redis().Get()
	defer c.Close()
	var keys []string
	for cursor := "0"; ; {
		reply, err := redis.Values(c.Do("SCAN", cursor, "MATCH", e.prefix+"*", "COUNT", 1000))
		if err != nil {
			return "", err
		}
		batch, _ := redis.Strings(reply[1], nil)
		keys = append(keys, batch...)
		if cursor, _ = redis.String(reply[0], nil); cursor == "0" {
			break
		}
	}
	// SCAN may give a key twice, while the server grows its table.
	sort.Strings(keys)
	keys = slices.Compact(keys)
	pipe := func(cmd func(i int) (string, []any)) ([]any, error) {
		for i := range keys {
			name, args := cmd(i)
			if err := c.Send(name, args...); err != nil {
				return nil, err
			}
		}
		if err := c.Flush(); err != nil {
			return nil, err
		}
		out := make([]any, len(keys))
		for i := range keys {
			var err error
			if out[i], err = c.Receive(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	types, err := pipe(func(i int) (string, []any) { return "TYPE", []any{keys[i]} })
	if err != nil {
		return "", err
	}
	ttls, err := pipe(func(i int) (string, []any) { return "PTTL", []any{keys[i]} })
	if err != nil {
		return "", err
	}
	read := map[string]string{"string": "GET", "hash": "HGETALL", "set": "SMEMBERS", "zset": "ZRANGE"}
	contents, err := pipe(func(i int) (string, []any) {
		typ, _ := redis.String(types[i], nil)
		if typ == "zset" {
			return "ZRANGE", []any{keys[i], 0, -1, "WITHSCORES"}
		}
		if cmd, ok := read[typ]; ok {
			return cmd, []any{keys[i]}
		}
		return "TYPE", []any{keys[i]}
	})
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for i, k := range keys {
		typ, _ := redis.String(types[i], nil)
		ttl, _ := redis.Int64(ttls[i], nil)
		var vals []string
		if s, err := redis.String(contents[i], nil); err == nil {
			vals = []string{s}
		} else if vals, err = redis.Strings(contents[i], nil); err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		}
		switch typ {
		case "hash":
			pairs := make([]string, 0, len(vals)/2)
			for j := 0; j+1 < len(vals); j += 2 {
				pairs = append(pairs, vals[j]+"="+vals[j+1])
			}
			vals = pairs
			sort.Strings(vals)
		case "set":
			sort.Strings(vals)
		}
		line := fmt.Sprintf("%s %s ttl=%v %q\n", k, typ, ttl > 0, vals)
		out.WriteString(strings.ReplaceAll(line, e.prefix, "<p>"))
	}
	return out.String(), nil
}

// BenchmarkOverhead sets each operation in the library beside a replay of
// the same commands through plain redigo; see above. trips/op is the round
// trips of the recorded call, which the replay sends too.
func BenchmarkOverhead(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		vote := overheadOp{
			articles: 1000,
			fresh:    true,
			call: func(ctx context.Context, s *voting.Store, ids []string, user string) error {
				return s.Vote(ctx, user, ids[500], voting.Up)
			},
			check: func(c redis.Conn, e *env, ids []string, calls int) error {
				return want(c, calls, "SCARD", e.key("voted:"+ids[500])) // each vote a new one
			},
		}
		post := overheadOp{
			articles: 1000,
			call: func(ctx context.Context, s *voting.Store, _ []string, _ string) error {
				_, err := s.PostArticle(ctx, "alice", "A title of a usual length for a news site", "https://example.com/a/b")
				return err
			},
			check: func(c redis.Conn, e *env, _ []string, calls int) error {
				return want(c, 1000+calls, "GET", e.key("article:")) // each post a new article
			},
		}
		page := func(order voting.Order) overheadOp {
			return overheadOp{articles: 1000, call: func(ctx context.Context, s *voting.Store, _ []string, _ string) error {
				return full(s.GetArticles(ctx, 1, order))
			}}
		}
		group := overheadOp{
			articles: 1000, group: 500,
			// The cache stays warm however long the benchmark runs.
			opts: []voting.Option{voting.WithGroupCacheTTL(time.Hour)},
			call: func(ctx context.Context, s *voting.Store, _ []string, _ string) error {
				return full(s.GetGroupArticles(ctx, "big", 1, voting.ByScore))
			},
			check: func(c redis.Conn, e *env, _ []string, _ int) error {
				return want(c, 1, "EXISTS", e.key("score:big"))
			},
		}
		userVotes := overheadOp{
			articles: 100,
			prepare: func(e *env, ids []string) {
				for i, id := range ids[:25] {
					switch i % 3 {
					case 0:
						e.vote("viewer", id, voting.Up)
					case 1:
						e.vote("viewer", id, voting.Down)
					}
				}
			},
			call: func(ctx context.Context, s *voting.Store, ids []string, _ string) error {
				dirs, err := s.UserVotes(ctx, "viewer", ids[:25]...)
				if err == nil && (len(dirs) != 25 || dirs[0] != voting.Up || dirs[1] != voting.Down || dirs[2] != voting.None) {
					err = fmt.Errorf("UserVotes gave %v", dirs)
				}
				return err
			},
		}
		b.Run("Vote", func(b *testing.B) { overhead(b, e, "vote", vote) })
		b.Run("PostArticle", func(b *testing.B) { overhead(b, e, "post", post) })
		b.Run("GetArticles", func(b *testing.B) {
			b.Run("score", func(b *testing.B) { overhead(b, e, "score", page(voting.ByScore)) })
			b.Run("time", func(b *testing.B) { overhead(b, e, "time", page(voting.ByTime)) })
		})
		b.Run("GetGroupArticles", func(b *testing.B) {
			b.Run("warm", func(b *testing.B) { overhead(b, e, "group", group) })
		})
		b.Run("UserVotes", func(b *testing.B) { overhead(b, e, "uvotes", userVotes) })
	})
}

// serverCPU is the CPU time the server under e has used so far, from INFO
// cpu; ok is false on miniredis, which runs in this process.
func serverCPU(e *env) (cpu time.Duration, ok bool) {
	if !e.real() {
		return 0, false
	}
	c := e.redis().Get()
	defer c.Close()
	info, err := redis.String(c.Do("INFO", "cpu"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(info, "\n") {
		name, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		if name == "used_cpu_sys" || name == "used_cpu_user" {
			f, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return 0, false
			}
			cpu += time.Duration(f * float64(time.Second))
			ok = true
		}
	}
	return cpu, ok
}

// cpuTimer measures the CPU time per operation of the client (this process)
// and of the server over a benchmark's timed part: start it before
// ResetTimer, report after StopTimer. It reports client-us/op and
// server-us/op on a real server only: miniredis runs in this process.
func cpuTimer(e *env) (report func(b *testing.B)) {
	client, clientOK := replay.ProcessCPU()
	server, serverOK := serverCPU(e)
	return func(b *testing.B) {
		clientAfter, _ := replay.ProcessCPU()
		serverAfter, ok := serverCPU(e)
		if !serverOK || !ok {
			return
		}
		perOp := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) / float64(b.N) }
		if clientOK {
			b.ReportMetric(perOp(clientAfter-client), "client-us/op")
		}
		b.ReportMetric(perOp(serverAfter-server), "server-us/op")
	}
}

// want checks that a command's integer reply is n.
func want(c redis.Conn, n int, cmd string, args ...any) error {
	got, err := redis.Int(c.Do(cmd, args...))
	if err == nil && got != n {
		err = fmt.Errorf("%s %v is %d, want %d", cmd, args, got, n)
	}
	return err
}

// overhead runs op in the library and in its replay, as library and replay,
// each in a namespace of its own under e's, named after name.
func overhead(b *testing.B, e *env, name string, op overheadOp) {
	lib, rep := twin(b, e, name+".lib:", op.opts...), twin(b, e, name+".rep:", op.opts...)
	var ids []string
	for _, side := range []*env{lib, rep} {
		ids = fill(b, side, op.articles, op.group)
		if op.prepare != nil {
			op.prepare(side, ids)
		}
	}
	rec := record(b, lib, ids, op.opts, op.call)
	sc, slot := mirror(b, lib, rep, rec, op.fresh)
	// Each side's calls so far, the untimed ones included, and its users.
	libCalls, repCalls := 2, 2
	var libUsers, repUsers int
	check := func(b *testing.B, side *env, calls int) {
		if op.check == nil {
			return
		}
		c := side.redis().Get()
		defer c.Close()
		if err := op.check(c, side, ids, calls); err != nil {
			b.Fatalf("after %d calls in %s: %v", calls, side.prefix, err)
		}
	}

	b.Run("library", func(b *testing.B) {
		ctx, cancel := deadline()
		defer cancel()
		s := lib.store
		cpu := cpuTimer(lib)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			var user string
			if op.fresh {
				libUsers++
				user = "u" + strconv.Itoa(libUsers)
			}
			if err := op.call(ctx, s, ids, user); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		libCalls += b.N
		cpu(b)
		b.ReportMetric(float64(len(rec)), "trips/op")
		check(b, lib, libCalls)
	})
	b.Run("replay", func(b *testing.B) {
		pool := rep.redis()
		cpu := cpuTimer(rep)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if op.fresh {
				repUsers++
				sc.Set(slot, "u"+strconv.Itoa(repUsers))
			}
			c := pool.Get()
			err := sc.Run(c)
			if cerr := c.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		repCalls += b.N
		cpu(b)
		b.ReportMetric(float64(sc.Trips()), "trips/op")
		check(b, rep, repCalls)
	})
}

// parallelGoroutines is how many goroutines BenchmarkParallel runs at once.
const parallelGoroutines = 16

// ceilingDepth is how many operations the ceiling sends in each pipeline.
const ceilingDepth = 64

// fanOut runs b.N operations from parallelGoroutines goroutines, each with a
// worker of its own made by newWorker, and reports ops/s and, on a real
// server, the client's and the server's CPU time per operation (srv is the
// server's env). A worker takes up to
// batch operations at a time; trips is the round trips per operation.
func fanOut(b *testing.B, srv *env, batch int, trips float64, newWorker func() func(n int) error) {
	b.Helper()
	fanOutOn(b, srv, parallelGoroutines, batch, trips, newWorker)
}

// fanOutOn is fanOut from goroutines goroutines; a negative trips reports
// none.
func fanOutOn(b *testing.B, srv *env, goroutines, batch int, trips float64, newWorker func() func(n int) error) {
	b.Helper()
	workers := make([]func(int) error, goroutines)
	for g := range workers {
		workers[g] = newWorker()
	}
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	cpu := cpuTimer(srv)
	b.ReportAllocs()
	b.ResetTimer()
	begun := time.Now()
	for _, work := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				end := next.Add(int64(batch))
				start := end - int64(batch)
				if start >= int64(b.N) {
					return
				}
				if err := work(int(min(end, int64(b.N)) - start)); err != nil {
					failed.Store(true)
					b.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begun)
	b.StopTimer()
	cpu(b)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	if trips >= 0 {
		b.ReportMetric(trips, "trips/op")
	}
}

// BenchmarkParallel runs votes and listing pages from 16 goroutines, in the
// library, in the replay of its commands through plain redigo (as
// BenchmarkOverhead) and as the server's ceiling for those same commands:
// the replay's commands sent in pipelines of ceilingDepth operations from
// each goroutine's connection, so that no goroutine waits a round trip per
// operation. Each side has a namespace of its own, filled alike, and the
// replay's commands are checked against the library's before timing, as in
// BenchmarkOverhead.
func BenchmarkParallel(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		b.Run("Vote", func(b *testing.B) { parallelVotes(b, e) })
		b.Run("GetArticles", func(b *testing.B) { parallelPages(b, e) })
	})
}

// parallelVotes: each operation is a new user's up-vote, on the articles in
// turn, the same sequence on each side.
func parallelVotes(b *testing.B, e *env) {
	lib, rep, ceil := twin(b, e, "pvote.lib:"), twin(b, e, "pvote.rep:"), twin(b, e, "pvote.max:")
	var ids []string
	for _, side := range []*env{lib, rep, ceil} {
		ids = fill(b, side, 1000, 0)
	}
	rec := record(b, lib, ids, nil, func(ctx context.Context, s *voting.Store, ids []string, user string) error {
		return s.Vote(ctx, user, ids[0], voting.Up)
	})
	// Checked on the first article; the others' replays are its replay
	// with the article's keys put for the first's.
	_, slot := mirror(b, lib, rep, rec, true)
	mirror(b, lib, ceil, rec, true)
	scripts := func(side *env) []*replay.Script {
		first := map[string]bool{}
		for _, k := range []string{"article:", "voted:", "downvoted:"} {
			first[side.key(k+ids[0])] = true
		}
		out := make([]*replay.Script, len(ids))
		for i, id := range ids {
			move := moveTo(lib, side)
			sc, err := replay.From(rec, func(s string) string {
				s = move(s)
				if first[s] {
					s = strings.TrimSuffix(s, ids[0]) + id
				}
				return s
			})
			if err != nil {
				b.Fatal(err)
			}
			out[i] = sc
		}
		return out
	}
	// One copy of the scripts for each goroutine, whose user it sets; each
	// run of b.N hands them out again.
	copies := func(side *env) func() []*replay.Script {
		all := make([][]*replay.Script, parallelGoroutines)
		for g := range all {
			all[g] = scripts(side)
		}
		next := 0
		return func() []*replay.Script {
			mine := all[next%len(all)]
			next++
			return mine
		}
	}
	repScripts, ceilScripts := copies(rep), copies(ceil)
	// Each side's votes so far, the untimed ones included.
	calls := map[*env]int{lib: 2, rep: 2, ceil: 2}
	done := func(b *testing.B, side *env) {
		calls[side] += b.N
		c := side.redis().Get()
		defer c.Close()
		for _, id := range ids {
			c.Send("SCARD", side.key("voted:"+id))
		}
		c.Flush()
		total := 0
		for range ids {
			n, err := redis.Int(c.Receive())
			if err != nil {
				b.Fatal(err)
			}
			total += n
		}
		if total != calls[side] {
			b.Fatalf("%s holds %d votes after %d: not every vote was a new one", side.prefix, total, calls[side])
		}
	}
	user := func(u int64) string { return "p" + strconv.FormatInt(u, 10) }
	// Each side's users, across the runs of b.N.
	var libUsers, repUsers, ceilUsers atomic.Int64

	b.Run("library", func(b *testing.B) {
		ctx, cancel := deadline()
		defer cancel()
		fanOut(b, lib, 1, float64(len(rec)), func() func(int) error {
			return func(int) error {
				u := libUsers.Add(1)
				return lib.store.Vote(ctx, user(u), ids[u%1000], voting.Up)
			}
		})
		done(b, lib)
	})
	b.Run("replay", func(b *testing.B) {
		pool := rep.redis()
		fanOut(b, rep, 1, float64(len(rec)), func() func(int) error {
			mine := repScripts()
			return func(int) error {
				u := repUsers.Add(1)
				sc := mine[u%1000]
				sc.Set(slot, user(u))
				c := pool.Get()
				err := sc.Run(c)
				if cerr := c.Close(); err == nil {
					err = cerr
				}
				return err
			}
		})
		done(b, rep)
	})
	b.Run("ceiling", func(b *testing.B) {
		pool := ceil.redis()
		fanOut(b, ceil, ceilingDepth, 1.0/ceilingDepth, func() func(int) error {
			mine := ceilScripts()
			return func(n int) error {
				c := pool.Get()
				defer c.Close()
				replies := 0
				for range n {
					u := ceilUsers.Add(1)
					sc := mine[u%1000]
					sc.Set(slot, user(u))
					sent, err := sc.Send(c)
					if err != nil {
						return err
					}
					replies += sent
				}
				return flushAndReceive(c, replies)
			}
		})
		done(b, ceil)
	})
}

// BenchmarkVoteConcurrency runs votes (each a new user's up-vote, over
// 1,000 articles in turn) from 1 to 256 goroutines, with auto-pipelining
// (WithAutoPipelining, the default) and without, on namespaces of their
// own filled alike, in turn at each number of goroutines. With
// BenchmarkParallel/Vote/ceiling in the same run, it gives each its share
// of the server's ceiling for the same commands; server-us/op is the
// server's CPU a vote, which the machine's load moves least.
func BenchmarkVoteConcurrency(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		on, off := twin(b, e, "cvote.on:"), twin(b, e, "cvote.off:", voting.WithAutoPipelining(false))
		ids := fill(b, on, 1000, 0)
		fill(b, off, 1000, 0)
		b.Cleanup(func() { on.store.Close(); off.store.Close() })
		user := func(u int64) string { return "c" + strconv.FormatInt(u, 10) }
		var onUsers, offUsers atomic.Int64
		for _, g := range []int{1, 4, 16, 64, 256} {
			for _, side := range []struct {
				name  string
				e     *env
				users *atomic.Int64
			}{{"auto", on, &onUsers}, {"off", off, &offUsers}} {
				b.Run(fmt.Sprintf("goroutines=%d/%s", g, side.name), func(b *testing.B) {
					ctx, cancel := deadline()
					defer cancel()
					fanOutOn(b, side.e, g, 1, -1, func() func(int) error { // round trips vary with the sharing
						return func(int) error {
							u := side.users.Add(1)
							return side.e.store.Vote(ctx, user(u), ids[u%1000], voting.Up)
						}
					})
				})
			}
		}
	})
}

// flushAndReceive flushes c and reads n replies, returning the first error.
func flushAndReceive(c redis.Conn, n int) error {
	if err := c.Flush(); err != nil {
		return err
	}
	var first error
	for range n {
		if _, err := c.Receive(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// parallelPages: each operation is page 1 by score.
func parallelPages(b *testing.B, e *env) {
	lib, rep, ceil := twin(b, e, "ppage.lib:"), twin(b, e, "ppage.rep:"), twin(b, e, "ppage.max:")
	var ids []string
	for _, side := range []*env{lib, rep, ceil} {
		ids = fill(b, side, 1000, 0)
	}
	call := func(ctx context.Context, s *voting.Store, _ []string, _ string) error {
		return full(s.GetArticles(ctx, 1, voting.ByScore))
	}
	rec := record(b, lib, ids, nil, call)
	repScript, _ := mirror(b, lib, rep, rec, false)
	ceilScript, _ := mirror(b, lib, ceil, rec, false)

	b.Run("library", func(b *testing.B) {
		ctx, cancel := deadline()
		defer cancel()
		fanOut(b, lib, 1, float64(len(rec)), func() func(int) error {
			return func(int) error { return call(ctx, lib.store, nil, "") }
		})
	})
	b.Run("replay", func(b *testing.B) {
		pool := rep.redis()
		fanOut(b, rep, 1, float64(len(rec)), func() func(int) error {
			return func(int) error {
				c := pool.Get()
				err := repScript.Run(c)
				if cerr := c.Close(); err == nil {
					err = cerr
				}
				return err
			}
		})
	})
	b.Run("ceiling", func(b *testing.B) {
		pool := ceil.redis()
		fanOut(b, ceil, ceilingDepth, 1.0/ceilingDepth, func() func(int) error {
			return func(n int) error {
				c := pool.Get()
				defer c.Close()
				replies := 0
				for range n {
					sent, err := ceilScript.Send(c)
					if err != nil {
						return err
					}
					replies += sent
				}
				return flushAndReceive(c, replies)
			}
		})
	})
}

// growthSizes are the index sizes the growth benchmarks fill; -short keeps
// to the smallest, for CI.
func growthSizes(largest int) []int {
	sizes := []int{1_000, 100_000, 1_000_000}
	if testing.Short() {
		return sizes[:1]
	}
	var out []int
	for _, n := range sizes {
		if n <= largest {
			out = append(out, n)
		}
	}
	return out
}

// BenchmarkGrowth shows that a listing and a vote cost the same however
// many articles the index holds, and what a cold group costs as the group
// grows. miniredis stops at 100,000 articles.
func BenchmarkGrowth(b *testing.B) {
	for _, srv := range servers() {
		b.Run(srv.name, func(b *testing.B) {
			if srv.name == "redis" && srv.addr == "" {
				b.Skip("set " + redisAddrEnv + " to a real Redis (bash scripts/bench does) to run on it")
			}
			largest := 1_000_000
			if srv.addr == "" {
				largest = 100_000
			}
			for _, n := range growthSizes(largest) {
				b.Run(fmt.Sprintf("articles=%d", n), func(b *testing.B) {
					e := newEnvOn(b, srv.addr, "")
					ids := fill(b, e, n, min(n, 100_000))
					b.Run("GetArticles", func(b *testing.B) {
						s, trips := counted(b, e)
						measure(b, trips, func(int) error { return full(s.GetArticles(ctx, 1, voting.ByScore)) })
					})
					var users atomic.Int64
					b.Run("Vote", func(b *testing.B) {
						s, trips := counted(b, e)
						measure(b, trips, func(int) error {
							u := users.Add(1)
							return s.Vote(ctx, "g"+strconv.FormatInt(u, 10), ids[u*7919%int64(n)], voting.Up)
						})
					})
					if n > 100_000 {
						return
					}
					b.Run("GetGroupArticles-cold", func(b *testing.B) {
						s, trips := counted(b, e, voting.WithGroupCacheTTL(0))
						measure(b, trips, func(int) error { return full(s.GetGroupArticles(ctx, "big", 1, voting.ByScore)) })
					})
				})
			}
		})
	}
}

// TestMemoryPerArticle measures, on a real server, what an article costs in
// Redis memory with the book's layout: its hash, its entries in both
// indexes and one group, the record of its group, and its voter set while
// voting is open. It logs the
// figures docs/operations.md ("Memory") quotes (go test -v -run Memory) and
// fails if an article grows past a bound.
func TestMemoryPerArticle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if !e.real() {
		t.Skip("MEMORY USAGE needs a real server; set " + redisAddrEnv)
	}
	const n, voters = 2000, 200
	usage := func(key string) int64 { return e.int("MEMORY", "USAGE", key, "SAMPLES", 0) }
	var hashes, records, votedSets int64
	for i := 0; i < n; i++ {
		e.advance(time.Second)
		id, err := e.store.PostArticle(ctx, fmt.Sprintf("user%06d", i%5000),
			"A headline of a usual length, some sixty characters or so, ok",
			"https://news.example.com/2026/11/22/a-usual-length-of-link-"+strconv.Itoa(i), "news")
		if err != nil {
			t.Fatal(err)
		}
		hashes += usage(e.article(id))
		records += usage(e.key("groups:" + id))
		if i < 20 { // a sample of voter sets: each gets 200 voters
			for v := 0; v < voters; v++ {
				e.vote(fmt.Sprintf("user%06d", v), id, voting.Up)
			}
			votedSets += usage(e.key("voted:" + id))
		}
	}
	perHash := hashes / n
	perIndexEntry := (usage(e.key("score:")) + usage(e.key("time:"))) / n
	perGroupEntry := usage(e.key("group:news")) / n
	perRecord := records / n
	perVoter := votedSets / 20 / (voters + 1)
	settled := perHash + perIndexEntry + perGroupEntry + perRecord
	open := settled + votedSets/20
	t.Logf("per article: hash %d B, index entries %d B, group entry %d B, record of its one group %d B: %d B once voting closes",
		perHash, perIndexEntry, perGroupEntry, perRecord, settled)
	t.Logf("voter set with %d voters: %d B (%d B a voter): %d B while voting is open", voters, votedSets/20, perVoter, open)
	t.Logf("articles per GiB: %d with voting closed, %d with %d voters each and voting open",
		(1<<30)/settled, (1<<30)/open, voters)
	if settled > 1024 || perVoter > 128 {
		t.Errorf("an article takes %d B and a voter %d B: more than 1 KiB and 128 B", settled, perVoter)
	}
}

// TestMemoryPerOrder measures, on a real server, what each order's index
// costs per article, as docs/operations.md ("Memory") quotes it (go test -v
// -run MemoryPerOrder), and fails if an entry grows past a bound.
func TestMemoryPerOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.Orders()...))
	if !e.real() {
		t.Skip("MEMORY USAGE needs a real server; set " + redisAddrEnv)
	}
	const n = 2000
	for i := 0; i < n; i++ {
		e.advance(time.Minute) // all within a day, so in every window
		e.post(fmt.Sprintf("user%06d", i%5000), "A headline")
	}
	for _, order := range voting.Orders() {
		key := e.key(order.String() + ":")
		perEntry := e.int("MEMORY", "USAGE", key, "SAMPLES", 0) / n
		t.Logf("%-12s %3d B per article (members %q)", order, perEntry, e.article("1234"))
		if perEntry > 160 {
			t.Errorf("%s takes %d B per article, more than 160", key, perEntry)
		}
	}
	t.Logf("trimmed: %d B in all", e.int("MEMORY", "USAGE", e.key("trimmed:"), "SAMPLES", 0))
}

// BenchmarkOrders: a vote with no order kept beyond the book's two, with
// each one kept, and with all kept; and page 1 of each order, with all
// kept. The extra indexes are built by Reindex after fill, so that every
// vote moves an entry in each.
func BenchmarkOrders(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		ids := fill(b, e, 1000, 500)
		all, err := storeOn(e.pool, e, voting.WithOrders(voting.Orders()...), voting.WithGroupCacheTTL(time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		if err := all.Reindex(ctx); err != nil {
			b.Fatal(err)
		}
		var users atomic.Int64
		user := func() string { return "o" + strconv.FormatInt(users.Add(1), 10) }
		kept := map[string][]voting.Order{"none": nil, "all": voting.Orders()}
		names := []string{"none"}
		for _, o := range voting.Orders()[2:] {
			kept[o.String()] = []voting.Order{o}
			names = append(names, o.String())
		}
		names = append(names, "all")
		for _, name := range names {
			b.Run("Vote/"+name, func(b *testing.B) {
				s, trips := counted(b, e, voting.WithOrders(kept[name]...))
				measure(b, trips, func(i int) error { return s.Vote(ctx, user(), ids[(i+1000)%1000], voting.Up) })
			})
		}
		for _, order := range voting.Orders() {
			b.Run("GetArticles/"+order.String(), func(b *testing.B) {
				s, trips := counted(b, e, voting.WithOrders(voting.Orders()...))
				measure(b, trips, func(int) error { return full(s.GetArticles(ctx, 1, order)) })
			})
		}
		for _, order := range voting.Orders() {
			b.Run("GetGroupArticles/warm/"+order.String(), func(b *testing.B) {
				s, trips := counted(b, e, voting.WithOrders(voting.Orders()...), voting.WithGroupCacheTTL(time.Hour))
				measure(b, trips, func(int) error { return full(s.GetGroupArticles(ctx, "big", 1, order)) })
			})
		}
	})
}

// BenchmarkReindex: Reindex with every order kept, over articles written
// in the book's layout: 10^6 on a real server, 10^4 on miniredis, 10^3
// with -short. Each op is a whole Reindex; longest-step-ms is the longest
// time between two of its progress reports, one step's round trip
// included, the most it holds Redis at once.
func BenchmarkReindex(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		n := 1_000_000
		switch {
		case testing.Short():
			n = 1_000
		case !e.real():
			n = 10_000
		}
		fill(b, e, n, 0)
		s, err := storeOn(e.pool, e, voting.WithOrders(voting.Orders()...))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("articles=%d", n), func(b *testing.B) {
			var longest time.Duration
			var steps int
			b.ResetTimer()
			for range b.N {
				last := time.Now()
				done, err := s.ReindexWithProgress(ctx, func(voting.ReindexProgress) {
					now := time.Now()
					longest = max(longest, now.Sub(last))
					last = now
				})
				if err != nil {
					b.Fatal(err)
				}
				if done.Articles != n {
					b.Fatalf("Reindex indexed %d articles of %d", done.Articles, n)
				}
				steps = done.Steps
			}
			b.StopTimer()
			b.ReportMetric(float64(longest)/float64(time.Millisecond), "longest-step-ms")
			b.ReportMetric(float64(steps), "steps/op")
		})
	})
}

// BenchmarkLiveGroups: with live groups, page 1 of a group that holds every
// article against page 1 of the site, by score and by time, over 10^6
// articles on a real server (10^4 on miniredis, 10^3 with -short); and a
// vote on an article in two groups with live groups on against off, with
// only ByScore and ByTime kept. The live indexes are built by Reindex after
// fill.
func BenchmarkLiveGroups(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		n := 1_000_000
		switch {
		case testing.Short():
			n = 1_000
		case !e.real():
			n = 10_000
		}
		ids := fill(b, e, n, n)
		voted := ids[:1000]
		c := e.pipeConn()
		for _, id := range voted {
			c.Send("SADD", e.key("group:second"), e.article(id))
		}
		if _, err := c.Do(""); err != nil {
			b.Fatal(err)
		}
		c.Close()
		live, err := storeOn(e.pool, e, voting.WithLiveGroups())
		if err != nil {
			b.Fatal(err)
		}
		if err := live.Reindex(ctx); err != nil {
			b.Fatal(err)
		}
		var users atomic.Int64
		for range benchRounds(b) {
			for _, order := range []voting.Order{voting.ByScore, voting.ByTime} {
				b.Run(fmt.Sprintf("GetArticles/%v/articles=%d", order, n), func(b *testing.B) {
					s, trips := counted(b, e, voting.WithLiveGroups())
					measure(b, trips, func(int) error { return full(s.GetArticles(ctx, 1, order)) })
				})
				b.Run(fmt.Sprintf("GetGroupArticles-live/%v/articles=%d", order, n), func(b *testing.B) {
					s, trips := counted(b, e, voting.WithLiveGroups())
					measure(b, trips, func(int) error { return full(s.GetGroupArticles(ctx, "big", 1, order)) })
				})
				// The book's cache, warm: its first listing (measure's first
				// call, not timed) builds it.
				b.Run(fmt.Sprintf("GetGroupArticles-cache-warm/%v/articles=%d", order, n), func(b *testing.B) {
					s, trips := counted(b, e, voting.WithGroupCacheTTL(time.Hour))
					measure(b, trips, func(int) error { return full(s.GetGroupArticles(ctx, "big", 1, order)) })
				})
			}
			for _, on := range []bool{false, true} {
				name := map[bool]string{false: "Vote-2-groups/live-off", true: "Vote-2-groups/live"}[on]
				b.Run(name, func(b *testing.B) {
					var opts []voting.Option
					if on {
						opts = append(opts, voting.WithLiveGroups())
					}
					s, trips := counted(b, e, opts...)
					measure(b, trips, func(i int) error {
						return s.Vote(ctx, "l"+strconv.FormatInt(users.Add(1), 10), voted[(i+len(voted))%len(voted)], voting.Up)
					})
				})
			}
			b.Run("Ping", func(b *testing.B) { ping(b, e) })
		}
	})
}

// ping is a PING per op through e's pool, the floor a benchmark's other
// sub-benchmarks are read against in the same run.
func ping(b *testing.B, e *env) {
	c := e.pool.Get()
	defer c.Close()
	b.ReportAllocs()
	for range b.N {
		if _, err := c.Do("PING"); err != nil {
			b.Fatal(err)
		}
	}
}

// benchRoundsEnv names the environment variable that runs the rounds of a
// benchmark with a long fill (BenchmarkLiveGroups) within one fill, each
// round through every sub-benchmark, so that their ratios can be taken
// round by round: go test's -count would fill again for each.
const benchRoundsEnv = "VOTING_BENCH_ROUNDS"

// benchRounds is how many rounds: VOTING_BENCH_ROUNDS, or 1.
func benchRounds(b *testing.B) int {
	if v := os.Getenv(benchRoundsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a number of rounds", benchRoundsEnv, v)
		}
		return n
	}
	return 1
}

// TestMemoryPerLiveEntry measures, on a real server, what a group's live
// index of each order costs per article, as docs/operations.md quotes it (go test
// -v -run MemoryPerLiveEntry), and fails if an entry grows past a bound.
func TestMemoryPerLiveEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	if !e.real() {
		t.Skip("MEMORY USAGE needs a real server; set " + redisAddrEnv)
	}
	const n = 2000
	for i := 0; i < n; i++ {
		e.advance(time.Minute) // all within a day, so in every window
		e.post(fmt.Sprintf("user%06d", i%5000), "A headline", "news")
	}
	var all int64
	for _, order := range voting.Orders() {
		key := e.key("live:" + order.String() + ":news")
		perEntry := e.int("MEMORY", "USAGE", key, "SAMPLES", 0) / n
		all += perEntry
		t.Logf("%-12s %3d B per article in the group (members %q)", order, perEntry, e.article("1234"))
		if perEntry > 160 {
			t.Errorf("%s takes %d B per article, more than 160", key, perEntry)
		}
	}
	t.Logf("all %d orders: %d B per article per group", len(voting.Orders()), all)
}

// BenchmarkLifecycle: DeleteArticle of an article in two groups with every
// order kept and live groups on (against posting one such article), a vote
// with the user's history on against off, a page of a history, and the
// counts, over 1,000 articles, with a PING of the same pool to read them
// against; VOTING_BENCH_ROUNDS interleaves rounds of them all.
func BenchmarkLifecycle(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		ids := fill(b, e, 1000, 500)
		all := []voting.Option{voting.WithOrders(voting.Orders()...), voting.WithLiveGroups()}
		indexed, err := storeOn(e.pool, e, all...)
		if err != nil {
			b.Fatal(err)
		}
		if err := indexed.Reindex(ctx); err != nil {
			b.Fatal(err)
		}
		var users atomic.Int64
		for range benchRounds(b) {
			b.Run("PostArticle-2-groups", func(b *testing.B) {
				s, trips := counted(b, e, all...)
				measure(b, trips, func(int) error {
					_, err := s.PostArticle(ctx, "poster", "A headline", "https://example.com/", "big", "second")
					return err
				})
			})
			b.Run("DeleteArticle-2-groups", func(b *testing.B) {
				s, trips := counted(b, e, all...)
				doomed := make([]string, b.N+1)
				for i := range doomed {
					if doomed[i], err = s.PostArticle(ctx, "poster", "A headline", "https://example.com/", "big", "second"); err != nil {
						b.Fatal(err)
					}
					if err := s.Vote(ctx, "voter", doomed[i], voting.Down); err != nil {
						b.Fatal(err)
					}
				}
				measure(b, trips, func(i int) error { return s.DeleteArticle(ctx, doomed[i+1]) })
			})
			for _, history := range []time.Duration{0, 30 * 24 * time.Hour} {
				name := map[bool]string{false: "Vote/history-off", true: "Vote/history"}[history > 0]
				b.Run(name, func(b *testing.B) {
					s, trips := counted(b, e, voting.WithUserHistory(history))
					// Each user votes ten times, so that a history holds a few.
					measure(b, trips, func(i int) error {
						user := "h" + strconv.FormatInt(users.Add(1)/10, 10)
						return s.Vote(ctx, user, ids[(i+1000)%1000], voting.Up)
					})
				})
			}
			b.Run("UserHistory", func(b *testing.B) {
				s, trips := counted(b, e, voting.WithUserHistory(30*24*time.Hour))
				for i := range 30 {
					if err := s.Vote(ctx, "reader", ids[i], voting.Down); err != nil {
						b.Fatal(err)
					}
				}
				measure(b, trips, func(int) error {
					h, err := two(s.UserHistory(ctx, "reader", voting.Paging{Page: 1}))
					if err == nil && len(h) != s.PageSize() {
						err = fmt.Errorf("a history page of %d votes", len(h))
					}
					return err
				})
			})
			b.Run("Ping", func(b *testing.B) { ping(b, e) })
			for _, order := range []voting.Order{voting.ByScore, voting.TopWeek} {
				b.Run("Count/"+order.String(), func(b *testing.B) {
					s, trips := counted(b, e, all...)
					measure(b, trips, func(int) error { _, err := s.Count(ctx, voting.Query{Order: order}); return err })
				})
				b.Run("Count-group-live/"+order.String(), func(b *testing.B) {
					s, trips := counted(b, e, all...)
					measure(b, trips, func(int) error { _, err := s.Count(ctx, voting.Query{Group: "big", Order: order}); return err })
				})
			}
		}
	})
}

// TestMemoryPerHistoryEntry measures, on a real server, what a user's
// history costs per vote it holds, and what the sizes of groups cost per
// group, as docs/operations.md quotes them (go test -v -run
// MemoryPerHistoryEntry), and fails if an entry grows past a bound.
func TestMemoryPerHistoryEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(30*24*time.Hour))
	if !e.real() {
		t.Skip("MEMORY USAGE needs a real server; set " + redisAddrEnv)
	}
	const n = 500
	for i := 0; i < n; i++ {
		id := e.post("poster", "A headline", fmt.Sprintf("group-%04d", i))
		e.vote("reader000001", id, voting.Up)
	}
	perVote := e.int("MEMORY", "USAGE", e.key("history:reader000001"), "SAMPLES", 0) / n
	perName := e.int("MEMORY", "USAGE", e.key("groupsizes:"), "SAMPLES", 0) / n
	t.Logf("history: %d B per vote kept (members %q); groupsizes: %d B per group (names %q)",
		perVote, "up:"+e.article("1234"), perName, "group-0123")
	if perVote > 160 || perName > 130 {
		t.Errorf("a history entry takes %d B and a group name %d B: more than 160 and 100", perVote, perName)
	}
}
