package voting_test

// The test that no call of the library holds Redis long enough to stall its
// other clients, with a group as large as the site.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/schema"
	"github.com/gomodule/redigo/redis"
)

// stallArticlesEnv names the environment variable that sets how many
// articles TestNoCallStallsRedis fills: 50,000 unless it is set, so that
// the suite stays quick; BENCHMARKS.md gives the run at 10^6.
const stallArticlesEnv = "VOTING_STALL_ARTICLES"

// maxStall is the longest another client of the same Redis may wait.
const maxStall = 10 * time.Millisecond

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
func startPinger(t *testing.T, addr string) *pinger {
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
func (p *pinger) end(t *testing.T) []time.Duration {
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

// slowCommands reads the commands Redis logged as taking maxStall or
// longer since the log was last reset, and resets it.
func slowCommands(t *testing.T, e *env) []string {
	t.Helper()
	entries, err := redis.Values(e.do("SLOWLOG", "GET", 100), nil)
	if err != nil {
		t.Fatal(err)
	}
	e.do("SLOWLOG", "RESET")
	var slow []string
	for _, entry := range entries {
		fields, _ := redis.Values(entry, nil)
		if len(fields) < 4 {
			continue
		}
		micros, _ := redis.Int64(fields[2], nil)
		args, _ := redis.Strings(fields[3], nil)
		if len(args) > 4 {
			args = args[:4]
		}
		slow = append(slow, fmt.Sprintf("%v: %s", time.Duration(micros)*time.Microsecond, strings.Join(args, " ")))
	}
	return slow
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
// every article out, in steps). Meanwhile another client, a process of its
// own (pinger), PINGs.
// No PING may wait maxStall or more, and Redis may log no command (SLOWLOG,
// which times each command on the server, scripts whole) of maxStall or
// more. On a real server only; one on this machine's loopback gets a CPU
// of its own for the test (ownCore).
//
// These machines are shared: the host can pause Redis itself for several
// milliseconds now and then, which shows as one slow PING and as one slow
// command of any kind (a lone ZSCORE has been logged at 4 ms). So a run
// that sees a stall is run once more, afresh, and the test fails if that
// run sees one too: a step too long for the bound stalls every run.
func TestNoCallStallsRedis(t *testing.T) {
	addr := os.Getenv(redisAddrEnv)
	if addr == "" || os.Getenv(redisClusterEnv) != "" {
		t.Skip("needs a real server of its own: set " + redisAddrEnv)
	}
	n := 50_000
	if v := os.Getenv(stallArticlesEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			t.Fatalf("%s=%q: want a number of articles, at least 1000", stallArticlesEnv, v)
		}
	}
	// One core for this process and its calls, so that the other is left
	// to Redis: with both, the Go runtime (its collector above all)
	// competes with Redis for the machine's two cores, and the kernel
	// pauses Redis mid-command for a time slice.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	// Where it can, the test gives Redis a core of its own, as a server in
	// production has, and keeps itself off it: on two shared cores the
	// kernel otherwise pauses Redis mid-step now and then, for 10 to 20 ms,
	// however small the step.
	defer ownCore(t, addr)()
	var stalls []string
	for run := 1; run <= 2; run++ {
		if stalls = stallRun(t, addr, n); len(stalls) == 0 {
			return
		}
		t.Logf("run %d stalled Redis:\n%s", run, strings.Join(stalls, "\n"))
	}
	t.Errorf("both runs stalled Redis for %v or more", maxStall)
}

// stallRun is one run of TestNoCallStallsRedis on n articles. It returns
// each stall it saw.
func stallRun(t *testing.T, addr string, n int) (stalls []string) {
	t.Helper()
	e := newEnvOn(t, addr, "")
	defer e.deleteAll()
	ids := fill(t, e, n, n)
	e.clock.set(e.clock.Now().Add(time.Second))
	live, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups())
	if err != nil {
		t.Fatal(err)
	}

	// The slow log, set to keep every command of maxStall or more, and put
	// back as it was.
	was, err := redis.Strings(e.do("CONFIG", "GET", "slowlog-log-slower-than"), nil)
	if err != nil || len(was) != 2 {
		t.Fatalf("CONFIG GET slowlog-log-slower-than: %v %v", was, err)
	}
	e.do("CONFIG", "SET", "slowlog-log-slower-than", maxStall.Microseconds())
	defer e.do("CONFIG", "SET", "slowlog-log-slower-than", was[1])
	e.do("SLOWLOG", "RESET")

	// The worst cases of data that users control, made before the PINGs
	// start (the test's own writes of them would hold Redis up): a
	// namespace of 300,000 groups, an article with 100,000
	// voters whose histories are kept, and, below, an article in MaxGroups
	// groups with everything kept.
	if err := addGroupNames(e, 300_000); err != nil {
		t.Fatal(err)
	}
	everything, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), voting.WithUserHistory(30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	popular, err := everything.PostArticle(ctx, "poster", "popular", "https://example.com/popular", "big")
	if err != nil {
		t.Fatal(err)
	}
	if err := addVoters(e, popular, manyVoters); err != nil {
		t.Fatal(err)
	}
	// A user whose history holds three million votes, and a namespace of
	// its own whose articles, posted before links were kept unique, all
	// have one link.
	if err := addHistory(e, "deep", deepHistory); err != nil {
		t.Fatal(err)
	}
	ln := newEnvOn(t, addr, "ln:")
	defer ln.deleteAll()
	if err := fillOneLink(ln, sharedLink, manySharing); err != nil {
		t.Fatal(err)
	}
	linked, err := voting.New(ln.pool, voting.WithPrefix(ln.prefix), voting.WithClock(ln.clock.Now), voting.WithUniqueLinks())
	if err != nil {
		t.Fatal(err)
	}
	e.do("SLOWLOG", "RESET") // the calls', not the set-up's

	p := startPinger(t, addr)
	var slow []string
	phase := func(name string, run func() error) {
		t.Helper()
		p.in(name)
		began := time.Now()
		if err := run(); err != nil {
			p.end(t)
			t.Fatalf("%s: %v", name, err)
		}
		took := time.Since(began)
		these := slowCommands(t, e)
		for _, c := range these {
			slow = append(slow, name+": "+c)
		}
		t.Logf("%s: %v, %d commands of %v or more", name, took.Round(time.Millisecond), len(these), maxStall)
	}
	phase("Reindex", func() error {
		done, err := live.ReindexWithProgress(ctx, nil)
		if err == nil && (done.Articles != n+1 || done.Groups != 1) {
			err = fmt.Errorf("indexed %+v, want %d articles (the popular one too) in 1 group", done, n+1)
		}
		return err
	})
	phase("group listings", func() error {
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
	phase("writes", func() error {
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
	phase("calls among 300,000 groups", func() error {
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
	phase("deleting an article with 100,000 voters and their histories", func() error {
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
	phase("votes on an article in MaxGroups groups, everything kept", func() error {
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
	phase("UserVotes of 100,000 articles, histories kept", func() error {
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
	phase("the last page of a history of three million votes", func() error {
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
	phase("Reindex of 100,000 articles of one link", func() error {
		done, err := linked.ReindexWithProgress(ctx, nil)
		if err == nil && done.Duplicates != manySharing-1 {
			err = fmt.Errorf("Reindex found %d duplicates, want %d", done.Duplicates, manySharing-1)
		}
		return err
	})
	phase("calls on a link 100,000 articles share", func() error {
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
	e.clock.set(e.clock.Now().Add(31 * 24 * time.Hour))
	phase("window listings after a month", func() error {
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
	phase("Rescore of every article", func() error {
		return live.Rescore(ctx, 2*voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
	phase("StopKeeping every index", func() error {
		var extra []voting.Order
		for _, o := range voting.Orders() {
			if o != voting.ByScore && o != voting.ByTime {
				extra = append(extra, o)
			}
		}
		return live.StopKeeping(ctx, voting.WithOrders(extra...), voting.WithLiveGroups(), voting.WithUserHistory(time.Hour))
	})
	waits := p.end(t)
	if len(waits) == 0 {
		t.Fatal("no PING was answered")
	}
	longest := waits[len(waits)-1]
	t.Logf("%d articles: %d PINGs, median %v, 99.9th percentile %v, longest %v; %d commands of %v or more",
		n, len(waits), waits[len(waits)/2], waits[len(waits)*999/1000], longest, len(slow), maxStall)
	t.Logf("the longest PING of each phase:%s", p.report())
	for _, s := range slow {
		stalls = append(stalls, "Redis took "+s)
	}
	if longest >= maxStall {
		stalls = append(stalls, fmt.Sprintf("a PING waited %v; the longest wait of each phase:%s", longest, p.report()))
	}
	return stalls
}

// TestNoCommentCallStallsRedis is TestNoCallStallsRedis for comments, on
// a namespace of their own: a thread of manyComments comments, a chain of
// replies deepChain deep, a user with userComments comments, and the
// deletion of the thread's article.
func TestNoCommentCallStallsRedis(t *testing.T) {
	addr := os.Getenv(redisAddrEnv)
	if addr == "" || os.Getenv(redisClusterEnv) != "" {
		t.Skip("needs a real server of its own: set " + redisAddrEnv)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer ownCore(t, addr)()
	var stalls []string
	for run := 1; run <= 2; run++ {
		if stalls = commentStallRun(t, addr); len(stalls) == 0 {
			return
		}
		t.Logf("run %d stalled Redis:\n%s", run, strings.Join(stalls, "\n"))
	}
	t.Errorf("both runs stalled Redis for %v or more", maxStall)
}

// commentStallRun is one run of TestNoCommentCallStallsRedis. It returns
// each stall it saw.
func commentStallRun(t *testing.T, addr string) (stalls []string) {
	t.Helper()
	e := newEnvOn(t, addr, "")
	defer e.deleteAll()
	everything, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now),
		voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), voting.WithUserHistory(30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	was, err := redis.Strings(e.do("CONFIG", "GET", "slowlog-log-slower-than"), nil)
	if err != nil || len(was) != 2 {
		t.Fatalf("CONFIG GET slowlog-log-slower-than: %v %v", was, err)
	}
	e.do("CONFIG", "SET", "slowlog-log-slower-than", maxStall.Microseconds())
	defer e.do("CONFIG", "SET", "slowlog-log-slower-than", was[1])
	// A thread of manyComments comments, a chain of replies deepChain
	// deep, and a user with userComments comments.
	discussed, err := everything.PostArticle(ctx, "poster", "discussed", "https://example.com/discussed")
	if err != nil {
		t.Fatal(err)
	}
	chained, err := everything.PostArticle(ctx, "poster", "chained", "https://example.com/chained")
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(addComments(e, discussed, 1, manyComments, false, "talker"),
		addComments(e, chained, manyComments+1, deepChain, true, "talker"), addUserComments(e, "prolific", userComments)); err != nil {
		t.Fatal(err)
	}
	e.do("SLOWLOG", "RESET") // the calls', not the set-up's

	p := startPinger(t, addr)
	var slow []string
	phase := func(name string, run func() error) {
		t.Helper()
		p.in(name)
		if err := run(); err != nil {
			p.end(t)
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range slowCommands(t, e) {
			slow = append(slow, name+": "+c)
		}
	}
	phase("calls on a thread of 100,000 comments", func() error {
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
	phase("calls on a chain of replies 10,000 deep", func() error {
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
	phase("calls of a user with 1,000,000 comments", func() error {
		if _, err := everything.PostComment(ctx, "prolific", chained, "", "once more"); err != nil {
			return err
		}
		_, _, err := everything.UserComments(ctx, "prolific", voting.Paging{Page: userComments / everything.PageSize()})
		return err
	})
	phase("Reindex of 110,000 comments", func() error {
		p, err := everything.ReindexWithProgress(ctx, nil)
		if err == nil && p.Comments < manyComments {
			err = fmt.Errorf("Reindex walked %d comments, want %d or more", p.Comments, manyComments)
		}
		return err
	})
	phase("deleting an article with 100,000 comments", func() error {
		if err := everything.DeleteArticle(ctx, discussed); err != nil {
			return err
		}
		if n := e.int("EXISTS", e.key("thread:"+discussed)); n != 0 {
			return fmt.Errorf("the deleted article's thread is left")
		}
		return nil
	})
	waits := p.end(t)
	if len(waits) == 0 {
		t.Fatal("no PING was answered")
	}
	longest := waits[len(waits)-1]
	t.Logf("comments: %d PINGs, longest %v; the longest PING of each phase:%s", len(waits), longest, p.report())
	for _, s := range slow {
		stalls = append(stalls, "Redis took "+s)
	}
	if longest >= maxStall {
		stalls = append(stalls, fmt.Sprintf("a PING waited %v; the longest wait of each phase:%s", longest, p.report()))
	}
	return stalls
}

// ownCore puts the Redis server at addr on the machine's last CPU and this
// process on the others, with taskset, and returns what puts both back. It
// does so only for a server on this machine's loopback whose process it can
// see (its INFO process_id names a redis-server here), with two CPUs or
// more and taskset installed; otherwise it logs why not and leaves all as
// it is.
func ownCore(t *testing.T, addr string) (undo func()) {
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
