package main

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/articlevote/voting"
)

// TestSeed: the sample data posts, each sample in its groups, every link
// its own (the namespace keeps links unique) and none on example.com; past
// the samples the reposts carry a year and link an archived copy.
func TestSeed(t *testing.T) {
	s := newSite(t)
	ctx := context.Background()
	pool := s.pool
	n := len(sampleArticles) + 3
	if err := seed(ctx, pool, "", n, s.now); err != nil {
		t.Fatal(err)
	}
	articles, _, err := s.store.List(ctx, voting.Query{Order: voting.ByTime, WithGroups: true, Paging: voting.Paging{Size: voting.MaxPageSize}})
	if err != nil {
		t.Fatal(err)
	}
	if len(articles) != n {
		t.Fatalf("seeded %d articles, want %d", len(articles), n)
	}
	titles := map[string][]string{}
	for _, sample := range sampleArticles {
		titles[sample.title] = strings.Fields(sample.groups)
	}
	var reposts int
	for _, a := range articles {
		u, err := url.Parse(a.Link)
		if err != nil || strings.HasSuffix(u.Hostname(), "example.com") {
			t.Errorf("article %s links %s", a.ID, a.Link)
		}
		if u.Hostname() == "web.archive.org" {
			reposts++
			continue
		}
		groups, ok := titles[a.Title]
		if !ok || !slices.Equal(a.Groups, slices.Sorted(slices.Values(groups))) {
			t.Errorf("article %q in %v, want a sample in its groups %v", a.Title, a.Groups, groups)
		}
		if !slices.Contains(sampleUsers, a.Poster) {
			t.Errorf("article %q posted by %q, no sample user", a.Title, a.Poster)
		}
	}
	if reposts != 3 {
		t.Errorf("%d reposts, want 3", reposts)
	}
	if got := slug("Go 1.24's Swiss-table maps, benchmarked"); got != "go-1-24s-swiss-table-maps-benchmarked" {
		t.Errorf("slug = %q", got)
	}
}
