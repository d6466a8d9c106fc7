package voting_test

// Tests of comment karma (WithKarma): kept apart from the articles' karma,
// moved by every vote of anyone but the poster, taken away by deletions,
// and counted by Reindex for comments written without it.

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

// commentKarmaOf reads user's comment karma, failing the test on an error.
func commentKarmaOf(t *testing.T, s *voting.Store, user string) int64 {
	t.Helper()
	return karmaBy(t, s.CommentKarma, user)
}

func TestCommentKarmaMovesWithEveryVote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	a := e.post("alice", "discussed")
	c := e.comment("bob", a, "", "first!")
	if got := e.hash(e.key("comment:" + c))["karma"]; got != "0" {
		t.Errorf("a new comment's karma field = %q, want 0", got)
	}
	if got := e.zset(e.key("karma-comments:")); !reflect.DeepEqual(got, []string{"bob=0"}) {
		t.Errorf("karma-comments: = %v after bob's first comment, want [bob=0]", got)
	}
	steps := []struct {
		user string
		dir  voting.Direction
		want int64
	}{
		{"carol", voting.Up, 1},
		{"dave", voting.Down, 0},
		{"carol", voting.Down, -2}, // a switch
		{"carol", voting.None, -1}, // a take-back
		{"bob", voting.Down, -1},   // the poster's own vote never counts
		{"bob", voting.None, -1},
		{"erin", voting.Up, 0},
	}
	for _, st := range steps {
		e.voteComment(st.user, c, st.dir)
		if got := commentKarmaOf(t, e.store, "bob"); got != st.want {
			t.Fatalf("after %s votes %v, comment karma = %d, want %d", st.user, st.dir, got, st.want)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	// Kept apart: the article's karma and the commenter's article karma
	// do not move with comment votes.
	if got := karmaOf(t, e.store, "alice"); got != 0 {
		t.Errorf("alice's karma = %d after votes on a comment, want 0", got)
	}
	if got := karmaOf(t, e.store, "bob"); got != 0 {
		t.Errorf("bob's article karma = %d, want 0: he has no article", got)
	}
	if got := e.zset(e.key("karma:")); !reflect.DeepEqual(got, []string{"alice=0"}) {
		t.Errorf("karma: = %v, want only the article's poster", got)
	}

	r := e.comment("carol", a, c, "a reply")
	e.voteComment("bob", r, voting.Up)
	e.voteComment("dave", r, voting.Up)
	top, next, err := e.store.TopCommenters(ctx, voting.Paging{Page: 1})
	want := []voting.UserKarma{{User: "carol", Karma: 2}, {User: "bob", Karma: 0}}
	if err != nil || next != "" || !reflect.DeepEqual(top, want) {
		t.Errorf("TopCommenters = %v, %q, %v; want %v", top, next, err, want)
	}
	first, next, err := e.store.TopCommenters(ctx, voting.Paging{Size: 1})
	if err != nil || len(first) != 1 || first[0].User != "carol" || next == "" {
		t.Fatalf("TopCommenters by cursor = %v, %q, %v", first, next, err)
	}
	rest, _, err := e.store.TopCommenters(ctx, voting.Paging{Size: 1, After: next})
	if err != nil || !reflect.DeepEqual(rest, []voting.UserKarma{{User: "bob", Karma: 0}}) {
		t.Errorf("TopCommenters after the cursor = %v, %v; want bob", rest, err)
	}
	if _, _, err := e.store.TopPosters(ctx, voting.Paging{Size: 1, After: next}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("TopPosters with TopCommenters' cursor = %v, want ErrInvalid", err)
	}
	if got := commentKarmaOf(t, e.store, "nobody"); got != 0 {
		t.Errorf("comment karma of a user with no comment = %d, want 0", got)
	}

	// A tombstone's part leaves its poster's sum; the user's last comment
	// takes them out of karma-comments:.
	e.voteComment("carol", c, voting.Up)
	if err := e.store.DeleteComment(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.key("comment:" + c))["karma"]; got != "" {
		t.Errorf("the tombstone keeps its karma field %q", got)
	}
	if got := e.zset(e.key("karma-comments:")); !reflect.DeepEqual(got, []string{"carol=2"}) {
		t.Errorf("karma-comments: = %v after bob's only comment went, want [carol=2]", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	second := e.comment("carol", a, "", "another")
	e.voteComment("dave", second, voting.Down)
	if err := e.store.DeleteComment(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got := commentKarmaOf(t, e.store, "carol"); got != -1 {
		t.Errorf("carol's comment karma = %d after her reply went, want -1", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// A vote that changes nothing writes nothing.
	before := e.dump()
	e.voteComment("dave", second, voting.Down)
	if after := e.dump(); after != before {
		t.Errorf("a repeated vote wrote:\n%s\nwas:\n%s", after, before)
	}
}

// TestDeleteArticleTakesItsCommentKarma: the purge of an article's
// discussion takes each comment's part from its poster's sum, and a
// commenter with no comment left out of karma-comments:.
func TestDeleteArticleTakesItsCommentKarma(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	a := e.post("alice", "going")
	b := e.post("alice", "staying")
	for i := 0; i < 5; i++ {
		c := e.comment("bob", a, "", "on the first")
		e.voteComment("carol", c, voting.Up)
	}
	kept := e.comment("carol", b, "", "on the second")
	e.voteComment("dave", kept, voting.Up)
	gone := e.comment("carol", a, "", "carol's on the first")
	e.voteComment("bob", gone, voting.Down)
	if got := e.zset(e.key("karma-comments:")); !reflect.DeepEqual(got, []string{"carol=0", "bob=5"}) {
		t.Fatalf("karma-comments: = %v, want [carol=0 bob=5]", got)
	}
	if err := e.store.DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("karma-comments:")); !reflect.DeepEqual(got, []string{"carol=1"}) {
		t.Errorf("karma-comments: = %v after the article went, want [carol=1]", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestCommentKarmaNeedsItsOption(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "first")
	c := e.comment("bob", a, "", "a comment")
	e.voteComment("carol", c, voting.Up)
	if _, err := e.store.CommentKarma(ctx, "bob"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("CommentKarma without WithKarma = %v, want ErrInvalid", err)
	}
	if _, _, err := e.store.TopCommenters(ctx, voting.Paging{Page: 1}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("TopCommenters without WithKarma = %v, want ErrInvalid", err)
	}
	if got := e.hash(e.key("comment:" + c))["karma"]; got != "" {
		t.Errorf("a comment without karma kept has the karma field %q", got)
	}
	if e.exists(e.key("karma-comments:")) {
		t.Errorf("karma-comments: written without karma kept")
	}
	k := e.with(voting.WithKarma())
	if _, err := k.CommentKarma(ctx, ""); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("CommentKarma of no user = %v, want ErrInvalid", err)
	}
	if _, _, err := k.TopCommenters(ctx, voting.Paging{Page: -1}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("TopCommenters of page -1 = %v, want ErrInvalid", err)
	}
}

// TestReindexCountsCommentKarma: comment karma of comments posted and voted
// on without it is ErrNotIndexed until Reindex counts it, from the voter
// sets; a vote by a karma Store on an uncounted comment counts it; a
// second run changes nothing.
func TestReindexCountsCommentKarma(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	c := e.comment("bob", a, "", "first")
	e.voteComment("carol", c, voting.Up)
	e.voteComment("dave", c, voting.Down)
	e.voteComment("erin", c, voting.Up)
	e.voteComment("bob", c, voting.Down) // the poster's own switch
	r := e.comment("carol", a, c, "a reply")
	e.voteComment("bob", r, voting.Up)

	k := e.with(voting.WithKarma())
	if _, err := k.CommentKarma(ctx, "bob"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("CommentKarma before Reindex = %v, want ErrNotIndexed", err)
	}
	if _, _, err := k.TopCommenters(ctx, voting.Paging{Page: 1}); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("TopCommenters before Reindex = %v, want ErrNotIndexed", err)
	}
	// A vote by the karma Store counts the comment it meets in full.
	if err := k.VoteComment(ctx, "frank", r, voting.Up); err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.key("comment:" + r))["karma"]; got != "2" {
		t.Errorf("karma field after the first vote with karma = %q, want 2 (bob, frank)", got)
	}
	e.store = k
	p, err := k.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Comments != 2 || !p.Done {
		t.Errorf("Reindex's progress = %+v, want 2 comments, done", p)
	}
	// c: carol and erin up, dave and bob down, bob's own vote down: 1.
	want := []voting.UserKarma{{User: "carol", Karma: 2}, {User: "bob", Karma: 1}}
	if got, _, err := k.TopCommenters(ctx, voting.Paging{Page: 1}); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("TopCommenters after Reindex = %v, %v; want %v", got, err, want)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	before := e.dump()
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a second Reindex wrote:\n%s\nwas:\n%s", after, before)
	}
}

// commentIndexKeys are the keys of the namespace that Reindex builds from
// the comments' hashes: their parents' indexes, the threads, the users'
// lists and the commenters' karma.
func commentIndexKeys(e *env) []string {
	var keys []string
	for _, key := range e.keys() {
		name := strings.TrimPrefix(key, e.prefix)
		for _, part := range []string{"replies:", "thread:", "usercomments:", "karma-comments:"} {
			if strings.HasPrefix(name, part) {
				keys = append(keys, key)
			}
		}
	}
	return keys
}

// commentSite writes two articles' discussions: replies three deep, votes
// up and down by posters and others, a tombstone and a comment deleted
// whole. It gives the ids of the comments posted.
func commentSite(e *env) []string {
	a := e.post("alice", "first")
	b := e.post("bob", "second")
	var ids []string
	for i := 0; i < 12; i++ {
		e.advance(time.Minute)
		article, parent := a, ""
		switch {
		case i%4 == 1 && len(ids) > 0:
			parent = ids[len(ids)-1]
		case i%4 == 2 && len(ids) > 1:
			parent = ids[len(ids)-1]
		case i%5 == 3:
			article = b
		}
		if parent != "" {
			article = e.str("HGET", e.key("comment:"+parent), "article")
		}
		id := e.comment(fmt.Sprintf("u%d", i%3), article, parent, fmt.Sprintf("comment %d", i))
		ids = append(ids, id)
		for v := 0; v < i%4; v++ {
			dir := voting.Up
			if v%2 == 1 {
				dir = voting.Down
			}
			e.voteComment(fmt.Sprintf("v%d", v), id, dir)
		}
		if i%5 == 0 {
			e.voteComment(fmt.Sprintf("u%d", i%3), id, voting.Down)
		}
	}
	if err := e.store.DeleteComment(ctx, ids[0]); err != nil { // with replies: a tombstone
		e.t.Fatal(err)
	}
	if err := e.store.DeleteComment(ctx, ids[len(ids)-1]); err != nil {
		e.t.Fatal(err)
	}
	return ids
}

// TestReindexRebuildsCommentIndexes: with every comment index and every
// comment's part of karma gone, Reindex, cut short over many calls or run
// in one, writes back exactly what there was.
func TestReindexRebuildsCommentIndexes(t *testing.T) {
	t.Parallel()
	for _, cut := range []bool{false, true} {
		t.Run(fmt.Sprintf("cut short %v", cut), func(t *testing.T) {
			e := newEnv(t, voting.WithKarma())
			ids := commentSite(e)
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			before := e.dump()
			for _, key := range commentIndexKeys(e) {
				e.do("DEL", key)
			}
			for _, id := range ids {
				e.do("HDEL", e.key("comment:"+id), "karma")
			}
			voting.SetBatches(e.store, 3, 2)
			var last voting.ReindexProgress
			if !cut {
				var err error
				if last, err = e.store.ReindexWithProgress(ctx, nil); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; cut; i++ {
				cctx, cancel := context.WithTimeout(ctx, time.Duration(i+1)*time.Millisecond)
				p, err := e.store.ReindexWithProgress(cctx, nil)
				cancel()
				if err == nil {
					last = p
					break
				}
				if i > 500 {
					t.Fatalf("Reindex never finished: %v", err)
				}
			}
			// The comments there are: all but the one deleted whole.
			if !cut && (last.Comments != len(ids)-1 || last.Skipped != 0) {
				t.Errorf("Reindex's progress = %+v, want %d comments and none skipped", last, len(ids)-1)
			}
			if after := e.dump(); after != before {
				t.Errorf("Reindex wrote:\n%s\nwas:\n%s", after, before)
			}
		})
	}
}

// TestReindexOfCommentsSkipsAndRefuses: a comment whose article is gone is
// skipped and counted; a parent's index of the wrong type stops the run
// with ErrCorrupt naming it, and a later run, once it is sound, completes.
func TestReindexOfCommentsSkipsAndRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	c := e.comment("bob", a, "", "first")
	e.comment("carol", a, c, "a reply")
	index := e.key("replies:net:c:" + c)
	e.do("DEL", index)
	e.do("SET", index, "not a sorted set")
	if err := e.store.Reindex(ctx); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), index) ||
		strings.Count(err.Error(), "voting:") != 1 {
		t.Fatalf("Reindex with %s a string = %v, want ErrCorrupt naming it", index, err)
	}
	e.do("DEL", index)
	e.do("HSET", e.key("comment:"+c), "article", "999")
	p, err := e.store.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Comments != 1 || p.Skipped != 1 {
		t.Errorf("Reindex's progress = %+v, want 1 comment and 1 skipped", p)
	}
	if e.exists(e.key("thread:999")) {
		t.Error("Reindex indexed a comment of no article")
	}
	if got := e.zset(index); len(got) != 1 {
		t.Errorf("%s = %v after Reindex, want the reply", index, got)
	}
}

// TestReindexCountsClosedCommentsByThePostersOwnVote: once voting on a
// comment written without karma has closed, and its voter sets have
// expired, Reindex counts its part from its counters less the poster's own
// vote as the hash keeps it: switched, taken back, or the post's up-vote.
func TestReindexCountsClosedCommentsByThePostersOwnVote(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	switched := e.comment("bob", a, "", "first")
	e.voteComment("bob", switched, voting.Down)
	e.voteComment("carol", switched, voting.Up)
	takenBack := e.comment("bob", a, "", "second")
	e.voteComment("bob", takenBack, voting.None)
	e.voteComment("carol", takenBack, voting.Up)
	kept := e.comment("bob", a, "", "third")
	e.voteComment("carol", kept, voting.Up)
	e.voteComment("dave", kept, voting.Down)
	restored := e.comment("bob", a, "", "fourth")
	e.voteComment("bob", restored, voting.Down)
	e.voteComment("bob", restored, voting.Up)
	if got := e.hash(e.key("comment:" + switched))["own"]; got != "-1" {
		t.Errorf("own of a comment its poster down-voted = %q, want -1", got)
	}
	if got := e.hash(e.key("comment:" + takenBack))["own"]; got != "0" {
		t.Errorf("own of a comment its poster took the vote back from = %q, want 0", got)
	}
	if _, ok := e.hash(e.key("comment:" + restored))["own"]; ok {
		t.Error("a comment its poster up-voted again keeps the field own")
	}
	e.advance(voting.DefaultCutoff + time.Hour)
	// The voter sets expire at the cutoff; a real server's clock is not
	// the test's.
	for _, key := range e.keys() {
		if strings.HasPrefix(key, e.key("comment-up:")) || strings.HasPrefix(key, e.key("comment-down:")) {
			e.do("DEL", key)
		}
	}
	k := e.with(voting.WithKarma())
	e.store = k
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	// carol's up-votes on the first three, dave's down-vote on the third.
	if got := commentKarmaOf(t, k, "bob"); got != 2 {
		t.Errorf("bob's comment karma after Reindex of closed comments = %d, want 2", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexChecksCommentKarmaFirst: karma-comments: of the wrong type
// stops Reindex before it writes any index (its progress, reindex:, aside).
func TestReindexChecksCommentKarmaFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma())
	a := e.post("alice", "discussed")
	e.comment("bob", a, "", "first")
	e.do("DEL", e.key("posts:alice"))
	e.do("DEL", e.key("karma-comments:"))
	e.do("SET", e.key("karma-comments:"), "x")
	before := e.dump()
	if err := e.store.Reindex(ctx); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("karma-comments:")) {
		t.Fatalf("Reindex with karma-comments: a string = %v, want ErrCorrupt naming it", err)
	}
	e.do("DEL", e.key("reindex:"))
	if after := e.dump(); after != before {
		t.Errorf("Reindex wrote before it refused:\n%s\nwas:\n%s", after, before)
	}
}

// TestStopKeepingKarmaRefusesCorruptComments: a comment's hash, or the
// comments' counter, of the wrong type stops StopKeeping with ErrCorrupt
// naming it, once karma is out of the settings; a call once it is sound
// finishes.
func TestStopKeepingKarmaRefusesCorruptComments(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		corrupt func(e *env) string
	}{
		{"a comment's hash a string", func(e *env) string {
			e.do("DEL", e.key("comment:2"))
			e.do("SET", e.key("comment:2"), "x")
			return e.key("comment:2")
		}},
		{"the counter no id", func(e *env) string {
			e.do("SET", e.key("comment:"), "abc")
			return e.key("comment:")
		}},
		{"the counter a hash", func(e *env) string {
			e.do("DEL", e.key("comment:"))
			e.do("HSET", e.key("comment:"), "f", "v")
			return e.key("comment:")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, voting.WithKarma())
			a := e.post("alice", "discussed")
			e.comment("bob", a, "", "first")
			e.comment("carol", a, "", "second")
			key := tt.corrupt(e)
			err := e.store.StopKeeping(ctx, voting.WithKarma())
			if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) || strings.Count(err.Error(), "voting:") != 1 {
				t.Fatalf("StopKeeping with %s = %v, want ErrCorrupt naming it", key, err)
			}
			e.do("DEL", key)
			e.do("SET", e.key("comment:"), "2")
			if err := e.store.StopKeeping(ctx, voting.WithKarma()); err != nil {
				t.Fatal(err)
			}
			if got := e.hash(e.key("comment:1"))["karma"]; got != "" {
				t.Errorf("comment 1 keeps its karma field %q", got)
			}
		})
	}
}
