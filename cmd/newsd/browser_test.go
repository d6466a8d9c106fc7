package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var screenshot = flag.String("screenshot", "", "where TestBrowser saves its screenshot of the front page (README's is docs/newsd.png)")

// chromium finds Debian's chromium: the test skips without it, unless
// CI=true, where scripts/test has installed it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI needs chromium for the browser test (scripts/test installs Debian's)")
	}
	t.Skip("no chromium: install Debian's chromium to run the browser test")
	return ""
}

// TestBrowser drives the site in headless chromium as people would: log
// in, post, vote (the arrows' script, which votes without a reload) and
// see the article rise, switch tabs, page with "more", and delete.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	s := newSite(t)
	s.now = time.Now().Add(-2 * time.Hour)
	// 45 articles a minute apart, the i-th with i%5 more up-votes.
	for i := range 45 {
		id, err := s.store.PostArticle(context.Background(), "seeder", fmt.Sprintf("Story number %d", i+1),
			fmt.Sprintf("https://example.com/story/%d", i+1), []string{"redis", "programming", "science"}[i%3])
		if err != nil {
			t.Fatal(err)
		}
		for v := range i % 5 {
			if err := s.store.Vote(context.Background(), fmt.Sprintf("fan%d", v), id, 1); err != nil {
				t.Fatal(err)
			}
		}
		s.now = s.now.Add(time.Minute)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1200, 900))
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	url := s.srv.URL
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// listed reads the ids of the articles the page shown lists, in order.
	listed := func() []string {
		t.Helper()
		run("wait for the list", chromedp.WaitReady("ol.articles"))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('li.article')].map(e => e.dataset.id)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	ids := func(path string) []string {
		t.Helper()
		run("go to "+path, chromedp.Navigate(url+path))
		return listed()
	}
	read := func(sel string) string {
		t.Helper()
		text, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return text
	}
	login := func(user string) {
		t.Helper()
		run("log in as "+user, chromedp.Navigate(url+"/login"), chromedp.SetValue(`input[name=user]`, user),
			chromedp.Click("#login"), chromedp.WaitVisible(`#me[href="/u/`+user+`"]`))
		if me := read("#me"); me != user {
			t.Fatalf("logged in as %q, want %q", me, user)
		}
	}

	login("alice")
	run("post", chromedp.Navigate(url+"/submit"),
		chromedp.SetValue(`input[name=title]`, "Sorted sets, from a browser"),
		chromedp.SetValue(`input[name=link]`, "https://example.org/browser"),
		chromedp.SetValue(`input[name=groups]`, "redis"),
		chromedp.Click("#post"), chromedp.WaitVisible("#rank"))
	at, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(at, "/a/46") {
		t.Fatalf("the post went to %s, want /a/46", at)
	}

	// By net votes ("top") the new article, with its poster's vote alone,
	// is among the last; five up-votes take it to the top.
	before := slices.Index(ids("/?order=top"), "46")
	if before >= 0 && before < 5 {
		t.Fatalf("the new article is at %d of top already", before)
	}
	for v := range 5 {
		user := fmt.Sprintf("reader%d", v)
		login(user)
		want := fmt.Sprintf("%d up, 0 down", v+2)
		run("vote as "+user, chromedp.Navigate(url+"/a/46"), chromedp.Click(`#a46 button.up`),
			chromedp.WaitVisible(`#a46 button.up.on`))
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('#a46 .points').textContent == %q`, want),
			chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			t.Fatalf("the counts after %s's vote are not %q: %v", user, want, err)
		}
	}
	if after := slices.Index(ids("/?order=top"), "46"); after != 0 {
		t.Errorf("after five up-votes the article is at %d of top (from %d), want 0", after, before)
	}
	// The arrows show the viewer's vote after a reload, from the server.
	run("see my vote", chromedp.Navigate(url+"/a/46"))
	on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#a46 button.up').classList.contains('on')`))
	if err != nil || !on {
		t.Error("the up arrow does not show the viewer's vote")
	}

	// Tabs: each its listing, its own tab marked.
	run("front page", chromedp.Navigate(url+"/"))
	for _, tab := range []string{"new", "top", "controversial", "top-day", "hot"} {
		run("tab "+tab, chromedp.Click(fmt.Sprintf(`.tabs a[href="/?order=%s"]`, tab)),
			chromedp.WaitVisible(fmt.Sprintf(`.tabs a.on[href="/?order=%s"]`, tab)))
		if active := read(`.tabs a.on`); active != tab {
			t.Errorf("after clicking %s the active tab is %q", tab, active)
		}
	}
	if first := ids("/?order=new"); len(first) != 20 || first[0] != "46" {
		t.Errorf("new = %v, want 20 articles from 46", first)
	}

	// "more" pages on by cursor: the next 20, none of the first page's.
	first := ids("/?order=new")
	// The first page of new is articles 46 to 27; the next starts at 26.
	run("more", chromedp.Click("a.more"), chromedp.WaitVisible("#a26"))
	if at, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.Contains(at, "after=") {
		t.Errorf("more went to %s (%v), not a page by cursor", at, err)
	}
	second := listed()
	if len(second) != 20 || second[0] != "26" {
		t.Errorf("more = %v, want 20 articles from 26", second)
	}
	for _, id := range second {
		if slices.Contains(first, id) {
			t.Errorf("more repeats %s", id)
		}
	}

	if *screenshot != "" {
		login("alice")
		run("front page", chromedp.Navigate(url+"/?order=top"), chromedp.WaitVisible("ol.articles"))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(*screenshot), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Only the poster sees delete; it takes the article away.
	login("reader0")
	run("an article page", chromedp.Navigate(url+"/a/46"))
	if buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#delete').length`)); err != nil || buttons != 0 {
		t.Errorf("a reader sees %d delete buttons (%v)", buttons, err)
	}
	login("alice")
	run("delete", chromedp.Navigate(url+"/a/46"), chromedp.Click("#delete"), chromedp.WaitVisible("#karma"))
	run("the article is gone", chromedp.Navigate(url+"/a/46"))
	if text := read("p.error"); !strings.Contains(text, "not found") {
		t.Errorf("the deleted article's page says %q", text)
	}
	if slices.Contains(ids("/?order=top"), "46") {
		t.Error("the deleted article is still listed")
	}
}
