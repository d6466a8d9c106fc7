package voting_test

// Tests of the index of active users (WithActiveUsers).

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// TestActiveUsers: a post of an article or of a comment moves its
// poster's time on, never back, and a deletion leaves it; ActiveUsers
// counts the users at or after a time and LastActive reads one's.
func TestActiveUsers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.with(voting.WithActiveUsers())
	e.store = s // the Store the invariant checker goes by
	t0 := e.clock.Now()
	a, err := s.PostArticle(ctx, "alice", "A", "https://example.com/a")
	if err != nil {
		t.Fatal(err)
	}
	advance(e, time.Minute)
	t1 := e.clock.Now()
	c, err := s.PostComment(ctx, "bob", a, "", "first")
	if err != nil {
		t.Fatal(err)
	}
	advance(e, time.Minute)
	t2 := e.clock.Now()
	if _, err := s.PostComment(ctx, "alice", a, c, "reply"); err != nil {
		t.Fatal(err)
	}
	want := []string{"bob=" + seconds(t1), "alice=" + seconds(t2)}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Fatalf("active: = %v, want %v", got, want)
	}
	if err := s.DeleteComment(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Fatalf("active: = %v after a deletion, want %v", got, want)
	}
	for _, tc := range []struct {
		since time.Time
		want  int64
	}{{t0, 2}, {t1, 2}, {t1.Add(time.Second), 1}, {t2, 1}, {t2.Add(time.Second), 0}} {
		if n, err := s.ActiveUsers(ctx, tc.since); err != nil || n != tc.want {
			t.Errorf("ActiveUsers(since %v) = %d, %v; want %d", tc.since.Sub(t0), n, err, tc.want)
		}
	}
	for user, at := range map[string]time.Time{"alice": t2, "bob": t1, "carol": {}} {
		if got, err := s.LastActive(ctx, user); err != nil || !got.Equal(at) {
			t.Errorf("LastActive(%s) = %v, %v; want %v", user, got, err, at)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// Bad input, and a namespace that keeps no such index.
	if _, err := s.LastActive(ctx, ""); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("LastActive of no user = %v, want ErrInvalid", err)
	}
	other := newEnv(t)
	if _, err := other.store.ActiveUsers(ctx, t0); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("ActiveUsers without WithActiveUsers = %v, want ErrInvalid", err)
	}
}

// TestReindexBuildsActiveUsers: items posted before the index is kept
// leave it unbuilt, ErrNotIndexed, until Reindex gives each poster the
// latest time of their items; StopKeeping takes it away.
func TestReindexBuildsActiveUsers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.post("alice", "A")
	advance(e, time.Minute)
	t1 := e.clock.Now()
	if _, err := e.store.PostComment(ctx, "bob", a, "", "first"); err != nil {
		t.Fatal(err)
	}
	advance(e, time.Minute)
	t2 := e.clock.Now()
	e.post("alice", "B")
	advance(e, time.Minute)

	s := e.with(voting.WithActiveUsers())
	e.store = s
	if _, err := s.ActiveUsers(ctx, t1); !errors.Is(err, voting.ErrNotIndexed) {
		t.Fatalf("ActiveUsers before Reindex = %v, want ErrNotIndexed", err)
	}
	if err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"bob=" + seconds(t1), "alice=" + seconds(t2)}
	if got := e.zset(e.key("active:")); !reflect.DeepEqual(got, want) {
		t.Fatalf("active: after Reindex = %v, want %v", got, want)
	}
	if n, err := s.ActiveUsers(ctx, t1); err != nil || n != 2 {
		t.Errorf("ActiveUsers after Reindex = %d, %v; want 2", n, err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	if err := s.StopKeeping(ctx, voting.WithActiveUsers()); err != nil {
		t.Fatal(err)
	}
	if n := e.do("EXISTS", e.key("active:")); n != int64(0) {
		t.Errorf("active: exists after StopKeeping (EXISTS %v)", n)
	}
	if _, err := s.ActiveUsers(ctx, t1); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("ActiveUsers after StopKeeping = %v, want ErrInvalid", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// advance moves the env's clock on by d.
func advance(e *env, d time.Duration) { e.clock.set(e.clock.Now().Add(d)) }

// seconds is t as Redis writes a score of whole Unix seconds.
func seconds(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
