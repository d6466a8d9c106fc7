package voting_test

// Tests of what the library keeps of people and content: a user's
// articles, karma, the groups' sizes and unique links.

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// with is another Store on the env's namespace and clock, with opts.
func (e *env) with(opts ...voting.Option) *voting.Store {
	e.t.Helper()
	s, err := voting.New(e.pool, append([]voting.Option{voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now)}, opts...)...)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// postLink posts an article with the given link through s.
func postLink(e *env, s *voting.Store, poster, link string, groups ...string) (string, error) {
	return s.PostArticle(ctx, poster, "about "+link, link, groups...)
}

func TestUserArticlesNewestFirst(t *testing.T) {
	e := newEnv(t, voting.WithPageSize(2))
	var alice []string
	for i := range 3 {
		alice = append(alice, e.post("alice", fmt.Sprintf("alice %d", i)))
		e.advance(time.Minute)
		e.post("bob", fmt.Sprintf("bob %d", i))
	}
	for page, want := range map[int][]string{1: {alice[2], alice[1]}, 2: {alice[0]}, 3: {}} {
		got, err := e.store.UserArticles(ctx, "alice", page)
		if err != nil || !reflect.DeepEqual(idsOf(got), want) {
			t.Errorf("UserArticles(alice, %d) = %v, %v; want %v", page, idsOf(got), err, want)
		}
	}
	if n, err := e.store.CountUserArticles(ctx, "alice"); n != 3 || err != nil {
		t.Errorf("CountUserArticles(alice) = %d, %v; want 3", n, err)
	}
	if n, err := e.store.CountUserArticles(ctx, "nobody"); n != 0 || err != nil {
		t.Errorf("CountUserArticles(nobody) = %d, %v; want 0", n, err)
	}
	// Each entry is the article's member scored with its posting time.
	first := fmt.Sprintf("%s=%d", e.article(alice[0]), start.Unix())
	if got := e.zset(e.key("posts:alice")); len(got) != 3 || got[0] != first {
		t.Errorf("posts:alice = %v, want 3 entries, the first %s", got, first)
	}
	if err := e.store.DeleteArticle(ctx, alice[1]); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.UserArticles(ctx, "alice", 1)
	if want := []string{alice[2], alice[0]}; err != nil || !reflect.DeepEqual(idsOf(got), want) {
		t.Errorf("after deleting %s, UserArticles = %v, %v; want %v", alice[1], idsOf(got), err, want)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	before := e.dump()
	for _, bad := range []struct {
		user string
		page int
	}{{"", 1}, {"alice", 0}, {"a\nb", 1}} {
		if _, err := e.store.UserArticles(ctx, bad.user, bad.page); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("UserArticles(%q, %d) = %v, want ErrInvalid", bad.user, bad.page, err)
		}
	}
	if _, err := e.store.CountUserArticles(ctx, ""); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("CountUserArticles(\"\") = %v, want ErrInvalid", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("bad input wrote:\n%s\nwas:\n%s", after, before)
	}
}

// karmaOf reads user's karma, failing the test on an error.
func karmaOf(t *testing.T, s *voting.Store, user string) int64 {
	t.Helper()
	k, err := s.Karma(ctx, user)
	if err != nil {
		t.Fatalf("Karma(%s): %v", user, err)
	}
	return k
}

func TestKarmaMovesWithEveryVote(t *testing.T) {
	e := newEnv(t, voting.WithKarma())
	id := e.post("alice", "first")
	other := e.post("alice", "second")
	steps := []struct {
		user string
		id   string
		dir  voting.Direction
		want int64
	}{
		{"bob", id, voting.Up, 1},
		{"carol", id, voting.Down, 0},
		{"bob", id, voting.Down, -2},   // a switch
		{"bob", id, voting.None, -1},   // a take-back
		{"alice", id, voting.Down, -1}, // the poster's own vote never counts
		{"alice", id, voting.None, -1},
		{"dave", other, voting.Up, 0},
		{"erin", other, voting.Up, 1},
	}
	for _, st := range steps {
		e.vote(st.user, st.id, st.dir)
		if got := karmaOf(t, e.store, "alice"); got != st.want {
			t.Fatalf("after %s votes %v on %s, karma = %d, want %d", st.user, st.dir, st.id, got, st.want)
		}
	}
	if got := e.hash(e.article(id))["karma"]; got != "-1" {
		t.Errorf("article %s's karma field = %q, want -1", id, got)
	}
	if got := e.hash(e.article(other))["karma"]; got != "2" {
		t.Errorf("article %s's karma field = %q, want 2", other, got)
	}
	e.post("bob", "bob's")
	e.vote("alice", "3", voting.Up)
	e.vote("carol", "3", voting.Up)
	top, err := e.store.TopPosters(ctx, 1)
	want := []voting.UserKarma{{User: "bob", Karma: 2}, {User: "alice", Karma: 1}}
	if err != nil || !reflect.DeepEqual(top, want) {
		t.Errorf("TopPosters = %v, %v; want %v", top, err, want)
	}
	if n, err := e.store.CountPosters(ctx); n != 2 || err != nil {
		t.Errorf("CountPosters = %d, %v; want 2", n, err)
	}
	if got := karmaOf(t, e.store, "nobody"); got != 0 {
		t.Errorf("karma of a user with no article = %d, want 0", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// A deletion takes the article's part away; the last takes the poster
	// out of karma:.
	if err := e.store.DeleteArticle(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, e.store, "alice"); got != -1 {
		t.Errorf("after deleting %s, karma = %d, want -1", other, got)
	}
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("karma:")); !reflect.DeepEqual(got, []string{"bob=2"}) {
		t.Errorf("karma: = %v after alice's last article went, want [bob=2]", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// A vote that changes nothing writes nothing.
	before := e.dump()
	e.vote("alice", "3", voting.Up)
	if after := e.dump(); after != before {
		t.Errorf("a repeated vote wrote:\n%s\nwas:\n%s", after, before)
	}
}

func TestKarmaNeedsItsOption(t *testing.T) {
	e := newEnv(t)
	e.post("alice", "first")
	if _, err := e.store.Karma(ctx, "alice"); !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), "WithKarma") {
		t.Errorf("Karma without WithKarma = %v, want ErrInvalid naming WithKarma", err)
	}
	if _, err := e.store.TopPosters(ctx, 1); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("TopPosters without WithKarma = %v, want ErrInvalid", err)
	}
	k := e.with(voting.WithKarma())
	for _, bad := range []func() error{
		func() error { _, err := k.Karma(ctx, ""); return err },
		func() error { _, err := k.TopPosters(ctx, 0); return err },
	} {
		if err := bad(); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("bad input: %v, want ErrInvalid", err)
		}
	}
}

// TestReindexCountsKarma: karma of articles posted and voted on without it
// is ErrNotIndexed until Reindex counts it, from the voter sets while
// voting is open and from the counts with the post's up-vote once it has
// closed; a vote by a karma Store on an uncounted article counts it.
func TestReindexCountsKarma(t *testing.T) {
	e := newEnv(t)
	open := e.post("alice", "open")
	e.vote("bob", open, voting.Up)
	e.vote("carol", open, voting.Up)
	e.vote("alice", open, voting.Down) // the poster's own switch
	e.bookPost("2", "alice", float64(start.Unix()))
	e.bookVote("dave", "2")
	k := e.with(voting.WithKarma())
	if _, err := k.Karma(ctx, "alice"); !errors.Is(err, voting.ErrNotIndexed) || !strings.Contains(err.Error(), "run Reindex") {
		t.Errorf("Karma before Reindex = %v, want ErrNotIndexed saying to run Reindex", err)
	}
	if _, err := k.TopPosters(ctx, 1); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("TopPosters before Reindex = %v, want ErrNotIndexed", err)
	}
	// A vote by the karma Store counts the article it meets in full.
	if err := k.Vote(ctx, "erin", open, voting.Up); err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.article(open))["karma"]; got != "3" {
		t.Errorf("karma field after the first vote with karma = %q, want 3 (bob, carol, erin)", got)
	}
	e.store = k
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	// open: 3 by others; 2: dave's 1.
	if got := karmaOf(t, k, "alice"); got != 4 {
		t.Errorf("karma after Reindex = %d, want 4", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, k, "alice"); got != 4 {
		t.Errorf("karma after a second Reindex = %d, want 4", got)
	}

	// Once voting has closed, Reindex keeps the part an article has, and
	// gives one with no part the counts less the post's up-vote.
	e.bookPost("3", "frank", float64(start.Unix()))
	e.bookVote("gina", "3")
	e.bookVote("hal", "3")
	e.advance(8 * 24 * time.Hour)
	e.do("DEL", e.key("voted:3"), e.key("voted:"+open), e.key("voted:2"), e.key("downvoted:"+open))
	e.do("HDEL", e.key("indexed:"), "karma")
	if err := k.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := karmaOf(t, k, "frank"); got != 2 {
		t.Errorf("frank's karma after Reindex of a closed article = %d, want 2", got)
	}
	if got := karmaOf(t, k, "alice"); got != 4 {
		t.Errorf("alice's karma after Reindex once voting closed = %d, want 4", got)
	}
}

func TestGroupsAreExact(t *testing.T) {
	e := newEnv(t, voting.WithPageSize(2))
	a := e.post("alice", "a", "go", "redis")
	b := e.post("bob", "b", "go")
	c := e.post("carol", "c", "go", "lua")
	check := func(when string, want ...voting.GroupSize) {
		t.Helper()
		var all []voting.GroupSize
		for page := 1; ; page++ {
			got, err := e.store.Groups(ctx, page)
			if err != nil {
				t.Fatalf("%s: Groups(%d): %v", when, page, err)
			}
			if len(got) == 0 {
				break
			}
			all = append(all, got...)
		}
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(all, want) {
			t.Errorf("%s: Groups = %v, want %v", when, all, want)
		}
		if n, err := e.store.CountGroups(ctx); err != nil || n != int64(len(want)) {
			t.Errorf("%s: CountGroups = %d, %v; want %d", when, n, err, len(want))
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	check("after the posts", voting.GroupSize{Name: "go", Articles: 3}, voting.GroupSize{Name: "redis", Articles: 1},
		voting.GroupSize{Name: "lua", Articles: 1})
	if err := e.store.AddToGroups(ctx, b, "lua", "go"); err != nil { // go again: no change
		t.Fatal(err)
	}
	check("after AddToGroups", voting.GroupSize{Name: "go", Articles: 3}, voting.GroupSize{Name: "lua", Articles: 2},
		voting.GroupSize{Name: "redis", Articles: 1})
	if err := e.store.RemoveFromGroups(ctx, a, "redis", "lua"); err != nil { // not in lua
		t.Fatal(err)
	}
	check("after RemoveFromGroups", voting.GroupSize{Name: "go", Articles: 3}, voting.GroupSize{Name: "lua", Articles: 2})
	if err := e.store.DeleteArticle(ctx, c); err != nil {
		t.Fatal(err)
	}
	check("after DeleteArticle", voting.GroupSize{Name: "go", Articles: 2}, voting.GroupSize{Name: "lua", Articles: 1})
	for _, id := range []string{a, b} {
		if err := e.store.DeleteArticle(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	check("after the last deletion")
	if e.exists(e.key("groupsizes:")) {
		t.Error("groupsizes: is left with no group")
	}
	if _, err := e.store.Groups(ctx, 0); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("Groups(0) = %v, want ErrInvalid", err)
	}
}

// TestRefusedPostLeavesGroupSizes: a post refused at its last fallible
// write, the groups' sizes, undoes every earlier one.
func TestRefusedPostLeavesGroupSizes(t *testing.T) {
	e := newEnv(t, voting.WithKarma(), voting.WithUniqueLinks())
	e.post("alice", "first", "go")
	e.do("RENAME", e.key("groupsizes:"), e.key("aside"))
	e.do("SADD", e.key("groupsizes:"), "go")
	before := e.dump()
	if _, err := e.store.PostArticle(ctx, "bob", "second", "https://example.com/second", "go", "lua"); !errors.Is(err, voting.ErrCorrupt) ||
		!strings.Contains(err.Error(), "groupsizes:") {
		t.Errorf("post with groupsizes: a set = %v, want ErrCorrupt naming it", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("the refused post wrote:\n%s\nwas:\n%s", after, before)
	}
}

func TestUniqueLinks(t *testing.T) {
	e := newEnv(t, voting.WithUniqueLinks())
	id, err := postLink(e, e.store, "alice", "https://Example.com/Story?id=1#top")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.key("links:")); !reflect.DeepEqual(got, map[string]string{"https://example.com/Story?id=1": id}) {
		t.Errorf("links: = %v", got)
	}
	before := e.dump()
	for _, same := range []string{"HTTPS://EXAMPLE.COM/Story?id=1", "https://example.com/Story?id=1#comments",
		"https://example.COM/Story?id=1"} {
		_, err := postLink(e, e.store, "bob", same, "go")
		if !errors.Is(err, voting.ErrDuplicate) || !strings.Contains(err.Error(), "article "+id) {
			t.Errorf("post of %s = %v, want ErrDuplicate naming article %s", same, err, id)
		}
		a, err := e.store.ArticleByLink(ctx, same)
		if err != nil || a.ID != id {
			t.Errorf("ArticleByLink(%s) = %v, %v; want article %s", same, a.ID, err, id)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("a refused post wrote:\n%s\nwas:\n%s", after, before)
	}
	// Another path, query or user is another link.
	for _, other := range []string{"https://example.com/story?id=1", "https://example.com/Story?id=2",
		"https://me@example.com/Story?id=1", "http://example.com/Story?id=1"} {
		if _, err := postLink(e, e.store, "bob", other); err != nil {
			t.Errorf("post of %s: %v", other, err)
		}
	}
	if _, err := e.store.ArticleByLink(ctx, "https://example.com/none"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("ArticleByLink of no article = %v, want ErrNotFound", err)
	}
	if _, err := e.store.ArticleByLink(ctx, "ftp://example.com/"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("ArticleByLink of a bad link = %v, want ErrInvalid", err)
	}

	// An edit to a link another has is refused; to a new one, it frees
	// the old.
	second, err := postLink(e, e.store, "carol", "https://example.org/a")
	if err != nil {
		t.Fatal(err)
	}
	before = e.dump()
	if err := e.store.EditArticle(ctx, second, "t", "https://EXAMPLE.com/Story?id=1"); !errors.Is(err, voting.ErrDuplicate) {
		t.Errorf("edit to a taken link = %v, want ErrDuplicate", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a refused edit wrote:\n%s\nwas:\n%s", after, before)
	}
	if err := e.store.EditArticle(ctx, second, "t", "https://example.org/A#x"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.EditArticle(ctx, second, "t", "https://example.org/A#y"); err != nil { // a fragment: the same link
		t.Fatal(err)
	}
	if _, err := postLink(e, e.store, "dave", "https://example.org/A"); !errors.Is(err, voting.ErrDuplicate) {
		t.Errorf("post of the edited link = %v, want ErrDuplicate", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	if err := e.store.DeleteArticle(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ArticleByLink(ctx, "https://example.com/Story?id=1"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("ArticleByLink after the deletion = %v, want ErrNotFound", err)
	}
	if _, err := postLink(e, e.store, "erin", "https://example.com/Story?id=1"); err != nil {
		t.Errorf("post of a freed link: %v", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexBuildsTheLinkIndex: links posted without unique links are
// ErrNotIndexed until Reindex builds the index; the oldest article of a
// link wins, and the others are reported.
func TestReindexBuildsTheLinkIndex(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for _, link := range []string{"https://a.example/1", "https://b.example/", "https://A.example/1#again", "https://b.example/#x"} {
		id, err := postLink(e, e.store, "alice", link)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		e.advance(time.Second)
	}
	u := e.with(voting.WithUniqueLinks())
	if _, err := u.ArticleByLink(ctx, "https://a.example/1"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("ArticleByLink before Reindex = %v, want ErrNotIndexed", err)
	}
	done, err := u.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []voting.DuplicateLink{{ID: ids[2], Holder: ids[0]}, {ID: ids[3], Holder: ids[1]}}
	if done.Duplicates != 2 || !reflect.DeepEqual(done.DuplicateLinks, want) {
		t.Errorf("Reindex reported %d duplicates %v, want 2 %v", done.Duplicates, done.DuplicateLinks, want)
	}
	// Each link's field names the oldest article with it; the others share
	// it in linkshares:.
	if got := e.hash(e.key("links:")); !reflect.DeepEqual(got, map[string]string{"https://a.example/1": ids[0],
		"https://b.example/": ids[1]}) {
		t.Errorf("links: = %v", got)
	}
	wantShares := []string{linkShare(e, "https://a.example/1", ids[2]), linkShare(e, "https://b.example/", ids[3])}
	if got := e.strs("ZRANGE", e.key("linkshares:"), 0, -1); !reflect.DeepEqual(got, sorted(wantShares)) {
		t.Errorf("linkshares: = %q, want %q", got, wantShares)
	}
	a, err := u.ArticleByLink(ctx, "https://a.example/1#z")
	if err != nil || a.ID != ids[0] {
		t.Errorf("ArticleByLink after Reindex = %v, %v; want %s", a.ID, err, ids[0])
	}
	e.store = u
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// A post, or an edit of a link, by a Store without unique links takes
	// the index's mark away.
	plain := e.with()
	if _, err := postLink(e, plain, "bob", "https://c.example/"); err != nil {
		t.Fatal(err)
	}
	if _, err := u.ArticleByLink(ctx, "https://a.example/1"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("ArticleByLink after a post without unique links = %v, want ErrNotIndexed", err)
	}
	if err := u.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if err := plain.EditArticle(ctx, ids[0], "t", "https://d.example/"); err != nil {
		t.Fatal(err)
	}
	if _, err := u.ArticleByLink(ctx, "https://d.example/"); !errors.Is(err, voting.ErrNotIndexed) {
		t.Errorf("ArticleByLink after an edit without unique links = %v, want ErrNotIndexed", err)
	}
	// The duplicate that has the old link takes it, and leaves linkshares:.
	if got := e.hash(e.key("links:"))["https://a.example/1"]; got != ids[2] {
		t.Errorf("after the edit the old link names %q, want %s, which has it", got, ids[2])
	}
	if got := e.strs("ZRANGE", e.key("linkshares:"), 0, -1); !reflect.DeepEqual(got, wantShares[1:]) {
		t.Errorf("linkshares: after the edit = %q, want %q", got, wantShares[1:])
	}
}

// linkShare is the member of linkshares: of the article id, whose link key
// is key, as the article's posting time writes it.
func linkShare(e *env, key, id string) string {
	e.t.Helper()
	posted, err := strconv.ParseFloat(e.str("HGET", e.article(id), "time"), 64)
	if err != nil {
		e.t.Fatalf("article %s's time: %v", id, err)
	}
	return voting.LinkShare(key, posted, id)
}

// TestLinkKeysAgree: the link key the scripts write is linkKey's.
func TestLinkKeysAgree(t *testing.T) {
	e := newEnv(t, voting.WithUniqueLinks())
	links := []string{
		"https://Example.COM/Path/To?Q=A#Frag", "HTTP://user:PW@Host.Example:8080/x", "https://h.example",
		"https://h.example?q", "https://ü.Example/É", "https://[::1]:80/A", "https://H.example/#",
		"https://a@b@C.example/", "https://x.example/a#b#c",
	}
	for _, link := range links {
		id, err := postLink(e, e.store, "alice", link)
		if err != nil {
			t.Fatalf("post %s: %v", link, err)
		}
		if got, want := e.hash(e.key("links:")), voting.LinkKey(link); got[want] != id {
			t.Errorf("%s: links: = %v, want the field %q for %s", link, got, want, id)
		}
	}
}
