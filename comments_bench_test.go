package voting_test

// BenchmarkComments: a comment's vote against an article's, without karma
// and with it (WithKarma, in a namespace of its own), and the first
// screen of a thread (Thread with its defaults) of 10, 1,000 and 100,000
// comments, on a real server of the suite's own, in rounds that
// VOTING_BENCH_ROUNDS interleaves, each round starting at a different
// one. Besides trips/op, each reports cmds/op, the commands the server ran
// for one call (INFO commandstats, a script's own included), and the
// memory one comment takes is reported once, as B/comment: the server's
// used_memory before and after the 100,000 comments are written; and once,
// after the rounds, a Reindex of the namespace's 101,011 comments, as
// µs/comment and cmds/comment.
//
//	VOTING_BENCH_ROUNDS=3 VOTING_REDIS_ADDR=127.0.0.1:6390 \
//		go test -run '^$' -bench BenchmarkComments -benchtime=2000x .

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

func BenchmarkComments(b *testing.B) {
	addr := os.Getenv(redisAddrEnv)
	if addr == "" {
		b.Skip("set " + redisAddrEnv + " to a real Redis of the suite's own")
	}
	e := newEnvOn(b, addr, "")
	defer e.deleteAll()
	article := e.post("alice", "voted on")
	comment := e.comment("alice", article, "", "voted on")
	threads := map[int]string{}
	next := 2
	var perComment float64
	for _, n := range []int{10, 1000, 100_000} {
		id := e.post("alice", "thread of "+strconv.Itoa(n))
		before := usedMemory(b, e)
		if err := addComments(e, id, next, n, false, "talker"); err != nil {
			b.Fatal(err)
		}
		if n == 100_000 {
			perComment = float64(usedMemory(b, e)-before) / float64(n)
		}
		next += n
		threads[n] = id
	}
	ek := newEnvOn(b, addr, "", voting.WithKarma())
	defer ek.deleteAll()
	karmaArticle := ek.post("alice", "voted on with karma")
	karmaComment := ek.comment("alice", karmaArticle, "", "voted on with karma")
	type sub struct {
		name string
		env  *env // e if nil
		op   func(s *voting.Store) error
	}
	var users int
	subs := []sub{
		{"vote/article", nil, func(s *voting.Store) error {
			users++
			return s.Vote(ctx, "u"+strconv.Itoa(users), article, voting.Up)
		}},
		{"vote/comment", nil, func(s *voting.Store) error {
			users++
			return s.VoteComment(ctx, "u"+strconv.Itoa(users), comment, voting.Up)
		}},
		{"vote/article-karma", ek, func(s *voting.Store) error {
			users++
			return s.Vote(ctx, "u"+strconv.Itoa(users), karmaArticle, voting.Up)
		}},
		{"vote/comment-karma", ek, func(s *voting.Store) error {
			users++
			return s.VoteComment(ctx, "u"+strconv.Itoa(users), karmaComment, voting.Up)
		}},
	}
	for _, n := range []int{10, 1000, 100_000} {
		subs = append(subs, sub{fmt.Sprintf("thread/%d", n), nil, func(s *voting.Store) error {
			nodes, _, err := s.Thread(ctx, threads[n], voting.ThreadQuery{})
			if err == nil && len(nodes) != min(n, s.PageSize()) {
				err = fmt.Errorf("a thread of %d comments gave %d", n, len(nodes))
			}
			return err
		}})
	}
	b.Run("memory", func(b *testing.B) {
		for range b.N {
		}
		b.ReportMetric(perComment, "B/comment")
	})
	for r := range benchRounds(b) {
		for i := range subs {
			sub := subs[(r+i)%len(subs)]
			on := cmp.Or(sub.env, e)
			b.Run(sub.name, func(b *testing.B) {
				s, trips := counted(b, on)
				measure(b, trips, func(int) error { return sub.op(s) })
				b.ReportMetric(serverCommands(b, on, func() error { return sub.op(s) }), "cmds/op")
			})
		}
	}
	// Reindex runs once, however often testing calls the function.
	var reindexed voting.ReindexProgress
	var reindexCmds, reindexMicros float64
	b.Run("reindex/comment", func(b *testing.B) {
		if reindexed.Comments == 0 {
			s, _ := counted(b, e)
			reindexCmds = serverCommandsOnce(b, e, func() error {
				start := time.Now()
				var err error
				reindexed, err = s.ReindexWithProgress(ctx, nil)
				reindexMicros = float64(time.Since(start).Microseconds())
				return err
			})
			if reindexed.Comments < 100_000 {
				b.Fatalf("Reindex walked %d comments", reindexed.Comments)
			}
		}
		for range b.N {
		}
		b.ReportMetric(reindexMicros/float64(reindexed.Comments), "µs/comment")
		b.ReportMetric(reindexCmds/float64(reindexed.Comments), "cmds/comment")
		b.ReportMetric(float64(reindexed.Steps), "steps")
	})
}

// serverCommands runs op 20 times and gives the commands the server ran
// for each, its scripts' included, from INFO commandstats: the server
// must be the suite's own.
func serverCommands(b *testing.B, e *env, op func() error) float64 {
	b.Helper()
	const runs = 20
	return serverCommandsOnce(b, e, func() error {
		for range runs {
			if err := op(); err != nil {
				return err
			}
		}
		return nil
	}) / runs
}

// serverCommandsOnce runs op once and gives the commands the server ran
// for it, as serverCommands counts them.
func serverCommandsOnce(b *testing.B, e *env, op func() error) float64 {
	b.Helper()
	c := e.pool.Get()
	defer c.Close()
	if _, err := c.Do("CONFIG", "RESETSTAT"); err != nil {
		b.Fatal(err)
	}
	if err := op(); err != nil {
		b.Fatal(err)
	}
	stats, err := commandStats(c)
	if err != nil {
		b.Fatal(err)
	}
	n := int64(0)
	for name, st := range stats {
		if !strings.HasPrefix(name, "config") && name != "info" {
			n += st.calls
		}
	}
	return float64(n)
}

// usedMemory is the server's used_memory.
func usedMemory(b *testing.B, e *env) int64 {
	b.Helper()
	for _, line := range strings.Split(e.str("INFO", "memory"), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}
