package main

// This file holds the simulation: the plan of posts and votes drawn from the
// seed, and the run that plays it through the public API against a clock of
// its own, reading the front page as it goes.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/articlevote/voting"
)

// Config is one simulation's parameters.
type Config struct {
	Days             int           // days of posting
	PerDay           int           // articles posted a day
	Interesting      int           // of those, how many are interesting
	InterestingVotes int           // up-votes an interesting article gets over its first day
	EvenSpread       bool          // those votes come evenly spaced, not at random times
	Background       float64       // mean votes an ordinary article gets, mostly in its first hours
	DownShare        float64       // share of ordinary articles' votes that are down-votes
	Weight           float64       // score per vote
	Cutoff           time.Duration // voting closes this long after posting
	Seed             uint64
	Groups           []string      // topics; each article is in one or two
	Sample           time.Duration // how often the top of the site is read
	Top              int           // the size of "the top" (100 in the book)
	Workers          int           // goroutines casting votes
	Start            time.Time     // the simulated clock's start
}

// day is a simulated day.
const day = 24 * time.Hour

func (c Config) check() error {
	switch {
	case c.Days < 2:
		return fmt.Errorf("days %d: at least 2 are needed to watch an article for a day", c.Days)
	case c.PerDay < 1 || c.PerDay > 1_000_000:
		return fmt.Errorf("articles per day %d is outside 1..1000000", c.PerDay)
	case c.Interesting < 0 || c.Interesting > c.PerDay:
		return fmt.Errorf("interesting articles %d is outside 0..%d", c.Interesting, c.PerDay)
	case c.InterestingVotes < 0 || c.InterestingVotes > 100_000:
		return fmt.Errorf("votes per interesting article %d is outside 0..100000", c.InterestingVotes)
	case c.Background < 0 || c.Background > 10_000:
		return fmt.Errorf("background votes %v is outside 0..10000", c.Background)
	case c.DownShare < 0 || c.DownShare > 1:
		return fmt.Errorf("down-vote share %v is outside 0..1", c.DownShare)
	case c.Sample < time.Minute || day%c.Sample != 0:
		return fmt.Errorf("sample interval %v must be at least a minute and divide a day", c.Sample)
	case c.Top < 1 || c.Top > voting.MaxPageSize:
		return fmt.Errorf("top %d is outside 1..%d", c.Top, voting.MaxPageSize)
	case c.Workers < 1:
		return fmt.Errorf("workers %d is below 1", c.Workers)
	}
	return nil
}

// end is the simulated time the run covers.
func (c Config) end() time.Duration { return time.Duration(c.Days) * day }

// window is the span of posting times of the interesting articles that are
// measured: each is watched for at least a day, and, when there are three
// days or more, the first day (when the site starts empty) is left out.
func (c Config) window() (from, to time.Duration) {
	if c.Days >= 3 {
		from = day
	}
	return from, c.end() - day
}

// A post is a planned article.
type post struct {
	at          time.Duration // since Start, whole seconds
	poster      string
	title       string
	interesting bool
	groups      []string
}

// A vote is a planned vote.
type vote struct {
	at   time.Duration // since Start, whole seconds
	post int           // index into the plan's posts
	user string
	dir  voting.Direction
}

// A plan is every post and vote of a run, each in time order.
type plan struct {
	posts []post
	votes []vote
}

// makePlan draws the posts and votes from the seed. Times are whole seconds,
// so every score is an integer and exact in a float64.
func makePlan(c Config) plan {
	rng := rand.New(rand.NewPCG(c.Seed, 0x766f746573696d))
	secondsIn := func(d time.Duration) time.Duration {
		return time.Duration(rng.Int64N(int64(d/time.Second))) * time.Second
	}
	var p plan
	for d := 0; d < c.Days; d++ {
		times := make([]time.Duration, c.PerDay)
		for i := range times {
			times[i] = time.Duration(d)*day + secondsIn(day)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		interesting := map[int]bool{}
		for _, i := range rng.Perm(c.PerDay)[:c.Interesting] {
			interesting[i] = true
		}
		for i, at := range times {
			n := len(p.posts) + 1
			a := post{at: at, poster: fmt.Sprintf("poster%d", 1+rng.IntN(500)), interesting: interesting[i]}
			a.title = fmt.Sprintf("Story %04d", n)
			if a.interesting {
				a.title = fmt.Sprintf("Interesting story %04d", n)
			}
			if len(c.Groups) > 0 {
				g := rng.Perm(len(c.Groups))[:1+rng.IntN(min(2, len(c.Groups)))]
				for _, k := range g {
					a.groups = append(a.groups, c.Groups[k])
				}
			}
			p.posts = append(p.posts, a)
		}
	}
	for i, a := range p.posts {
		if a.interesting {
			// Spread over the first day, as the book assumes.
			for v := 1; v <= c.InterestingVotes; v++ {
				after := time.Second + secondsIn(day-time.Second)
				if c.EvenSpread {
					after = (day * time.Duration(v) / time.Duration(c.InterestingVotes+1)).Truncate(time.Second)
				}
				p.add(c, vote{at: a.at + after, post: i, user: fmt.Sprintf("voter%d", v), dir: voting.Up})
			}
			continue
		}
		// Mostly in the first hours: exponential, mean three hours, within a day.
		n := 0
		if c.Background > 0 {
			n = rng.IntN(int(math.Round(2*c.Background)) + 1)
		}
		for v := 1; v <= n; v++ {
			after := time.Duration(rng.ExpFloat64()*3*float64(time.Hour)).Truncate(time.Second) + time.Second
			dir := voting.Up
			if rng.Float64() < c.DownShare {
				dir = voting.Down
			}
			p.add(c, vote{at: a.at + min(after, day-time.Second), post: i, user: fmt.Sprintf("voter%d", v), dir: dir})
		}
	}
	sort.SliceStable(p.votes, func(i, j int) bool { return p.votes[i].at < p.votes[j].at })
	return p
}

// add keeps a vote that falls within the run.
func (p *plan) add(c Config, v vote) {
	if v.at < c.end() {
		p.votes = append(p.votes, v)
	}
}

// A row is one line of a printed front page.
type row struct {
	rank        int
	article     voting.Article
	age         time.Duration
	interesting bool
}

// A frontPage is the top of the site at the end of a day.
type frontPage struct {
	day  int
	rows []row
}

// result is what a run saw.
type result struct {
	ids    []string // the article id of each post
	fronts []frontPage
	// samples[i] counts the samples in which post i was in the top.
	samples []int
	// ranks[h][i] is post i's rank at hour h+1, 0 outside the ranks read
	// (only when ranks are asked for).
	ranks [][]int

	votes, posts, listings       int
	closed                       int // votes refused: voting had closed
	writeTime, listTime, runTime time.Duration
}

// simClock is the Stores' clock: whole seconds since Start, set by the run.
type simClock struct {
	start time.Time
	at    atomic.Int64 // nanoseconds since start
}

func (c *simClock) now() time.Time                      { return c.start.Add(time.Duration(c.at.Load())) }
func (c *simClock) set(d time.Duration)                 { c.at.Store(int64(d)) }
func (c *simClock) elapsedOf(t time.Time) time.Duration { return c.now().Sub(t) }

// stores are the views a run needs of one namespace, all on one clock.
type stores struct {
	write *voting.Store // posts and votes
	site  *voting.Store // the site's own page size: front page and groups
	top   *voting.Store // one page is the top
	all   *voting.Store // big pages, for every article's rank
}

// hooks let the caller see a run go by.
type hooks struct {
	// advance is called as the simulated clock moves by d (for a server
	// whose TTLs the caller controls).
	advance func(d time.Duration)
	// progress is called after each sample with the share done.
	progress func(done float64, at time.Duration)
}

// run plays the plan. It posts each article at its time, casts the votes
// of each sample interval with the configured workers, then reads the top
// of the site and each group's first page.
func run(ctx context.Context, c Config, p plan, s stores, clock *simClock, h hooks, ranks bool) (*result, error) {
	began := time.Now()
	r := &result{samples: make([]int, len(p.posts))}
	ids := make([]string, len(p.posts))
	index := map[string]int{}
	nextPost, nextVote := 0, 0
	for at := c.Sample; at <= c.end(); at += c.Sample {
		t := time.Now()
		for ; nextPost < len(p.posts) && p.posts[nextPost].at < at; nextPost++ {
			a := p.posts[nextPost]
			clock.set(a.at)
			id, err := s.write.PostArticle(ctx, a.poster, a.title, "https://news.example/"+fmt.Sprint(nextPost+1), a.groups...)
			if err != nil {
				return nil, err
			}
			ids[nextPost], index[id] = id, nextPost
			r.posts++
		}
		clock.set(at)
		last := nextVote
		for last < len(p.votes) && p.votes[last].at < at {
			last++
		}
		closed, err := castVotes(ctx, s.write, p.votes[nextVote:last], ids, c.Workers)
		if err != nil {
			return nil, err
		}
		r.closed += closed
		r.writeTime += time.Since(t)
		r.votes += last - nextVote
		nextVote = last
		if h.advance != nil {
			h.advance(c.Sample)
		}

		t = time.Now()
		if err := r.sample(ctx, c, s, index, at, ranks); err != nil {
			return nil, err
		}
		if at%day == 0 {
			front, err := s.site.GetArticles(ctx, 1, voting.ByScore)
			if err != nil {
				return nil, err
			}
			r.listings++
			fp := frontPage{day: int(at / day)}
			for i, a := range front {
				fp.rows = append(fp.rows, row{rank: i + 1, article: a, age: clock.elapsedOf(a.Posted), interesting: p.posts[index[a.ID]].interesting})
			}
			r.fronts = append(r.fronts, fp)
		}
		r.listTime += time.Since(t)
		if h.progress != nil {
			h.progress(float64(at)/float64(c.end()), at)
		}
	}
	r.ids = ids
	r.runTime = time.Since(began)
	return r, nil
}

// sample reads the top of the site, each group's first page by score (and
// the first group's by time), and on the hour, when asked, every rank.
func (r *result) sample(ctx context.Context, c Config, s stores, index map[string]int, at time.Duration, ranks bool) error {
	top, err := s.top.GetArticles(ctx, 1, voting.ByScore)
	if err != nil {
		return err
	}
	r.listings++
	for _, a := range top {
		r.samples[index[a.ID]]++
	}
	for i, g := range c.Groups {
		if _, err := s.site.GetGroupArticles(ctx, g, 1, voting.ByScore); err != nil {
			return err
		}
		r.listings++
		if i == 0 {
			if _, err := s.site.GetGroupArticles(ctx, g, 1, voting.ByTime); err != nil {
				return err
			}
			r.listings++
		}
	}
	if !ranks || at%time.Hour != 0 {
		return nil
	}
	hour := make([]int, len(r.samples))
	for page, rank := 1, 1; ; page++ {
		articles, err := s.all.GetArticles(ctx, page, voting.ByScore)
		if err != nil {
			return err
		}
		r.listings++
		for _, a := range articles {
			hour[index[a.ID]] = rank
			rank++
		}
		if len(articles) < s.all.PageSize() {
			break
		}
	}
	r.ranks = append(r.ranks, hour)
	return nil
}

// castVotes casts votes with workers goroutines and counts those refused
// because voting had closed. Their order within one interval does not change
// the result: a vote adds a whole multiple of the weight to an integer score.
func castVotes(ctx context.Context, s *voting.Store, votes []vote, ids []string, workers int) (closed int, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		next    atomic.Int64
		refused atomic.Int64
		first   error
		once    sync.Once
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(votes) {
					return
				}
				v := votes[i]
				err := s.Vote(ctx, v.user, ids[v.post], v.dir)
				if errors.Is(err, voting.ErrVotingClosed) {
					refused.Add(1)
				} else if err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return int(refused.Load()), first
}

// A summary is the measure of the book's claim.
type summary struct {
	measured    int           // interesting articles in the window
	stayed      int           // of those, in the top for at least a day
	median, min time.Duration // time in the top
	ordinary    int           // ordinary articles ever in the top
	ordinaryAll int
}

// summarize measures the claim from the samples.
func summarize(c Config, p plan, samples []int) summary {
	from, to := c.window()
	var s summary
	var times []time.Duration
	for i, a := range p.posts {
		if !a.interesting {
			s.ordinaryAll++
			if samples[i] > 0 {
				s.ordinary++
			}
			continue
		}
		if a.at < from || a.at >= to {
			continue
		}
		in := time.Duration(samples[i]) * c.Sample
		times = append(times, in)
		if in >= day {
			s.stayed++
		}
	}
	s.measured = len(times)
	if len(times) > 0 {
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		s.min = times[0]
		s.median = times[len(times)/2]
		if len(times)%2 == 0 {
			s.median = (times[len(times)/2-1] + times[len(times)/2]) / 2
		}
	}
	return s
}
