package main

import (
	"math"
	"reflect"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := generate(7, 500, 5000, 1000, now)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := generate(7, 500, 5000, 1000, now)
	if !reflect.DeepEqual(a, b) {
		t.Error("two datasets of one seed differ")
	}
	c, _ := generate(8, 500, 5000, 1000, now)
	if reflect.DeepEqual(a.votes, c.votes) {
		t.Error("datasets of seeds 7 and 8 have the same votes")
	}
}

func TestGenerateMakesDistinctSkewedVotes(t *testing.T) {
	const posts, votes = 1000, 20000
	d, err := generate(1, posts, votes, 5000, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.votes) != votes {
		t.Fatalf("%d votes, want %d", len(d.votes), votes)
	}
	seen := map[vote]bool{}
	var up, down int32
	perPost := make([]int, posts)
	for _, v := range d.votes {
		key := vote{post: v.post, voter: v.voter}
		if seen[key] {
			t.Fatalf("user %d votes twice on post %d", v.voter, v.post)
		}
		seen[key] = true
		perPost[v.post]++
		if v.up {
			up++
		} else {
			down++
		}
	}
	var sumUp, sumDown int32
	for i := range posts {
		sumUp += d.up[i]
		sumDown += d.down[i]
		if int(d.up[i]-1+d.down[i]) != perPost[i] {
			t.Fatalf("post %d counts %d up (its poster's included) and %d down for %d votes", i, d.up[i], d.down[i], perPost[i])
		}
	}
	if sumUp != up+posts || sumDown != down {
		t.Errorf("counts sum to %d up, %d down; the votes are %d up (and %d posters'), %d down", sumUp, sumDown, up, posts, down)
	}
	if share := float64(up) / votes; math.Abs(share-upShare/100.0) > 0.02 {
		t.Errorf("%.3f of the votes are up, want about %v", share, upShare/100.0)
	}
	// Zipf: the most popular post draws far more than the mean, the least
	// far less.
	mean := float64(votes) / posts
	if top, last := perPost[d.popular[0]], perPost[d.popular[posts-1]]; float64(top) < 5*mean || float64(last) > mean {
		t.Errorf("the most popular post has %d votes, the least %d, the mean is %v", top, last, mean)
	}
}

func TestGenerateRefusesTooFewVoters(t *testing.T) {
	if _, err := generate(1, 2, 4, 2, now); err != nil {
		t.Errorf("2 posts x 2 voters can hold 4 votes: %v", err)
	}
	if _, err := generate(1, 2, 5, 2, now); err == nil {
		t.Error("2 posts x 2 voters took 5 distinct votes")
	}
}

func TestPostsAreWithinTheSpanInOrder(t *testing.T) {
	d, _ := generate(1, 1000, 0, 1, now.Add(123*time.Millisecond))
	if got := d.published(0); !got.Equal(now.Add(-span)) {
		t.Errorf("the first post is at %v, want %v", got, now.Add(-span))
	}
	for i := 1; i < d.posts; i++ {
		if p, q := d.published(i-1), d.published(i); !q.After(p) || q.After(now) || q.Nanosecond() != 0 {
			t.Fatalf("post %d at %v, after %v", i, q, p)
		}
	}
}

func TestHotIsRedditsAsTheLibraryHasIt(t *testing.T) {
	epoch := time.Unix(1134028003, 0)
	for _, tc := range []struct {
		net    int64
		posted time.Time
		want   float64
	}{
		{0, epoch, 0},
		{1, epoch, 0},
		{10, epoch, 1},
		{-100, epoch, -2},
		{1000, epoch.Add(45000 * time.Second), 4},
		{-1, epoch.Add(-90000 * time.Second), -2},
	} {
		if got := hot(tc.net, tc.posted); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("hot(%d, %v) = %v, want %v", tc.net, tc.posted, got, tc.want)
		}
	}
}

func TestVoteAtChangesTheVoteEachTime(t *testing.T) {
	const n, users = 7, 3
	for client := range users {
		last := map[int]bool{}
		for i := range 5 * n {
			target, up := voteAt(n, users, client, i)
			if target < 0 || target >= n {
				t.Fatalf("client %d's vote %d on target %d of %d", client, i, target, n)
			}
			if prev, ok := last[target]; ok && prev == up {
				t.Fatalf("client %d's vote %d repeats its vote on target %d (up %v)", client, i, target, up)
			}
			last[target] = up
		}
	}
	if a, _ := voteAt(n, users, 0, 0); a == func() int { b, _ := voteAt(n, users, 1, 0); return b }() {
		t.Error("clients 0 and 1 start on the same target")
	}
}

func TestNewTargets(t *testing.T) {
	d, _ := generate(1, 3000, 100, 100, now)
	ids := make([]string, d.posts)
	for i := range ids {
		ids[i] = []string{"1", "22", "333"}[i%3]
	}
	tg, err := newTargets(d, ids, 17)
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.votes) != voteTargets || len(tg.ranks) != voteTargets || len(tg.users) != 17 || tg.deep != 120 {
		t.Errorf("%d vote targets, %d rank targets, %d users, deep page %d", len(tg.votes), len(tg.ranks), len(tg.users), tg.deep)
	}
	seen := map[int]bool{}
	for _, p := range tg.votes {
		if seen[p] {
			t.Fatalf("post %d is a vote target twice", p)
		}
		seen[p] = true
	}
	if tg.pgIDs[4] != 22 {
		t.Errorf("post 4's Postgres id is %d, want 22", tg.pgIDs[4])
	}
	if _, err := newTargets(d, append(ids[:len(ids)-1:len(ids)-1], "x"), 2); err == nil {
		t.Error("an id that is no bigint was taken")
	}
	big, _ := generate(1, 100_000, 0, 1, now)
	if tg, _ := newTargets(big, make([]string, 0), 2); tg != nil && tg.deep != 200 {
		t.Errorf("the deep page of 100k posts is %d, want 200", tg.deep)
	}
}
