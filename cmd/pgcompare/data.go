package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// span is how far back the posts go: within the library's cutoff (a
// week), so that every post still takes votes during the run, with a day
// to spare.
const span = 6 * 24 * time.Hour

// The skew of votes over posts: the post of popularity rank k (from 0)
// draws a vote with probability proportional to (zipfV + k)^-zipfS. With
// 100k posts the most popular holds about 0.4 % of the votes, the
// thousandth 0.013 %.
const zipfS, zipfV = 1.1, 50.0

// upShare is how many votes in a hundred are up-votes.
const upShare = 80

// A dataset is what both stores are loaded with: posts by their index,
// posted span apart over the span before now, and distinct votes.
type dataset struct {
	now   time.Time // the load's now, whole seconds
	posts int
	votes []vote
	// popular lists the posts by popularity rank: the Zipf draw's rank k
	// is post popular[k], so that popularity does not follow age.
	popular []int32
	// up and down are each post's counts once every vote is in: the
	// poster's own up-vote, which the library counts at posting, and
	// the votes.
	up, down []int32
}

// A vote is one user's vote on a post.
type vote struct {
	post, voter int32
	up          bool
}

// generate makes a dataset from seed, the same for the same arguments:
// posts posts, and votes distinct (post, voter) pairs, the post by the
// Zipf skew, the voter uniformly among voters, up four times in five.
func generate(seed uint64, posts, votes, voters int, now time.Time) (*dataset, error) {
	r := rand.New(rand.NewPCG(seed, 1))
	d := &dataset{
		now:     now.Truncate(time.Second),
		posts:   posts,
		votes:   make([]vote, 0, votes),
		popular: make([]int32, posts),
		up:      make([]int32, posts),
		down:    make([]int32, posts),
	}
	for k, i := range r.Perm(posts) {
		d.popular[k] = int32(i)
	}
	for i := range d.up {
		d.up[i] = 1
	}
	z := rand.NewZipf(r, zipfS, zipfV, uint64(posts-1))
	seen := make(map[uint64]struct{}, votes)
	// A post can hold at most voters votes; past that draws repeat.
	for tries := 0; len(d.votes) < votes; tries++ {
		if tries > 20*votes+1000 {
			return nil, fmt.Errorf("drew %d distinct votes of %d in %d tries: give more -voters", len(d.votes), votes, tries)
		}
		v := vote{post: d.popular[z.Uint64()], voter: int32(r.IntN(voters)), up: r.IntN(100) < upShare}
		key := uint64(v.post)<<32 | uint64(v.voter)
		if _, ok := seen[key]; ok {
			continue
		}
		seen[key] = struct{}{}
		d.votes = append(d.votes, v)
		if v.up {
			d.up[v.post]++
		} else {
			d.down[v.post]++
		}
	}
	return d, nil
}

// published is post i's posting time: the oldest span before now, each
// later one span/posts after the one before, in whole seconds.
func (d *dataset) published(i int) time.Time {
	step := int64(span/time.Second) * int64(i) / int64(d.posts)
	return d.now.Add(-span + time.Duration(step)*time.Second)
}

// A post's fields, and a voter's name, the same in both stores.
func title(i int) string   { return fmt.Sprintf("Article %d, with a title of a usual length", i) }
func link(i int) string    { return fmt.Sprintf("https://news.example.com/2026/11/article-%d", i) }
func poster(i int) string  { return fmt.Sprintf("p%d", i%1000) }
func voter(k int32) string { return fmt.Sprintf("u%d", k) }

// hot is Reddit's hot ranking, as the library's ByHot computes it: with s
// the net votes (the poster's own counted) and t the posting time in Unix
// seconds, sign(s) log10(max(|s|, 1)) + (t - 1134028003) / 45000. Postgres
// computes the same in SQL (reddit_hot).
func hot(net int64, posted time.Time) float64 {
	s, sign := float64(net), 0.0
	if s > 0 {
		sign = 1
	} else if s < 0 {
		sign = -1
	}
	return sign*math.Log10(math.Max(math.Abs(s), 1)) + float64(posted.Unix()-1134028003)/45000
}

// targets are what the measured operations work on, by post index and by
// id, the same ids in both stores.
type targets struct {
	ids   []string // the library's id of each post, in Postgres as a bigint
	pgIDs []int64
	votes []int    // distinct posts, in the order of a Zipf draw: voted on
	ranks []int    // posts drawn uniformly: ranked
	users []string // the users who vote, one a client; the last for counted runs
	// deep is the deep page of top measured: 200, or the last page of
	// fewer posts.
	deep int
}

// voteTargets is how many distinct posts the measured votes go round.
const voteTargets = 1000

func newTargets(d *dataset, ids []string, users int) (*targets, error) {
	t := &targets{ids: ids, pgIDs: make([]int64, len(ids)), users: make([]string, users),
		deep: min(200, (d.posts+pageSize-1)/pageSize)}
	for i, id := range ids {
		var err error
		if t.pgIDs[i], err = strconv.ParseInt(id, 10, 64); err != nil {
			return nil, fmt.Errorf("the library's id %q of post %d is no bigint: %w", id, i, err)
		}
	}
	for c := range t.users {
		t.users[c] = fmt.Sprintf("bench%d", c)
	}
	r := rand.New(rand.NewPCG(uint64(d.posts), 2))
	z := rand.NewZipf(r, zipfS, zipfV, uint64(d.posts-1))
	seen := map[int]bool{}
	for tries := 0; len(t.votes) < min(voteTargets, d.posts) && tries < 100*voteTargets; tries++ {
		if p := int(d.popular[z.Uint64()]); !seen[p] {
			seen[p] = true
			t.votes = append(t.votes, p)
		}
	}
	for range voteTargets {
		t.ranks = append(t.ranks, r.IntN(d.posts))
	}
	return t, nil
}

// voteAt is client's i-th vote of users, on n targets: client c starts at
// target c n / users, to spread the clients over the posts, and goes
// round them, up-voting on even turns and down-voting on odd ones, so that
// each vote changes the user's vote on the post (a new vote, or a switch).
func voteAt(n, users, client, i int) (target int, up bool) {
	j := client*n/users + i
	return j % n, j/n%2 == 0
}

// rankAt is client's i-th ranked target of n: each client goes round them
// from a place of its own.
func rankAt(n, client, i int) int { return (client*101 + i) % n }
