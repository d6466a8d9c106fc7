package voting_test

// Benchmarks of every operation, side by side with the book's own approach
// (one command per round trip, one HGETALL per listed article) and with a
// bare PING, on the same server in the same run. Each runs on miniredis and,
// when VOTING_REDIS_ADDR is set, on that server; the figures that matter are
// the real server's ratios. Each reports its Redis round trips per op.
//
//	bash scripts/bench     # starts a redis-server and runs them all

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
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
	s, err := voting.New(p, append([]voting.Option{voting.WithClock(e.clock.Now), voting.WithPrefix(e.prefix)}, opts...)...)
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
func fill(b *testing.B, e *env, n, groupSize int) []string {
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
				s, trips := counted(b, e)
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

// parallel runs op from 8 goroutines per CPU and reports ops/s.
func parallel(b *testing.B, trips *roundtrip.Pool, op func() error) {
	b.Helper()
	if err := op(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetParallelism(8)
	trips.Reset()
	b.ResetTimer()
	begun := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(begun).Seconds(), "ops/s")
	b.ReportMetric(float64(trips.Trips())/float64(b.N), "trips/op")
}

func BenchmarkParallel(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		ids := fill(b, e, 1000, 0)
		var users atomic.Int64
		b.Run("Vote", func(b *testing.B) {
			s, trips := counted(b, e)
			parallel(b, trips, func() error {
				u := users.Add(1)
				return s.Vote(ctx, "p"+strconv.FormatInt(u, 10), ids[u%1000], voting.Up)
			})
		})
		b.Run("GetArticles", func(b *testing.B) {
			s, trips := counted(b, e)
			parallel(b, trips, func() error { return full(s.GetArticles(ctx, 1, voting.ByScore)) })
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
// indexes and one group, and its voter set while voting is open. It logs the
// figures the README's "Scaling out" quotes (go test -v -run Memory) and
// fails if an article grows past a bound.
func TestMemoryPerArticle(t *testing.T) {
	e := newEnv(t)
	if !e.real() {
		t.Skip("MEMORY USAGE needs a real server; set " + redisAddrEnv)
	}
	const n, voters = 2000, 200
	usage := func(key string) int64 { return e.int("MEMORY", "USAGE", key, "SAMPLES", 0) }
	var hashes, votedSets int64
	for i := 0; i < n; i++ {
		e.advance(time.Second)
		id, err := e.store.PostArticle(ctx, fmt.Sprintf("user%06d", i%5000),
			"A headline of a usual length, some sixty characters or so, ok",
			"https://news.example.com/2026/11/22/a-usual-length-of-link-"+strconv.Itoa(i), "news")
		if err != nil {
			t.Fatal(err)
		}
		hashes += usage(e.article(id))
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
	perVoter := votedSets / 20 / (voters + 1)
	settled := perHash + perIndexEntry + perGroupEntry
	open := settled + votedSets/20
	t.Logf("per article: hash %d B, index entries %d B, group entry %d B: %d B once voting closes", perHash, perIndexEntry, perGroupEntry, settled)
	t.Logf("voter set with %d voters: %d B (%d B a voter): %d B while voting is open", voters, votedSets/20, perVoter, open)
	t.Logf("articles per GiB: %d with voting closed, %d with %d voters each and voting open",
		(1<<30)/settled, (1<<30)/open, voters)
	if settled > 1024 || perVoter > 128 {
		t.Errorf("an article takes %d B and a voter %d B: more than 1 KiB and 128 B", settled, perVoter)
	}
}
