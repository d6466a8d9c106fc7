package voting_test

// How long the calls of the stall workloads hold Redis, measured: the
// figures that TestNoCallStallsRedis and TestNoCommentCallStallsRedis
// bound by work, not by time, so that a busy machine cannot fail them.
//
//	bash scripts/stalls     # starts a redis-server and runs BenchmarkStalls

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// BenchmarkStalls runs the workloads of TestNoCallStallsRedis (on
// stallArticlesEnv's articles, 50,000 unless set) and of
// TestNoCommentCallStallsRedis on a real server (VOTING_REDIS_ADDR), once
// each on fresh data, while another client, a process of its own (pinger),
// PINGs and Redis's slow log keeps every command of a millisecond or more.
// It reports, for the whole run ("all") and for each phase, as a
// benchmark of its own whose time per op is the phase's: the longest PING
// and the slowest command, in milliseconds, and the commands of 10 ms or
// more; for the whole run, the PINGs' median and 99.9th percentile too.
// Each phase logs its slowest command. Run it with -benchtime 1x (the
// figures' benchmarks only report what the run saw), and again for more
// runs (bash scripts/stalls does): -count repeats each report, not the
// run. When the server is on this machine's loopback, Redis gets a CPU of
// its own (ownCore), as a server in production has, and this process one
// CPU.
//
// Skipped with -short: the workloads take a minute to fill and another to
// run.
func BenchmarkStalls(b *testing.B) {
	addr := os.Getenv(redisAddrEnv)
	b.Run("redis", func(b *testing.B) {
		switch {
		case addr == "" || os.Getenv(redisClusterEnv) != "":
			b.Skip("needs a real server of its own: set " + redisAddrEnv + " (bash scripts/stalls does)")
		case testing.Short():
			b.Skip("a site of 50,000 articles and the largest discussions: not with -short (bash scripts/stalls runs it)")
		}
		// One CPU for this process and its calls, so that another is left
		// to Redis: with both, the Go runtime (its collector above all)
		// competes with Redis for a machine of two, and the kernel pauses
		// Redis mid-command for a time slice.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		defer ownCore(b, addr)()
		plain := func(p *redis.Pool) voting.Pool { return p }
		n := stallArticles(b)
		b.Run(fmt.Sprintf("articles=%d", n), func(b *testing.B) {
			stallFigures(b, addr, func() ([]stallPhase, func()) { return articleStall(b, addr, n, plain) })
		})
		b.Run("comments", func(b *testing.B) {
			stallFigures(b, addr, func() ([]stallPhase, func()) { return commentStall(b, addr, plain) })
		})
	})
}

// stallFigures runs the phases that workload fills, on fresh data deleted
// after, with a pinger of the server at addr and its slow log keeping every
// command of slowFrom or more, and reports what they saw (BenchmarkStalls).
func stallFigures(b *testing.B, addr string, workload func() ([]stallPhase, func())) {
	c, err := redis.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for param, value := range map[string]any{"slowlog-log-slower-than": slowFrom.Microseconds(), "slowlog-max-len": 100_000} {
		was, err := redis.Strings(c.Do("CONFIG", "GET", param))
		if err != nil || len(was) != 2 {
			b.Fatalf("CONFIG GET %s: %v %v", param, was, err)
		}
		if _, err := c.Do("CONFIG", "SET", param, value); err != nil {
			b.Fatal(err)
		}
		defer c.Do("CONFIG", "SET", param, was[1])
	}
	phases, clear := workload()
	defer clear()
	p := startPinger(b, addr)
	if _, err := c.Do("SLOWLOG", "RESET"); err != nil {
		b.Fatal(err)
	}
	took := make([]time.Duration, len(phases))
	slowest := make([]slowCommands, len(phases))
	var all slowCommands
	var total time.Duration
	for i, ph := range phases {
		p.in(ph.name)
		began := time.Now()
		err := ph.run()
		took[i] = time.Since(began)
		if err != nil {
			p.end(b)
			b.Fatalf("%s: %v", ph.name, err)
		}
		slowest[i] = readSlowLog(b, c)
		total += took[i]
		all.over += slowest[i].over
		if slowest[i].took > all.took {
			all.slowest, all.took = slowest[i].slowest, slowest[i].took
		}
	}
	waits := p.end(b)
	if len(waits) == 0 {
		b.Fatal("no PING was answered")
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	report := func(name string, took, longest time.Duration, slow slowCommands, more func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			b.ReportMetric(float64(took), "ns/op")
			b.ReportMetric(ms(longest), "longest-ping-ms")
			b.ReportMetric(ms(slow.took), "slowest-cmd-ms")
			b.ReportMetric(float64(slow.over), "cmds-of-10ms")
			if more != nil {
				more(b)
			}
			if b.N == 1 && slow.took > 0 {
				b.Logf("the slowest command, %v: %s", slow.took, slow.slowest)
			}
		})
	}
	report("all", total, waits[len(waits)-1], all, func(b *testing.B) {
		b.ReportMetric(ms(waits[len(waits)/2]), "median-ping-ms")
		b.ReportMetric(ms(waits[len(waits)*999/1000]), "p99.9-ping-ms")
	})
	for i, ph := range phases {
		report(ph.name, took[i], p.result.Longest[ph.name], slowest[i], nil)
	}
}

// slowFrom is the time from which the slow log keeps a command, for
// stallFigures.
const slowFrom = time.Millisecond

// slowCommands are what the slow log kept of a phase: the slowest command
// (its first arguments) and how long Redis took, and how many took 10 ms
// or more.
type slowCommands struct {
	slowest string
	took    time.Duration
	over    int
}

// readSlowLog reads what Redis's slow log kept since it was last reset,
// and resets it.
func readSlowLog(b *testing.B, c redis.Conn) (slow slowCommands) {
	b.Helper()
	entries, err := redis.Values(c.Do("SLOWLOG", "GET", 100_000))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Do("SLOWLOG", "RESET"); err != nil {
		b.Fatal(err)
	}
	for _, entry := range entries {
		fields, _ := redis.Values(entry, nil)
		if len(fields) < 4 {
			continue
		}
		micros, _ := redis.Int64(fields[2], nil)
		took := time.Duration(micros) * time.Microsecond
		args, _ := redis.Strings(fields[3], nil)
		if len(args) > 0 && strings.EqualFold(args[0], "SLOWLOG") {
			continue // this reading's own
		}
		if took >= 10*time.Millisecond {
			slow.over++
		}
		if took > slow.took {
			slow.slowest, slow.took = strings.Join(args[:min(len(args), 4)], " "), took
		}
	}
	return slow
}

// ownCore puts the Redis server at addr on the machine's last CPU and this
// process on the others, with taskset, and returns what puts both back. It
// does so only for a server on this machine's loopback whose process it can
// see (its INFO process_id names a redis-server here), with two CPUs or
// more and taskset installed; otherwise it logs why not and leaves all as
// it is.
func ownCore(t testing.TB, addr string) (undo func()) {
	t.Helper()
	undo = func() {}
	host, _, err := net.SplitHostPort(addr)
	cpus := runtime.NumCPU()
	taskset, lookErr := exec.LookPath("taskset")
	switch {
	case err != nil || !net.ParseIP(host).IsLoopback() && host != "localhost":
		t.Logf("Redis at %s is not on this machine's loopback: it shares the CPUs", addr)
		return undo
	case cpus < 2 || lookErr != nil:
		t.Logf("%d CPUs, taskset %v: Redis shares the CPUs", cpus, lookErr)
		return undo
	}
	c, err := redis.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	info, err := redis.String(c.Do("INFO", "server"))
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	var pid string
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "process_id:"); ok {
			pid = v
		}
	}
	comm, err := os.ReadFile("/proc/" + pid + "/comm")
	if pid == "" || err != nil || !strings.HasPrefix(string(comm), "redis-server") {
		t.Logf("Redis's process %q is not one this test can see (%v): it shares the CPUs", pid, err)
		return undo
	}
	all := fmt.Sprintf("0-%d", cpus-1)
	set := func(cpuList, pid string) error {
		out, err := exec.Command(taskset, "-a", "-cp", cpuList, pid).CombinedOutput()
		if err != nil {
			return fmt.Errorf("taskset %s %s: %v: %s", cpuList, pid, err, out)
		}
		return nil
	}
	self := strconv.Itoa(os.Getpid())
	if err := set(strconv.Itoa(cpus-1), pid); err != nil {
		t.Logf("%v: Redis shares the CPUs", err)
		return undo
	}
	if err := set(fmt.Sprintf("0-%d", cpus-2), self); err != nil {
		t.Logf("%v", err)
	}
	t.Logf("Redis (process %s) on CPU %d, this test on CPUs 0-%d", pid, cpus-1, cpus-2)
	return func() {
		for _, p := range []string{pid, self} {
			if err := set(all, p); err != nil {
				t.Logf("putting back: %v", err)
			}
		}
	}
}
