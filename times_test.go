package voting_test

// Tests of the range of posting times (internal/schema/codec.go): the years 1 to 9999,
// those JSON can carry. A clock reading outside is refused and writes
// nothing; one at either edge is taken, and what it writes reads back and
// encodes. A stored time outside, or a score that is not finite, is
// ErrCorrupt to Article and Vote and left out of every listing, so that
// every page encodes as JSON.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// timesOpts are the options of the tests of this file: every order, live
// groups and a history, so that every index and mark a time reaches is
// written.
var timesOpts = []voting.Option{
	voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(), voting.WithUserHistory(365 * 24 * time.Hour),
}

// TestClockOutsideTheYearsIsRefused: with the clock outside the years 1 to
// 9999 (or in the last microseconds of 9999, whose Unix seconds round to
// the year 10000 as a double), every call that reads the clock gives
// ErrInvalid and writes nothing.
func TestClockOutsideTheYearsIsRefused(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{
		time.Date(-100, 6, 1, 12, 0, 0, 0, time.UTC),
		time.Date(0, 6, 1, 12, 0, 0, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 6, 1, 12, 0, 0, 0, time.UTC),
	} {
		t.Run(at.Format(time.RFC3339Nano), func(t *testing.T) {
			e := newEnv(t, timesOpts...)
			id := e.post("alice", "before", "g")
			e.clock.set(at)
			before := e.dump()
			calls := map[string]func() error{
				"PostArticle": func() error {
					_, err := e.store.PostArticle(ctx, "bob", "at", "https://example.com/at", "g")
					return err
				},
				"Vote":        func() error { return e.store.Vote(ctx, "bob", id, voting.Up) },
				"AddToGroups": func() error { return e.store.AddToGroups(ctx, id, "h") },
				"GetArticles": func() error { _, err := e.store.GetArticles(ctx, 1, voting.TopDay); return err },
				"GetGroupArticles": func() error {
					_, err := e.store.GetGroupArticles(ctx, "g", 1, voting.TopDay)
					return err
				},
				"CountArticles": func() error { _, err := e.store.Count(ctx, voting.Query{Order: voting.TopDay}); return err },
				"UserHistory":   func() error { _, err := two(e.store.UserHistory(ctx, "alice", voting.Paging{Page: 1})); return err },
				"Reindex":       func() error { return e.store.Reindex(ctx) },
			}
			for name, call := range calls {
				if err := call(); !errors.Is(err, voting.ErrInvalid) {
					t.Errorf("%s with the clock at %v = %v, want ErrInvalid", name, at, err)
				}
			}
			if after := e.dump(); after != before {
				t.Errorf("calls with the clock at %v wrote: %s", at, dumpDiff(before, after))
			}
		})
	}
}

// TestClockAtTheEdgesOfTheYears: with the clock at the first second of the
// year 1 or the last of 9999, articles are posted, voted on, added to
// groups and reindexed; they read back at that time, every page and
// history lists them and encodes as JSON. A window's start before the year
// 1 gives it no mark (no article is posted before it), and a window trimmed
// later gets one.
func TestClockAtTheEdgesOfTheYears(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
	} {
		t.Run(at.Format(time.RFC3339), func(t *testing.T) {
			e := newEnv(t, timesOpts...)
			e.clock.set(at)
			a := e.post("alice", "a", "g")
			b := e.post("alice", "b", "g")
			e.vote("bob", a, voting.Up)
			if err := e.store.AddToGroups(ctx, b, "h"); err != nil {
				t.Fatal(err)
			}
			if err := e.store.Reindex(ctx); err != nil {
				t.Fatal(err)
			}

			got, err := e.store.Article(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			sec := at.Unix()
			want := voting.Article{ID: a, Title: "a", Link: "https://example.com/a", Poster: "alice",
				Posted: at, Points: 2, Upvotes: 2, RankingScore: float64(sec + 2*432), Groups: []string{"g"}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Article(%s) = %+v, want %+v", a, got, want)
			}
			wantJSON := fmt.Sprintf(`{"id":"%s","title":"a","link":"https://example.com/a","poster":"alice","posted":"%s","points":2,"upvotes":2,"downvotes":0,"rankingScore":%d,"comments":0,"groups":["g"]}`,
				a, at.Format(time.RFC3339), sec+2*432)
			if j, err := json.Marshal(got); err != nil || string(j) != wantJSON {
				t.Errorf("json.Marshal(Article(%s)) = %s, %v; want %s", a, j, err, wantJSON)
			}

			for _, o := range voting.Orders() {
				for _, group := range []string{"", "g"} {
					page := listAll(t, e.store, group, o)
					if got := sorted(idsOf(page)); !reflect.DeepEqual(got, []string{a, b}) {
						t.Errorf("list %q by %v = %v, want %s and %s", group, o, idsOf(page), a, b)
					}
					if _, err := json.Marshal(page); err != nil {
						t.Errorf("json.Marshal of the page of %q by %v: %v", group, o, err)
					}
				}
				if n, err := e.store.Count(ctx, voting.Query{Order: o}); err != nil || n != 2 {
					t.Errorf("Count(%v) = %d, %v; want 2", o, n, err)
				}
			}
			history, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
			if err != nil {
				t.Fatal(err)
			}
			listed := want
			listed.Groups = nil // a history reads no groups
			wantHistory := []voting.UserVote{{Article: listed, Direction: voting.Up, At: at}}
			if !reflect.DeepEqual(history, wantHistory) {
				t.Errorf("UserHistory(bob) = %+v, want %+v", history, wantHistory)
			}
			if j, err := json.Marshal(history); err != nil || !strings.HasSuffix(string(j), `,"direction":"up","at":"`+at.Format(time.RFC3339)+`"}]`) {
				t.Errorf("json.Marshal(UserHistory(bob)) = %s, %v", j, err)
			}

			// A window's first mark is where it starts, unless that is
			// before the year 1.
			wantMarks := map[string]string{}
			for o, window := range windows {
				if start := at.Add(-window); start.Year() >= 1 {
					for _, field := range []string{o.String(), o.String() + ":g", o.String() + ":h"} {
						wantMarks[field] = strconv.FormatInt(start.Unix(), 10)
					}
				}
			}
			if got := e.hash(e.key("trimmed:")); !reflect.DeepEqual(got, wantMarks) {
				t.Errorf("trimmed: = %v, want %v", got, wantMarks)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

			if at.Year() == 1 {
				e.advance(48 * time.Hour)
				for _, group := range []string{"", "g"} {
					if got := listAll(t, e.store, group, voting.TopDay); len(got) != 0 {
						t.Errorf("list %q by top-day two days on = %v, want none", group, idsOf(got))
					}
				}
				mark := strconv.FormatInt(at.Add(24*time.Hour).Unix(), 10)
				want := map[string]string{"top-day": mark, "top-day:g": mark}
				if got := e.hash(e.key("trimmed:")); !reflect.DeepEqual(got, want) {
					t.Errorf("trimmed: two days on = %v, want %v", got, want)
				}
			}
		})
	}
}

// TestTimesAndScoresOutsideTheRangeAreSkipped: an article whose stored time
// is outside the years 1 to 9999, or whose score is not finite, as written
// by something other than this library, is ErrCorrupt to Article and Vote
// (which write nothing) and left out of every listing and history, whose
// pages encode as JSON; by score the page gives the scores, by time fetch
// reads them.
func TestTimesAndScoresOutsideTheRangeAreSkipped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, bookCache, voting.WithUserHistory(365*24*time.Hour))
	var ids []string
	for i := range 5 {
		e.advance(time.Minute)
		ids = append(ids, e.post("alice", strconv.Itoa(i), "g"))
		e.vote("bob", ids[i], voting.Up)
	}
	sound := ids[0]
	bad := map[string]string{ // id: what Article's error names
		ids[1]: "field time",
		ids[2]: "field time",
		ids[3]: "score",
		ids[4]: "score",
	}
	e.do("HSET", e.article(ids[1]), "time", strconv.FormatInt(time.Date(-100, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), 10))
	e.do("HSET", e.article(ids[2]), "time", "253402300800") // 10000-01-01
	e.do("ZADD", e.key("score:"), "+inf", e.article(ids[3]))
	e.do("ZADD", e.key("score:"), "-inf", e.article(ids[4]))

	lists := map[string]func() (any, []string, error){}
	for _, o := range []voting.Order{voting.ByScore, voting.ByTime} {
		lists["GetArticles "+o.String()] = func() (any, []string, error) {
			page, err := e.store.GetArticles(ctx, 1, o)
			return page, idsOf(page), err
		}
		lists["GetGroupArticles "+o.String()] = func() (any, []string, error) {
			page, err := e.store.GetGroupArticles(ctx, "g", 1, o)
			return page, idsOf(page), err
		}
	}
	lists["UserHistory"] = func() (any, []string, error) {
		h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
		var got []string
		for _, v := range h {
			got = append(got, v.Article.ID)
		}
		return h, got, err
	}
	for name, list := range lists {
		page, got, err := list()
		if err != nil || !reflect.DeepEqual(got, []string{sound}) {
			t.Errorf("%s = %v, %v; want [%s]", name, got, err, sound)
		}
		if _, err := json.Marshal(page); err != nil {
			t.Errorf("json.Marshal of %s: %v", name, err)
		}
	}
	before := e.dump()
	for id, what := range bad {
		if _, err := e.store.Article(ctx, id); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), what) {
			t.Errorf("Article(%s) = %v, want ErrCorrupt naming the %s", id, err, what)
		}
		if err := e.store.Vote(ctx, "carol", id, voting.Up); !errors.Is(err, voting.ErrCorrupt) {
			t.Errorf("Vote on %s = %v, want ErrCorrupt", id, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("Article and Vote wrote: %s", dumpDiff(before, after))
	}
}
