package voting_test

// Fuzz targets: the input rules against rules written again here, mostly as
// regular expressions, with the exact outcome of every call on good input;
// and random sequences of operations against an in-memory model of the
// book's rules. FuzzInput runs on miniredis; FuzzOperations on miniredis, or
// on the real server that VOTING_REDIS_ADDR names. Their seed corpora are in
// testdata/fuzz; scripts/test runs each for a short time.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

var (
	// textRule is the rule for users, posters and titles, but for their
	// length and UTF-8: no control character, no space at either end.
	// \p{Z} is every space that is no control character.
	textRule  = regexp.MustCompile(`^[^\p{Cc}\p{Z}](?:[^\p{Cc}]*[^\p{Cc}\p{Z}])?$`)
	groupRule = regexp.MustCompile(`^[\p{L}\p{Nd}._-]+$`)
	idRule    = regexp.MustCompile(`^[1-9][0-9]*$`)
)

// The rule for links, as a regular expression: http or https in any case,
// "://", an optional userinfo, a host (a name, or an IPv6 address in
// brackets), an optional port, then an optional path, query and fragment.
// The parts follow RFC 3986, with these decisions on odd inputs:
//
//   - a host name is not empty; it may hold letters of any script, and
//     %-escapes of non-ASCII bytes only (as IDNs are written), but none of
//     < > " [ ] or %25, which no host name holds;
//   - a port is digits, and may be empty ("http://x:/");
//   - the userinfo may hold '@': the last '@' ends it, as browsers read it;
//   - a '%' in the path or the fragment starts a two-digit hex escape; the
//     query is taken as it is, as servers read queries their own way
//     ("?q=100%");
//   - no space and no control character anywhere, at most MaxLinkLen bytes
//     of valid UTF-8 (checked outside the expression).
const (
	linkEscape   = `%[0-9A-Fa-f]{2}`
	linkUserinfo = `(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|` + linkEscape + `)*@`
	linkHostName = `(?:[A-Za-z0-9._~!$&'()*+,;=-]|[^\x00-\x7F]|%[89A-Fa-f][0-9A-Fa-f])+`
	linkIPv6     = `\[([0-9A-Fa-f:.]+)(?:%25(?:[A-Za-z0-9._~-]|` + linkEscape + `)+)?\]`
	linkPath     = `(?:/(?:[^%?#]|` + linkEscape + `)*)?`
	linkQuery    = `(?:\?[^#]*)?`
	linkFragment = `(?:#(?:[^%]|` + linkEscape + `)*)?`
)

var linkRule = regexp.MustCompile(`^(?i:https?)://(?:` + linkUserinfo + `)?` +
	`(?:` + linkHostName + `|` + linkIPv6 + `)(?::[0-9]*)?` +
	linkPath + linkQuery + linkFragment + `$`)

// spaceOrControl finds what no link holds.
var spaceOrControl = regexp.MustCompile(`[\p{Z}\p{Cc}]`)

func textOK(s string, max int) bool {
	return utf8.ValidString(s) && utf8.RuneCountInString(s) <= max && textRule.MatchString(s)
}

func linkOK(link string) bool {
	if len(link) > voting.MaxLinkLen || !utf8.ValidString(link) || spaceOrControl.MatchString(link) {
		return false
	}
	m := linkRule.FindStringSubmatch(link)
	if m == nil {
		return false
	}
	if m[1] != "" { // an IP literal holds an IPv6 address, not an IPv4 one
		addr, err := netip.ParseAddr(m[1])
		return err == nil && !addr.Is4()
	}
	return true
}

func groupOK(g string) bool {
	return utf8.ValidString(g) && utf8.RuneCountInString(g) <= voting.MaxGroupLen && groupRule.MatchString(g)
}

// idOK is the rule for article ids: what INCR gives, 1 to the largest int64,
// in decimal with no sign and no leading zero.
func idOK(id string) bool {
	_, err := strconv.ParseInt(id, 10, 64)
	return err == nil && idRule.MatchString(id)
}

// pageOK is the rule for pages: they count from 1, and a page past the end
// is empty, however far past.
func pageOK(page int) bool { return page >= 1 }

// outcome is the outcome a rule gives: ErrInvalid for bad input, else
// ifGood.
func outcome(good bool, ifGood error) error {
	if !good {
		return voting.ErrInvalid
	}
	return ifGood
}

// expect fails the test unless err is exactly the outcome want: success
// for nil, else an error wrapping want and no other of the package's.
func expect(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("%s = %v, want success", what, err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s = %v, want an error wrapping %v", what, err, want)
	}
	for _, other := range []error{voting.ErrInvalid, voting.ErrNotFound, voting.ErrVotingClosed} {
		if other != want && errors.Is(err, other) {
			t.Fatalf("%s = %v, which wraps %v as well as %v", what, err, other, want)
		}
	}
}

func FuzzInput(f *testing.F) {
	f.Add("alice", "A title", "https://example.com/", "news", "1", 1)
	f.Add("", "", "", "", "", 0)
	f.Add("bob ", "t\x00", "ftp://x", "{tag}", "article:1", -1)
	f.Add("carol", "carol", "HTTP://user@[::1]:8080/p?q=100%#f", "g", "1", 2)
	f.Add("dan", "Twenty-five past", "https://x.example", "g", "9223372036854775807", 6)
	f.Add("eve", "Too far", "https://x.example", "g", "9223372036854775808", 3)
	// Once accepted by the library: a host of no name, of two ports or of
	// odd characters, and a page whose offset overflows.
	f.Add("fay", "No host", "http://:80/", "g", "1", math.MaxInt)
	f.Add("gus", "Two ports", "http://x.example:80:80/", "g", "1", 1)
	f.Add("hal", "Odd host", "http://a<b>/", "g", "1", 1)
	e := newEnvOn(f, "", "")
	f.Fuzz(func(t *testing.T, user, title, link, group, id string, page int) {
		e.t = t
		e.do("FLUSHALL")
		s := e.store
		// The namespace's settings, which the Store's first write after
		// the flush would write afresh: written first, as a Store's first
		// call does.
		if _, err := s.Settings(ctx); err != nil {
			t.Fatal(err)
		}
		fresh := e.keys()
		dir := voting.Direction((page%4 + 4) % 4) // 0, not given, then up, down and none

		// The model: at most one article, "1", posted by user at start, in
		// group, with its votes.
		posted := false
		var votes map[string]voting.Direction
		article := func() voting.Article {
			a := voting.Article{ID: "1", Title: title, Link: link, Poster: user, Posted: start}
			for _, d := range votes {
				switch d {
				case voting.Up:
					a.Upvotes++
				case voting.Down:
					a.Downvotes++
				}
			}
			a.Points = a.Upvotes - a.Downvotes
			a.RankingScore = unix(start) + voting.DefaultVoteWeight*float64(a.Points)
			a.Groups = []string{group}
			return a
		}
		// found is the outcome for a good id: the article, or none.
		found := func() error {
			if posted && id == "1" {
				return nil
			}
			return voting.ErrNotFound
		}
		unchangedOnError := func(what string, call func() error) error {
			t.Helper()
			before := e.dump()
			err := call()
			if err != nil {
				if after := e.dump(); after != before {
					t.Fatalf("%s failed (%v) but wrote:\nbefore %s\nafter  %s", what, err, before, after)
				}
			}
			return err
		}

		postGood := textOK(user, voting.MaxUserLen) && textOK(title, voting.MaxTitleLen) && linkOK(link) && groupOK(group)
		newID, err := s.PostArticle(ctx, user, title, link, group)
		expect(t, "PostArticle", err, outcome(postGood, nil))
		if err == nil {
			posted = true
			votes = map[string]voting.Direction{user: voting.Up}
			if newID != "1" {
				t.Fatalf("the first article's id is %q, want 1", newID)
			}
			// A user's id may hold braces and spaces, after the prefix
			// (whose hash tag, if any, comes first); no other key may.
			for _, k := range e.keys() {
				if k != e.key("posts:"+user) && strings.ContainsAny(k, "{} \t\r\n") {
					t.Fatalf("key %q holds a brace or a space", k)
				}
			}
		} else if keys := e.keys(); !reflect.DeepEqual(keys, fresh) {
			t.Fatalf("a refused post wrote %v", keys)
		}

		// user votes dir, then title, as a user, votes up.
		for _, v := range []struct {
			user string
			dir  voting.Direction
		}{{user, dir}, {title, voting.Up}} {
			what := fmt.Sprintf("Vote(%q, %q, %v)", v.user, id, v.dir)
			err = unchangedOnError(what, func() error { return s.Vote(ctx, v.user, id, v.dir) })
			expect(t, what, err, outcome(textOK(v.user, voting.MaxUserLen) && idOK(id) && v.dir >= voting.Up && v.dir <= voting.None, found()))
			if err == nil && posted {
				votes[v.user] = v.dir
			}
		}

		a, err := s.Article(ctx, id)
		expect(t, "Article", err, outcome(idOK(id), found()))
		if err == nil && !reflect.DeepEqual(a, article()) {
			t.Fatalf("Article = %+v, want %+v", a, article())
		}

		err = unchangedOnError("AddToGroups", func() error { return s.AddToGroups(ctx, id, group) })
		expect(t, "AddToGroups", err, outcome(idOK(id) && groupOK(group), found()))

		// A page holds the article if it is page 1 and the article was
		// posted (into group); every other page is past the end.
		listing := func(what string, got []voting.Article, err error, good bool) {
			t.Helper()
			expect(t, what, err, outcome(good, nil))
			wantPage := []voting.Article{}
			if posted && page == 1 {
				listed := article()
				listed.Groups = nil // a page reads them only WithGroups
				wantPage = append(wantPage, listed)
			}
			if err == nil && !reflect.DeepEqual(got, wantPage) {
				t.Fatalf("%s page %d = %+v, want %+v", what, page, got, wantPage)
			}
		}
		got, err := s.GetArticles(ctx, page, voting.ByScore)
		listing("GetArticles", got, err, pageOK(page))
		got, err = s.GetGroupArticles(ctx, group, page, voting.ByTime)
		listing("GetGroupArticles", got, err, pageOK(page) && groupOK(group))

		for _, u := range []string{user, title} {
			dirs, err := s.UserVotes(ctx, u, id)
			expect(t, "UserVotes", err, outcome(textOK(u, voting.MaxUserLen) && idOK(id), nil))
			if err == nil {
				wantDir := voting.None
				if d, ok := votes[u]; ok && posted && id == "1" {
					wantDir = d
				}
				if !reflect.DeepEqual(dirs, []voting.Direction{wantDir}) {
					t.Fatalf("UserVotes(%q, %q) = %v, want [%v]", u, id, dirs, wantDir)
				}
			}
		}

		err = unchangedOnError("RemoveFromGroups", func() error { return s.RemoveFromGroups(ctx, id, group) })
		expect(t, "RemoveFromGroups", err, outcome(idOK(id) && groupOK(group), nil))
		if err == nil && posted && e.exists(e.key("group:"+group)) != (id != "1") {
			t.Fatalf("after RemoveFromGroups(%q, %q), group:%s exists: %v", id, group, group, e.exists(e.key("group:"+group)))
		}
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
}

// modelArticle is an article as the model holds it.
type modelArticle struct {
	id      string
	poster  string
	link    string // its key, as linkKey writes it
	posted  int64
	votes   map[string]voting.Direction
	groups  map[string]bool
	deleted bool
}

// vote is user's vote on a, if a exists and the user has voted on it.
func (a *modelArticle) vote(user string) (voting.Direction, bool) {
	if a == nil {
		return 0, false
	}
	d, ok := a.votes[user]
	return d, ok
}

func (a *modelArticle) count(d voting.Direction) int64 {
	n := int64(0)
	for _, v := range a.votes {
		if v == d {
			n++
		}
	}
	return n
}

func (a *modelArticle) score() float64 {
	return float64(a.posted) + voting.DefaultVoteWeight*float64(a.count(voting.Up)-a.count(voting.Down))
}

// karma is what a contributes to its poster's karma: the votes of others.
func (a *modelArticle) karma() int64 {
	n := int64(0)
	for user, d := range a.votes {
		switch {
		case user == a.poster:
		case d == voting.Up:
			n++
		case d == voting.Down:
			n--
		}
	}
	return n
}

// fuzzLink is the link of choice b: four links, each written in two ways
// that are the same link (the host's case and a fragment).
func fuzzLink(b byte) string {
	if b&4 != 0 {
		return fmt.Sprintf("https://EXAMPLE.com/%d#f", b&3)
	}
	return fmt.Sprintf("https://example.com/%d", b&3)
}

// keepOpen is a pool that the envs of FuzzOperations share on a real
// server: each env's cleanup closes its pool, and this one must outlive
// them.
type keepOpen struct{ *redis.Pool }

func (keepOpen) Close() error { return nil }

// FuzzOperations plays a sequence of operations, three bytes each, and
// checks every result and the final state against the model. Its Store
// keeps karma and unique links; posts and edits choose among four links,
// so that some repeat one that a live article has.
//
// It runs on miniredis, flushed for each input, or, when VOTING_REDIS_ADDR
// is set, on that server under a fresh random prefix for each input, whose
// keys it deletes afterwards. Either way the Store's fake clock decides
// when voting closes. Voter sets expire on the server's clock: miniredis's
// moves with the fake clock, so they expire at the cutoff, but a real
// server's keeps real time, and the shortest time to live a vote here sets
// is an hour (posts and votes are whole hours apart), so they outlive the
// input. The model's UserVotes after the cutoff is therefore None on
// miniredis and the last vote on a real server.
func FuzzOperations(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 2, 0, 2, 3, 0, 7, 0, 0})
	f.Add([]byte{0, 0, 7, 0, 1, 5, 1, 2, 0, 3, 2, 0, 6, 30, 0, 1, 3, 0, 4, 2, 0, 5, 1, 0, 7, 1, 1})
	f.Add([]byte{0x80, 0, 7, 0, 1, 5, 1, 2, 0, 3, 2, 0, 6, 30, 0, 1, 3, 0, 4, 2, 0, 5, 1, 0, 7, 1, 1, 5, 1, 0, 7, 2, 1})
	// Deletions (op 6 with the third byte's top bit): of a voted article in
	// groups, again, of one never posted, and of one whose voting closed.
	f.Add([]byte{0x80, 0, 7, 0, 1, 5, 2, 2, 0, 6, 0, 0x80, 6, 0, 0x80, 7, 0, 1, 6, 2, 0x80, 0, 1, 3, 6, 30, 0, 6, 1, 0x80, 2, 3, 2, 7, 1, 0})
	// Links: a second post of a link (the host's case and a fragment
	// aside), edits to a taken link and to a free one, a post of the link
	// an edit freed, votes that move karma, and a deletion.
	f.Add([]byte{0x80, 0, 0, 0, 1, 0x08, 0, 2, 0x20, 1, 1, 0, 7, 1, 0x80, 7, 0, 0x81, 7, 0, 0x83, 0, 2, 0, 6, 0, 0x80, 2, 3, 1})
	// Comments (ops with 0x40): posts on two articles, replies, a reply
	// whose article is another, votes, a read in each order, deletions to
	// a tombstone and whole, time passing the cutoff, and the article's
	// deletion.
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0x40, 0, 0, 0x40, 1, 0, 0x40, 2, 1, 0x40, 3, 3, 0x40, 0x81, 1, 0x41, 0x13, 0, 0x41, 0x24, 2,
		0x43, 0, 0, 0x43, 0, 1, 0x43, 0, 2, 0x43, 0, 3, 0x43, 0, 4, 0x42, 0, 0, 0x42, 0, 4, 0x42, 0, 2, 6, 30, 0, 0x41, 1, 2,
		0x42, 0, 3, 6, 0, 0x80, 0x43, 0, 0})
	const cutoff = 24 * time.Hour
	groups := []string{"news", "tech", "art"}
	users := []string{"ann", "ben", "cat", "dan", "eve", "fay"}
	opts := []voting.Option{voting.WithCutoff(cutoff), voting.WithGroupCacheTTL(0), voting.WithPageSize(5),
		voting.WithKarma(), voting.WithUniqueLinks()}
	addr := os.Getenv(redisAddrEnv)
	var newInputEnv func(t *testing.T) *env
	if addr == "" {
		e := newEnvOn(f, "", "", opts...)
		newInputEnv = func(t *testing.T) *env {
			e.t = t
			e.do("FLUSHALL")
			e.clock.set(start)
			e.mr.SetTime(start)
			return e
		}
	} else {
		shared := &redis.Pool{
			MaxIdle:     8,
			IdleTimeout: time.Minute,
			DialContext: func(ctx context.Context) (redis.Conn, error) {
				return redis.DialContext(ctx, "tcp", addr)
			},
		}
		f.Cleanup(func() { shared.Close() })
		newInputEnv = func(t *testing.T) *env {
			e := &env{t: t, clock: &clock{now: start}, prefix: "votingtest:" + randomHex(6) + ":", pool: keepOpen{shared}}
			e.open(opts) // deletes the prefix's keys when the input ends
			return e
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := newInputEnv(t)
		s := e.store
		// The first byte's top bit, which no operation reads, turns live
		// groups and users' histories on: group listings then come from the
		// live indexes, UserVotes answers from the history once voting has
		// closed, and the invariant checker checks both.
		history := len(data) > 0 && data[0]&0x80 != 0
		e.closedDeletes = false
		if history {
			live, err := voting.New(e.pool, append([]voting.Option{noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now)},
				append(opts, voting.WithLiveGroups(), voting.WithUserHistory(100*365*24*time.Hour))...)...)
			if err != nil {
				t.Fatal(err)
			}
			plain := e.store // the env may serve the next input too
			s, e.store = live, live
			defer func() { e.store = plain }()
		}
		var articles []*modelArticle
		now := func() int64 { return e.clock.Now().Unix() }
		open := func(a *modelArticle) bool { return now() < a.posted+int64(cutoff/time.Second) }
		idAt := func(b byte) (string, *modelArticle) {
			i := int(b) % (len(articles) + 1)
			if i == len(articles) {
				return strconv.Itoa(len(articles) + 1), nil // not posted yet
			}
			return articles[i].id, articles[i]
		}
		// holder is the live article other than a that has link.
		holder := func(link string, a *modelArticle) *modelArticle {
			for _, o := range articles {
				if o != a && !o.deleted && o.link == link {
					return o
				}
			}
			return nil
		}
		groupsOf := func(mask byte) []string {
			var out []string
			for i, g := range groups {
				if mask&(1<<i) != 0 {
					out = append(out, g)
				}
			}
			return out
		}
		var comments []*modelComment
		for len(data) >= 3 {
			op, b1, b2 := data[0]%8, data[1], data[2]
			if data[0]&0x40 != 0 {
				comments = fuzzComment(t, s, data[0]%4, b1, b2, users, articles, comments, idAt, now(), int64(cutoff/time.Second))
				data = data[3:]
				continue
			}
			data = data[3:]
			switch op {
			case 0:
				poster := users[int(b1)%len(users)]
				gs := groupsOf(b2)
				link := fuzzLink(b2 >> 3)
				id, err := s.PostArticle(ctx, poster, "title", link, gs...)
				if h := holder(voting.LinkKey(link), nil); h != nil {
					if !errors.Is(err, voting.ErrDuplicate) || !strings.Contains(err.Error(), "article "+h.id+" ") {
						t.Fatalf("post of %s, which %s has: %v", link, h.id, err)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				a := &modelArticle{id: strconv.Itoa(len(articles) + 1), poster: poster, link: voting.LinkKey(link), posted: now(),
					votes: map[string]voting.Direction{poster: voting.Up}, groups: map[string]bool{}}
				for _, g := range gs {
					a.groups[g] = true
				}
				if id != a.id {
					t.Fatalf("posted id %s, want %s", id, a.id)
				}
				articles = append(articles, a)
			case 1, 2, 3:
				dir := voting.Direction(op) // 1 up, 2 down, 3 none
				user := users[int(b1)%len(users)]
				id, a := idAt(b2)
				err := s.Vote(ctx, user, id, dir)
				switch {
				case a == nil || a.deleted:
					if !errors.Is(err, voting.ErrNotFound) {
						t.Fatalf("vote on unposted or deleted %s: %v", id, err)
					}
				case !open(a):
					if !errors.Is(err, voting.ErrVotingClosed) {
						t.Fatalf("vote on closed %s: %v", id, err)
					}
				case err != nil:
					t.Fatalf("vote %v by %s on %s: %v", dir, user, id, err)
				default:
					a.votes[user] = dir
				}
				got, err := s.UserVotes(ctx, user, id)
				if err != nil {
					t.Fatal(err)
				}
				want := voting.None
				if d, ok := a.vote(user); ok && !a.deleted && (open(a) || e.real() || history) {
					want = d // see FuzzOperations on expiry
				}
				if got[0] != want {
					t.Fatalf("UserVotes(%s, %s) = %v, want %v", user, id, got[0], want)
				}
			case 4, 5:
				id, a := idAt(b2)
				gs := groupsOf(b1 | 1)
				var err error
				if op == 4 {
					err = s.AddToGroups(ctx, id, gs...)
				} else {
					err = s.RemoveFromGroups(ctx, id, gs...)
				}
				switch {
				case (a == nil || a.deleted) && op == 4:
					if !errors.Is(err, voting.ErrNotFound) {
						t.Fatalf("add unposted or deleted %s to groups: %v", id, err)
					}
				case err != nil:
					t.Fatal(err)
				case a != nil && !a.deleted:
					for _, g := range gs {
						a.groups[g] = op == 4
					}
				}
			case 6:
				if b2&0x80 == 0 {
					e.advance(time.Duration(b1%48) * time.Hour)
					break
				}
				id, a := idAt(b1)
				err := s.DeleteArticle(ctx, id)
				if a == nil || a.deleted {
					if !errors.Is(err, voting.ErrNotFound) {
						t.Fatalf("delete unposted or deleted %s: %v", id, err)
					}
					break
				}
				if err != nil {
					t.Fatalf("delete %s: %v", id, err)
				}
				a.deleted = true
				for _, c := range comments {
					if c.article == a {
						c.gone = true
					}
				}
				if !open(a) {
					e.closedDeletes = true // its voters are not known
				}
			case 7:
				if b2&0x80 != 0 {
					// An edit of the article of b1 to the link of b2.
					id, a := idAt(b1)
					link := fuzzLink(b2)
					err := s.EditArticle(ctx, id, "edited", link)
					h := holder(voting.LinkKey(link), a)
					switch {
					case a == nil || a.deleted:
						if !errors.Is(err, voting.ErrNotFound) {
							t.Fatalf("edit of unposted or deleted %s: %v", id, err)
						}
					case h != nil:
						if !errors.Is(err, voting.ErrDuplicate) {
							t.Fatalf("edit of %s to %s, which %s has: %v", id, link, h.id, err)
						}
					case err != nil:
						t.Fatalf("edit of %s: %v", id, err)
					default:
						a.link = voting.LinkKey(link)
					}
					break
				}
				order := voting.Order(b2 % 2)
				page := 1 + int(b1%3)
				got, err := s.GetArticles(ctx, page, order)
				if err != nil {
					t.Fatal(err)
				}
				compareListing(t, fmt.Sprintf("page %d %v", page, order), got, articles, order, page, "")
				g := groups[int(b2/2)%len(groups)]
				got, err = s.GetGroupArticles(ctx, g, page, order)
				if err != nil {
					t.Fatal(err)
				}
				compareListing(t, fmt.Sprintf("group %s page %d %v", g, page, order), got, articles, order, page, g)
			}
		}
		for _, a := range articles {
			got, err := s.Article(ctx, a.id)
			if a.deleted {
				if !errors.Is(err, voting.ErrNotFound) {
					t.Fatalf("deleted article %s = %+v, %v; want ErrNotFound", a.id, got, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.RankingScore != a.score() || got.Upvotes != a.count(voting.Up) || got.Downvotes != a.count(voting.Down) ||
				voting.LinkKey(got.Link) != a.link {
				t.Fatalf("article %s = %+v, the model has score %v, %d up, %d down, link %s", a.id, got, a.score(),
					a.count(voting.Up), a.count(voting.Down), a.link)
			}
		}
		checkModelComments(t, s, articles, comments)
		// Karma, the articles of each user and the groups' sizes.
		karma, posts, sizes := map[string]int64{}, map[string]int64{}, map[string]int64{}
		for _, a := range articles {
			if !a.deleted {
				karma[a.poster] += a.karma()
				posts[a.poster]++
				for g, in := range a.groups {
					if in {
						sizes[g]++
					}
				}
			}
		}
		for _, user := range users {
			if got, err := s.Karma(ctx, user); err != nil || got != karma[user] {
				t.Fatalf("Karma(%s) = %d, %v; the model says %d", user, got, err, karma[user])
			}
			if got, err := s.Count(ctx, voting.Query{User: user, Order: voting.ByTime}); err != nil || got != posts[user] {
				t.Fatalf("Count(user %s) = %d, %v; the model says %d", user, got, err, posts[user])
			}
		}
		gotSizes := map[string]int64{}
		for page := 1; ; page++ {
			got, err := two(s.Groups(ctx, voting.Paging{Page: page}))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				break
			}
			for _, g := range got {
				gotSizes[g.Name] = g.Articles
			}
		}
		for g := range sizes {
			if sizes[g] == 0 {
				delete(sizes, g)
			}
		}
		if !reflect.DeepEqual(gotSizes, sizes) {
			t.Fatalf("Groups = %v, the model says %v", gotSizes, sizes)
		}
		e.checkInvariants(voting.DefaultVoteWeight, cutoff)
	})
}

// compareListing checks a listing page against the model's order: highest
// score (or newest) first, ties by member name, highest first.
func compareListing(t *testing.T, what string, got []voting.Article, articles []*modelArticle, order voting.Order, page int, group string) {
	t.Helper()
	var in []*modelArticle
	for _, a := range articles {
		if !a.deleted && (group == "" || a.groups[group]) {
			in = append(in, a)
		}
	}
	key := func(a *modelArticle) float64 {
		if order == voting.ByTime {
			return float64(a.posted)
		}
		return a.score()
	}
	sort.Slice(in, func(i, j int) bool {
		if key(in[i]) != key(in[j]) {
			return key(in[i]) > key(in[j])
		}
		return "article:"+in[i].id > "article:"+in[j].id
	})
	lo := min((page-1)*5, len(in))
	want := []string{}
	for _, a := range in[lo:min(lo+5, len(in))] {
		want = append(want, a.id)
	}
	if ids := idsOf(got); !reflect.DeepEqual(ids, want) {
		t.Fatalf("%s = %v, the model says %v", what, ids, want)
	}
}

// A modelComment is a comment as FuzzOperations expects it.
type modelComment struct {
	id      string
	article *modelArticle
	parent  *modelComment
	poster  string
	posted  int64
	votes   map[string]voting.Direction
	replies int64
	deleted bool // a tombstone
	gone    bool
}

func (c *modelComment) count(d voting.Direction) int64 {
	n := int64(0)
	for _, v := range c.votes {
		if v == d {
			n++
		}
	}
	return n
}

// live reports whether c may be voted on, replied to and deleted.
func (c *modelComment) live() bool { return c != nil && !c.deleted && !c.gone }

// fuzzComment runs the comment operation op (0 post, 1 vote, 2 delete, 3
// read) of FuzzOperations, checking it against the model, and gives the
// model's comments after it.
func fuzzComment(t *testing.T, s *voting.Store, op, b1, b2 byte, users []string, articles []*modelArticle, comments []*modelComment,
	idAt func(byte) (string, *modelArticle), now, cutoff int64) []*modelComment {
	t.Helper()
	commentAt := func(b byte) (string, *modelComment) {
		i := int(b) % (len(comments) + 1)
		if i == len(comments) {
			return strconv.Itoa(len(comments) + 1), nil
		}
		return comments[i].id, comments[i]
	}
	user := users[int(b1)%len(users)]
	switch op {
	case 0:
		articleID, a := idAt(b1 >> 4)
		parentID, p := "", (*modelComment)(nil)
		if b2&1 != 0 {
			parentID, p = commentAt(b2 >> 1)
			if p != nil && b1&0x80 == 0 {
				articleID, a = p.article.id, p.article
			}
		}
		id, err := s.PostComment(ctx, user, articleID, parentID, "a comment")
		switch {
		case a == nil || a.deleted:
			if !errors.Is(err, voting.ErrNotFound) {
				t.Fatalf("a comment on unposted or deleted article %s: %v", articleID, err)
			}
		case parentID != "" && !p.live():
			if !errors.Is(err, voting.ErrNotFound) {
				t.Fatalf("a reply to unposted or deleted comment %s: %v", parentID, err)
			}
		case p != nil && p.article != a:
			if !errors.Is(err, voting.ErrInvalid) {
				t.Fatalf("a reply on article %s to comment %s of %s: %v", articleID, parentID, p.article.id, err)
			}
		case err != nil:
			t.Fatalf("a comment on %s, parent %q: %v", articleID, parentID, err)
		default:
			c := &modelComment{id: strconv.Itoa(len(comments) + 1), article: a, parent: p, poster: user, posted: now,
				votes: map[string]voting.Direction{user: voting.Up}}
			if id != c.id {
				t.Fatalf("comment id %s, want %s", id, c.id)
			}
			if p != nil {
				p.replies++
			}
			comments = append(comments, c)
		}
	case 1:
		id, c := commentAt(b2)
		dir := voting.Direction(1 + int(b1>>4)%3)
		err := s.VoteComment(ctx, user, id, dir)
		switch {
		case !c.live():
			if !errors.Is(err, voting.ErrNotFound) {
				t.Fatalf("a vote on unposted or deleted comment %s: %v", id, err)
			}
		case now >= c.posted+cutoff:
			if !errors.Is(err, voting.ErrVotingClosed) {
				t.Fatalf("a vote on closed comment %s: %v", id, err)
			}
		case err != nil:
			t.Fatalf("vote %v by %s on comment %s: %v", dir, user, id, err)
		default:
			c.votes[user] = dir
		}
	case 2:
		id, c := commentAt(b2)
		err := s.DeleteComment(ctx, id)
		if !c.live() {
			if !errors.Is(err, voting.ErrNotFound) {
				t.Fatalf("deletion of unposted or deleted comment %s: %v", id, err)
			}
			break
		}
		if err != nil {
			t.Fatalf("deletion of comment %s: %v", id, err)
		}
		if c.replies > 0 {
			c.deleted = true
			break
		}
		for c != nil {
			c.gone = true
			p := c.parent
			if p != nil {
				p.replies--
			}
			if p == nil || !p.deleted || p.replies > 0 {
				break
			}
			c = p
		}
	case 3:
		articleID, a := idAt(b1)
		order := voting.CommentOrder(int(b2) % 5)
		got, _, err := s.Comments(ctx, articleID, voting.CommentQuery{Order: order, Paging: voting.Paging{Page: 1, Size: 5}})
		if a == nil || a.deleted {
			if !errors.Is(err, voting.ErrNotFound) {
				t.Fatalf("comments of unposted or deleted article %s: %v", articleID, err)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var in []*modelComment
		for _, c := range comments {
			if c.article == a && c.parent == nil && !c.gone {
				in = append(in, c)
			}
		}
		if order != voting.CommentsByNew && order != voting.CommentsByOld && order != voting.CommentsByTop {
			// best and controversy: the same comments, in an order the
			// invariant checker checks the values of.
			if len(got) != min(len(in), 5) {
				t.Fatalf("comments of %s by %v: %d, the model has %d", articleID, order, len(got), len(in))
			}
			break
		}
		key := func(c *modelComment) int64 {
			if order == voting.CommentsByTop {
				return c.count(voting.Up) - c.count(voting.Down)
			}
			return c.posted
		}
		up := order == voting.CommentsByOld
		sort.Slice(in, func(i, j int) bool {
			if key(in[i]) != key(in[j]) {
				return key(in[i]) > key(in[j]) != up
			}
			return "comment:"+in[i].id > "comment:"+in[j].id != up
		})
		want := []string{}
		for _, c := range in[:min(len(in), 5)] {
			want = append(want, c.id)
		}
		if ids := commentIDs(got); !reflect.DeepEqual(ids, want) {
			t.Fatalf("comments of %s by %v = %v, the model says %v", articleID, order, ids, want)
		}
	}
	return comments
}

// checkModelComments checks every comment, and each article's count of
// them, against the model.
func checkModelComments(t *testing.T, s *voting.Store, articles []*modelArticle, comments []*modelComment) {
	t.Helper()
	counts := map[*modelArticle]int64{}
	for _, c := range comments {
		got, err := s.Comment(ctx, c.id)
		if c.gone {
			if !errors.Is(err, voting.ErrNotFound) {
				t.Fatalf("gone comment %s = %+v, %v", c.id, got, err)
			}
			continue
		}
		if !c.deleted {
			counts[c.article]++
		}
		if err != nil || got.Deleted != c.deleted || got.Replies != c.replies || !c.deleted && got.Poster != c.poster {
			t.Fatalf("comment %s = %+v, %v; the model has %+v", c.id, got, err, *c)
		}
		if !c.deleted && (got.Upvotes != c.count(voting.Up) || got.Downvotes != c.count(voting.Down)) {
			t.Fatalf("comment %s has %d up and %d down, the model %d and %d", c.id, got.Upvotes, got.Downvotes,
				c.count(voting.Up), c.count(voting.Down))
		}
	}
	for _, a := range articles {
		if a.deleted {
			continue
		}
		if got, err := s.Article(ctx, a.id); err != nil || got.Comments != counts[a] {
			t.Fatalf("article %s counts %d comments, %v; the model %d", a.id, got.Comments, err, counts[a])
		}
	}
}
