package voting_test

// Tests of DeleteArticle (delete.go).

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// withoutCounter is a dump with the id counter's line taken out.
func (e *env) withoutCounter(dump string) string {
	var lines []string
	for _, line := range strings.Split(dump, "\n") {
		if !strings.HasPrefix(line, e.key("article:")+" ") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// TestDeleteLeavesTheKeySpaceAsBeforeThePost posts an article into groups
// that already hold another, votes on it up, down, switched and taken back,
// moves it between groups and lists it every way (filling the book's group
// cache, or the live indexes and window marks); deleting it leaves every key
// of the namespace exactly as it was before the post, the id counter aside.
func TestDeleteLeavesTheKeySpaceAsBeforeThePost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts []voting.Option
	}{
		{"every order, live groups, history", []voting.Option{voting.WithOrders(extraOrders...), voting.WithLiveGroups(),
			voting.WithUserHistory(30 * 24 * time.Hour)}},
		{"the book's cached groups", nil},
		{"uncached groups, history", []voting.Option{voting.WithGroupCacheTTL(0), voting.WithUserHistory(time.Hour)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.opts...)
			groups := []string{"go", "redis", "lua"}
			listEverything := func() {
				for _, o := range voting.View(e.store).Orders {
					listAll(t, e.store, "", o)
					for _, g := range groups {
						if _, err := e.store.GetGroupArticles(ctx, g, 1, o); err != nil && !errors.Is(err, voting.ErrInvalid) {
							t.Fatalf("GetGroupArticles(%s, %v): %v", g, o, err)
						}
					}
				}
			}
			old := e.post("alice", "old", groups...)
			e.vote("bob", old, voting.Up)
			e.vote("carol", old, voting.Down)
			listEverything()
			// Within the group cache's TTL, so that the cached listings are
			// the same before and after.
			e.advance(30 * time.Second)
			before := e.withoutCounter(e.dump())

			id := e.post("dave", "new", "go", "redis")
			e.vote("bob", id, voting.Up)
			e.vote("carol", id, voting.Down)
			e.vote("erin", id, voting.Up)
			e.vote("erin", id, voting.Down)
			e.vote("frank", id, voting.Up)
			e.vote("frank", id, voting.None)
			if err := e.store.AddToGroups(ctx, id, "lua"); err != nil {
				t.Fatal(err)
			}
			if err := e.store.RemoveFromGroups(ctx, id, "redis"); err != nil {
				t.Fatal(err)
			}
			listEverything()
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			if err := e.store.DeleteArticle(ctx, id); err != nil {
				t.Fatalf("DeleteArticle: %v", err)
			}
			if after := e.withoutCounter(e.dump()); after != before {
				t.Errorf("after the deletion:\n%s\nbefore the post:\n%s", after, before)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			if err := e.store.DeleteArticle(ctx, id); !errors.Is(err, voting.ErrNotFound) {
				t.Errorf("a second DeleteArticle: %v, want ErrNotFound", err)
			}
		})
	}
}

// TestDeletedArticleIsUnknown: after DeleteArticle every method treats the
// id as unknown, and the next post takes a new id.
func TestDeletedArticleIsUnknown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.TopWeek), voting.WithLiveGroups(), voting.WithUserHistory(time.Hour))
	keep := e.post("alice", "kept", "go")
	id := e.post("bob", "deleted", "go")
	e.vote("carol", id, voting.Up)
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Article(ctx, id); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Article: %v, want ErrNotFound", err)
	}
	if err := e.store.Vote(ctx, "carol", id, voting.Down); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Vote: %v, want ErrNotFound", err)
	}
	if err := e.store.AddToGroups(ctx, id, "go"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("AddToGroups: %v, want ErrNotFound", err)
	}
	if _, err := groupsOf(e.store.Article(ctx, id)); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Article.Groups: %v, want ErrNotFound", err)
	}
	for _, o := range voting.View(e.store).Orders {
		for _, g := range []string{"", "go"} {
			if got := idsOf(listAll(t, e.store, g, o)); fmt.Sprint(got) != "["+keep+"]" {
				t.Errorf("group %q by %v lists %v, want [%s]", g, o, got, keep)
			}
		}
		if n, err := e.store.Count(ctx, voting.Query{Order: o}); err != nil || n != 1 {
			t.Errorf("Count(%v) = %d, %v; want 1", o, n, err)
		}
		if n, err := e.store.Count(ctx, voting.Query{Group: "go", Order: o}); err != nil || n != 1 {
			t.Errorf("Count(group go, %v) = %d, %v; want 1", o, n, err)
		}
	}
	if dirs, err := e.store.UserVotes(ctx, "carol", id); err != nil || dirs[0] != voting.None {
		t.Errorf("UserVotes = %v, %v; want [none]", dirs, err)
	}
	if h, err := two(e.store.UserHistory(ctx, "carol", voting.Paging{Page: 1})); err != nil || len(h) != 0 {
		t.Errorf("UserHistory = %v, %v; want none", h, err)
	}
	if next := e.post("dave", "next"); next == id {
		t.Errorf("the next post took the deleted id %s", id)
	}
	for _, k := range e.keys() {
		if strings.HasSuffix(k, ":"+id) || strings.Contains(k, "article:"+id) {
			t.Errorf("%s is left of the deleted article", k)
		}
	}
	if err := e.store.DeleteArticle(ctx, "999"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("DeleteArticle of no article: %v, want ErrNotFound", err)
	}
}

// An article whose hash is gone but whose index entries are left is still
// deleted: only an article of which nothing is stored is not found.
func TestDeleteCleansUpAnArticleWithoutItsHash(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "a", "go")
	e.do("DEL", e.article(id))
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatalf("DeleteArticle: %v", err)
	}
	for _, k := range []string{"score:", "time:", "group:go", "groups:" + id, "voted:" + id} {
		if e.exists(e.key(k)) {
			t.Errorf("%s is left", k)
		}
	}
}

// Group names read from a record that are no group names make DeleteArticle
// report ErrCorrupt naming the record, writing nothing.
func TestDeleteRefusesBadGroupNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "a", "go")
	key := e.key("groups:" + id)
	e.do("SADD", key, "a{b}")
	before := e.dump()
	err := e.store.DeleteArticle(ctx, id)
	if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
		t.Errorf("%s holding a{b}: %v, want ErrCorrupt naming it", key, err)
	}
	if after := e.dump(); after != before {
		t.Errorf("%s holding a{b}: the deletion wrote", key)
	}
}

// TestConcurrentVotesAndDeletes: votes, group changes, history reads and
// deletions of the same articles at once leave no entry of a deleted article
// anywhere (the invariant checker, histories included), and each call
// either takes effect whole or reports ErrNotFound.
func TestConcurrentVotesAndDeletes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes, voting.ByControversy, voting.TopDay), voting.WithLiveGroups(),
		voting.WithUserHistory(24*time.Hour))
	groups := []string{"a", "b"}
	rounds := 6
	if testing.Short() {
		rounds = 3
	}
	var deleted atomic.Int64
	for round := range rounds {
		var ids []string
		for i := range 8 {
			ids = append(ids, e.post(fmt.Sprintf("poster%d", i), "t", groups[:1+i%2]...))
		}
		together(6, func(g int) {
			rng := rand.New(rand.NewSource(int64(round*10 + g)))
			for i := range 30 {
				id := ids[rng.Intn(len(ids))]
				var err error
				switch {
				case g == 0 && i%4 == 3:
					if err = e.store.DeleteArticle(ctx, id); err == nil {
						deleted.Add(1)
					}
				case g == 1 && i%3 == 0:
					err = e.store.AddToGroups(ctx, id, groups[rng.Intn(2)])
				case g == 2 && i%3 == 0:
					_, err = two(e.store.UserHistory(ctx, fmt.Sprintf("user%d", rng.Intn(4)), voting.Paging{Page: 1}))
				default:
					dir := []voting.Direction{voting.Up, voting.Down, voting.None}[rng.Intn(3)]
					err = e.store.Vote(ctx, fmt.Sprintf("user%d", rng.Intn(4)), id, dir)
				}
				if err != nil && !errors.Is(err, voting.ErrNotFound) {
					t.Errorf("goroutine %d: %v", g, err)
				}
			}
		})
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		e.advance(time.Minute)
	}
	if deleted.Load() == 0 {
		t.Fatal("no deletion took effect")
	}
}
