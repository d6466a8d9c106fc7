package voting_test

// Adversarial tests of the items' hooks: comment karma under every set of
// kinds kept beside it, karma added to comments written without it, keys
// of the hooks' kinds of the wrong type, the index of active users moved
// only forward and stopped apart from karma, and both under concurrent
// writers.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// keptSets are the sets of kinds kept beside karma that the comment karma
// tests run under: each gives the comment scripts another variant.
var keptSets = []struct {
	name string
	opts []voting.Option
}{
	{"karma", []voting.Option{voting.WithKarma()}},
	{"karma and links", []voting.Option{voting.WithKarma(), voting.WithUniqueLinks()}},
	{"karma and active", []voting.Option{voting.WithKarma(), voting.WithActiveUsers()}},
	{"everything", []voting.Option{voting.WithKarma(), voting.WithUniqueLinks(), voting.WithActiveUsers(),
		voting.WithOrders(voting.Orders()...), voting.WithUserHistory(30 * 24 * time.Hour)}},
}

// commentState is a comment's karma field ("" for none) and
// karma-comments:, for a test's messages.
func commentState(e *env, id string) (string, []string) {
	field, ok := e.hash(e.key("comment:" + id))["karma"]
	if !ok {
		field = "<none>"
	}
	return field, e.zset(e.key("karma-comments:"))
}

// TestCommentKarmaUnderEveryKeptSet: votes of others and of the poster,
// up, down, switched and taken back, move the comment's part and its
// poster's sum exactly, whatever else the namespace keeps; a tombstone
// keeps no part, a comment deleted whole takes its poster out with their
// last; Reindex changes nothing; the article's deletion takes the rest.
func TestCommentKarmaUnderEveryKeptSet(t *testing.T) {
	t.Parallel()
	for _, set := range keptSets {
		t.Run(set.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, set.opts...)
			active := voting.View(e.store).ActiveUsers
			a := e.post("alice", "discussed")
			t0 := e.clock.Now()
			advance(e, time.Minute)
			c := e.comment("bob", a, "", "first")
			t1 := e.clock.Now()
			advance(e, time.Minute)
			r := e.comment("carol", a, c, "a reply")
			d := e.comment("dave", a, "", "second")
			t2 := e.clock.Now()
			steps := []struct {
				user  string
				dir   voting.Direction
				field string
				sums  []string
			}{
				{"carol", voting.Up, "1", []string{"carol=0", "dave=0", "bob=1"}},
				{"dave", voting.Down, "0", []string{"bob=0", "carol=0", "dave=0"}},
				{"carol", voting.Down, "-2", []string{"bob=-2", "carol=0", "dave=0"}},
				{"carol", voting.None, "-1", []string{"bob=-1", "carol=0", "dave=0"}},
				{"bob", voting.Down, "-1", []string{"bob=-1", "carol=0", "dave=0"}},
				{"bob", voting.None, "-1", []string{"bob=-1", "carol=0", "dave=0"}},
				{"bob", voting.Up, "-1", []string{"bob=-1", "carol=0", "dave=0"}},
				{"erin", voting.Up, "0", []string{"bob=0", "carol=0", "dave=0"}},
				{"erin", voting.Up, "0", []string{"bob=0", "carol=0", "dave=0"}}, // repeated: nothing moves
				{"erin", voting.Down, "-2", []string{"bob=-2", "carol=0", "dave=0"}},
				{"bob", voting.Down, "-2", []string{"bob=-2", "carol=0", "dave=0"}},
			}
			for _, st := range steps {
				e.voteComment(st.user, c, st.dir)
				field, sums := commentState(e, c)
				if field != st.field || !reflect.DeepEqual(sums, st.sums) {
					t.Fatalf("after %s votes %v on bob's comment: karma %s, karma-comments: %v; want %s, %v",
						st.user, st.dir, field, sums, st.field, st.sums)
				}
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			}
			if got := e.hash(e.key("comment:" + c))["own"]; got != "-1" {
				t.Errorf("own of bob's comment = %q, want -1", got)
			}
			e.voteComment("bob", r, voting.Up)
			e.voteComment("carol", r, voting.Down) // the poster's own: no part
			e.voteComment("carol", d, voting.Up)
			if _, sums := commentState(e, r); !reflect.DeepEqual(sums, []string{"bob=-2", "carol=1", "dave=1"}) {
				t.Fatalf("karma-comments: = %v, want [bob=-2 carol=1 dave=1]", sums)
			}
			if err := e.store.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			reindexWritesNothing(e, "of a sound namespace")

			// bob's only comment, with a reply: a tombstone with no part,
			// no poster and no own vote; bob leaves karma-comments:.
			if err := e.store.DeleteComment(ctx, c); err != nil {
				t.Fatal(err)
			}
			h := e.hash(e.key("comment:" + c))
			for _, f := range []string{"karma", "poster", "body", "own"} {
				if v, ok := h[f]; ok {
					t.Errorf("the tombstone keeps its field %s %q", f, v)
				}
			}
			if h["deleted"] != "1" {
				t.Errorf("the tombstone's field deleted = %q, want 1", h["deleted"])
			}
			if _, sums := commentState(e, c); !reflect.DeepEqual(sums, []string{"carol=1", "dave=1"}) {
				t.Errorf("karma-comments: = %v after bob's tombstone, want [carol=1 dave=1]", sums)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			// dave's only comment, whole: dave leaves with his part.
			if err := e.store.DeleteComment(ctx, d); err != nil {
				t.Fatal(err)
			}
			if e.exists(e.key("comment:" + d)) {
				t.Errorf("dave's comment, with no reply, left its hash")
			}
			if _, sums := commentState(e, c); !reflect.DeepEqual(sums, []string{"carol=1"}) {
				t.Errorf("karma-comments: = %v after dave's comment went, want [carol=1]", sums)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			if err := e.store.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			if _, sums := commentState(e, c); !reflect.DeepEqual(sums, []string{"carol=1"}) {
				t.Errorf("karma-comments: = %v after Reindex, want [carol=1]", sums)
			}
			// A deletion leaves the active users as they were.
			if active {
				want := []string{"alice=" + seconds(t0), "bob=" + seconds(t1), "carol=" + seconds(t2), "dave=" + seconds(t2)}
				if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
					t.Errorf("active: = %v, want %v", got, want)
				}
			}
			if err := e.store.DeleteArticle(ctx, a); err != nil {
				t.Fatal(err)
			}
			if e.exists(e.key("karma-comments:")) {
				t.Errorf("karma-comments: = %v after the article's deletion took every comment", e.zset(e.key("karma-comments:")))
			}
			if e.exists(e.key("karma:")) {
				t.Errorf("karma: = %v after alice's only article went", e.zset(e.key("karma:")))
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestCommentKarmaAddedToLegacyComments: a namespace that adds karma
// after comments exist counts a legacy comment's part in full at its first
// vote (its poster's own vote included), leaves a legacy part uncounted
// by a deletion, takes its poster out with their last comment, and
// Reindex makes every sum exact.
func TestCommentKarmaAddedToLegacyComments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	c1 := e.comment("bob", a, "", "voted, poster down") // carol up, bob's own down
	e.voteComment("carol", c1, voting.Up)
	e.voteComment("bob", c1, voting.Down)
	c2 := e.comment("bob", a, "", "unvoted")
	c3 := e.comment("erin", a, "", "up-voted, never voted on again") // frank up: 1, uncounted
	e.voteComment("frank", c3, voting.Up)
	c4 := e.comment("grace", a, "", "deleted with its part uncounted") // frank up
	e.voteComment("frank", c4, voting.Up)

	k := e.with(voting.WithKarma(), voting.WithActiveUsers())
	e.store = k
	// The first vote with karma counts c1 from its voter sets: carol and
	// dave up, bob's own down vote taken out: 2.
	e.voteComment("dave", c1, voting.Up)
	if field, sums := commentState(e, c1); field != "2" || !reflect.DeepEqual(sums, []string{"bob=2"}) {
		t.Fatalf("after the first vote on a legacy comment: karma %s, karma-comments: %v; want 2, [bob=2]", field, sums)
	}
	// The poster's own vote on a legacy comment gives it its part, 0,
	// and moves no sum.
	e.voteComment("bob", c2, voting.Down)
	if field, sums := commentState(e, c2); field != "0" || !reflect.DeepEqual(sums, []string{"bob=2"}) {
		t.Fatalf("after bob's own vote on his legacy comment: karma %s, karma-comments: %v; want 0, [bob=2]", field, sums)
	}
	e.voteComment("bob", c2, voting.Up)
	if field, sums := commentState(e, c2); field != "0" || !reflect.DeepEqual(sums, []string{"bob=2"}) {
		t.Fatalf("after bob's own up-vote again: karma %s, karma-comments: %v; want 0, [bob=2]", field, sums)
	}
	// A new comment enters erin at 0: her legacy part stays uncounted.
	c5 := e.comment("erin", a, "", "with karma")
	if field, sums := commentState(e, c5); field != "0" || !reflect.DeepEqual(sums, []string{"erin=0", "bob=2"}) {
		t.Fatalf("after erin's comment with karma: karma %s, karma-comments: %v; want 0, [erin=0 bob=2]", field, sums)
	}
	// grace's only comment, legacy, goes: she was never in karma-comments:.
	if err := k.DeleteComment(ctx, c4); err != nil {
		t.Fatal(err)
	}
	if _, sums := commentState(e, c4); !reflect.DeepEqual(sums, []string{"erin=0", "bob=2"}) {
		t.Fatalf("karma-comments: = %v after grace's legacy comment went, want [erin=0 bob=2]", sums)
	}
	// bob's c1 goes: his part of 2 with it, c2 left.
	if err := k.DeleteComment(ctx, c1); err != nil {
		t.Fatal(err)
	}
	if _, sums := commentState(e, c1); !reflect.DeepEqual(sums, []string{"bob=0", "erin=0"}) {
		t.Fatalf("karma-comments: = %v after bob's c1 went, want [bob=0 erin=0]", sums)
	}
	if _, err := k.CommentKarma(ctx, "erin"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("CommentKarma before Reindex = %v, want ErrNotIndexed", err)
	}
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if field, sums := commentState(e, c3); field != "1" || !reflect.DeepEqual(sums, []string{"bob=0", "erin=1"}) {
		t.Errorf("after Reindex: c3's karma %s, karma-comments: %v; want 1, [bob=0 erin=1]", field, sums)
	}
	if got := commentKarmaOf(t, k, "erin"); got != 1 {
		t.Errorf("erin's comment karma after Reindex = %d, want 1", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	// erin's legacy comment, now counted, and her other: she leaves.
	for _, id := range []string{c3, c5} {
		if err := k.DeleteComment(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, sums := commentState(e, c3); !reflect.DeepEqual(sums, []string{"bob=0"}) {
		t.Errorf("karma-comments: = %v after erin's comments went, want [bob=0]", sums)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestLegacyCommentsOfAPosterLeaveWithTheLast: a poster with only legacy
// comments, whose part was never counted, and one counted comment, leaves
// karma-comments: when the last goes, whichever goes last.
func TestLegacyCommentsOfAPosterLeaveWithTheLast(t *testing.T) {
	t.Parallel()
	for _, legacyLast := range []bool{true, false} {
		t.Run(fmt.Sprintf("legacy last %v", legacyLast), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			a := e.post("alice", "discussed")
			legacy := e.comment("bob", a, "", "legacy")
			e.voteComment("carol", legacy, voting.Up)
			k := e.with(voting.WithKarma())
			e.store = k
			counted := e.comment("bob", a, "", "counted")
			e.voteComment("carol", counted, voting.Up)
			e.voteComment("dave", counted, voting.Up)
			if _, sums := commentState(e, counted); !reflect.DeepEqual(sums, []string{"bob=2"}) {
				t.Fatalf("karma-comments: = %v, want [bob=2]", sums)
			}
			order := []string{counted, legacy}
			if !legacyLast {
				order = []string{legacy, counted}
			}
			if err := k.DeleteComment(ctx, order[0]); err != nil {
				t.Fatal(err)
			}
			want := []string{"bob=0"}
			if !legacyLast {
				want = []string{"bob=2"}
			}
			if _, sums := commentState(e, counted); !reflect.DeepEqual(sums, want) {
				t.Fatalf("karma-comments: = %v after the first deletion, want %v", sums, want)
			}
			if err := k.DeleteComment(ctx, order[1]); err != nil {
				t.Fatal(err)
			}
			if e.exists(e.key("karma-comments:")) {
				t.Errorf("karma-comments: = %v after bob's last comment went", e.zset(e.key("karma-comments:")))
			}
			if err := k.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestHookKeysOfTheWrongType: karma-comments: or active: of the wrong
// type (a string, or a set) makes each write that keeps it, and Reindex,
// fail with ErrCorrupt naming the key and write nothing; with the key put
// back the write succeeds.
func TestHookKeysOfTheWrongType(t *testing.T) {
	t.Parallel()
	type op struct {
		name string
		call func(e *env) error
	}
	// site: article 1 by alice; comment 1 by bob, comment 2 by carol a
	// reply to it, comment 3 by dave; each kind built.
	site := func(e *env) {
		e.post("alice", "first")
		e.comment("bob", "1", "", "first")
		e.comment("carol", "1", "1", "a reply")
		e.comment("dave", "1", "", "second")
		e.voteComment("erin", "3", voting.Up)
		e.advance(time.Minute)
	}
	karmaOps := []op{
		{"PostComment", func(e *env) error { _, err := e.store.PostComment(ctx, "frank", "1", "1", "hi"); return err }},
		{"VoteComment up", func(e *env) error { return e.store.VoteComment(ctx, "frank", "1", voting.Up) }},
		{"VoteComment down", func(e *env) error { return e.store.VoteComment(ctx, "frank", "3", voting.Down) }},
		{"VoteComment take back", func(e *env) error { return e.store.VoteComment(ctx, "erin", "3", voting.None) }},
		{"DeleteComment to a tombstone", func(e *env) error { return e.store.DeleteComment(ctx, "1") }},
		{"DeleteComment whole", func(e *env) error { return e.store.DeleteComment(ctx, "3") }},
		{"Reindex", func(e *env) error { return e.store.Reindex(ctx) }},
	}
	activeOps := []op{
		{"PostArticle", func(e *env) error {
			_, err := e.store.PostArticle(ctx, "frank", "second", "https://example.com/second")
			return err
		}},
		{"PostComment", func(e *env) error { _, err := e.store.PostComment(ctx, "frank", "1", "", "hi"); return err }},
		{"PostComment reply", func(e *env) error { _, err := e.store.PostComment(ctx, "frank", "1", "2", "hi"); return err }},
		{"Reindex", func(e *env) error { return e.store.Reindex(ctx) }},
	}
	for _, tc := range []struct {
		part string
		ops  []op
	}{{"karma-comments:", karmaOps}, {"active:", activeOps}} {
		for _, o := range tc.ops {
			for _, typ := range []string{"string", "set"} {
				t.Run(tc.part+" "+typ+" "+o.name, func(t *testing.T) {
					t.Parallel()
					e := newEnv(t, voting.WithKarma(), voting.WithActiveUsers(), voting.WithUniqueLinks())
					site(e)
					if err := e.store.Reindex(ctx); err != nil {
						t.Fatal(err)
					}
					key := e.key(tc.part)
					good := e.zset(key)
					e.do("DEL", key)
					if typ == "string" {
						e.do("SET", key, "x")
					} else {
						e.do("SADD", key, "bob")
					}
					before := e.dump()
					err := o.call(e)
					if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) || strings.Count(err.Error(), "voting:") != 1 {
						t.Fatalf("%s with %s a %s = %v, want ErrCorrupt naming it", o.name, key, typ, err)
					}
					if o.name == "Reindex" {
						e.do("DEL", e.key("reindex:"))
					}
					if after := e.dump(); after != before {
						t.Errorf("%s wrote before it refused:\n%s\nwas:\n%s", o.name, after, before)
					}
					e.do("DEL", key)
					for _, entry := range good {
						i := strings.LastIndexByte(entry, '=')
						e.do("ZADD", key, entry[i+1:], entry[:i])
					}
					if err := o.call(e); err != nil {
						t.Fatalf("%s with %s put back: %v", o.name, key, err)
					}
					e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
				})
			}
		}
	}
}

// TestActiveUsersMoveOnlyForward: a post with a clock behind the poster's
// time leaves it; Reindex never moves a time back, and gives a poster whose
// latest item went the latest left only once the index is built afresh.
func TestActiveUsersMoveOnlyForward(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithActiveUsers())
	t0 := e.clock.Now()
	a := e.post("alice", "first")
	advance(e, time.Hour)
	t1 := e.clock.Now()
	late := e.comment("alice", a, "", "an hour on")
	e.clock.set(t0.Add(time.Minute)) // a Store whose clock lags
	e.post("alice", "lagging")
	e.comment("bob", a, "", "lagging")
	want := []string{"bob=" + seconds(t0.Add(time.Minute)), "alice=" + seconds(t1)}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Fatalf("active: = %v after a lagging post, want %v", got, want)
	}
	// The latest item goes; Reindex keeps the time it had.
	if err := e.store.DeleteComment(ctx, late); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Fatalf("active: = %v after Reindex, want %v", got, want)
	}
	if at, err := e.store.LastActive(ctx, "alice"); err != nil || !at.Equal(t1) {
		t.Errorf("LastActive(alice) = %v, %v; want %v", at, err, t1)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	// Stopped and kept again, Reindex gives each the latest item left.
	if err := e.store.StopKeeping(ctx, voting.WithActiveUsers()); err != nil {
		t.Fatal(err)
	}
	s := e.with(voting.WithActiveUsers())
	e.store = s
	if err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	want = []string{"alice=" + seconds(t0.Add(time.Minute)), "bob=" + seconds(t0.Add(time.Minute))}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Errorf("active: = %v after it was built again, want %v", got, want)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestStopKeepingKarmaAndActiveApart: StopKeeping of the index of active
// users leaves karma exactly as it was, and the other way round; both
// kept again, Reindex builds each as it was.
func TestStopKeepingKarmaAndActiveApart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma(), voting.WithActiveUsers())
	ids := commentSite(e)
	e.vote("carol", "1", voting.Up)
	e.vote("dave", "2", voting.Down)
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	// karmaState is every key and field karma keeps: karma:,
	// karma-comments: and each item's karma field.
	karmaState := func() string {
		var b strings.Builder
		fmt.Fprintln(&b, e.zset(e.key("karma:")), e.zset(e.key("karma-comments:")))
		for _, id := range []string{"1", "2"} {
			fmt.Fprintln(&b, "article", id, e.hash(e.article(id))["karma"])
		}
		for _, id := range ids {
			h := e.hash(e.key("comment:" + id))
			fmt.Fprintln(&b, "comment", id, h["karma"], len(h) > 0)
		}
		return b.String()
	}
	karma, active := karmaState(), e.zset(e.key("active:"))
	if len(active) != 5 { // alice, bob, u0, u1, u2
		t.Fatalf("active: = %v, want 5 users", active)
	}

	if err := e.store.StopKeeping(ctx, voting.WithActiveUsers()); err != nil {
		t.Fatal(err)
	}
	if got := karmaState(); got != karma {
		t.Errorf("StopKeeping(WithActiveUsers) moved karma:\n%s\nwas:\n%s", got, karma)
	}
	if e.exists(e.key("active:")) {
		t.Errorf("active: = %v after StopKeeping", e.zset(e.key("active:")))
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	both := e.with(voting.WithKarma(), voting.WithActiveUsers())
	e.store = both
	if err := both.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	// Built again, u2's time is that of the latest comment left, ids[8]:
	// ids[11], the last, went.
	rebuilt := map[string]string{}
	for _, entry := range active {
		user, at, _ := strings.Cut(entry, "=")
		rebuilt[user] = at
	}
	rebuilt["u2"] = e.hash(e.key("comment:" + ids[8]))["time"]
	if rebuilt["u2"] == "" || e.hash(e.key("comment:" + ids[8]))["poster"] != "u2" {
		t.Fatalf("comment %s is not u2's: %v", ids[8], e.hash(e.key("comment:"+ids[8])))
	}
	if got := zmap(e, "active:"); !reflect.DeepEqual(got, rebuilt) {
		t.Errorf("active: built again = %v, want %v", got, rebuilt)
	}
	if got := karmaState(); got != karma {
		t.Errorf("Reindex moved karma:\n%s\nwas:\n%s", got, karma)
	}

	if err := both.StopKeeping(ctx, voting.WithKarma()); err != nil {
		t.Fatal(err)
	}
	if got := zmap(e, "active:"); !reflect.DeepEqual(got, rebuilt) {
		t.Errorf("StopKeeping(WithKarma) moved active: to %v, was %v", got, rebuilt)
	}
	for _, key := range []string{"karma:", "karma-comments:"} {
		if e.exists(e.key(key)) {
			t.Errorf("%s is there after StopKeeping(WithKarma)", key)
		}
	}
	for _, id := range ids {
		if v, ok := e.hash(e.key("comment:" + id))["karma"]; ok {
			t.Errorf("comment %s keeps its karma field %q after StopKeeping(WithKarma)", id, v)
		}
	}
	for _, id := range []string{"1", "2"} {
		if v, ok := e.hash(e.article(id))["karma"]; ok {
			t.Errorf("article %s keeps its karma field %q after StopKeeping(WithKarma)", id, v)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	again := e.with(voting.WithKarma(), voting.WithActiveUsers())
	e.store = again
	if _, err := again.CommentKarma(ctx, "u0"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("CommentKarma before Reindex = %v, want ErrNotIndexed", err)
	}
	if err := again.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := karmaState(); got != karma {
		t.Errorf("karma built again:\n%s\nwas:\n%s", got, karma)
	}
	if got := zmap(e, "active:"); !reflect.DeepEqual(got, rebuilt) {
		t.Errorf("active: after karma was built again = %v, want %v", got, rebuilt)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestCommentsKarmaAndActiveConcurrently: many writers post comments,
// vote on them (the posters among them) and delete some at once, with
// karma and active users kept; every sum, part and time is then exact.
func TestCommentsKarmaAndActiveConcurrently(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma(), voting.WithActiveUsers())
	a := e.post("alice", "busy")
	b := e.post("bob", "busier")
	const writers, each = 16, 12
	var mu sync.Mutex
	var ids []string
	articles := map[string]string{} // comment id -> its article's
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	// One more goroutine runs Reindex, in steps of a few comments, while
	// the writers write.
	voting.SetBatches(e.store, 3, 3)
	together(writers+1, func(g int) {
		if g == writers {
			for r := 0; r < 3; r++ {
				if err := e.store.Reindex(ctx); err != nil {
					fail("Reindex beside the writers: %v", err)
				}
			}
			return
		}
		user := fmt.Sprintf("w%d", g%6)
		var mine []string
		for i := 0; i < each; i++ {
			article := a
			if (g+i)%3 == 0 {
				article = b
			}
			parent := ""
			mu.Lock()
			if len(ids) > 0 && i%2 == 1 {
				parent = ids[(g*7+i)%len(ids)]
				article = articles[parent]
			}
			mu.Unlock()
			id, err := e.store.PostComment(ctx, user, article, parent, fmt.Sprintf("%d/%d", g, i))
			if err != nil {
				if !errors.Is(err, voting.ErrNotFound) { // a parent deleted meanwhile
					fail("PostComment by %s: %v", user, err)
				}
				continue
			}
			mine = append(mine, id)
			mu.Lock()
			ids = append(ids, id)
			articles[id] = article
			targets := append([]string(nil), ids...)
			mu.Unlock()
			for v := 0; v < 4; v++ {
				target := targets[(g*13+i*5+v)%len(targets)]
				dir := []voting.Direction{voting.Up, voting.Down, voting.None, voting.Up}[(g+v)%4]
				voter := fmt.Sprintf("w%d", (g+v)%8)
				if err := e.store.VoteComment(ctx, voter, target, dir); err != nil && !errors.Is(err, voting.ErrNotFound) {
					fail("VoteComment by %s on %s: %v", voter, target, err)
				}
			}
			if i%4 == 3 {
				if err := e.store.DeleteComment(ctx, mine[len(mine)/2]); err != nil && !errors.Is(err, voting.ErrNotFound) {
					fail("DeleteComment %s: %v", mine[len(mine)/2], err)
				}
			}
		}
	})
	for _, f := range failures {
		t.Error(f)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	// Every writer posted at the env's one time.
	active := e.zset(e.key("active:"))
	want := []string{"alice", "bob", "w0", "w1", "w2", "w3", "w4", "w5"}
	var users []string
	for _, entry := range active {
		user, at, _ := strings.Cut(entry, "=")
		users = append(users, user)
		if at != seconds(e.clock.Now()) {
			t.Errorf("active: gives %s %s, want %s", user, at, seconds(e.clock.Now()))
		}
	}
	if !reflect.DeepEqual(sorted(users), want) {
		t.Errorf("active: holds %v, want %v", sorted(users), want)
	}
	reindexWritesNothing(e, "after the concurrent writes")
	if err := e.store.DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// reindexWritesNothing runs Reindex on e's Store, which must leave the
// namespace as it was: when says when, for the test's message.
func reindexWritesNothing(e *env, when string) {
	e.t.Helper()
	before := e.dump()
	if err := e.store.Reindex(ctx); err != nil {
		e.t.Fatal(err)
	}
	if after := e.dump(); after != before {
		e.t.Errorf("a Reindex %s wrote:\n%s\nwas:\n%s", when, after, before)
	}
}

// zmap is the sorted set at the namespace's key part, member to score.
func zmap(e *env, part string) map[string]string {
	m := map[string]string{}
	for _, entry := range e.zset(e.key(part)) {
		i := strings.LastIndexByte(entry, '=')
		m[entry[:i]] = entry[i+1:]
	}
	return m
}

// TestStoresOpenedBeforeKindsWriteByTheNamespace: a Store opened before
// another adds karma and active users writes both from its next write,
// and one that kept active users, after another stops them, writes none.
func TestStoresOpenedBeforeKindsWriteByTheNamespace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old := e.store
	a := e.post("alice", "discussed")
	both := e.with(voting.WithKarma(), voting.WithActiveUsers())
	if err := both.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	advance(e, time.Minute)
	c, err := old.PostComment(ctx, "bob", a, "", "by a Store opened before")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.key("comment:" + c))["karma"]; got != "0" {
		t.Errorf("a comment posted by the older Store has karma %q, want 0", got)
	}
	if err := old.VoteComment(ctx, "carol", c, voting.Up); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("karma-comments:")); !reflect.DeepEqual(got, []string{"bob=1"}) {
		t.Errorf("karma-comments: = %v after the older Store's writes, want [bob=1]", got)
	}
	want := map[string]string{"alice": seconds(start), "bob": seconds(e.clock.Now())}
	if got := zmap(e, "active:"); !reflect.DeepEqual(got, want) {
		t.Errorf("active: = %v after the older Store's post, want %v", got, want)
	}
	e.store = both
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	if err := old.StopKeeping(ctx, voting.WithActiveUsers()); err != nil {
		t.Fatal(err)
	}
	advance(e, time.Minute)
	if _, err := both.PostComment(ctx, "dave", a, c, "by a Store that kept active users"); err != nil {
		t.Fatal(err)
	}
	if _, err := both.PostArticle(ctx, "erin", "later", "https://example.com/later"); err != nil {
		t.Fatal(err)
	}
	if e.exists(e.key("active:")) {
		t.Errorf("active: = %v, written after it was stopped", e.zset(e.key("active:")))
	}
	if got := e.zset(e.key("karma-comments:")); !reflect.DeepEqual(got, []string{"dave=0", "bob=1"}) {
		t.Errorf("karma-comments: = %v, want [dave=0 bob=1]", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestCorruptCommentKarmaFieldWritesNothing: a comment whose karma field
// is no whole number makes a vote on it, its deletion (whole or to a
// tombstone) and Reindex fail with ErrCorrupt naming the hash, and write
// nothing.
func TestCorruptCommentKarmaFieldWritesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		call func(e *env) error
	}{
		{"VoteComment by another", func(e *env) error { return e.store.VoteComment(ctx, "dave", "1", voting.Up) }},
		{"VoteComment by the poster", func(e *env) error { return e.store.VoteComment(ctx, "bob", "1", voting.Down) }},
		{"DeleteComment to a tombstone", func(e *env) error { return e.store.DeleteComment(ctx, "1") }},
		{"Reindex", func(e *env) error { return e.store.Reindex(ctx) }},
	} {
		for _, value := range []string{"abc", "1.5", ""} {
			t.Run(fmt.Sprintf("%s %q", tc.name, value), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, voting.WithKarma(), voting.WithActiveUsers())
				a := e.post("alice", "discussed")
				e.comment("bob", a, "", "first")
				e.comment("carol", a, "1", "a reply")
				e.voteComment("carol", "1", voting.Up)
				hash := e.key("comment:1")
				e.do("HSET", hash, "karma", value)
				before := e.dump()
				err := tc.call(e)
				if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), hash) {
					t.Fatalf("%s with karma %q = %v, want ErrCorrupt naming %s", tc.name, value, err, hash)
				}
				if tc.name == "Reindex" {
					e.do("DEL", e.key("reindex:"))
				}
				if after := e.dump(); after != before {
					t.Errorf("%s wrote before it refused:\n%s\nwas:\n%s", tc.name, after, before)
				}
				e.do("HSET", hash, "karma", "1")
				if err := tc.call(e); err != nil {
					t.Fatalf("%s with the field put back: %v", tc.name, err)
				}
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			})
		}
	}
}

// TestActiveUsersAtFractionalTimes: posting times between whole seconds,
// to the microsecond, are kept, counted and read back exactly, by posts
// and by Reindex, run again or building the index afresh; a stored time
// no post could have is ErrCorrupt naming the key.
func TestActiveUsersAtFractionalTimes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithActiveUsers())
	t0 := start.Add(123456 * time.Microsecond)
	e.clock.set(t0)
	a := e.post("alice", "first")
	t1 := start.Add(time.Second + 654321*time.Microsecond)
	e.clock.set(t1)
	e.comment("bob", a, "", "later")
	for _, tc := range []struct {
		since time.Time
		want  int64
	}{{start, 2}, {t0, 2}, {t0.Add(time.Millisecond), 1}, {t1, 1}, {t1.Add(time.Millisecond), 0}} {
		if n, err := e.store.ActiveUsers(ctx, tc.since); err != nil || n != tc.want {
			t.Errorf("ActiveUsers(since %v) = %d, %v; want %d", tc.since.Sub(start), n, err, tc.want)
		}
	}
	for user, at := range map[string]time.Time{"alice": t0, "bob": t1} {
		if got, err := e.store.LastActive(ctx, user); err != nil || !got.Equal(at) {
			t.Errorf("LastActive(%s) = %v, %v; want %v", user, got, err, at)
		}
	}
	want := []string{"alice=1795305600.123456", "bob=1795305601.654321"}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Fatalf("active: = %v, want %v", got, want)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Errorf("active: = %v after Reindex, want %v", got, want)
	}
	if err := e.store.StopKeeping(ctx, voting.WithActiveUsers()); err != nil {
		t.Fatal(err)
	}
	e.store = e.with(voting.WithActiveUsers())
	if _, err := e.store.LastActive(ctx, "bob"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("LastActive once kept again, before Reindex = %v, want ErrNotIndexed", err)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Errorf("active: = %v built afresh, want %v", got, want)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	key := e.key("active:")
	e.do("ZADD", key, "+inf", "carol")
	if _, err := e.store.LastActive(ctx, "carol"); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
		t.Errorf("LastActive of a user at +inf = %v, want ErrCorrupt naming %s", err, key)
	}
}

// TestKarmaKeptAgainAfterAStopCutShort: StopKeeping(WithKarma) cut short
// at each of its round trips, then karma kept again by a Store given it:
// no part a stop left behind is taken for one its poster's sum holds, so
// that votes, then Reindex, leave every part and sum exact.
func TestKarmaKeptAgainAfterAStopCutShort(t *testing.T) {
	t.Parallel()
	for budget := 1; budget <= 8; budget++ {
		t.Run(fmt.Sprintf("after %d round trips", budget), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, voting.WithKarma())
			var articles, comments []string
			for i := range 2 {
				a := e.post("alice", fmt.Sprintf("article %d", i))
				e.vote("dave", a, voting.Up)
				articles = append(articles, a)
				for j := range 2 {
					c := e.comment("bob", a, "", fmt.Sprintf("comment %d", j))
					e.voteComment("carol", c, voting.Up)
					comments = append(comments, c)
				}
			}
			p := &stepPool{e: e, cmds: map[string]bool{"": true}}
			s, err := voting.New(p, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			voting.SetStopBatch(s, 1)
			cctx, cancel := p.call(budget)
			err = s.StopKeeping(cctx, voting.WithKarma())
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("StopKeeping cut short = %v", err)
			}
			k := e.with(voting.WithKarma())
			e.store = k
			for _, a := range articles {
				e.vote("erin", a, voting.Up)
			}
			for _, c := range comments {
				e.voteComment("erin", c, voting.Up)
			}
			if err := k.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			if got := e.zset(e.key("karma:")); !reflect.DeepEqual(got, []string{"alice=4"}) {
				t.Errorf("karma: = %v, want [alice=4]: dave's and erin's up-votes on two articles", got)
			}
			if got := e.zset(e.key("karma-comments:")); !reflect.DeepEqual(got, []string{"bob=8"}) {
				t.Errorf("karma-comments: = %v, want [bob=8]: carol's and erin's up-votes on four comments", got)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}
