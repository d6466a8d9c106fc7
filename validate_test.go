package voting_test

// Tests of the input rules (validate.go): bad input of every method is
// refused with ErrInvalid and writes nothing; good input at the limits is
// taken.

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"

	"github.com/articlevote/voting"
)

func TestBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.post("alice", "target", "news")
	long := strings.Repeat("x", 301)
	tests := []struct {
		name string
		call func() error
	}{
		{"empty poster", func() error { _, err := e.store.PostArticle(ctx, "", "t", "https://a.example/"); return err }},
		{"long poster", func() error {
			_, err := e.store.PostArticle(ctx, strings.Repeat("p", 101), "t", "https://a.example/")
			return err
		}},
		{"empty title", func() error { _, err := e.store.PostArticle(ctx, "p", "", "https://a.example/"); return err }},
		{"blank title", func() error { _, err := e.store.PostArticle(ctx, "p", "   ", "https://a.example/"); return err }},
		{"long title", func() error { _, err := e.store.PostArticle(ctx, "p", long, "https://a.example/"); return err }},
		{"title with control", func() error { _, err := e.store.PostArticle(ctx, "p", "a\x00b", "https://a.example/"); return err }},
		{"title not UTF-8", func() error { _, err := e.store.PostArticle(ctx, "p", "a\xffb", "https://a.example/"); return err }},
		{"relative link", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "/path"); return err }},
		{"ftp link", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "ftp://a.example/"); return err }},
		{"javascript link", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "javascript:alert(1)"); return err }},
		{"link without host", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "https:///x"); return err }},
		{"link with space", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "https://a.example/a b"); return err }},
		{"link whose :// is in its fragment", func() error {
			_, err := e.store.PostArticle(ctx, "p", "t", "http:#://example.com")
			return err
		}},
		{"link with only a port", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://:80/"); return err }},
		{"link with two ports", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://a.example:80:80/"); return err }},
		{"link with brackets in the host", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://a<b>/"); return err }},
		{"link with an IPv4 in brackets", func() error { _, err := e.store.PostArticle(ctx, "p", "t", "http://[1.2.3.4]/"); return err }},
		{"bad group on post", func() error {
			_, err := e.store.PostArticle(ctx, "p", "t", "https://a.example/", "ok", "{x}")
			return err
		}},
		{"empty user", func() error { return e.store.Vote(ctx, "", id, voting.Up) }},
		{"user with newline", func() error { return e.store.Vote(ctx, "bob\n", id, voting.Up) }},
		{"user with trailing space", func() error { return e.store.Vote(ctx, "bob ", id, voting.Up) }},
		{"id 0", func() error { return e.store.Vote(ctx, "bob", "0", voting.Up) }},
		{"id -1", func() error { return e.store.Vote(ctx, "bob", "-1", voting.Up) }},
		{"id 1e3", func() error { return e.store.Vote(ctx, "bob", "1e3", voting.Up) }},
		{"id with space", func() error { return e.store.Vote(ctx, "bob", id+" ", voting.Up) }},
		{"id with key name", func() error { return e.store.Vote(ctx, "bob", "article:"+id, voting.Up) }},
		{"id with leading zero", func() error { return e.store.Vote(ctx, "bob", "0"+id, voting.Up) }},
		{"unknown direction", func() error { return e.store.Vote(ctx, "bob", id, voting.Direction(7)) }},
		{"no direction", func() error { return e.store.Vote(ctx, "alice", id, voting.Direction(0)) }},
		{"Article bad id", func() error { _, err := e.store.Article(ctx, "x"); return err }},
		{"page 0", func() error { _, err := e.store.GetArticles(ctx, 0, voting.ByScore); return err }},
		{"page -1", func() error { _, err := e.store.GetArticles(ctx, -1, voting.ByTime); return err }},
		{"unknown order", func() error { _, err := e.store.GetArticles(ctx, 1, voting.Order(5)); return err }},
		{"group page 0", func() error { _, err := e.store.GetGroupArticles(ctx, "news", 0, voting.ByScore); return err }},
		{"empty group name", func() error { _, err := e.store.GetGroupArticles(ctx, "", 1, voting.ByScore); return err }},
		{"group with brace", func() error { return e.store.AddToGroups(ctx, id, "{news}") }},
		{"group with colon", func() error { return e.store.AddToGroups(ctx, id, "a:b") }},
		{"group with star", func() error { return e.store.AddToGroups(ctx, id, "news*") }},
		{"group with space", func() error { return e.store.AddToGroups(ctx, id, "big news") }},
		{"long group", func() error { return e.store.AddToGroups(ctx, id, strings.Repeat("g", 65)) }},
		{"no groups to add", func() error { return e.store.AddToGroups(ctx, id) }},
		{"no groups to remove", func() error { return e.store.RemoveFromGroups(ctx, id) }},
		{"remove bad group", func() error { return e.store.RemoveFromGroups(ctx, id, "news", "") }},
		{"UserVotes bad user", func() error { _, err := e.store.UserVotes(ctx, "", id); return err }},
		{"UserVotes bad id", func() error { _, err := e.store.UserVotes(ctx, "bob", id, "7x"); return err }},
	}
	before := e.dump()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, voting.ErrInvalid) {
				t.Fatalf("error = %v, want one wrapping ErrInvalid", err)
			}
			if after := e.dump(); after != before {
				t.Errorf("bad input wrote:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestGoodEdgeInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	title := strings.Repeat("é", voting.MaxTitleLen)
	group := strings.Repeat("ü", voting.MaxGroupLen)
	id, err := e.store.PostArticle(ctx, "Ünïcode user", title, "HTTPS://example.com:8443/a?b=c#d", group, "a-b_c.d")
	if err != nil {
		t.Fatalf("PostArticle at the limits: %v", err)
	}
	a, err := e.store.Article(ctx, id)
	if err != nil || a.Title != title {
		t.Errorf("Article = %+v, %v", a, err)
	}
	articles, err := e.store.GetGroupArticles(ctx, group, 1, voting.ByScore)
	if err != nil || len(articles) != 1 {
		t.Errorf("group at the length limit = %v, %v", articles, err)
	}
	// A page so far past the end that its offset overflows is still just
	// past the end.
	if articles, err := e.store.GetArticles(ctx, math.MaxInt, voting.ByTime); err != nil || articles == nil || len(articles) != 0 {
		t.Errorf("GetArticles(MaxInt) = %v, %v; want an empty page", articles, err)
	}
	if articles, err := e.store.GetGroupArticles(ctx, group, math.MaxInt, voting.ByScore); err != nil || articles == nil || len(articles) != 0 {
		t.Errorf("GetGroupArticles(MaxInt) = %v, %v; want an empty page", articles, err)
	}
	for _, link := range []string{"http://[::1]:8080/", "https://[fe80::1%25eth0]/", "http://xn--bcher-kva.example/", "http://b%C3%BCcher.example/"} {
		if _, err := e.store.PostArticle(ctx, "p", "t", link); err != nil {
			t.Errorf("PostArticle with link %q: %v", link, err)
		}
	}
}

// TestDeleteCountsAndHistoryRefuseBadInput: DeleteArticle, Count,
// Count(group), UserHistory and WithUserHistory refuse bad input with
// ErrInvalid, writing nothing.
func TestDeleteCountsAndHistoryRefuseBadInput(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{-time.Second, time.Millisecond, 999 * time.Millisecond} {
		if _, err := voting.New(newEnv(t).pool, noBuilder, voting.WithUserHistory(d)); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("WithUserHistory(%v): %v, want ErrInvalid", d, err)
		}
	}
	e := newEnv(t, voting.WithUserHistory(time.Hour), voting.WithOrders(voting.TopDay))
	id := e.post("alice", "a", "go")
	e.vote("bob", id, voting.Up)
	noHistory := newEnv(t).store // a namespace that keeps no history
	before := e.dump()
	long := strings.Repeat("x", voting.MaxUserLen+1)
	for what, call := range map[string]func() error{
		"DeleteArticle empty id":  func() error { return e.store.DeleteArticle(ctx, "") },
		"DeleteArticle bad id":    func() error { return e.store.DeleteArticle(ctx, "1 OR 2") },
		"DeleteArticle leading 0": func() error { return e.store.DeleteArticle(ctx, "0"+id) },
		"CountArticles unkept":    func() error { _, err := e.store.Count(ctx, voting.Query{Order: voting.ByVotes}); return err },
		"CountArticles no order":  func() error { _, err := e.store.Count(ctx, voting.Query{Order: voting.Order(99)}); return err },
		"CountGroupArticles group": func() error {
			_, err := e.store.Count(ctx, voting.Query{Group: "a b", Order: voting.ByScore})
			return err
		},
		"CountGroupArticles brace": func() error {
			_, err := e.store.Count(ctx, voting.Query{Group: "{x}", Order: voting.ByScore})
			return err
		},
		"CountGroupArticles unkept": func() error {
			_, err := e.store.Count(ctx, voting.Query{Group: "go", Order: voting.TopWeek})
			return err
		},
		"UserHistory empty user": func() error { _, err := two(e.store.UserHistory(ctx, "", voting.Paging{Page: 1})); return err },
		"UserHistory long user":  func() error { _, err := two(e.store.UserHistory(ctx, long, voting.Paging{Page: 1})); return err },
		"UserHistory page and cursor": func() error {
			_, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 2, After: "x"}))
			return err
		},
		"UserHistory size 1001": func() error {
			_, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Size: voting.MaxPageSize + 1}))
			return err
		},
		"UserHistory page -1": func() error { _, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: -1})); return err },
		"UserHistory off":     func() error { _, err := two(noHistory.UserHistory(ctx, "bob", voting.Paging{Page: 1})); return err },
	} {
		if err := call(); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", what, err)
		}
	}
	if after := e.dump(); after != before {
		t.Errorf("refused calls wrote:\n%s\nwas:\n%s", after, before)
	}
}

// The input rules are in the package doc, where go doc shows them, each
// with the limit a caller can read, and the methods that take such input
// point there.
func TestInputRulesAreInThePackageDoc(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/articlevote/voting")
	if err != nil {
		t.Fatal(err)
	}
	_, rules, ok := strings.Cut(p.Doc, "# Input\n")
	if !ok {
		t.Fatalf("the package doc has no Input section")
	}
	rules, _, _ = strings.Cut(rules, "\n# ")
	for _, want := range []string{"user id", "MaxUserLen", "title", "MaxTitleLen", "link", "MaxLinkLen",
		"article id", "group name", "MaxGroupLen", "MaxGroups", "Direction", "page", "blank"} {
		if !strings.Contains(rules, want) {
			t.Errorf("the package doc's Input section does not mention %s", want)
		}
	}
	for _, f := range p.Types {
		for _, m := range f.Methods {
			switch m.Name {
			case "Vote", "PostArticle", "AddToGroups":
				if !strings.Contains(strings.Join(strings.Fields(m.Doc), " "), "Input section") {
					t.Errorf("%s's doc does not point to the package doc's Input section", m.Name)
				}
			}
		}
	}
}
