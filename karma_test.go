package voting_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// Tests of karma (karma.go): moved by every vote, switch and take-back, by
// deletions, and counted by Reindex, cut short or not.

// karmaOf reads user's karma, failing the test on an error.
func karmaOf(t *testing.T, s *voting.Store, user string) int64 {
	t.Helper()
	return karmaBy(t, s.Karma, user)
}

// karmaBy reads user's karma with read, Karma or CommentKarma, failing
// the test on an error.
func karmaBy(t *testing.T, read func(context.Context, string) (int64, error), user string) int64 {
	t.Helper()
	k, err := read(ctx, user)
	if err != nil {
		t.Fatalf("karma of %s: %v", user, err)
	}
	return k
}

func TestKarmaMovesWithEveryVote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	id := e.post("alice", "first")
	other := e.post("alice", "second")
	steps := []struct {
		user string
		id   string
		dir  voting.Direction
		want int64
	}{
		{"bob", id, voting.Up, 1},
		{"carol", id, voting.Down, 0},
		{"bob", id, voting.Down, -2},   // a switch
		{"bob", id, voting.None, -1},   // a take-back
		{"alice", id, voting.Down, -1}, // the poster's own vote never counts
		{"alice", id, voting.None, -1},
		{"dave", other, voting.Up, 0},
		{"erin", other, voting.Up, 1},
	}
	for _, st := range steps {
		e.vote(st.user, st.id, st.dir)
		if got := karmaOf(t, e.store, "alice"); got != st.want {
			t.Fatalf("after %s votes %v on %s, karma = %d, want %d", st.user, st.dir, st.id, got, st.want)
		}
	}
	if got := e.hash(e.article(id))["karma"]; got != "-1" {
		t.Errorf("article %s's karma field = %q, want -1", id, got)
	}
	if got := e.hash(e.article(other))["karma"]; got != "2" {
		t.Errorf("article %s's karma field = %q, want 2", other, got)
	}
	e.post("bob", "bob's")
	e.vote("alice", "3", voting.Up)
	e.vote("carol", "3", voting.Up)
	top, err := two(e.store.TopPosters(ctx, voting.Paging{Page: 1}))
	want := []voting.UserKarma{{User: "bob", Karma: 2}, {User: "alice", Karma: 1}}
	if err != nil || !reflect.DeepEqual(top, want) {
		t.Errorf("TopPosters = %v, %v; want %v", top, err, want)
	}
	if n, err := e.store.CountPosters(ctx); n != 2 || err != nil {
		t.Errorf("CountPosters = %d, %v; want 2", n, err)
	}
	if got := karmaOf(t, e.store, "nobody"); got != 0 {
		t.Errorf("karma of a user with no article = %d, want 0", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// A deletion takes the article's part away; the last takes the poster
	// out of karma:.
	if err := e.store.DeleteArticle(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, e.store, "alice"); got != -1 {
		t.Errorf("after deleting %s, karma = %d, want -1", other, got)
	}
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("karma:")); !reflect.DeepEqual(got, []string{"bob=2"}) {
		t.Errorf("karma: = %v after alice's last article went, want [bob=2]", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// A vote that changes nothing writes nothing.
	before := e.dump()
	e.vote("alice", "3", voting.Up)
	if after := e.dump(); after != before {
		t.Errorf("a repeated vote wrote:\n%s\nwas:\n%s", after, before)
	}
}

func TestKarmaNeedsItsOption(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("alice", "first")
	if _, err := e.store.Karma(ctx, "alice"); !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), "WithKarma") {
		t.Errorf("Karma without WithKarma = %v, want ErrInvalid naming WithKarma", err)
	}
	if _, err := two(e.store.TopPosters(ctx, voting.Paging{Page: 1})); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("TopPosters without WithKarma = %v, want ErrInvalid", err)
	}
	k := e.with(voting.WithKarma())
	for _, bad := range []func() error{
		func() error { _, err := k.Karma(ctx, ""); return err },
		func() error { _, err := two(k.TopPosters(ctx, voting.Paging{Page: -1})); return err },
	} {
		if err := bad(); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("bad input: %v, want ErrInvalid", err)
		}
	}
}

// TestReindexCountsKarma: karma of articles posted and voted on without it
// is ErrNotIndexed until Reindex counts it, from the voter sets while
// voting is open and from the counts with the post's up-vote once it has
// closed; a vote by a karma Store on an uncounted article counts it.
func TestReindexCountsKarma(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	open := e.post("alice", "open")
	e.vote("bob", open, voting.Up)
	e.vote("carol", open, voting.Up)
	e.vote("alice", open, voting.Down) // the poster's own switch
	e.bookPost("2", "alice", float64(start.Unix()))
	e.bookVote("dave", "2")
	k := e.with(voting.WithKarma())
	if _, err := k.Karma(ctx, "alice"); !errors.Is(err, voting.ErrNotIndexed) || !strings.Contains(err.Error(), "run Reindex") {
		t.Errorf("Karma before Reindex = %v, want ErrNotIndexed saying to run Reindex", err)
	}
	if _, err := two(k.TopPosters(ctx, voting.Paging{Page: 1})); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("TopPosters before Reindex = %v, want ErrNotIndexed", err)
	}
	// A vote by the karma Store counts the article it meets in full.
	if err := k.Vote(ctx, "erin", open, voting.Up); err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.article(open))["karma"]; got != "3" {
		t.Errorf("karma field after the first vote with karma = %q, want 3 (bob, carol, erin)", got)
	}
	e.store = k
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	// open: 3 by others; 2: dave's 1.
	if got := karmaOf(t, k, "alice"); got != 4 {
		t.Errorf("karma after Reindex = %d, want 4", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, k, "alice"); got != 4 {
		t.Errorf("karma after a second Reindex = %d, want 4", got)
	}

	// Once voting has closed, Reindex keeps the part an article has, and
	// gives one with no part the counts less the post's up-vote.
	e.bookPost("3", "frank", float64(start.Unix()))
	e.bookVote("gina", "3")
	e.bookVote("hal", "3")
	e.advance(8 * 24 * time.Hour)
	e.do("DEL", e.key("voted:3"), e.key("voted:"+open), e.key("voted:2"), e.key("downvoted:"+open))
	e.do("HDEL", e.key("indexed:"), "karma")
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, k, "frank"); got != 2 {
		t.Errorf("frank's karma after Reindex of a closed article = %d, want 2", got)
	}
	if got := karmaOf(t, k, "alice"); got != 4 {
		t.Errorf("alice's karma after Reindex once voting closed = %d, want 4", got)
	}
}

// edgeVote votes through s and fails the test on an error.
func edgeVote(t *testing.T, s *voting.Store, user, id string, dir voting.Direction) {
	t.Helper()
	if err := s.Vote(ctx, user, id, dir); err != nil {
		t.Fatalf("Vote(%s, %s, %v): %v", user, id, dir, err)
	}
}

// TestDeleteKeepsKarmaOfArticlesOutsideTheUsersIndex: an article the book's
// code posted is not in posts:<user> until Reindex, but a karma Store's vote
// gives it a part of its poster's karma. Deleting the poster's one article
// in posts:<user> then takes the poster out of karma: altogether (delete.lua
// takes "last in posts:" for "last article"), losing the book article's
// part; Reindex does not repair it, since it moves karma: only by the change
// of each article's part, and then marks karma built.
func TestDeleteKeepsKarmaOfArticlesOutsideTheUsersIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	e.bookPost("1", "alice", float64(start.Unix()))
	edgeVote(t, e.store, "bob", "1", voting.Up) // counted from scratch: part 1
	if got := e.hash(e.article("1"))["karma"]; got != "1" {
		t.Fatalf("book article's part after bob's vote = %q, want 1", got)
	}
	second := e.post("alice", "second")
	if err := e.store.DeleteArticle(ctx, second); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, e.store, "alice"); got != 1 {
		t.Errorf("alice's karma after Reindex = %d, want 1 (bob's up-vote on article 1)", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestKarmaSelfVoteSequences: every order of the poster's own
// votes and others' votes and switches moves karma by the others' votes
// alone, on a karma Store from the start.
func TestKarmaSelfVoteSequences(t *testing.T) {
	t.Parallel()
	type step struct {
		user string
		dir  voting.Direction
	}
	seqs := [][]step{
		{{"alice", voting.Down}, {"alice", voting.None}, {"alice", voting.Up}},
		{{"bob", voting.Up}, {"alice", voting.Down}, {"bob", voting.Down}, {"alice", voting.None}, {"bob", voting.None}},
		{{"alice", voting.None}, {"bob", voting.Down}, {"carol", voting.Down}, {"alice", voting.Down}, {"bob", voting.Up}},
		{{"bob", voting.Down}, {"bob", voting.Up}, {"alice", voting.Down}, {"alice", voting.Up}, {"carol", voting.Up}, {"carol", voting.Down}},
	}
	for i, seq := range seqs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			e := newEnv(t, voting.WithKarma())
			id := e.post("alice", "self")
			other := e.post("alice", "other")
			e.vote("dave", other, voting.Down)
			votes := map[string]int64{}
			for _, s := range seq {
				e.vote(s.user, id, s.dir)
				switch s.dir {
				case voting.Up:
					votes[s.user] = 1
				case voting.Down:
					votes[s.user] = -1
				default:
					votes[s.user] = 0
				}
				want := int64(-1) // dave on the other article
				for u, v := range votes {
					if u != "alice" {
						want += v
					}
				}
				if got := karmaOf(t, e.store, "alice"); got != want {
					t.Errorf("after %s %v: karma %d, want %d", s.user, s.dir, got, want)
				}
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			}
		})
	}
}

// TestKarmaCountedFromScratch: an article posted and voted on,
// the poster's own switches too, by a Store without karma; a karma Store's
// first vote counts its part in full, whoever casts it (the poster too).
func TestKarmaCountedFromScratch(t *testing.T) {
	t.Parallel()
	for _, first := range []struct {
		user string
		dir  voting.Direction
	}{{"alice", voting.None}, {"alice", voting.Up}, {"carol", voting.Down}, {"bob", voting.None}, {"carol", voting.Up}} {
		t.Run(first.user+fmt.Sprint(first.dir), func(t *testing.T) {
			e := newEnv(t)
			id := e.post("alice", "plain")
			e.vote("bob", id, voting.Up)
			e.vote("dave", id, voting.Down)
			e.vote("alice", id, voting.Down) // the poster's own switch
			k := e.with(voting.WithKarma())
			edgeVote(t, k, first.user, id, first.dir)
			want := map[string]int64{"bob": 1, "dave": -1}
			switch {
			case first.user == "alice":
			case first.dir == voting.Up:
				want[first.user] = 1
			case first.dir == voting.Down:
				want[first.user] = -1
			default:
				want[first.user] = 0
			}
			sum := int64(0)
			for _, v := range want {
				sum += v
			}
			if got := e.hash(e.article(id))["karma"]; got != fmt.Sprint(sum) {
				t.Errorf("part after the karma Store's first vote = %q, want %d", got, sum)
			}
			e.store = k
			if err := k.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			if got := karmaOf(t, k, "alice"); got != sum {
				t.Errorf("karma after Reindex = %d, want %d", got, sum)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestKarmaDeleteOfParts: a poster with articles of part 0,
// negative and positive; each deletion takes its part away, the last the
// poster.
func TestKarmaDeleteOfParts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	zero := e.post("alice", "zero")
	neg := e.post("alice", "negative")
	pos := e.post("alice", "positive")
	e.vote("alice", zero, voting.Down)
	e.vote("bob", neg, voting.Down)
	e.vote("carol", neg, voting.Down)
	e.vote("alice", neg, voting.None)
	e.vote("bob", pos, voting.Up)
	if got := karmaOf(t, e.store, "alice"); got != -1 {
		t.Fatalf("karma = %d, want -1", got)
	}
	for _, c := range []struct {
		id   string
		want int64
	}{{zero, -1}, {pos, -2}, {neg, 0}} {
		if err := e.store.DeleteArticle(ctx, c.id); err != nil {
			t.Fatal(err)
		}
		if got := karmaOf(t, e.store, "alice"); got != c.want {
			t.Errorf("after deleting %s: karma %d, want %d", c.id, got, c.want)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	if n, err := e.store.CountPosters(ctx); err != nil || n != 0 {
		t.Errorf("CountPosters after the last deletion = %d, %v; want 0", n, err)
	}
}

// TestReindexKarmaCutShort: Reindex of karma cut short at every
// point and resumed, then run again, counts each article once.
func TestReindexKarmaCutShort(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ids []string
	for i := 0; i < 30; i++ {
		e.advance(time.Minute)
		poster := fmt.Sprintf("p%d", i%3)
		id := e.post(poster, fmt.Sprintf("a%d", i))
		ids = append(ids, id)
		for v := 0; v < i%5; v++ {
			dir := voting.Up
			if v%2 == 1 {
				dir = voting.Down
			}
			e.vote(fmt.Sprintf("v%d", v), id, dir)
		}
		if i%4 == 0 {
			e.vote(poster, id, voting.Down)
		}
	}
	k := e.with(voting.WithKarma())
	voting.SetBatches(k, 3, 2)
	edgeVote(t, k, "z", ids[7], voting.Up) // one article counted by a vote
	e.store = k
	for i := 0; ; i++ {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(i+1)*2*time.Millisecond)
		_, err := k.ReindexWithProgress(cctx, nil)
		cancel()
		if err == nil {
			break
		}
		if i > 500 {
			t.Fatalf("Reindex never finished: %v", err)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	before := e.dump()
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	if got, want := karmaDump(e), karmaDumpOf(before, e); got != want {
		t.Errorf("karma: after a second Reindex = %s, was %s", got, want)
	}
}

// karmaDump is karma: as a line.
func karmaDump(e *env) string { return strings.Join(e.zset(e.key("karma:")), " ") }

// karmaDumpOf picks karma:'s line out of a dump.
func karmaDumpOf(dump string, e *env) string {
	for _, line := range strings.Split(dump, "\n") {
		if strings.HasPrefix(line, e.key("karma:")+" ") {
			i, j := strings.Index(line, "["), strings.LastIndex(line, "]")
			return line[i+1 : j]
		}
	}
	return ""
}

// TestAVoteByAStoreWithoutKarmaMovesIt: a vote by a Store not given
// WithKarma left the poster's karma where it was, stale and still marked
// counted, until Reindex; the namespace keeps karma, so every Store's vote
// moves it, and Reindex finds nothing to put right.
func TestAVoteByAStoreWithoutKarmaMovesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	id := e.post("alice", "a")
	plain := e.with()
	edgeVote(t, plain, "bob", id, voting.Up)
	if got := karmaOf(t, e.store, "alice"); got != 1 {
		t.Errorf("karma after a vote by a Store not given WithKarma = %d, want 1", got)
	}
	if got := karmaOf(t, plain, "alice"); got != 1 {
		t.Errorf("karma read by a Store not given WithKarma = %d, want 1", got)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, e.store, "alice"); got != 1 {
		t.Errorf("karma after Reindex = %d, want 1", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}
