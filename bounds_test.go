package voting_test

// Tests of the bounds every call keeps, whatever users send: no call names
// more than MaxGroups groups, and one past it writes nothing. That no call
// holds Redis long whatever the data, TestNoCallStallsRedis checks.

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/articlevote/voting"
)

// manyGroups is a number of groups far past MaxGroups, and past what one
// Lua unpack takes.
const manyGroups = 7999

// numberedGroups is n distinct group names: prefix1 to prefix<n>.
func numberedGroups(prefix string, n int) []string {
	groups := make([]string, n)
	for i := range groups {
		groups[i] = prefix + strconv.Itoa(i+1)
	}
	return groups
}

// dumpDiff says which keys two dumps (env.dump) disagree on: the lines of
// each that the other lacks, a few of each, each cut short.
func dumpDiff(before, after string) string {
	lines := func(dump string) map[string]bool {
		m := map[string]bool{}
		for _, line := range strings.Split(dump, "\n") {
			if line != "" {
				m[line] = true
			}
		}
		return m
	}
	was, is := lines(before), lines(after)
	only := func(a, b map[string]bool) []string {
		var out []string
		for line := range a {
			if !b[line] {
				out = append(out, line)
			}
		}
		sort.Strings(out)
		return out
	}
	var b strings.Builder
	for _, side := range []struct {
		what  string
		lines []string
	}{{"gone or changed", only(was, is)}, {"new or changed", only(is, was)}} {
		fmt.Fprintf(&b, "%d keys %s", len(side.lines), side.what)
		for i, line := range side.lines {
			if i == 5 {
				fmt.Fprintf(&b, "\n\t...")
				break
			}
			if len(line) > 160 {
				line = line[:160] + "..."
			}
			fmt.Fprintf(&b, "\n\t%s", line)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestPostPastMaxGroupsWritesNothing: a post naming more groups than a call
// may is refused with ErrInvalid before anything is written. Past some 8,000
// groups the post script cannot hand the names to one Redis command, and a
// script that fails after its first writes leaves them: an id taken, a hash,
// group sets, with no record of the article's groups.
func TestPostPastMaxGroupsWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("alice", "first", "g1")
	before := e.dump()
	_, err := e.store.PostArticle(ctx, "bob", "everywhere", "https://example.com/everywhere", numberedGroups("g", manyGroups)...)
	if !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("a post in %d groups: %v, want ErrInvalid", manyGroups, err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a post in %d groups changed the key space:\n%s", manyGroups, dumpDiff(before, after))
	}
}

// TestAddToGroupsPastMaxGroupsWritesNothing: adding an article to more groups
// than a call may name is refused with ErrInvalid before anything is
// written.
func TestAddToGroupsPastMaxGroupsWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "first", "start")
	before := e.dump()
	err := e.store.AddToGroups(ctx, id, numberedGroups("g", manyGroups)...)
	if !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("AddToGroups of %d groups: %v, want ErrInvalid", manyGroups, err)
	}
	if after := e.dump(); after != before {
		t.Errorf("AddToGroups of %d groups changed the key space:\n%s", manyGroups, dumpDiff(before, after))
	}
}

// TestRemoveFromGroupsPastMaxGroupsWritesNothing: taking an article out of
// more groups than a call may name is refused with ErrInvalid, as adding it
// is, and writes nothing: not even the groups named that hold it lose it.
func TestRemoveFromGroupsPastMaxGroupsWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "first", "g1", "g2")
	before := e.dump()
	err := e.store.RemoveFromGroups(ctx, id, numberedGroups("g", manyGroups)...)
	if !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("RemoveFromGroups of %d groups: %v, want ErrInvalid", manyGroups, err)
	}
	if after := e.dump(); after != before {
		t.Errorf("RemoveFromGroups of %d groups changed the key space:\n%s", manyGroups, dumpDiff(before, after))
	}
}

// TestPostAtMaxGroupsIsAccepted: a call naming exactly as many groups as a
// call may is taken: a post, a removal from all of them and an addition to
// all of them again.
func TestPostAtMaxGroupsIsAccepted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithLiveGroups(), voting.WithOrders(voting.Orders()...))
	groups := numberedGroups("g", voting.MaxGroups)
	sorted := append([]string(nil), groups...)
	sort.Strings(sorted)
	id, err := e.store.PostArticle(ctx, "alice", "at the limit", "https://example.com/limit", groups...)
	if err != nil {
		t.Fatalf("a post in %d groups: %v", len(groups), err)
	}
	if got, err := groupsOf(e.store.Article(ctx, id)); err != nil || strings.Join(got, " ") != strings.Join(sorted, " ") {
		t.Errorf("Article.Groups = %v, %v; want %v", got, err, sorted)
	}
	if err := e.store.RemoveFromGroups(ctx, id, groups...); err != nil {
		t.Fatalf("RemoveFromGroups of %d groups: %v", len(groups), err)
	}
	if err := e.store.AddToGroups(ctx, id, groups...); err != nil {
		t.Fatalf("AddToGroups of %d groups: %v", len(groups), err)
	}
	if got, err := groupsOf(e.store.Article(ctx, id)); err != nil || strings.Join(got, " ") != strings.Join(sorted, " ") {
		t.Errorf("Article.Groups after the round = %v, %v; want %v", got, err, sorted)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestAddToGroupsPastMaxGroupsInAllWritesNothing: an article may be in at
// most MaxGroups groups, counting those it is in already: AddToGroups that
// would take it past is refused with ErrInvalid, saying how many it would
// be in, and writes nothing; a group it is in already does not count twice.
func TestAddToGroupsPastMaxGroupsInAllWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithLiveGroups())
	groups := numberedGroups("g", voting.MaxGroups)
	id := e.post("alice", "nearly full", groups[:voting.MaxGroups-1]...)
	before := e.dump()
	err := e.store.AddToGroups(ctx, id, "x", "y")
	if want := fmt.Sprintf("would be in %d groups", voting.MaxGroups+1); !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), want) {
		t.Errorf("AddToGroups past MaxGroups in all: %v, want ErrInvalid saying %q", err, want)
	}
	if after := e.dump(); after != before {
		t.Errorf("the refused AddToGroups changed the key space:\n%s", dumpDiff(before, after))
	}
	if err := e.store.AddToGroups(ctx, id, groups[0], groups[voting.MaxGroups-1]); err != nil {
		t.Errorf("AddToGroups up to MaxGroups in all: %v", err)
	}
	if got, err := groupsOf(e.store.Article(ctx, id)); err != nil || len(got) != voting.MaxGroups {
		t.Errorf("Article.Groups = %v, %v; want %d groups", got, err, voting.MaxGroups)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestAGroupNamedTwiceCountsOnce: a post or a group change may name a group
// more than once; it counts once, towards MaxGroups too.
func TestAGroupNamedTwiceCountsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	groups := numberedGroups("g", voting.MaxGroups)
	id, err := e.store.PostArticle(ctx, "alice", "twice", "https://example.com/twice", append(groups, groups...)...)
	if err != nil {
		t.Fatalf("PostArticle naming each of %d groups twice: %v", voting.MaxGroups, err)
	}
	if got, err := groupsOf(e.store.Article(ctx, id)); err != nil || len(got) != voting.MaxGroups {
		t.Errorf("Article.Groups = %v, %v; want %d groups", got, err, voting.MaxGroups)
	}
	if err := e.store.RemoveFromGroups(ctx, id, "g1", "g1"); err != nil {
		t.Errorf("RemoveFromGroups naming g1 twice: %v", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestCallsOneGroupPastMaxGroupsWriteNothing: a post, AddToGroups and
// RemoveFromGroups naming exactly MaxGroups + 1 distinct groups are
// refused with ErrInvalid and write nothing; MaxGroups + 1 names of which
// two are the same are MaxGroups groups, and accepted.
func TestCallsOneGroupPastMaxGroupsWriteNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "first", "g1")
	past := numberedGroups("g", voting.MaxGroups+1)
	before := e.dump()
	for name, call := range map[string]func() error{
		"PostArticle": func() error {
			_, err := e.store.PostArticle(ctx, "bob", "everywhere", "https://example.com/everywhere", past...)
			return err
		},
		"AddToGroups":      func() error { return e.store.AddToGroups(ctx, id, past...) },
		"RemoveFromGroups": func() error { return e.store.RemoveFromGroups(ctx, id, past...) },
	} {
		if err := call(); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("%s of %d groups: %v, want ErrInvalid", name, len(past), err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("calls of %d groups changed the key space:\n%s", len(past), dumpDiff(before, after))
	}
	repeated := append(numberedGroups("g", voting.MaxGroups), "g1")
	other, err := e.store.PostArticle(ctx, "bob", "ten", "https://example.com/ten", repeated...)
	if err != nil {
		t.Fatalf("a post of %d names, %d of them distinct: %v", len(repeated), voting.MaxGroups, err)
	}
	if got, err := groupsOf(e.store.Article(ctx, other)); err != nil || len(got) != voting.MaxGroups {
		t.Errorf("Article.Groups = %v, %v; want %d groups", got, err, voting.MaxGroups)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}
