package voting_test

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

// Tests of unique links (links.go): duplicates refused, the index of links
// and the articles that share a link, their keys, and Reindex of them.

// postLink posts an article with the given link through s.
func postLink(e *env, s *voting.Store, poster, link string, groups ...string) (string, error) {
	return s.PostArticle(ctx, poster, "about "+link, link, groups...)
}

func TestUniqueLinks(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

	// A Store not given WithUniqueLinks keeps the namespace's index of
	// links too: its post of a link another article holds is refused, and
	// its posts and edits of links are indexed.
	plain := e.with()
	if _, err := postLink(e, plain, "bob", "https://B.example/#top"); !errors.Is(err, voting.ErrDuplicate) {
		t.Errorf("a post of a held link by a Store not given WithUniqueLinks = %v, want ErrDuplicate", err)
	}
	c, err := postLink(e, plain, "bob", "https://c.example/")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := u.ArticleByLink(ctx, "https://c.example/"); err != nil || a.ID != c {
		t.Errorf("ArticleByLink after a post by a Store not given WithUniqueLinks = %v, %v; want %s", a.ID, err, c)
	}
	if err := plain.EditArticle(ctx, ids[0], "t", "https://d.example/"); err != nil {
		t.Fatal(err)
	}
	if a, err := u.ArticleByLink(ctx, "https://d.example/"); err != nil || a.ID != ids[0] {
		t.Errorf("ArticleByLink after an edit by a Store not given WithUniqueLinks = %v, %v; want %s", a.ID, err, ids[0])
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
	t.Parallel()
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

// TestALinkFreedStaysWithItsDuplicate: Reindex leaves a duplicate
// out of links: and marks the index built; when the article that holds the
// link is deleted (or edited away), the link is freed although the
// duplicate still has it. The index then lacks an article's link while
// marked built, ArticleByLink says ErrNotFound, and a new post of the same
// link is accepted: two articles with one link under WithUniqueLinks.
func TestALinkFreedStaysWithItsDuplicate(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"delete", "edit"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			older, err := postLink(e, e.store, "alice", "https://dup.example/x")
			if err != nil {
				t.Fatal(err)
			}
			e.advance(time.Minute)
			newer, err := postLink(e, e.store, "bob", "https://DUP.example/x#again")
			if err != nil {
				t.Fatal(err)
			}
			u := e.with(voting.WithUniqueLinks())
			e.store = u
			p, err := u.ReindexWithProgress(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Duplicates != 1 || len(p.DuplicateLinks) != 1 || p.DuplicateLinks[0] != (voting.DuplicateLink{ID: newer, Holder: older}) {
				t.Fatalf("Reindex = %+v, want %s reported as a duplicate of %s", p, newer, older)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			if how == "delete" {
				err = u.DeleteArticle(ctx, older)
			} else {
				err = u.EditArticle(ctx, older, "moved", "https://elsewhere.example/")
			}
			if err != nil {
				t.Fatal(err)
			}
			if a, err := u.ArticleByLink(ctx, "https://dup.example/x"); err != nil || a.ID != newer {
				t.Errorf("ArticleByLink after the holder's %s = %q, %v; want %s, which still has the link", how, a.ID, err, newer)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			if id, err := postLink(e, u, "carol", "https://dup.example/x"); err == nil {
				t.Errorf("a post of the link %s still has was accepted as %s", newer, id)
			}
			e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
		})
	}
}

// reviewLinks are links the library accepts, chosen to reach each branch of
// linkKey: case in scheme, user info, host, port, path, query and fragment;
// '@', '?' and '#' in odd places; %-escapes; IPv6.
var reviewLinks = []string{
	"HTTPS://EXAMPLE.COM", "hTtP://Ex.Am.Ple/", "https://USER@HOST.example/P",
	"https://u:P@ss@H.example:8080/A?B#C", "https://h.example?Q=A/B", "https://H.example?Q=A#F?G",
	"https://H.example#F/G", "https://H.example/a@B/c", "https://H.example/?x@Y", "https://[::FFFF:A]/",
	"https://[fe80::1%25EN0]:99/", "https://%C3%89.example/%C3%89", "https://H.example/%7E%7e",
	"https://A!$&'()*+,;=-.example/", "https://a@B@C@D.example/", "https://Xn--Bcher-Kva.example/",
	"https://H.EXAMPLE:0/", "https://h.example/#", "https://h2.example/##", "https://h.example/a#b#C",
	"https://@H.example/", "https://H.example/;P=Q", "https://h.example/É?É=É",
}

// TestLinkKeysAgreeASCII: the scripts' link key is Go's for links
// whose host is ASCII.
func TestLinkKeysAgreeASCII(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUniqueLinks())
	for _, link := range reviewLinks {
		id, err := postLink(e, e.store, "alice", link)
		if err != nil {
			t.Errorf("post %s: %v", link, err)
			continue
		}
		if got := e.str("HGET", e.key("links:"), voting.LinkKey(link)); got != id {
			t.Errorf("%s: links: gives %q the id %q, want %s", link, voting.LinkKey(link), got, id)
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// FuzzReviewLinkKey posts fuzzed links through a unique-links Store and
// compares the field the script wrote with Go's linkKey.
func FuzzReviewLinkKey(f *testing.F) {
	for _, l := range reviewLinks {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, link string) {
		e := newEnv(t, voting.WithUniqueLinks())
		id, err := postLink(e, e.store, "alice", link)
		if errors.Is(err, voting.ErrInvalid) {
			return
		}
		if err != nil {
			t.Fatalf("post %q: %v", link, err)
		}
		fields := e.strs("HKEYS", e.key("links:"))
		if len(fields) != 1 || fields[0] != voting.LinkKey(link) {
			t.Errorf("%q (id %s): links: has %q, Go's linkKey is %q", link, id, fields, voting.LinkKey(link))
		}
	})
}

// TestLinkKeysNonASCIIHost: a host with upper-case non-ASCII
// letters. Go's linkKey keeps them (as Redis's Lua, in the C locale, does);
// miniredis's Lua lowers them (gopher-lua's string.lower is Go's
// strings.ToLower), so on miniredis the scripts and Go disagree. This test
// passes on a real server and fails on miniredis.
func TestLinkKeysNonASCIIHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUniqueLinks())
	link := "https://Ü.example/"
	id, err := postLink(e, e.store, "alice", link)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.strs("HKEYS", e.key("links:")); len(got) != 1 || got[0] != voting.LinkKey(link) {
		t.Errorf("links: fields %q for article %s, Go's linkKey is %q (real server: %v)", got, id, voting.LinkKey(link), e.real())
	}
}

// TestEditLinkCases: an edit to the article's own link in another
// case of its host keeps its entry; in another case of its path moves it;
// an article whose entry is another's (a reported duplicate) keeps that
// entry when it is edited or deleted.
func TestEditLinkCases(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUniqueLinks())
	id, err := postLink(e, e.store, "alice", "https://a.example/Path")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.EditArticle(ctx, id, "t", "HTTPS://A.EXAMPLE/Path#f"); err != nil {
		t.Fatalf("edit to the same link in another case: %v", err)
	}
	if got := e.hash(e.key("links:")); len(got) != 1 || got["https://a.example/Path"] != id {
		t.Errorf("links: after a case edit = %v", got)
	}
	if err := e.store.EditArticle(ctx, id, "t", "https://a.example/path"); err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.key("links:")); len(got) != 1 || got["https://a.example/path"] != id {
		t.Errorf("links: after a path edit = %v", got)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// A duplicate another writer (the book's code) posted: edits and the
	// deletion of the duplicate leave the holder's entry.
	last, err := strconv.Atoi(e.str("GET", e.key("article:")))
	if err != nil {
		t.Fatal(err)
	}
	dup := strconv.Itoa(last + 1)
	e.bookPost(dup, "bob", float64(e.clock.Now().Unix()))
	e.do("HSET", e.article(dup), "link", "https://a.example/path")
	if err := e.store.EditArticle(ctx, dup, "t", "https://A.example/path#x"); err != nil {
		t.Fatalf("edit of the duplicate within its own link key: %v", err)
	}
	if err := e.store.DeleteArticle(ctx, dup); err != nil {
		t.Fatal(err)
	}
	if got := e.hash(e.key("links:")); len(got) != 1 || got["https://a.example/path"] != id {
		t.Errorf("links: after the duplicate's edit and deletion = %v", got)
	}
	if err := e.store.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexDuplicatesAcrossSteps: duplicates found over many
// small steps and several calls cut short are counted once each and named
// up to 100, each with the oldest article of its link as holder.
func TestReindexDuplicatesAcrossSteps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const links, copies = 40, 4 // 120 duplicates
	holders := map[string]string{}
	for c := 0; c < copies; c++ {
		for l := 0; l < links; l++ {
			e.advance(time.Second)
			link := fmt.Sprintf("https://Host%d.example/p#%d", l, c)
			if c%2 == 1 {
				link = strings.ToUpper(link[:8]) + link[8:]
			}
			id, err := postLink(e, e.store, "alice", link)
			if err != nil {
				t.Fatal(err)
			}
			if c == 0 {
				holders[fmt.Sprint(l)] = id
			}
		}
	}
	u := e.with(voting.WithUniqueLinks())
	voting.SetBatches(u, 3, 7)
	e.store = u
	// Each call is cut short after a few steps, by its callback, so that
	// no cut falls between the run's last step and its reply (the run
	// would be done, and the next call a new run that finds nothing to
	// count).
	var p voting.ReindexProgress
	var err error
	for i := 0; ; i++ {
		cctx, cancel := context.WithCancel(ctx)
		steps := 0
		p, err = u.ReindexWithProgress(cctx, func(voting.ReindexProgress) {
			if steps++; steps == 1+i%5 {
				cancel()
			}
		})
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d: %v, want context.Canceled", i, err)
		}
		if i > 500 {
			t.Fatalf("Reindex never finished: %v", err)
		}
	}
	if p.Duplicates != (copies-1)*links {
		t.Errorf("Duplicates = %d, want %d", p.Duplicates, (copies-1)*links)
	}
	if len(p.DuplicateLinks) != 100 {
		t.Errorf("DuplicateLinks names %d, want 100", len(p.DuplicateLinks))
	}
	seen := map[string]bool{}
	byID := map[string]string{}
	for l, h := range holders {
		byID[h] = l
	}
	for _, d := range p.DuplicateLinks {
		if seen[d.ID] {
			t.Errorf("%s named twice", d.ID)
		}
		seen[d.ID] = true
		if _, ok := byID[d.Holder]; !ok {
			t.Errorf("%s named with holder %s, not the oldest of its link", d.ID, d.Holder)
		}
	}
	if n := len(e.hash(e.key("links:"))); n != links {
		t.Errorf("links: has %d fields, want %d", n, links)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestReindexGivesATiedLinkToTheLowestID: of two articles with one link
// posted at the same moment, the first posted (the lower id) keeps it,
// though the walk meets article:10 before article:9.
func TestReindexGivesATiedLinkToTheLowestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 8 {
		if _, err := postLink(e, e.store, "alice", fmt.Sprintf("https://filler.example/%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	first, err := postLink(e, e.store, "alice", "https://tie.example/")
	if err != nil {
		t.Fatal(err)
	}
	second, err := postLink(e, e.store, "bob", "https://tie.example/")
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.with(voting.WithUniqueLinks()).ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []voting.DuplicateLink{{ID: second, Holder: first}}; fmt.Sprint(p.DuplicateLinks) != fmt.Sprint(want) {
		t.Errorf("DuplicateLinks = %v, want %v (article %s was posted first)", p.DuplicateLinks, want, first)
	}
	if got := e.hash(e.key("links:"))["https://tie.example/"]; got != first {
		t.Errorf("the link's field = %q, want %q", got, first)
	}
	if got, want := e.strs("ZRANGE", e.key("linkshares:"), 0, -1), linkShare(e, "https://tie.example/", second); len(got) != 1 || got[0] != want {
		t.Errorf("linkshares: = %q, want [%q]", got, want)
	}
}

// TestALinkSharedByManyStaysTaken: four articles posted with one link
// before links were kept unique; Reindex gives it to the oldest and the
// others share it. Deleting one that shares it, then the holder, then
// editing the next holder's link away leaves the link with the oldest of
// those left each time, taken while any has it (a post of it refused,
// naming the holder), and free once the last is deleted.
func TestALinkSharedByManyStaysTaken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ids []string
	for _, link := range []string{"https://many.example/x", "https://MANY.example/x#2", "https://many.example/x#3", "HTTPS://many.example/x"} {
		id, err := postLink(e, e.store, "alice", link)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		e.advance(time.Minute)
	}
	u := e.with(voting.WithUniqueLinks())
	e.store = u
	p, err := u.ReindexWithProgress(ctx, nil)
	if err != nil || p.Duplicates != 3 {
		t.Fatalf("Reindex = %+v, %v; want 3 duplicates", p, err)
	}
	const key = "https://many.example/x"
	holds := func(step, holder string, shares ...string) {
		t.Helper()
		if got := e.hash(e.key("links:"))[key]; got != holder {
			t.Errorf("%s: links: gives the link to %q, want %q", step, got, holder)
		}
		want := []string{}
		for _, id := range shares {
			want = append(want, linkShare(e, key, id))
		}
		if got := e.strs("ZRANGE", e.key("linkshares:"), 0, -1); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: linkshares: = %q, want %q", step, got, want)
		}
		if holder == "" {
			return
		}
		if a, err := u.ArticleByLink(ctx, key+"#any"); err != nil || a.ID != holder {
			t.Errorf("%s: ArticleByLink = %q, %v; want %s", step, a.ID, err, holder)
		}
		if _, err := postLink(e, u, "carol", key); !errors.Is(err, voting.ErrDuplicate) || !strings.Contains(err.Error(), "article "+holder+" ") {
			t.Errorf("%s: a post of the link = %v, want ErrDuplicate naming %s", step, err, holder)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	holds("after Reindex", ids[0], ids[1], ids[2], ids[3])
	if err := u.DeleteArticle(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	holds("after deleting one that shares it", ids[0], ids[1], ids[3])
	if err := u.DeleteArticle(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	holds("after deleting the holder", ids[1], ids[3])
	if err := u.EditArticle(ctx, ids[1], "moved", "https://elsewhere.example/"); err != nil {
		t.Fatal(err)
	}
	holds("after editing the holder's link away", ids[3])
	if err := u.DeleteArticle(ctx, ids[3]); err != nil {
		t.Fatal(err)
	}
	holds("after deleting the last", "")
	if _, err := u.ArticleByLink(ctx, key); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("ArticleByLink of the freed link = %v, want ErrNotFound", err)
	}
	if _, err := postLink(e, u, "carol", key); err != nil {
		t.Errorf("a post of the freed link: %v", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// TestLinkSharesOfTheWrongTypeIsRefused: linkshares: of the wrong type
// stops every write that reads it (an edit of a link and a deletion, of
// the holder or of one that shares the link, and Reindex) with ErrCorrupt
// naming it, before anything is written; put back, each succeeds.
func TestLinkSharesOfTheWrongTypeIsRefused(t *testing.T) {
	t.Parallel()
	ops := map[string]func(s *voting.Store, ids []string) error{
		"EditArticle of the holder": func(s *voting.Store, ids []string) error {
			return s.EditArticle(ctx, ids[0], "moved", "https://elsewhere.example/")
		},
		"EditArticle of one that shares it": func(s *voting.Store, ids []string) error {
			return s.EditArticle(ctx, ids[1], "moved", "https://elsewhere.example/")
		},
		"DeleteArticle of the holder":         func(s *voting.Store, ids []string) error { return s.DeleteArticle(ctx, ids[0]) },
		"DeleteArticle of one that shares it": func(s *voting.Store, ids []string) error { return s.DeleteArticle(ctx, ids[1]) },
		"Reindex":                             func(s *voting.Store, ids []string) error { return s.Reindex(ctx) },
	}
	for name, op := range ops {
		for _, wrong := range []string{"string", "set"} {
			t.Run(name+" as a "+wrong, func(t *testing.T) {
				e := newEnv(t)
				var ids []string
				for range 2 {
					id, err := postLink(e, e.store, "alice", "https://shared.example/")
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
					e.advance(time.Minute)
				}
				u := e.with(voting.WithUniqueLinks())
				if err := u.Reindex(ctx); err != nil {
					t.Fatal(err)
				}
				key := e.key("linkshares:")
				restore := e.corruptAs(key, wrong)
				before := e.dump()
				err := op(u, ids)
				if !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
					t.Errorf("%s with linkshares: a %s = %v, want ErrCorrupt naming it", name, wrong, err)
				}
				if after := e.dump(); name != "Reindex" && after != before {
					t.Errorf("%s wrote: %s", name, dumpDiff(before, after))
				} else if dumpLines(after)[key] != dumpLines(before)[key] {
					t.Errorf("%s wrote %s", name, key)
				}
				restore()
				if err := op(u, ids); err != nil {
					t.Errorf("%s once linkshares: is sound again: %v", name, err)
				}
				e.store = u
				e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
			})
		}
	}
}

// TestLinkSharesInTheOrderOfPosting: articles that share a link take it in
// the order they were posted, to the microsecond, whatever their ids
// (concurrent posts read the clock before the counter gives the id): ids
// 1, 2 and 3 posted at +0, +3 and +1 µs, and one at a negative time of the
// book's with a fraction. Deleting the holder each time passes the link
// to 3, then 2.
func TestLinkSharesInTheOrderOfPosting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const link = "https://example.com/shared"
	for _, at := range []time.Duration{0, 3 * time.Microsecond, time.Microsecond} {
		if _, err := postLink(e, storeAt(t, e, start.Add(at)), "p", link); err != nil {
			t.Fatal(err)
		}
	}
	u := e.with(voting.WithUniqueLinks())
	e.store = u
	if err := u.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	for _, want := range []string{"3", "2"} {
		holder, err := u.ArticleByLink(ctx, link)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.DeleteArticle(ctx, holder.ID); err != nil {
			t.Fatal(err)
		}
		if a, err := u.ArticleByLink(ctx, link); err != nil || a.ID != want {
			t.Errorf("after deleting %s, ArticleByLink = %q, %v; want %s, the oldest left", holder.ID, a.ID, err, want)
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	}
	// Times the model writes as the scripts do: a whole second, a
	// fraction that rounds up to one, and a negative time.
	for _, posted := range []float64{1795305600, 1795305600.9999999999, -62135596800, -1.25, 0.000001} {
		member := voting.LinkShare("k", posted, "7")
		if len(member) != len("k")+1+12+9+19 {
			t.Errorf("the member of a time %v is %q, not of the fixed width", posted, member)
		}
	}
}
