package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/articlevote/voting"
)

// Sample data: users, groups and words for titles.
var (
	sampleUsers  = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "yolanda"}
	sampleGroups = []string{"programming", "redis", "databases", "science", "books", "music"}
	sampleWords  = []string{"A faster", "The case for", "Notes on", "Why we left", "Inside", "A tour of", "Rethinking", "The hidden cost of", "Lessons from", "How to read"}
	sampleThings = []string{"sorted sets", "Lua scripts", "consensus", "the tail latency", "B-trees", "garbage collection", "vinyl", "a small telescope", "old manuals", "the compiler"}
)

// seed posts n sample articles over the past six days, each in one or two
// groups, with votes from the sample users that make some rise and some
// sink: a few are loved, a few are disputed, most get a handful.
func seed(ctx context.Context, pool voting.Pool, prefix string, n int, now time.Time) error {
	rng := rand.New(rand.NewPCG(1, 2))
	clock := now.Add(-6 * 24 * time.Hour)
	// A Store of the same namespace and options whose clock walks through
	// the past six days, so that the articles have their ages.
	s, err := newStore(pool, prefix, func() time.Time { return clock })
	if err != nil {
		return err
	}
	step := 6 * 24 * time.Hour / time.Duration(n+1)
	for i := range n {
		clock = clock.Add(step)
		poster := sampleUsers[rng.IntN(len(sampleUsers))]
		title := fmt.Sprintf("%s %s", sampleWords[rng.IntN(len(sampleWords))], sampleThings[rng.IntN(len(sampleThings))])
		groups := []string{sampleGroups[rng.IntN(len(sampleGroups))]}
		if rng.IntN(3) == 0 {
			groups = append(groups, sampleGroups[rng.IntN(len(sampleGroups))])
		}
		link := fmt.Sprintf("https://example.com/%s/%d", groups[0], i+1)
		id, err := s.PostArticle(ctx, poster, title, link, groups...)
		if err != nil {
			return err
		}
		ups, downs := rng.IntN(4), rng.IntN(2)
		switch rng.IntN(10) {
		case 0:
			ups = 8 + rng.IntN(12) // loved
		case 1:
			ups, downs = 4+rng.IntN(6), 4+rng.IntN(6) // disputed
		}
		for j, user := range rng.Perm(len(sampleUsers)) {
			dir := voting.Up
			switch {
			case j >= ups+downs:
				continue
			case j >= ups:
				dir = voting.Down
			}
			if err := s.Vote(ctx, sampleUsers[user], id, dir); err != nil {
				return err
			}
		}
	}
	return nil
}
