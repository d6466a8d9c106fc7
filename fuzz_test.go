package voting_test

// Fuzz targets, on miniredis: the input rules against rules written again
// here as regular expressions, and random sequences of operations against
// an in-memory model of the book's rules. Their seed corpora are in
// testdata/fuzz; scripts/test runs each for a short time.

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/articlevote/voting"
)

var (
	groupRule = regexp.MustCompile(`^[\p{L}\p{Nd}._-]+$`)
	idRule    = regexp.MustCompile(`^[1-9][0-9]{0,18}$`)
)

// textOK is the rule for users, posters and titles, written again.
func textOK(s string, max int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for i, r := range s {
		if unicode.IsControl(r) {
			return false
		}
		if unicode.IsSpace(r) && (i == 0 || i+utf8.RuneLen(r) == len(s)) {
			return false
		}
	}
	return true
}

func linkOK(link string) bool {
	if len(link) > voting.MaxLinkLen || !utf8.ValidString(link) || strings.IndexFunc(link, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) >= 0 {
		return false
	}
	u, err := url.Parse(link)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func groupOK(g string) bool {
	return utf8.ValidString(g) && utf8.RuneCountInString(g) <= voting.MaxGroupLen && groupRule.MatchString(g)
}

func FuzzInput(f *testing.F) {
	f.Add("alice", "A title", "https://example.com/", "news", "1", 1)
	f.Add("", "", "", "", "", 0)
	f.Add("bob ", "t\x00", "ftp://x", "{tag}", "article:1", -1)
	e := newEnvOn(f, "", "")
	f.Fuzz(func(t *testing.T, user, title, link, group, id string, page int) {
		e.t = t
		e.do("FLUSHALL")
		s := e.store
		check := func(what string, err error, valid bool) {
			t.Helper()
			if valid && errors.Is(err, voting.ErrInvalid) {
				t.Fatalf("%s: refused good input: %v", what, err)
			}
			if !valid && !errors.Is(err, voting.ErrInvalid) {
				t.Fatalf("%s: took bad input, error %v", what, err)
			}
		}

		postValid := textOK(user, voting.MaxUserLen) && textOK(title, voting.MaxTitleLen) && linkOK(link) && groupOK(group)
		newID, err := s.PostArticle(ctx, user, title, link, group)
		check("PostArticle", err, postValid)
		if err == nil {
			a, err := s.Article(ctx, newID)
			if err != nil || a.Title != title || a.Link != link || a.Poster != user {
				t.Fatalf("posted %q %q %q, read back %+v, %v", user, title, link, a, err)
			}
			for _, k := range e.keys() {
				if strings.ContainsAny(k, "{} \t\r\n") {
					t.Fatalf("key %q holds a brace or a space", k)
				}
			}
		} else if keys := e.keys(); len(keys) != 0 {
			t.Fatalf("a refused post wrote %v", keys)
		}

		before := e.dump()
		err = s.Vote(ctx, user, id, voting.Direction((page%4+4)%4))
		check("Vote", err, textOK(user, voting.MaxUserLen) && idRule.MatchString(id) && (page%4+4)%4 < 3)
		if err != nil && e.dump() != before {
			t.Fatal("a failed vote wrote")
		}
		before = e.dump()
		err = s.AddToGroups(ctx, id, group)
		check("AddToGroups", err, idRule.MatchString(id) && groupOK(group))
		if err != nil && e.dump() != before {
			t.Fatal("a failed AddToGroups wrote")
		}
		_, err = s.GetArticles(ctx, page, voting.ByScore)
		pageOK := page >= 1 && int64(page-1) <= (math.MaxInt64-voting.DefaultPageSize)/voting.DefaultPageSize
		check("GetArticles", err, pageOK)
		_, err = s.GetGroupArticles(ctx, group, page, voting.ByTime)
		check("GetGroupArticles", err, pageOK && groupOK(group))
		_, err = s.UserVotes(ctx, user, id)
		check("UserVotes", err, textOK(user, voting.MaxUserLen) && idRule.MatchString(id))
		e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	})
}

// modelArticle is an article as the model holds it.
type modelArticle struct {
	id     string
	posted int64
	votes  map[string]voting.Direction
	groups map[string]bool
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

// FuzzOperations plays a sequence of operations, three bytes each, and
// checks every result and the final state against the model.
func FuzzOperations(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 2, 0, 2, 3, 0, 7, 0, 0})
	f.Add([]byte{0, 0, 7, 0, 1, 5, 1, 2, 0, 3, 2, 0, 6, 30, 0, 1, 3, 0, 4, 2, 0, 5, 1, 0, 7, 1, 1})
	const cutoff = 24 * time.Hour
	groups := []string{"news", "tech", "art"}
	users := []string{"ann", "ben", "cat", "dan", "eve", "fay"}
	e := newEnvOn(f, "", "", voting.WithCutoff(cutoff), voting.WithGroupCacheTTL(0), voting.WithPageSize(5))
	f.Fuzz(func(t *testing.T, data []byte) {
		e.t = t
		e.do("FLUSHALL")
		e.clock.set(start)
		e.mr.SetTime(start)
		s := e.store
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
		groupsOf := func(mask byte) []string {
			var out []string
			for i, g := range groups {
				if mask&(1<<i) != 0 {
					out = append(out, g)
				}
			}
			return out
		}
		for len(data) >= 3 {
			op, b1, b2 := data[0]%8, data[1], data[2]
			data = data[3:]
			switch op {
			case 0:
				poster := users[int(b1)%len(users)]
				gs := groupsOf(b2)
				id, err := s.PostArticle(ctx, poster, "title", "https://example.com/", gs...)
				if err != nil {
					t.Fatal(err)
				}
				a := &modelArticle{id: strconv.Itoa(len(articles) + 1), posted: now(),
					votes: map[string]voting.Direction{poster: voting.Up}, groups: map[string]bool{}}
				for _, g := range gs {
					a.groups[g] = true
				}
				if id != a.id {
					t.Fatalf("posted id %s, want %s", id, a.id)
				}
				articles = append(articles, a)
			case 1, 2, 3:
				dir := voting.Direction(op % 3) // 1 up, 2 down, 3 none
				user := users[int(b1)%len(users)]
				id, a := idAt(b2)
				err := s.Vote(ctx, user, id, dir)
				switch {
				case a == nil:
					if !errors.Is(err, voting.ErrNotFound) {
						t.Fatalf("vote on unposted %s: %v", id, err)
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
				if a != nil && open(a) {
					want = a.votes[user]
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
				case a == nil && op == 4:
					if !errors.Is(err, voting.ErrNotFound) {
						t.Fatalf("add unposted %s to groups: %v", id, err)
					}
				case err != nil:
					t.Fatal(err)
				case a != nil:
					for _, g := range gs {
						a.groups[g] = op == 4
					}
				}
			case 6:
				e.advance(time.Duration(b1%48) * time.Hour)
			case 7:
				order := voting.Order(b2 % 2)
				page := 1 + int(b1%3)
				got, err := s.GetArticles(ctx, page, order)
				if err != nil {
					t.Fatal(err)
				}
				compareListing(t, fmt.Sprintf("page %d %v", page, order), got, articles, order, page, "")
				g := groups[int(b1)%len(groups)]
				got, err = s.GetGroupArticles(ctx, g, 1, order)
				if err != nil {
					t.Fatal(err)
				}
				compareListing(t, fmt.Sprintf("group %s %v", g, order), got, articles, order, 1, g)
			}
		}
		for _, a := range articles {
			got, err := s.Article(ctx, a.id)
			if err != nil {
				t.Fatal(err)
			}
			if got.Score != a.score() || got.Votes != a.count(voting.Up) || got.Downvotes != a.count(voting.Down) {
				t.Fatalf("article %s = %+v, the model has score %v, %d up, %d down", a.id, got, a.score(), a.count(voting.Up), a.count(voting.Down))
			}
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
		if group == "" || a.groups[group] {
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
