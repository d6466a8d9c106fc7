package voting_test

// Tests of the windows of the top-of-window orders and their trims: their
// edges, trims in steps, posts into windows trimmed past them, unsound
// marks, and the marks of the groups' live windows.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// TestWindowEdges: an article is in a window's listing while less than the
// window has passed since it was posted, to the microsecond, and out from
// then on; the next article is still in.
func TestWindowEdges(t *testing.T) {
	t.Parallel()
	for order, window := range windows {
		t.Run(order.String(), func(t *testing.T) {
			e := newEnv(t, voting.WithOrders(order))
			first := e.post("alice", "first")
			posted := e.clock.Now()
			e.advance(time.Microsecond)
			second := e.post("bob", "second")
			list := func() []string { return idsOf(listAll(t, e.store, "", order)) }

			e.clock.set(posted.Add(window - time.Microsecond))
			if got := list(); strings.Join(got, " ") != second+" "+first && strings.Join(got, " ") != first+" "+second {
				t.Fatalf("a microsecond before the edge: %v, want both", got)
			}
			e.clock.set(posted.Add(window))
			if got := list(); strings.Join(got, " ") != second {
				t.Fatalf("at the edge: %v, want [%s]", got, second)
			}
			e.clock.set(posted.Add(window + time.Microsecond))
			if got := list(); len(got) != 0 {
				t.Fatalf("a microsecond later: %v, want none", got)
			}
			// Trimmed, not just hidden: the index is empty.
			if got := e.zset(e.key(order.String() + ":")); len(got) != 0 {
				t.Errorf("the index still holds %v", got)
			}
		})
	}
}

// TestWindowTrimsInSteps: many articles aged out at once, some posted at
// the same time, are trimmed over several steps of a few each, and the
// listing is exact however the steps fall.
func TestWindowTrimsInSteps(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay, voting.TopWeek), voting.WithPageSize(3), voting.WithGroupCacheTTL(0))
	voting.SetBatches(e.store, 2, 2)
	s := newSite(t, e)
	var ids []string
	for i := range 13 {
		if i%4 == 0 {
			e.advance(time.Hour) // four at a time share a posting time
		}
		ids = append(ids, s.post("poster", "g"))
		s.vote(e.store, "voter", ids[len(ids)-1], []voting.Direction{voting.Up, voting.Down, voting.None}[i%3])
	}
	for _, d := range []time.Duration{20 * time.Hour, 2 * time.Hour, time.Hour, time.Hour, 6 * 24 * time.Hour} {
		e.advance(d)
		s.check(e.store, "g")
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	if got := e.zset(e.key("top-day:")); len(got) != 0 {
		t.Errorf("top-day: still holds %v", got)
	}
}

// TestPostIntoAWindowTrimmedPastIt: a Store whose clock is behind posts an
// article that a listing by a Store whose clock is ahead has already
// trimmed past; it stays out of the window rather than never being trimmed.
func TestPostIntoAWindowTrimmedPastIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	e.post("alice", "first")
	ahead := &clock{now: e.clock.Now().Add(48 * time.Hour)}
	reader, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(ahead.Now), voting.WithOrders(voting.TopDay))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := reader.GetArticles(context.Background(), 1, voting.TopDay); err != nil || len(got) != 0 {
		t.Fatalf("top of the day, two days on: %v, %v", got, err)
	}
	e.advance(time.Hour)
	e.post("bob", "second") // by the poster's clock, a day before the reader's mark
	if got := e.zset(e.key("top-day:")); len(got) != 0 {
		t.Errorf("top-day: = %v, want empty", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// parseMark reads a window's mark, decimal Unix seconds with at most
// microseconds, as the time it stands for, exactly.
func parseMark(t *testing.T, s string) time.Time {
	t.Helper()
	whole, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || len(frac) > 6 || strings.Trim(frac, "0123456789") != "" || strings.HasPrefix(whole, "-") {
		t.Fatalf("mark %q is not Unix seconds to the microsecond", s)
	}
	nanos := int64(0)
	if frac != "" {
		nanos, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	return time.Unix(sec, nanos).UTC()
}

// TestPostAtAWindowsMarkStaysOut: a window's mark says every article in it
// was posted after the mark. A Store whose clock lags, posting at exactly
// the mark, dates its article at the mark: the article must stay out of
// the window (else no trim would ever take it out, since trims walk on from
// the mark), and out of its listings then and later.
// TestPostIntoAWindowTrimmedPastIt posts an hour before a mark; this posts at
// it, to the microsecond.
func TestPostAtAWindowsMarkStaysOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	e.post("alice", "first")
	e.post("bob", "second")
	e.advance(24*time.Hour + time.Hour + 123456*time.Microsecond)
	if got, err := e.store.GetArticles(ctx, 1, voting.TopDay); err != nil || len(got) != 0 {
		t.Fatalf("top of the day, 25 hours on: %v, %v; want none", idsOf(got), err)
	}
	markText := e.str("HGET", e.key("trimmed:"), "top-day")
	mark := parseMark(t, markText)
	t.Logf("the mark of top-day: is %s (%v)", markText, mark)

	lagging := &clock{now: mark}
	late, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(lagging.Now), voting.WithOrders(voting.TopDay))
	if err != nil {
		t.Fatal(err)
	}
	id, err := late.PostArticle(ctx, "carol", "at the mark", "https://example.com/at-the-mark")
	if err != nil {
		t.Fatalf("PostArticle at the mark: %v", err)
	}
	a, err := late.Article(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Posted.Equal(mark) {
		t.Fatalf("the article was posted at %v, want the mark %v", a.Posted, mark)
	}
	if got := e.do("ZSCORE", e.key("top-day:"), e.article(id)); got != nil {
		t.Errorf("top-day: holds the article posted at its mark (score %s)", got)
	}
	listed := func(s *voting.Store, who string) {
		t.Helper()
		got, err := s.GetArticles(ctx, 1, voting.TopDay)
		if err != nil {
			t.Fatalf("top of the day by %s: %v", who, err)
		}
		for _, x := range got {
			if x.ID == id {
				t.Errorf("top of the day by %s lists the article posted at the mark: %v", who, idsOf(got))
			}
		}
	}
	listed(late, "the lagging Store")
	listed(e.store, "the Store that trimmed")
	e.advance(time.Hour)
	listed(e.store, "the Store that trimmed, an hour later")
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestUnsoundMarkIsCorrupt: a mark in trimmed: that is not Unix seconds as
// this package writes them (here with a space, which Lua would read as a
// number and Redis refuse as a range bound) is refused alike by a post and
// a listing, naming it, and nothing is written.
func TestUnsoundMarkIsCorrupt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	e.post("alice", "first")
	e.do("HSET", e.key("trimmed:"), "top-day", "5 ")
	before := e.dump()
	_, err := e.store.PostArticle(ctx, "bob", "second", "https://example.com/")
	if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("trimmed:")) {
		t.Errorf("PostArticle with an unsound mark = %v, want ErrCorrupt naming trimmed:", err)
	}
	e.advance(48 * time.Hour)
	if _, err := e.store.GetArticles(ctx, 1, voting.TopDay); !errors.Is(err, voting.ErrCorrupt) {
		t.Errorf("GetArticles by top-day with an unsound mark = %v, want ErrCorrupt", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("wrote:\nbefore %s\nafter  %s", before, after)
	}
}

// storeAt is another Store on e's namespace whose clock stands at at, as a
// server whose clock runs ahead would be.
func storeAt(t *testing.T, e *env, at time.Time, opts ...voting.Option) *voting.Store {
	t.Helper()
	c := &clock{now: at}
	s, err := voting.New(e.pool, append([]voting.Option{noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(c.Now)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLiveWindowsKeepTheirGroupsMark: a group's live window has a mark of
// its own (trimmed: top-day:<group>), which a listing by a Store whose
// clock runs ahead may move past an article's posting time as it trims the
// window; AddToGroups and Reindex then leave that article out of the
// group's window, as a post would, while it joins the group's other
// indexes; and a post into a group follows the group's mark, not the
// site's.
func TestLiveWindowsKeepTheirGroupsMark(t *testing.T) {
	t.Parallel()
	opts := []voting.Option{voting.WithOrders(voting.TopDay), voting.WithLiveGroups()}
	t.Run("AddToGroups", func(t *testing.T) {
		e := newEnv(t, opts...)
		e.post("alice", "first", "g")
		id := e.post("bob", "second")
		ahead := storeAt(t, e, e.clock.Now().Add(24*time.Hour), opts...)
		if got, err := ahead.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || len(got) != 0 {
			t.Fatalf("listing ahead: %v, %v", idsOf(got), err)
		}
		if want := fmt.Sprint(e.clock.Now().Unix()); e.hash(e.key("trimmed:"))["top-day:g"] != want {
			t.Fatalf("the listing ahead left top-day:g at %q, want %s: %v", e.hash(e.key("trimmed:"))["top-day:g"], want,
				e.hash(e.key("trimmed:")))
		}
		e.advance(time.Minute)
		if err := e.store.AddToGroups(ctx, id, "g"); err != nil {
			t.Fatal(err)
		}
		if got := e.zset(e.key("live:top-day:g")); len(got) != 0 {
			t.Errorf("live:top-day:g = %v, want none: the article was posted at the group's mark", got)
		}
		if got := e.zset(e.key("live:score:g")); len(got) != 2 {
			t.Errorf("live:score:g = %v, want both articles", got)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
	t.Run("Reindex", func(t *testing.T) {
		e := newEnv(t, bookCache, voting.WithOrders(voting.TopDay)) // posts without live groups
		e.post("alice", "first", "g")
		live := storeAt(t, e, e.clock.Now(), opts...)
		if _, err := live.PostArticle(ctx, "bob", "second", "https://example.com/second", "g"); err != nil {
			t.Fatal(err)
		}
		ahead := storeAt(t, e, e.clock.Now().Add(24*time.Hour), opts...)
		// The live index is not built, but the listing trims it first, and
		// then lists the book's listing: by the clock ahead, none is in the
		// window.
		if got, err := ahead.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || len(got) != 0 {
			t.Fatalf("listing ahead: %v, %v; want the book's listing, empty", idsOf(got), err)
		}
		e.advance(time.Minute)
		live = storeAt(t, e, e.clock.Now(), opts...)
		if err := live.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		if got := e.zset(e.key("live:top-day:g")); len(got) != 0 {
			t.Errorf("live:top-day:g = %v, want none: the articles were posted at the group's mark", got)
		}
		if got := e.zset(e.key("live:score:g")); len(got) != 2 {
			t.Errorf("live:score:g = %v, want both articles", got)
		}
		e.store = live
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
	t.Run("PostArticle", func(t *testing.T) {
		e := newEnv(t, opts...)
		e.post("alice", "first")
		ahead := storeAt(t, e, e.clock.Now().Add(48*time.Hour), opts...)
		if got, err := ahead.GetArticles(ctx, 1, voting.TopDay); err != nil || len(got) != 0 {
			t.Fatalf("listing ahead: %v, %v", idsOf(got), err)
		}
		e.advance(time.Hour)
		id := e.post("bob", "second", "g")
		// The site's window was trimmed past the post; the group's was not.
		if got := e.zset(e.key("top-day:")); len(got) != 0 {
			t.Errorf("top-day: = %v, want none", got)
		}
		if got, err := e.store.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || strings.Join(idsOf(got), " ") != id {
			t.Errorf("group g by top-day = %v, %v; want [%s]", idsOf(got), err, id)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
}

// TestLiveWindowsLeaveOutArticlesAtTheCut: an article posted exactly a
// window ago is out of the window, so AddToGroups does not put it in the
// group's live window.
func TestLiveWindowsLeaveOutArticlesAtTheCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay), voting.WithLiveGroups())
	id := e.post("alice", "first")
	e.advance(24 * time.Hour)
	if err := e.store.AddToGroups(ctx, id, "g"); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("live:top-day:g")); len(got) != 0 {
		t.Errorf("live:top-day:g = %v, want none", got)
	}
	if got, err := e.store.GetGroupArticles(ctx, "g", 1, voting.TopDay); err != nil || len(got) != 0 {
		t.Errorf("group g by top-day = %v, %v; want none", idsOf(got), err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestLiveWindowsGetAFirstMark: a group's empty live window gets a first
// mark at the window's start from the post, AddToGroups or Reindex that
// first writes it, so that its first trim does not walk the group's past.
func TestLiveWindowsGetAFirstMark(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay), voting.WithLiveGroups())
	want := fmt.Sprint(e.clock.Now().Add(-24 * time.Hour).Unix())
	id := e.post("alice", "first", "posted")
	if err := e.store.AddToGroups(ctx, id, "added"); err != nil {
		t.Fatal(err)
	}
	e.do("SADD", e.key("group:reindexed"), e.article(id))
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	marks := e.hash(e.key("trimmed:"))
	for _, g := range []string{"posted", "added", "reindexed"} {
		if got := marks["top-day:"+g]; got != want {
			t.Errorf("trimmed: top-day:%s = %q, want %q", g, got, want)
		}
	}
}

// TestWindowMarkNearTheEpoch: a trim that stops after a full step marks the
// window at the posting time of the step's last article. Near the Unix
// epoch Redis writes such a time with an exponent (1e-05, or
// 1.0000000000000001e-05); the mark is written as the library writes times,
// a plain decimal of exactly the same number, so that the window's
// listings, its count and later posts read it, and a later step walks on
// from exactly there.
func TestWindowMarkNearTheEpoch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		at   time.Time // where the full step stops
		mark string
	}{
		{time.Unix(0, 10_000), "0.00001"},
		{time.Unix(0, 1_000), "0.000001"},
		{time.Unix(0, 99_000), "0.000099"},
		{time.Unix(-1, 999_990_000), "-0.00001"},
		{time.Unix(-1, 999_999_000), "-0.000001"},
	}
	for _, tt := range tests {
		t.Run(tt.mark, func(t *testing.T) {
			opts := []voting.Option{voting.WithOrders(voting.TopDay), voting.WithLiveGroups()}
			e := newEnv(t, opts...)
			voting.SetBatches(e.store, 2, 2)
			// Two articles a microsecond apart fill the first step, which
			// stops at the second; a third, half a day on, stays in.
			e.clock.set(tt.at.Add(-time.Microsecond))
			e.post("alice", "first", "g")
			e.clock.set(tt.at)
			e.post("alice", "second", "g")
			e.clock.set(tt.at.Add(12 * time.Hour))
			kept := e.post("alice", "kept", "g")
			e.clock.set(tt.at.Add(25 * time.Hour))

			for _, group := range []string{"", "g"} {
				if got := idsOf(listAll(t, e.store, group, voting.TopDay)); !reflect.DeepEqual(got, []string{kept}) {
					t.Errorf("list %q by top-day = %v, want [%s]", group, got, kept)
				}
			}
			if n, err := e.store.Count(ctx, voting.Query{Order: voting.TopDay}); err != nil || n != 1 {
				t.Errorf("Count(TopDay) = %d, %v; want 1", n, err)
			}
			want := map[string]string{"top-day": tt.mark, "top-day:g": tt.mark}
			if got := e.hash(e.key("trimmed:")); !reflect.DeepEqual(got, want) {
				t.Errorf("trimmed: = %v, want %v", got, want)
			}
			if got, want := e.zset(e.key("top-day:")), []string{e.article(kept) + "=1"}; !reflect.DeepEqual(got, want) {
				t.Errorf("top-day: = %v, want %v", got, want)
			}

			late := e.post("bob", "late", "g")
			for _, group := range []string{"", "g"} {
				if got := idsOf(listAll(t, e.store, group, voting.TopDay)); !reflect.DeepEqual(got, []string{late, kept}) {
					t.Errorf("list %q by top-day after a post = %v, want [%s %s]", group, got, late, kept)
				}
			}
			if n, err := e.store.Count(ctx, voting.Query{Order: voting.TopDay}); err != nil || n != 2 {
				t.Errorf("Count(TopDay) after a post = %d, %v; want 2", n, err)
			}
			if got := e.hash(e.key("trimmed:")); !reflect.DeepEqual(got, want) {
				t.Errorf("trimmed: after a post = %v, want %v", got, want)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// TestWindowMarkAtABookTime: the book's code writes time.time() as it is,
// with more than microseconds; a full step that stops at such a time near
// the epoch (1.5e-07, which Redis and miniredis both write with an
// exponent) marks the window at exactly that time, in plain decimal.
func TestWindowMarkAtABookTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.TopDay))
	voting.SetBatches(e.store, 2, 2)
	e.clock.set(time.Unix(0, 0).Add(12 * time.Hour))
	kept := e.post("alice", "kept") // the window's first mark: half a day before 1970
	e.bookPost("2", "bob", 1e-7)
	e.bookPost("3", "bob", 1.5e-7)
	if err := e.store.Reindex(ctx); err != nil { // the book's articles join the window
		t.Fatal(err)
	}
	e.clock.set(time.Unix(0, 0).Add(25 * time.Hour))
	if got := idsOf(listAll(t, e.store, "", voting.TopDay)); !reflect.DeepEqual(got, []string{kept}) {
		t.Errorf("top of the day = %v, want [%s]", got, kept)
	}
	if n, err := e.store.Count(ctx, voting.Query{Order: voting.TopDay}); err != nil || n != 1 {
		t.Errorf("Count(TopDay) = %d, %v; want 1", n, err)
	}
	if got, want := e.hash(e.key("trimmed:")), map[string]string{"top-day": "0.00000015"}; !reflect.DeepEqual(got, want) {
		t.Errorf("trimmed: = %v, want %v", got, want)
	}
	late := e.post("carol", "late")
	if got := idsOf(listAll(t, e.store, "", voting.TopDay)); !reflect.DeepEqual(got, []string{late, kept}) {
		t.Errorf("top of the day after a post = %v, want [%s %s]", got, late, kept)
	}
}

// TestWindowStepAtATimeOutsideTheYears: a full step that stops at a time
// before the year 1, which only other code writes into the time index,
// cannot mark where it stopped: the listing is ErrCorrupt naming the time
// index, and no mark is written.
func TestWindowStepAtATimeOutsideTheYears(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"-1e12", "-inf"} {
		t.Run(at, func(t *testing.T) {
			e := newEnv(t, voting.WithOrders(voting.TopDay))
			voting.SetBatches(e.store, 2, 2)
			e.post("alice", "first")
			e.do("HDEL", e.key("trimmed:"), "top-day")
			e.do("ZADD", e.key("time:"), at, e.article("8"), at, e.article("9"))
			before := e.dump()
			_, err := e.store.GetArticles(ctx, 1, voting.TopDay)
			if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("time:")) {
				t.Errorf("GetArticles(TopDay) = %v, want ErrCorrupt naming %s", err, e.key("time:"))
			}
			if after := e.dump(); after != before {
				t.Errorf("GetArticles(TopDay) wrote: %s", dumpDiff(before, after))
			}
		})
	}
}

// TestListingAnEmptyGroupLeavesNoTrace: a listing or count of a window
// order of a group that holds nothing (one that never existed, or one that
// has emptied) writes nothing, live groups on and off: a reader cannot grow
// trimmed: or any other key by asking for made-up groups.
func TestListingAnEmptyGroupLeavesNoTrace(t *testing.T) {
	t.Parallel()
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprintf("live groups %v", live), func(t *testing.T) {
			opts := []voting.Option{voting.WithOrders(voting.Orders()...)}
			if live {
				opts = append(opts, voting.WithLiveGroups())
			}
			e := newEnv(t, opts...)
			id := e.post("alice", "first", "emptied")
			if err := e.store.RemoveFromGroups(ctx, id, "emptied"); err != nil {
				t.Fatal(err)
			}
			e.advance(time.Hour)
			before := e.dump()
			for i := range 50 {
				for _, order := range []voting.Order{voting.TopDay, voting.TopWeek, voting.TopMonth, voting.TopYear} {
					for _, group := range []string{"made-up" + strconv.Itoa(i), "emptied"} {
						if got, err := e.store.GetGroupArticles(ctx, group, 1, order); err != nil || len(got) != 0 {
							t.Fatalf("group %s by %v = %v, %v; want an empty page", group, order, idsOf(got), err)
						}
						if n, err := e.store.Count(ctx, voting.Query{Group: group, Order: order}); err != nil || n != 0 {
							t.Fatalf("count of group %s by %v = %d, %v; want 0", group, order, n, err)
						}
					}
				}
			}
			if after := e.dump(); after != before {
				t.Errorf("listings of empty groups wrote: %s", dumpDiff(before, after))
			}
		})
	}
}
