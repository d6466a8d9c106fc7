package main

import (
	"context"
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

// screenshotsEnv names the environment variable that makes TestBrowser
// write its screenshots, of a desktop's width and a phone's, to
// screenshotDir; without it the test takes them and writes nothing, so
// that a run in CI changes no file.
const (
	screenshotsEnv = "NEWSD_SCREENSHOTS"
	screenshotDir  = "../../docs"
)

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

// TestBrowser drives the site in headless chromium as people would: look
// at the front page at a desktop's width and at a phone's (where the list
// takes the width and the sidebar goes below it), log in, post, vote (the
// arrows' script, which votes without a reload) and see the article rise,
// switch tabs, page with "more", discuss (and see the discussion laid out
// as the listing is, at both widths), and delete.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	s := newSite(t)
	s.now = time.Now()
	// The sample data, as newsd starts with: articles over the past six
	// days, ids 1 to 60 from the oldest.
	if err := seed(context.Background(), s.pool, "", 60, s.now); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900))
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// Long bounds, for chromium on a machine of two cores under load:
	// they end a hang, and a sound run takes a small part of them.
	ctx, cancel = context.WithTimeout(ctx, 5*time.Minute)
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
	// shoot takes a screenshot of the page shown, and writes it as name
	// in screenshotDir if the environment asks for it.
	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv(screenshotsEnv) == "" {
			return
		}
		if err := os.WriteFile(filepath.Join(screenshotDir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The front page as a reader sees it, at a desktop's width and at a
	// phone's.
	login("priya.r")
	run("desktop", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"), chromedp.WaitVisible("ol.articles"))
	desktop := layoutOf(ctx, t)
	if desktop.AsideBelow || desktop.AsideWidth >= desktop.MainWidth {
		t.Errorf("at 1280 px the sidebar is not beside the list: %+v", desktop)
	}
	shoot("newsd-desktop.png")
	run("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)),
		chromedp.Navigate(url+"/"), chromedp.WaitVisible("ol.articles"))
	phone := layoutOf(ctx, t)
	// Beside a sidebar a phone's titles would get some 60 px, a word or
	// two a line.
	if !phone.AsideBelow || phone.AsideWidth < phone.MainWidth-1 || phone.TitleWidth < 280 || phone.PageWidth > 390 {
		t.Errorf("at 390 px the layout is not a phone's (the sidebar below the list, as wide; titles 280 px wide or more; nothing wider than the screen): %+v", phone)
	}
	shoot("newsd-phone.png")
	run("back to a desktop", chromedp.EmulateViewport(1280, 900))

	login("alice")
	run("post", chromedp.Navigate(url+"/submit"),
		chromedp.SetValue(`input[name=title]`, "Sorted sets, from a browser"),
		chromedp.SetValue(`input[name=link]`, "https://example.org/browser"),
		chromedp.SetValue(`input[name=groups]`, "redis"),
		chromedp.Click("#post"), chromedp.WaitVisible("#rank"))
	at, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(at, "/a/61") {
		t.Fatalf("the post went to %s, want /a/61", at)
	}

	// By net votes ("top", the whole listing on one page) the new
	// article, with its poster's vote alone, is among the last; five
	// up-votes move it up, each shown at once, in the row and in the
	// article's details.
	before := slices.Index(ids("/?order=top&size=100"), "61")
	if before < 30 {
		t.Fatalf("the new article is at %d of top already", before)
	}
	for v := range 5 {
		user := fmt.Sprintf("reader%d", v)
		login(user)
		want, updown := fmt.Sprintf("%d points", v+2), fmt.Sprintf("%d up, 0 down", v+2)
		run("vote as "+user, chromedp.Navigate(url+"/a/61"), chromedp.Click(`#a61 button.up`),
			chromedp.WaitVisible(`#a61 button.up.on`))
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('#a61 .points').textContent == %q && document.querySelector('#updown').textContent == %q`, want, updown),
			chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Fatalf("the counts after %s's vote are not %q, %q: %v", user, want, updown, err)
		}
	}
	if after := slices.Index(ids("/?order=top&size=100"), "61"); after < 0 || after >= before-10 {
		t.Errorf("after five up-votes the article is at %d of top (from %d), want well above", after, before)
	}
	// The arrows show the viewer's vote after a reload, from the server.
	run("see my vote", chromedp.Navigate(url+"/a/61"))
	on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#a61 button.up').classList.contains('on')`))
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
	if first := ids("/?order=new"); len(first) != 20 || first[0] != "61" {
		t.Errorf("new = %v, want 20 articles from 61", first)
	}

	// "more" pages on by cursor: the next 20, none of the first page's.
	first := ids("/?order=new")
	// The first page of new is articles 61 to 42; the next starts at 41.
	run("more", chromedp.Click("a.more"), chromedp.WaitVisible("#a41"))
	if at, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.Contains(at, "after=") {
		t.Errorf("more went to %s (%v), not a page by cursor", at, err)
	}
	second := listed()
	if len(second) != 20 || second[0] != "41" {
		t.Errorf("more = %v, want 20 articles from 41", second)
	}
	for _, id := range second {
		if slices.Contains(first, id) {
			t.Errorf("more repeats %s", id)
		}
	}

	// A discussion: alice comments, bob and then carol reply; under
	// "best" the later of two equal replies comes first, until a reader's
	// up-vote moves bob's past it. Deleted, alice's comment stays as a
	// tombstone that keeps its replies, and the front page counts the
	// comments not deleted.
	login("alice")
	run("comment", chromedp.Navigate(url+"/a/61"), chromedp.SetValue(`.comment-form textarea`, "First!"),
		chromedp.Click("#comment"), chromedp.WaitVisible("#c1"))
	reply := func(user, text, want string) {
		t.Helper()
		login(user)
		run(user+" replies", chromedp.Navigate(url+"/a/61"), chromedp.Click(`#c1 > .body > details.reply > summary`),
			chromedp.SetValue(`#c1 > .body > details.reply textarea`, text),
			chromedp.Click(`#c1 > .body > details.reply button.send`), chromedp.WaitVisible(want))
	}
	reply("bob", "A reply", "#c2")
	reply("carol", "A sibling", "#c3")
	replies := func() []string {
		t.Helper()
		run("the thread by best", chromedp.Navigate(url+"/a/61?sort=best"), chromedp.WaitVisible("#c1"))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#c1 > .body > ol.comments > li.comment')].map(e => e.dataset.id)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := replies(); !slices.Equal(got, []string{"3", "2"}) {
		t.Errorf("the replies by best before the vote = %v, want [3 2]", got)
	}
	login("reader0")
	run("vote the reply up", chromedp.Navigate(url+"/a/61?sort=best"), chromedp.Click(`#c2 > form.arrows button.up`),
		chromedp.WaitVisible(`#c2 > form.arrows button.up.on`))
	if got := replies(); !slices.Equal(got, []string{"2", "3"}) {
		t.Errorf("the replies by best after the vote = %v, want [2 3]", got)
	}
	// The discussion looks like the listing, at a desktop's width and at
	// a phone's: each comment's arrows left of its text, beside its first
	// line, replies indented under their parent's text, no list markers.
	for _, screen := range []struct {
		name string
		view chromedp.Action[chromedp.Void]
	}{
		{"desktop", chromedp.EmulateViewport(1280, 900)},
		{"phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2))},
	} {
		run("the discussion at a "+screen.name+"'s width", screen.view, chromedp.Navigate(url+"/a/61"), chromedp.WaitVisible("#c3"))
		checkThread(t, screen.name, threadLayoutOf(ctx, t), 3)
	}
	run("back to a desktop", chromedp.EmulateViewport(1280, 900))
	login("alice")
	run("delete the comment", chromedp.Navigate(url+"/a/61"), chromedp.Click(`#c1 > .body > .meta form.delete-comment button`),
		chromedp.WaitVisible(`#c1.deleted`))
	if text := read(`#c1 > .body > p.text`); text != "[deleted]" {
		t.Errorf("the deleted comment shows %q, want [deleted]", text)
	}
	if got := replies(); !slices.Equal(got, []string{"2", "3"}) {
		t.Errorf("the tombstone's replies = %v, want [2 3]", got)
	}
	run("the front page", chromedp.Navigate(url+"/?order=new"), chromedp.WaitVisible("#a61"))
	if text := read(`#a61 a.comments`); text != "2 comments" {
		t.Errorf("the front page says %q of the article's comments, want 2 comments", text)
	}

	// Only the poster sees delete; it takes the article away.
	login("reader0")
	run("an article page", chromedp.Navigate(url+"/a/61"))
	if buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#delete').length`)); err != nil || buttons != 0 {
		t.Errorf("a reader sees %d delete buttons (%v)", buttons, err)
	}
	login("alice")
	run("delete", chromedp.Navigate(url+"/a/61"), chromedp.Click("#delete"), chromedp.WaitVisible("#karma"))
	run("the article is gone", chromedp.Navigate(url+"/a/61"))
	if text := read("p.error"); !strings.Contains(text, "not found") {
		t.Errorf("the deleted article's page says %q", text)
	}
	if slices.Contains(ids("/?order=top"), "61") {
		t.Error("the deleted article is still listed")
	}
}

// A layout is where the page shown puts its parts, in CSS pixels.
type layout struct {
	MainWidth  float64 `json:"mainWidth"`
	AsideWidth float64 `json:"asideWidth"`
	AsideBelow bool    `json:"asideBelow"` // the sidebar starts below the list's end
	TitleWidth float64 `json:"titleWidth"` // the box a title's row gives its text
	PageWidth  float64 `json:"pageWidth"`  // the document's, overflow included
}

// layoutOf reads the layout of the page shown.
func layoutOf(ctx context.Context, t *testing.T) layout {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Evaluate[layout](`(() => {
		const box = (sel) => document.querySelector(sel).getBoundingClientRect();
		const main = box('main'), aside = box('aside'), title = box('li.article .body');
		return {mainWidth: main.width, asideWidth: aside.width, asideBelow: aside.top >= main.bottom - 1,
			titleWidth: title.width, pageWidth: document.documentElement.scrollWidth};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A box is an element's, or a line's, bounding box in CSS pixels.
type box struct {
	Left   float64 `json:"left"`
	Right  float64 `json:"right"`
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
}

// A commentLayout is where the page shown puts one comment's parts.
type commentLayout struct {
	ID         string  `json:"id"`
	Marker     string  `json:"marker"`     // the item's computed list-style-type
	Arrows     *box    `json:"arrows"`     // nil for a tombstone, which has none
	FirstLine  box     `json:"firstLine"`  // the first line of its text
	ParentText *box    `json:"parentText"` // its parent's text, for a reply
	PageWidth  float64 `json:"pageWidth"`
}

// threadLayoutOf reads the layout of the comments on the page shown.
func threadLayoutOf(ctx context.Context, t *testing.T) []commentLayout {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Evaluate[[]commentLayout](`(() => {
		const box = (r) => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
		const text = (li) => li.querySelector(':scope > .body > p.text');
		return [...document.querySelectorAll('li.comment')].map(li => {
			const arrows = li.querySelector(':scope > form.arrows');
			const lines = document.createRange();
			lines.selectNodeContents(text(li));
			const parent = li.parentElement.closest('li.comment');
			return {id: li.dataset.id, marker: getComputedStyle(li).listStyleType,
				arrows: arrows && box(arrows.getBoundingClientRect()), firstLine: box(lines.getClientRects()[0]),
				parentText: parent && box(text(parent).getBoundingClientRect()),
				pageWidth: document.documentElement.scrollWidth};
		});
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// checkThread checks that a discussion of n comments, at the screen's
// width, is laid out as the listing is: no list marker; each comment's
// arrows left of its text and close by (less than 2em of the site's 15 px
// font between them), beside the text's first line (their boxes overlap
// vertically); a reply's arrows right of its parent's text's left edge
// (indented under it); and nothing wider than the screen.
func checkThread(t *testing.T, screen string, comments []commentLayout, n int) {
	t.Helper()
	if len(comments) != n {
		t.Fatalf("at a %s's width the page shows %d comments, want %d", screen, len(comments), n)
	}
	for _, c := range comments {
		if c.Marker != "none" {
			t.Errorf("at a %s's width comment %s has the list marker %q", screen, c.ID, c.Marker)
		}
		if c.Arrows == nil {
			t.Errorf("at a %s's width comment %s has no arrows", screen, c.ID)
			continue
		}
		a, line := *c.Arrows, c.FirstLine
		if a.Right > line.Left || line.Left-a.Right >= 30 {
			t.Errorf("at a %s's width comment %s's arrows are not just left of its text: arrows %+v, first line %+v", screen, c.ID, a, line)
		}
		if a.Top >= line.Bottom || a.Bottom <= line.Top {
			t.Errorf("at a %s's width comment %s's arrows are not beside its first line: arrows %+v, first line %+v", screen, c.ID, a, line)
		}
		if p := c.ParentText; p != nil && a.Left <= p.Left {
			t.Errorf("at a %s's width reply %s is not indented under its parent's text: arrows %+v, the parent's text %+v", screen, c.ID, a, *p)
		}
	}
	if screen == "phone" && comments[0].PageWidth > 390 {
		t.Errorf("at a phone's width the discussion is %.0f px wide, wider than the screen", comments[0].PageWidth)
	}
}
