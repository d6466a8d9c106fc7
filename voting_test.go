package voting_test

// Tests of New and its options (voting.go, options.go).

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return nil, errors.New("no dialing in this test") }}
	tests := []struct {
		name string
		opt  voting.Option
	}{
		{"negative weight", voting.WithVoteWeight(-1)},
		{"zero weight", voting.WithVoteWeight(0)},
		{"NaN weight", voting.WithVoteWeight(math.NaN())},
		{"infinite weight", voting.WithVoteWeight(math.Inf(1))},
		{"weight that overflows a score", voting.WithVoteWeight(1e308)},
		{"weight just past the largest", voting.WithVoteWeight(math.Nextafter(voting.MaxVoteWeight, math.Inf(1)))},
		{"zero cutoff", voting.WithCutoff(0)},
		{"sub-second cutoff", voting.WithCutoff(time.Millisecond)},
		{"zero page size", voting.WithPageSize(0)},
		{"huge page size", voting.WithPageSize(voting.MaxPageSize + 1)},
		{"negative group TTL", voting.WithGroupCacheTTL(-time.Second)},
		{"sub-millisecond group TTL", voting.WithGroupCacheTTL(time.Microsecond)},
		{"nil clock", voting.WithClock(nil)},
		{"prefix with space", voting.WithPrefix("my news:")},
		{"prefix with newline", voting.WithPrefix("news\n")},
		{"prefix too long", voting.WithPrefix(strings.Repeat("p", voting.MaxPrefixLen+1))},
		{"prefix not UTF-8", voting.WithPrefix("news\xff:")},
		{"negative client cache", voting.WithClientCache(-1)},
		{"client cache too large", voting.WithClientCache(voting.MaxClientCache + 1)},
		{"nil option", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := voting.New(pool, noBuilder, tt.opt)
			if !errors.Is(err, voting.ErrInvalid) {
				t.Fatalf("New = %v, %v; want an error wrapping ErrInvalid", s, err)
			}
		})
	}
	if _, err := voting.New(nil); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("New(nil) = %v; want ErrInvalid", err)
	}
	good := []voting.Option{
		voting.WithPrefix("{news}:"), voting.WithVoteWeight(voting.MaxVoteWeight), voting.WithCutoff(time.Second),
		voting.WithPageSize(voting.MaxPageSize), voting.WithGroupCacheTTL(0), voting.WithClock(time.Now),
	}
	s, err := voting.New(pool, append([]voting.Option{noBuilder}, good...)...)
	if err != nil {
		t.Fatalf("New with good options: %v", err)
	}
	if s.PageSize() != voting.MaxPageSize {
		t.Errorf("PageSize = %d, want %d", s.PageSize(), voting.MaxPageSize)
	}
}

// TestNewRefusesAVoteWeightPastTheMaximum: New refuses a weight so large
// that scores would overflow or lose their seconds, and takes
// MaxVoteWeight.
func TestNewRefusesAVoteWeightPastTheMaximum(t *testing.T) {
	t.Parallel()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return nil, errors.New("no dialing in this test") }}
	for _, w := range []float64{1e308, 2 * voting.MaxVoteWeight, math.Nextafter(voting.MaxVoteWeight, math.Inf(1))} {
		if s, err := voting.New(pool, noBuilder, voting.WithVoteWeight(w)); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("New with weight %g = %v, %v; want ErrInvalid", w, s, err)
		}
	}
	if _, err := voting.New(pool, noBuilder, voting.WithVoteWeight(voting.MaxVoteWeight)); err != nil {
		t.Errorf("New with weight MaxVoteWeight: %v", err)
	}
}

func TestPostArticleUsesPrefixAndOptions(t *testing.T) {
	t.Parallel()
	e := newEnvPrefix(t, "news:", voting.WithVoteWeight(100.5), voting.WithCutoff(time.Hour))
	id := e.post("alice", "prefixed", "tech")
	if !strings.HasSuffix(e.prefix, "news:") {
		t.Fatalf("prefix %q does not end in news:", e.prefix)
	}
	member := e.key("article:" + id)
	if got := e.zscore(e.key("score:"), member); got != unix(start)+100.5 {
		t.Errorf("score = %v, want %v", got, unix(start)+100.5)
	}
	if got := e.strs("SMEMBERS", e.key("group:tech")); !reflect.DeepEqual(got, []string{member}) {
		t.Errorf("group = %v, want [%s]", got, member)
	}
	if ttl := e.pttl(e.key("voted:" + id)); ttl > time.Hour || ttl < time.Hour-5*time.Second {
		t.Errorf("voted TTL = %v, want 1h", ttl)
	}
	for _, k := range e.keys() {
		if !strings.HasPrefix(k, e.prefix) {
			t.Errorf("key %q is outside the prefix", k)
		}
	}
	// Every key of the namespace is there, under the prefix: the book's,
	// the library's record, sizes, index of posts, settings and count, and
	// the group's live indexes (a namespace the library makes keeps them).
	if n := len(e.keys()); n != 13 {
		t.Errorf("%d keys, want 13: %v", n, e.keys())
	}
}
