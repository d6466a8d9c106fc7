package voting_test

// Tests of the windows of the top-of-window orders (windows.go).

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

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
	late, err := voting.New(e.pool, voting.WithPrefix(e.prefix), voting.WithClock(lagging.Now), voting.WithOrders(voting.TopDay))
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
