package voting_test

// BenchmarkVoteCost measures what one vote costs the server, read from
// Redis's own INFO commandstats rather than from a client's clock: the
// vote script's time per EVALSHA (the commands it runs included), and the
// commands it runs per vote. A round trip's time is mostly the network and
// the client; the server's time is what a single-threaded Redis has to
// share among all its clients, so it bounds how many votes a server takes.
//
// Each Store configuration runs in a namespace of its own on the same
// server, filled alike before the rounds, against a floor: the book's vote
// written as one Lua script, which does the least a vote can do. Each
// round runs every configuration once, starting at a different one each
// round, so that a slow spell of a shared machine, or the server's growing
// state, does not always fall on the same configuration; the ratios to the
// floor are taken round by round.
//
//	VOTING_BENCH_ROUNDS=7 VOTING_REDIS_ADDR=127.0.0.1:6379 \
//		go test -run '^$' -bench VoteCost -benchtime=1x .
//
// -benchtime=1x runs each configuration's batch of votes once a round; with
// more, a round's figures are those of its last run, b.N batches in all.
// CONFIG RESETSTAT clears the whole server's statistics, so the server must
// be a private one: another client's commands would count as the votes'.
//
// Time on a shared machine moves with its load; the commands per vote do
// not, and neither do the instructions the server spends on a vote, which
// the benchmark counts too when the server runs under valgrind's callgrind
// (scripts/instructions starts one and runs the benchmark on it).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// voteCostSeed seeds the fill's groups and the votes, so that every
// configuration and every round gets the same articles and the same
// sequence of votes.
const voteCostSeed = 20261122

// voteCostGroups is how many group names the fill draws an article's two
// groups from.
const voteCostGroups = 20

// A voteCostConfig is one Store configuration BenchmarkVoteCost measures, or
// with book the floor: the book's vote as one script, outside the library.
type voteCostConfig struct {
	name string
	book bool
	opts []voting.Option
}

func voteCostConfigs() []voteCostConfig {
	history := voting.WithUserHistory(30 * 24 * time.Hour)
	// bookCache keeps a namespace to the book's indexes (no live groups,
	// which a namespace the library makes keeps by default), so that each
	// configuration keeps what it kept when live groups were an option.
	return []voteCostConfig{
		{name: "book", book: true},
		{name: "book-indexes", opts: []voting.Option{bookCache}},
		{name: "default"},
		{name: "karma", opts: []voting.Option{bookCache, voting.WithKarma()}},
		{name: "hot-best", opts: []voting.Option{bookCache, voting.WithOrders(voting.ByHot, voting.ByBest)}},
		{name: "orders", opts: []voting.Option{bookCache, voting.WithOrders(voting.Orders()...)}},
		{name: "history", opts: []voting.Option{bookCache, history}},
		{name: "live", opts: []voting.Option{voting.WithLiveGroups()}},
		{name: "everything", opts: []voting.Option{voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), history}},
	}
}

// bookVoteScript is the book's article_vote in one script: no down-votes,
// no taking a vote back, no checks beyond the cutoff. KEYS: time:,
// voted:<id>, score:, article:<id>; ARGV: the article's member, the user,
// the oldest posting time still open, the vote weight. It gives 1 for a
// vote counted, 0 for a repeat or a closed article.
const bookVoteScript = `
local posted = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not posted or tonumber(posted) < tonumber(ARGV[3]) then
	return 0
end
if redis.call('SADD', KEYS[2], ARGV[2]) == 0 then
	return 0
end
redis.call('ZINCRBY', KEYS[3], ARGV[4], ARGV[1])
redis.call('HINCRBY', KEYS[4], 'votes', 1)
return 1
`

// A plannedVote is one vote of a batch: an article by its number, a user by
// the number of the new vote that brought them, and the direction.
type plannedVote struct {
	article, user int
	dir           voting.Direction
}

// planVotes is the library configurations' batch of votes: each new vote
// (80%) is a fresh user's on an article picked uniformly, up three times in
// four; a switch (10%) turns a standing vote of the batch the other way;
// a take-back (10%) votes None on one, which then stands no more. With no
// vote standing yet, a switch or take-back is a new vote instead. The
// same seed gives the same batch, so every configuration and round runs
// the same structure, with user names of its own.
func planVotes(articles, votes int) []plannedVote {
	rng := rand.New(rand.NewPCG(voteCostSeed, 2))
	plan := make([]plannedVote, 0, votes)
	var standing []int // indexes in plan of the votes that stand
	users := 0
	for range votes {
		kind := rng.IntN(10)
		if kind < 8 || len(standing) == 0 {
			dir := voting.Up
			if rng.IntN(4) == 3 {
				dir = voting.Down
			}
			standing = append(standing, len(plan))
			plan = append(plan, plannedVote{article: rng.IntN(articles), user: users, dir: dir})
			users++
			continue
		}
		at := rng.IntN(len(standing))
		earlier := &plan[standing[at]]
		v := plannedVote{article: earlier.article, user: earlier.user}
		if kind == 8 {
			v.dir = voting.Up
			if earlier.dir == voting.Up {
				v.dir = voting.Down
			}
			// The switched vote stands in the earlier one's place.
			standing[at] = len(plan)
		} else {
			v.dir = voting.None
			standing[at] = standing[len(standing)-1]
			standing = standing[:len(standing)-1]
		}
		plan = append(plan, v)
	}
	return plan
}

// planBookVotes is the floor's batch: fresh users' up-votes, each on an
// article picked uniformly.
func planBookVotes(articles, votes int) []plannedVote {
	rng := rand.New(rand.NewPCG(voteCostSeed, 3))
	plan := make([]plannedVote, votes)
	for i := range plan {
		plan[i] = plannedVote{article: rng.IntN(articles), user: i, dir: voting.Up}
	}
	return plan
}

// drawGroups gives each of n articles two different groups of
// voteCostGroups.
func drawGroups(n int) [][2]string {
	rng := rand.New(rand.NewPCG(voteCostSeed, 1))
	groups := make([][2]string, n)
	for i := range groups {
		a, b := rng.IntN(voteCostGroups), rng.IntN(voteCostGroups-1)
		if b >= a {
			b++
		}
		groups[i] = [2]string{fmt.Sprintf("g%02d", a), fmt.Sprintf("g%02d", b)}
	}
	return groups
}

// A voteCostSpace is one configuration's namespace, under e's prefix and
// the configuration's name, with a clock of its own so that each is
// filled from the same time.
type voteCostSpace struct {
	cfg  voteCostConfig
	env  *env
	ids  []string // the articles, oldest first
	plan []plannedVote
	sha  string // the floor's script
}

// newVoteCostSpace fills a namespace with the articles: through the
// library, one post at a second at a time, for a library configuration;
// in the book's layout for the floor.
func newVoteCostSpace(b *testing.B, e *env, cfg voteCostConfig, groups [][2]string, votes int) *voteCostSpace {
	b.Helper()
	ns := &env{t: b, pool: e.pool, mr: e.mr, prefix: e.prefix + cfg.name + "-", clock: &clock{now: start}}
	sp := &voteCostSpace{cfg: cfg, env: ns}
	if cfg.book {
		sp.ids = fillBook(b, ns, groups)
		c := ns.conn()
		defer c.Close()
		sha, err := redis.String(c.Do("SCRIPT", "LOAD", bookVoteScript))
		if err != nil {
			b.Fatal(err)
		}
		sp.sha = sha
		sp.plan = planBookVotes(len(groups), votes)
		return sp
	}
	s, err := storeOn(e.pool, ns, cfg.opts...)
	if err != nil {
		b.Fatal(err)
	}
	ns.store = s
	sp.ids = make([]string, len(groups))
	for i, g := range groups {
		ns.advance(time.Second)
		sp.ids[i] = ns.post("poster"+strconv.Itoa(i), "Article "+strconv.Itoa(i), g[0], g[1])
	}
	// A vote before the rounds loads the vote script, so that no EVALSHA
	// of a round fails for want of it and is sent again as EVAL.
	ns.vote("warm-up", sp.ids[0], voting.Up)
	sp.plan = planVotes(len(groups), votes)
	return sp
}

// fillBook writes the articles in the book's layout, as its post_article
// and add_remove_groups leave them: the hash with one vote, the poster's
// own; both indexes; the voter set with the poster, expiring at the
// cutoff; and the article's groups. bench_test.go's fill writes no voter
// sets and no groups, which would make the floor's votes cheaper than the
// book's. The articles are a second apart, as the library's are posted.
func fillBook(b *testing.B, ns *env, groups [][2]string) []string {
	b.Helper()
	c := ns.pipeConn()
	defer c.Close()
	ids := make([]string, len(groups))
	cutoff := int64(voting.DefaultCutoff / time.Second)
	sent := 0
	for i, g := range groups {
		ns.advance(time.Second)
		posted := ns.clock.Now().Unix()
		ids[i] = strconv.Itoa(i + 1)
		member := ns.article(ids[i])
		voted := ns.key("voted:" + ids[i])
		poster := "poster" + strconv.Itoa(i)
		c.Send("HSET", member, "title", "Article "+strconv.Itoa(i), "link", "https://example.com/Article-"+strconv.Itoa(i),
			"poster", poster, "time", posted, "votes", 1)
		c.Send("ZADD", ns.key("score:"), float64(posted)+voting.DefaultVoteWeight, member)
		c.Send("ZADD", ns.key("time:"), posted, member)
		c.Send("SADD", voted, poster)
		c.Send("EXPIRE", voted, cutoff)
		c.Send("SADD", ns.key("group:"+g[0]), member)
		c.Send("SADD", ns.key("group:"+g[1]), member)
		sent += 7
	}
	c.Send("SET", ns.key("article:"), len(groups))
	sent++
	if err := c.Flush(); err != nil {
		b.Fatal(err)
	}
	for range sent {
		if _, err := c.Receive(); err != nil {
			b.Fatal(err)
		}
	}
	return ids
}

// run casts the batch once, one vote at a time, each through a connection
// of its own from the pool as the library takes one; users are named
// after users and their number.
func (sp *voteCostSpace) run(users string) error {
	ctx := context.Background()
	ns := sp.env
	if !sp.cfg.book {
		for _, v := range sp.plan {
			if err := ns.store.Vote(ctx, users+strconv.Itoa(v.user), sp.ids[v.article], v.dir); err != nil {
				return err
			}
		}
		return nil
	}
	timeKey, scoreKey := ns.key("time:"), ns.key("score:")
	open := ns.clock.Now().Add(-voting.DefaultCutoff).Unix()
	for _, v := range sp.plan {
		id := sp.ids[v.article]
		member := ns.article(id)
		c := ns.pool.Get()
		counted, err := redis.Int(c.Do("EVALSHA", sp.sha, 4, timeKey, ns.key("voted:"+id), scoreKey, member,
			member, users+strconv.Itoa(v.user), open, voting.DefaultVoteWeight))
		c.Close()
		if err != nil {
			return err
		}
		if counted != 1 {
			return fmt.Errorf("the book's vote of a fresh user on article %s was not counted", id)
		}
	}
	return nil
}

// A cmdStat is one line of INFO commandstats.
type cmdStat struct {
	calls, usec, failed, rejected int64
}

// commandStats reads INFO commandstats: each command (a subcommand as
// "config|resetstat") and its figures.
func commandStats(c redis.Conn) (map[string]cmdStat, error) {
	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		return nil, err
	}
	stats := make(map[string]cmdStat)
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "cmdstat_")
		if !ok {
			continue
		}
		name, fields, _ := strings.Cut(rest, ":")
		var st cmdStat
		for _, field := range strings.Split(fields, ",") {
			key, value, _ := strings.Cut(field, "=")
			n, err := strconv.ParseInt(value, 10, 64)
			switch key {
			case "calls":
				st.calls = n
			case "usec":
				st.usec = n
			case "failed_calls":
				st.failed = n
			case "rejected_calls":
				st.rejected = n
			default:
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("INFO commandstats: %q: %v", line, err)
			}
		}
		stats[name] = st
	}
	return stats, nil
}

// notInScript are the commands that the benchmark itself, or the client,
// sends around the votes: every other command counted ran inside a vote's
// script.
var notInScript = map[string]bool{"evalsha": true, "eval": true, "info": true, "config": true, "ping": true, "script": true}

// A voteCost is one configuration's figures in one round.
type voteCost struct {
	usecPerCall  float64            // server time per EVALSHA, its commands included
	cmdUsec      float64            // of which in its commands, per vote
	cmdsPerVote  float64            // commands the script ran, per vote
	perCommand   map[string]float64 // each command's calls per vote
	instrPerVote float64            // instructions in EVALSHA per vote, under callgrind; else 0
}

// callgrindEnv names the environment variable that tells BenchmarkVoteCost
// the server runs under valgrind's callgrind, collecting in EVALSHA only
// (--toggle-collect=evalShaCommand), and the folder its dumps go to (its
// --callgrind-out-file): each batch is then counted from a zeroed counter
// to a dump, with callgrind_control.
const callgrindEnv = "VOTING_BENCH_CALLGRIND"

// A callgrind is a redis-server under callgrind: its process and the folder
// of its dumps.
type callgrind struct {
	pid, dir string
}

// newCallgrind is the server's callgrind, if callgrindEnv names its folder;
// nil if not.
func newCallgrind(b *testing.B, c redis.Conn) *callgrind {
	b.Helper()
	dir := os.Getenv(callgrindEnv)
	if dir == "" {
		return nil
	}
	info, err := redis.String(c.Do("INFO", "server"))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if pid, ok := strings.CutPrefix(line, "process_id:"); ok {
			return &callgrind{pid: pid, dir: dir}
		}
	}
	b.Fatal("INFO server gives no process_id")
	return nil
}

// zero sets the server's instruction count to zero.
func (cg *callgrind) zero() error {
	out, err := exec.Command("callgrind_control", "-z", cg.pid).CombinedOutput()
	if err != nil {
		return fmt.Errorf("callgrind_control -z %s: %v: %s", cg.pid, err, out)
	}
	return nil
}

// count dumps the server's count and reads it: the instructions since zero.
func (cg *callgrind) count() (int64, error) {
	before, _ := filepath.Glob(filepath.Join(cg.dir, "*."+cg.pid+".*"))
	if out, err := exec.Command("callgrind_control", "-d", cg.pid).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("callgrind_control -d %s: %v: %s", cg.pid, err, out)
	}
	after, _ := filepath.Glob(filepath.Join(cg.dir, "*."+cg.pid+".*"))
	for _, file := range after {
		if slices.Contains(before, file) {
			continue
		}
		text, err := os.ReadFile(file)
		if err != nil {
			return 0, err
		}
		for _, line := range strings.Split(string(text), "\n") {
			if v, ok := strings.CutPrefix(line, "summary: "); ok {
				return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			}
		}
		return 0, fmt.Errorf("%s has no summary line", file)
	}
	return 0, fmt.Errorf("callgrind_control -d wrote no new dump in %s", cg.dir)
}

// readVoteCost works a configuration's figures out of the statistics of
// votes votes (or posts: what names them), and fails unless each was
// exactly one EVALSHA that succeeded: a failed call, or an EVAL sent after
// a NOSCRIPT, would count time and commands that are no vote's.
func readVoteCost(stats map[string]cmdStat, votes int, what string) (voteCost, error) {
	ev := stats["evalsha"]
	if ev.calls != int64(votes) || ev.failed != 0 || ev.rejected != 0 || stats["eval"].calls != 0 {
		return voteCost{}, fmt.Errorf("%d %s made %d EVALSHA calls (%d failed, %d rejected) and %d EVAL",
			votes, what, ev.calls, ev.failed, ev.rejected, stats["eval"].calls)
	}
	cost := voteCost{usecPerCall: float64(ev.usec) / float64(ev.calls), perCommand: make(map[string]float64)}
	for name, st := range stats {
		base, _, _ := strings.Cut(name, "|")
		if notInScript[base] || st.calls == 0 {
			continue
		}
		cost.perCommand[name] = float64(st.calls) / float64(votes)
		cost.cmdsPerVote += float64(st.calls) / float64(votes)
		cost.cmdUsec += float64(st.usec) / float64(votes)
	}
	return cost, nil
}

// BenchmarkVoteCost: the server's cost of one vote in each configuration
// and in the floor, over 2,000 articles in two groups each (100 with
// -short), in batches of 3,000 votes (100 with -short), round by round;
// see the top of the file. It reports usec/evalsha and cmds/vote for each
// configuration in each round, and prints a table of the medians over the
// rounds. It needs a real server: miniredis keeps no command statistics.
func BenchmarkVoteCost(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		if !e.real() {
			b.Skip("INFO commandstats needs a real server; set " + redisAddrEnv)
		}
		articles, votes := 2000, 3000
		if testing.Short() {
			articles, votes = 100, 100
		}
		groups := drawGroups(articles)
		configs := voteCostConfigs()
		spaces := make([]*voteCostSpace, len(configs))
		for i, cfg := range configs {
			spaces[i] = newVoteCostSpace(b, e, cfg, groups, votes)
		}
		rounds := benchRounds(b)
		costs := make([]map[string]voteCost, rounds)
		admin := e.conn()
		cg := newCallgrind(b, admin)
		admin.Close()
		// Every batch has users of its own, so that each new vote is a new
		// user's, across rounds and across the runs of a sub-benchmark.
		var batches atomic.Int64
		for r := range rounds {
			costs[r] = make(map[string]voteCost)
			for i := range spaces {
				sp := spaces[(r+i)%len(spaces)]
				b.Run(fmt.Sprintf("round=%d/%s", r, sp.cfg.name), func(b *testing.B) {
					c := e.conn()
					defer c.Close()
					if _, err := c.Do("CONFIG", "RESETSTAT"); err != nil {
						b.Fatal(err)
					}
					if cg != nil {
						if err := cg.zero(); err != nil {
							b.Fatal(err)
						}
					}
					b.ResetTimer()
					for range b.N {
						if err := sp.run("v" + strconv.FormatInt(batches.Add(1), 10) + "-"); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					var instructions int64
					if cg != nil {
						var err error
						if instructions, err = cg.count(); err != nil {
							b.Fatal(err)
						}
					}
					stats, err := commandStats(c)
					if err != nil {
						b.Fatal(err)
					}
					cost, err := readVoteCost(stats, b.N*len(sp.plan), "votes")
					if err != nil {
						b.Fatal(err)
					}
					cost.instrPerVote = float64(instructions) / float64(b.N*len(sp.plan))
					if cg != nil {
						b.ReportMetric(cost.instrPerVote, "instr/vote")
					}
					costs[r][sp.cfg.name] = cost
					b.ReportMetric(cost.usecPerCall, "usec/evalsha")
					b.ReportMetric(cost.cmdsPerVote, "cmds/vote")
					b.ReportMetric(float64(len(sp.plan)), "votes/op")
				})
			}
		}
		// On standard output: the log of a benchmark that has
		// sub-benchmarks shows only with -v.
		fmt.Printf("BenchmarkVoteCost: the server's cost of a vote, %d articles, %d votes a batch, medians of %d rounds:\n%s",
			articles, votes, rounds, voteCostTable(configs, costs, "vote"))
	})
}

// voteCostTable writes the medians over the rounds: each configuration's
// time per EVALSHA, its ratio to the floor's in the same round, its
// commands per vote (or per what), and the last round's commands one by
// one; then each
// command whose count per vote differs between rounds. The last round
// stands for the others: every round casts the same votes on the same
// articles, so from the second on each meets the state the one before
// left, while the first meets articles with no down-votes yet, and so
// runs fewer EXISTS on a down-voter set.
func voteCostTable(configs []voteCostConfig, costs []map[string]voteCost, what string) string {
	var out strings.Builder
	w := tabwriter.NewWriter(&out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "config\tusec/evalsha\tx book (min-max)\tcmds/%[1]s (min-max)\tusec in cmds\tinstr/%[1]s\tcommands per %[1]s, last round\n", what)
	var varying []string
	for _, cfg := range configs {
		var usec, ratios, cmds, cmdUsec, instr []float64
		perCommand := make(map[string][]float64)
		for _, round := range costs {
			cost, ok := round[cfg.name]
			if !ok {
				continue
			}
			usec = append(usec, cost.usecPerCall)
			cmds = append(cmds, cost.cmdsPerVote)
			cmdUsec = append(cmdUsec, cost.cmdUsec)
			instr = append(instr, cost.instrPerVote)
			if floor, ok := round["book"]; ok {
				ratios = append(ratios, cost.usecPerCall/floor.usecPerCall)
			}
			for name, n := range cost.perCommand {
				perCommand[name] = append(perCommand[name], n)
			}
		}
		if len(usec) == 0 {
			fmt.Fprintf(w, "%s\t(no rounds)\n", cfg.name)
			continue
		}
		var last string
		if cost, ok := costs[len(costs)-1][cfg.name]; ok {
			last = breakdown(cost.perCommand)
		}
		instrText := "-"
		if m := median(instr); m > 0 {
			instrText = fmt.Sprintf("%.0f", m)
		}
		fmt.Fprintf(w, "%s\t%.2f\t%s\t%s\t%.2f\t%s\t%s\n", cfg.name, median(usec), spread(ratios, "%.2f"), spread(cmds, "%.2f"),
			median(cmdUsec), instrText, last)
		names := make([]string, 0, len(perCommand))
		for name := range perCommand {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ns := perCommand[name]
			// A command missing from some rounds ran 0 times in them.
			for len(ns) < len(usec) {
				ns = append(ns, 0)
			}
			if lo, hi := slices.Min(ns), slices.Max(ns); hi-lo >= 0.0005 {
				varying = append(varying, fmt.Sprintf("%s %s %.3f-%.3f", cfg.name, name, lo, hi))
			}
		}
	}
	w.Flush()
	if len(varying) > 0 {
		fmt.Fprintf(&out, "commands per %s that differ between rounds: %s\n", what, strings.Join(varying, "; "))
	}
	return out.String()
}

// breakdown writes commands per vote, the most frequent first.
func breakdown(perCommand map[string]float64) string {
	names := make([]string, 0, len(perCommand))
	for name := range perCommand {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := perCommand[names[i]], perCommand[names[j]]
		return a > b || a == b && names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %.2f", name, perCommand[name])
	}
	return strings.Join(parts, " ")
}

// median is the middle of xs, or the mean of the two middle ones.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// spread writes the median of xs and their range.
func spread(xs []float64, format string) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf(format+" ("+format+"-"+format+")", median(xs), slices.Min(xs), slices.Max(xs))
}

// BenchmarkVoteAtMaxGroups: the server's cost of a vote on an article in 1
// and in MaxGroups groups, with every order, live groups and histories
// kept: the most a poster can make each vote on their article cost. Each
// op is 300 votes (30 with -short), up and down by new users; it reports Redis's commands and
// µs of EVALSHA per vote. It needs a real server.
func BenchmarkVoteAtMaxGroups(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		if !e.real() {
			b.Skip("INFO commandstats needs a real server; set " + redisAddrEnv)
		}
		s, err := storeOn(e.pool, e, voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(),
			voting.WithUserHistory(30*24*time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		groups := make([]string, voting.MaxGroups)
		for i := range groups {
			groups[i] = fmt.Sprintf("g%d", i)
		}
		var users atomic.Int64
		for _, n := range []int{1, voting.MaxGroups} {
			b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
				id, err := s.PostArticle(ctx, "poster", "in groups", "https://example.com/", groups[:n]...)
				if err != nil {
					b.Fatal(err)
				}
				c := e.conn()
				defer c.Close()
				if _, err := c.Do("CONFIG", "RESETSTAT"); err != nil {
					b.Fatal(err)
				}
				votes := 300
				if testing.Short() {
					votes = 30
				}
				b.ResetTimer()
				for range b.N {
					for i := range votes {
						user := "m" + strconv.FormatInt(users.Add(1), 10)
						if err := s.Vote(ctx, user, id, []voting.Direction{voting.Up, voting.Down}[i%2]); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StopTimer()
				stats, err := commandStats(c)
				if err != nil {
					b.Fatal(err)
				}
				var calls float64
				for name, st := range stats {
					if name != "config" && name != "evalsha" && name != "eval" {
						calls += float64(st.calls)
					}
				}
				total := float64(b.N * votes)
				b.ReportMetric(calls/total, "cmds/vote")
				b.ReportMetric(float64(stats["evalsha"].usec+stats["eval"].usec)/total, "usec/vote")
			})
		}
	})
}

// A postCostCase is one kind of post BenchmarkPostCost measures: a Store
// configuration and how many groups each article is posted in.
type postCostCase struct {
	name   string
	opts   []voting.Option
	groups int
}

// BenchmarkPostCost: the server's cost of one post, read from INFO
// commandstats as BenchmarkVoteCost reads a vote's: a default Store
// posting in no group and in two of twenty, and a Store that keeps karma
// posting in two, each in a namespace of its own, in batches of 500 posts
// (50 with -short) by new posters, round by round (VOTING_BENCH_ROUNDS),
// each round starting at a different case. It reports usec/evalsha and
// cmds/post for each case in each round, and prints a table of the
// medians. It needs a real server.
func BenchmarkPostCost(b *testing.B) {
	onServers(b, func(b *testing.B, e *env) {
		if !e.real() {
			b.Skip("INFO commandstats needs a real server; set " + redisAddrEnv)
		}
		posts := 500
		if testing.Short() {
			posts = 50
		}
		groups := drawGroups(posts)
		cases := []postCostCase{
			{name: "default-groups=0", opts: []voting.Option{bookCache}},
			{name: "default-groups=2", opts: []voting.Option{bookCache}, groups: 2},
			{name: "live-groups=2", groups: 2},
			{name: "karma-groups=2", opts: []voting.Option{bookCache, voting.WithKarma()}, groups: 2},
		}
		spaces := make([]*env, len(cases))
		configs := make([]voteCostConfig, len(cases))
		for i, pc := range cases {
			ns := &env{t: b, pool: e.pool, mr: e.mr, prefix: e.prefix + "post-" + pc.name + "-", clock: &clock{now: start}}
			s, err := storeOn(e.pool, ns, pc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			ns.store = s
			// A post before the rounds loads the post script, so that no
			// EVALSHA of a round fails for want of it.
			ns.post("warm-up", "Warm-up")
			spaces[i] = ns
			configs[i] = voteCostConfig{name: pc.name}
		}
		rounds := benchRounds(b)
		costs := make([]map[string]voteCost, rounds)
		var posters atomic.Int64
		for r := range rounds {
			costs[r] = make(map[string]voteCost)
			for i := range cases {
				at := (r + i) % len(cases)
				pc, ns := cases[at], spaces[at]
				b.Run(fmt.Sprintf("round=%d/%s", r, pc.name), func(b *testing.B) {
					c := e.conn()
					defer c.Close()
					if _, err := c.Do("CONFIG", "RESETSTAT"); err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					for range b.N {
						for j, g := range groups {
							ns.advance(time.Second)
							poster := "p" + strconv.FormatInt(posters.Add(1), 10)
							if _, err := ns.store.PostArticle(ctx, poster, "Article "+strconv.Itoa(j),
								"https://example.com/"+poster, g[:pc.groups]...); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.StopTimer()
					stats, err := commandStats(c)
					if err != nil {
						b.Fatal(err)
					}
					cost, err := readVoteCost(stats, b.N*posts, "posts")
					if err != nil {
						b.Fatal(err)
					}
					costs[r][pc.name] = cost
					b.ReportMetric(cost.usecPerCall, "usec/evalsha")
					b.ReportMetric(cost.cmdsPerVote, "cmds/post")
					b.ReportMetric(float64(posts), "posts/op")
				})
			}
		}
		fmt.Printf("BenchmarkPostCost: the server's cost of a post, %d posts a batch, medians of %d rounds:\n%s",
			posts, rounds, voteCostTable(configs, costs, "post"))
	})
}
