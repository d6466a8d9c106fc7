package voting_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
)

// TestProfile: a user's counts and karma in one round trip; a user who has
// only voted is known by their history; a name never seen, and a user who
// has only voted in a namespace that keeps no history, is ErrNotFound.
func TestProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithKarma(), voting.WithUserHistory(time.Hour))
	a := e.post("alice", "first")
	e.post("alice", "second")
	c := e.comment("alice", a, "", "my own")
	e.vote("bob", a, voting.Up)
	e.voteComment("bob", c, voting.Down)
	e.vote("carol", a, voting.Down)
	trips := roundtrip.New(e.redis())
	s, err := voting.New(trips, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Settings(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		user string
		want voting.Profile
	}{
		// alice: two posts (each her own up-vote in her history), one
		// comment; karma 1 up less 1 down on her articles, -1 on her comment.
		{"alice", voting.Profile{User: "alice", Posts: 2, Comments: 1, Votes: 2, Karma: 0, CommentKarma: -1, KarmaKept: true}},
		{"bob", voting.Profile{User: "bob", Votes: 1, KarmaKept: true}},
		{"carol", voting.Profile{User: "carol", Votes: 1, KarmaKept: true}},
	} {
		before := trips.Trips()
		got, err := s.Profile(ctx, c.user)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Profile(%s) = %+v, %v; want %+v", c.user, got, err, c.want)
		}
		if n := trips.Trips() - before; n != 1 {
			t.Errorf("Profile(%s) took %d round trips, want 1", c.user, n)
		}
	}
	if _, err := s.Profile(ctx, "dave"); !errors.Is(err, voting.ErrNotFound) || err.Error() != `voting: profile of user "dave": user "dave" not found` {
		t.Errorf("Profile of a name never seen = %v, want ErrNotFound", err)
	}
	before := e.dump()
	if _, err := s.Profile(ctx, " dave"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Profile of a malformed name = %v, want ErrInvalid", err)
	}
	if e.dump() != before {
		t.Error("a refused Profile wrote")
	}
	// Once bob's vote leaves the history, he is unknown.
	e.advance(2 * time.Hour)
	if _, err := s.Profile(ctx, "bob"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Profile of a voter whose votes left the history = %v, want ErrNotFound", err)
	}
}

// TestProfileWithoutKarmaOrHistory: with neither, a profile holds the
// counts; a voter is unknown; karma not counted yet says so.
func TestProfileWithoutKarmaOrHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "first")
	e.vote("bob", a, voting.Up)
	got, err := e.store.Profile(ctx, "alice")
	if want := (voting.Profile{User: "alice", Posts: 1}); err != nil || got != want {
		t.Errorf("Profile(alice) = %+v, %v; want %+v", got, err, want)
	}
	if _, err := e.store.Profile(ctx, "bob"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Profile of a voter with no history = %v, want ErrNotFound", err)
	}
	// Karma added to a namespace with articles: not counted until Reindex.
	k := e.with(voting.WithKarma())
	got, err = k.Profile(ctx, "alice")
	if want := (voting.Profile{User: "alice", Posts: 1}); err != nil || got != want {
		t.Errorf("Profile(alice) with karma not counted = %+v, %v; want %+v", got, err, want)
	}
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = k.Profile(ctx, "alice")
	if want := (voting.Profile{User: "alice", Posts: 1, Karma: 1, KarmaKept: true}); err != nil || got != want {
		t.Errorf("Profile(alice) once karma is counted = %+v, %v; want %+v", got, err, want)
	}
}
