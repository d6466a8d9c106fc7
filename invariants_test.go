package voting_test

// This file holds the invariant checker: what must hold of a namespace's
// raw keys whatever ran against it, read straight from Redis; and the test
// that it finds each break.

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/schema"
	"github.com/gomodule/redigo/redis"
)

// invariants reads the namespace's raw keys, with no write in flight, and
// returns every broken invariant:
//
//   - for every article in time:, while voting is open (its voter sets have
//     not expired), votes = size of voted:<id> and downvotes = size of
//     downvoted:<id>;
//   - its score in score: = time + weight x (votes - downvotes);
//   - its time in time: = its hash's time;
//   - no user is both an up- and a down-voter;
//   - every member of score:, time:, each group:<name> and each cached
//     group listing (score:<name>, time:<name>) has its hash;
//   - every voter set has a time to live and belongs to an article;
//   - every record of an article's groups (groups:<id>) belongs to an
//     article and names exactly the groups whose sets hold it;
//   - groupsizes: gives each group whose set has members the set's size,
//     and holds no other name;
//   - each user's index of articles (posts:<user>) holds exactly the
//     articles whose hash names the user as poster, each scored with its
//     posting time;
//   - with karma kept (or marked built in indexed:), every article has its
//     part of its poster's karma (its hash's karma field), equal, while
//     voting is open, to its up-votes less its down-votes less the poster's
//     own vote as the voter sets say; karma: gives each poster the sum of
//     their articles' parts (one whose parts sum to 0 may be missing), and
//     holds no user without an article;
//   - every field of links: is the key (linkKey) of the link of the one
//     article it names, which exists; every member of linkshares: is an
//     article that exists, with its link's key and its posting time as
//     shareOf writes them, whose link another article holds in links:; no
//     article is named twice; with unique links kept (or marked built),
//     every article holds its link or shares it;
//   - the id counter is at least every article's id, so that the next post
//     takes a free id;
//   - for each order the Store keeps beyond the book's two, every article
//     has its entry, equal to what its counters say (net votes, or Reddit's
//     controversy); a top-of-window index holds every article posted after
//     both its mark in trimmed: and the window's start, and none posted at
//     or before its mark;
//   - with live groups, each group's live index of each kept order holds
//     the entries the site's index of that order would hold if it listed
//     only the group's members (with the group's own mark for a window),
//     with the same values, and there is no other live index.
//   - every field of indexed: names an index, the site's of an order beyond
//     the book's two ("votes") or the groups' live ones of an order
//     ("live:score"), and is "1" (built) or "0:<token>" (being built by the
//     run of Reindex of that token); an index
//     marked built holds every article it should, whether or not the
//     Store keeps it (one it does not keep may hold values a vote has left
//     behind, so only its members are checked);
//   - every user's history (history:<user>) has a time to live, and each of
//     its entries is "up:" or "down:" before an article's member, one per
//     article; while voting on the article is open the user is in its
//     voter set of that direction; and the article exists, unless
//     e.closedDeletes says a test deleted articles whose voting had closed
//     (their entries go when UserHistory meets them).
func (e *env) invariants(weight float64, cutoff time.Duration) []string {
	e.t.Helper()
	// What the Store goes by, read afresh: another Store may have added to
	// the namespace's settings.
	if _, err := e.store.Settings(context.Background()); err != nil {
		e.t.Fatalf("Settings: %v", err)
	}
	all := e.keys() // before c is taken: a test's pool may hold one connection
	c := e.pipeConn()
	defer c.Close()
	var broken []string
	fail := func(format string, args ...any) { broken = append(broken, fmt.Sprintf(format, args...)) }

	times, err := redis.StringMap(c.Do("ZRANGE", e.key("time:"), 0, -1, "WITHSCORES"))
	if err != nil {
		e.t.Fatalf("ZRANGE time: %v", err)
	}
	now := e.clock.Now()
	articles := map[string]articleCounts{}
	for member, indexTime := range times {
		id, ok := strings.CutPrefix(member, e.key("article:"))
		if !ok {
			fail("time: holds %q, not an article of the namespace", member)
			continue
		}
		for _, cmd := range []struct {
			name string
			args []any
		}{
			{"HGETALL", []any{member}},
			{"ZSCORE", []any{e.key("score:"), member}},
			{"SMEMBERS", []any{e.key("voted:" + id)}},
			{"SMEMBERS", []any{e.key("downvoted:" + id)}},
		} {
			c.Send(cmd.name, cmd.args...)
		}
		if err := c.Flush(); err != nil {
			e.t.Fatal(err)
		}
		h, err1 := redis.StringMap(c.Receive())
		score, err2 := redis.Float64(c.Receive())
		up, err3 := redis.Strings(c.Receive())
		down, err4 := redis.Strings(c.Receive())
		if err1 != nil || err3 != nil || err4 != nil {
			e.t.Fatalf("reading article %s: %v %v %v", id, err1, err3, err4)
		}
		if len(h) == 0 {
			fail("article %s is in time: but has no hash", id)
			continue
		}
		if err2 != nil {
			fail("article %s is in time: but not in score: (%v)", id, err2)
			continue
		}
		posted, err := strconv.ParseFloat(h["time"], 64)
		if err != nil {
			fail("article %s: time %q: %v", id, h["time"], err)
			continue
		}
		if it, _ := strconv.ParseFloat(indexTime, 64); it != posted {
			fail("article %s: time: says %v, its hash %v", id, it, posted)
		}
		votes, err1 := strconv.ParseInt(h["votes"], 10, 64)
		downvotes := int64(0)
		if d, ok := h["downvotes"]; ok {
			downvotes, err2 = strconv.ParseInt(d, 10, 64)
		}
		if err1 != nil || err2 != nil {
			fail("article %s: counters %q/%q do not parse", id, h["votes"], h["downvotes"])
			continue
		}
		articles[member] = articleCounts{posted, score, votes, downvotes}
		if want := posted + weight*float64(votes-downvotes); math.Abs(score-want) > 1e-3 {
			fail("article %s: score %v, want time %v + %v x (%d - %d) = %v", id, score, posted, weight, votes, downvotes, want)
		}
		if open := time.Unix(0, int64(posted*1e9)).Add(cutoff).After(now); open {
			if int64(len(up)) != votes || int64(len(down)) != downvotes {
				fail("article %s: counters %d/%d, voter sets %d/%d", id, votes, downvotes, len(up), len(down))
			}
		}
		ups := map[string]bool{}
		for _, u := range up {
			ups[u] = true
		}
		for _, u := range down {
			if ups[u] {
				fail("article %s: user %q is both an up- and a down-voter", id, u)
			}
		}
	}

	// checkIndex checks an index of order: the site's, or a group's live
	// one; belongs says which articles it lists, field is its mark's field
	// in trimmed: if it has a window.
	// values says whether to check the entries' values too, as for an index
	// the Store keeps.
	checkIndex := func(index, field string, order voting.Order, belongs func(member string) bool, values bool) {
		entries, err := redis.StringMap(c.Do("ZRANGE", index, 0, -1, "WITHSCORES"))
		if err != nil {
			e.t.Fatalf("ZRANGE %s: %v", index, err)
		}
		window, isWindow := windows[order]
		after := math.Inf(-1)
		mark, err := redis.String(c.Do("HGET", e.key("trimmed:"), field))
		if isWindow && err == nil {
			if after, err = strconv.ParseFloat(mark, 64); err != nil {
				fail("trimmed: %s = %q does not parse: %v", field, mark, err)
			}
		}
		start := float64(now.Add(-window).UnixMicro()) / 1e6
		for member, a := range articles {
			if !belongs(member) {
				continue
			}
			value, in := entries[member]
			if !in {
				if !isWindow || a.posted > after && a.posted > start {
					fail("%s lacks %s", index, member)
				}
				continue
			}
			if isWindow && a.posted <= after {
				fail("%s holds %s, posted at %v, at or before its mark %v", index, member, a.posted, after)
			}
			got, _ := strconv.ParseFloat(value, 64)
			if values && !voting.IndexValueMatches(order, got, a.posted, float64(a.up), float64(a.down), a.score) {
				want := voting.IndexValue(order, a.posted, float64(a.up), float64(a.down), a.score)
				fail("%s gives %s %v, want %v (%d up, %d down)", index, member, got, want, a.up, a.down)
			}
		}
		for member := range entries {
			if _, ok := articles[member]; !ok {
				fail("%s holds %s, which is no article of time:", index, member)
			} else if !belongs(member) {
				fail("%s holds %s, which does not belong in it", index, member)
			}
		}
	}
	everyArticle := func(string) bool { return true }

	counter, err := redis.String(c.Do("GET", e.key("article:")))
	if err != nil && err != redis.ErrNil {
		e.t.Fatalf("GET the counter: %v", err)
	}
	last, _ := strconv.ParseUint(counter, 10, 64)
	indexes := []string{e.key("score:"), e.key("time:")}
	var records, histories []string
	for _, k := range all {
		name := strings.TrimPrefix(k, e.prefix)
		switch {
		case strings.HasPrefix(name, "group:"), cachedGroup(name):
			indexes = append(indexes, k)
		case strings.HasPrefix(name, "groups:"):
			records = append(records, k)
		case strings.HasPrefix(name, "voted:"), strings.HasPrefix(name, "downvoted:"):
			_, id, _ := strings.Cut(name, ":")
			if ttl, err := redis.Int64(c.Do("PTTL", k)); err != nil || ttl < 0 {
				fail("voter set %s has no time to live (PTTL %d, %v)", k, ttl, err)
			}
			if n, err := redis.Int(c.Do("EXISTS", e.key("article:"+id))); err != nil || n != 1 {
				fail("voter set %s belongs to no article", k)
			}
		case strings.HasPrefix(name, "history:"):
			histories = append(histories, k)
		case strings.HasPrefix(name, "article:") && name != "article:":
			if id, err := strconv.ParseUint(strings.TrimPrefix(name, "article:"), 10, 64); err == nil && id > last {
				fail("article %d is past the id counter %q", id, counter)
			}
		}
	}
	// Each article's record of its groups is the groups whose sets hold it,
	// which Article.Groups reads; an article with no record (the book's
	// code writes none) is left out where the book's code wrote, and is a
	// break where only the library did.
	inGroups := map[string][]string{} // article member -> group names
	for _, index := range indexes {
		if name, ok := strings.CutPrefix(index, e.key("group:")); ok {
			members, err := redis.Strings(c.Do("SMEMBERS", index))
			if err != nil {
				e.t.Fatalf("SMEMBERS %s: %v", index, err)
			}
			for _, m := range members {
				inGroups[m] = append(inGroups[m], name)
			}
		}
	}
	if !e.foreign {
		hasRecord := map[string]bool{}
		for _, record := range records {
			hasRecord[e.key("article:"+strings.TrimPrefix(record, e.key("groups:")))] = true
		}
		for member, names := range inGroups {
			if !hasRecord[member] {
				fail("%s is in groups %v but has no record of them", member, names)
			}
		}
	}
	for _, record := range records {
		id := strings.TrimPrefix(record, e.key("groups:"))
		member := e.key("article:" + id)
		names, err := redis.Strings(c.Do("SMEMBERS", record))
		if err != nil {
			e.t.Fatalf("SMEMBERS %s: %v", record, err)
		}
		sort.Strings(names)
		want := append([]string(nil), inGroups[member]...)
		sort.Strings(want)
		if strings.Join(names, " ") != strings.Join(want, " ") {
			fail("%s holds %v, but the groups holding %s are %v", record, names, member, want)
		}
		if n, err := redis.Int(c.Do("EXISTS", member)); err != nil || n != 1 {
			fail("%s belongs to no article", record)
		}
	}
	// With live groups, each group's live index of each kept order is the
	// site's index of that order filtered to the group's members, with the
	// same values; and every live index is of a kept order and a group.
	groups := map[string]map[string]bool{} // group name -> member -> true
	for member, names := range inGroups {
		for _, name := range names {
			if groups[name] == nil {
				groups[name] = map[string]bool{}
			}
			groups[name][member] = true
		}
	}
	keptOrder := map[voting.Order]bool{}
	for _, order := range voting.View(e.store).Orders {
		keptOrder[order] = true
	}
	checkLive := func(order voting.Order, values bool) map[string]bool {
		checked := map[string]bool{}
		for name, members := range groups {
			index := e.key("live:" + order.String() + ":" + name)
			checked[index] = true
			checkIndex(index, order.String()+":"+name, order, func(m string) bool { return members[m] }, values)
		}
		return checked
	}
	marks, err := redis.StringMap(c.Do("HGETALL", e.key("indexed:")))
	if err != nil {
		e.t.Fatalf("HGETALL indexed: %v", err)
	}
	// flagMarks are the marks of the kinds of index of no order.
	flagMarks := map[string]bool{}
	for _, ix := range schema.Indexes {
		if ix.Mark != "" && !ix.PerOrder {
			flagMarks[ix.Mark] = true
		}
	}
	// checkMarks checks the marks of the kind of index named, and an index
	// of an order marked built that the Store does not keep.
	checkMarks := func(kind string) {
		for field, mark := range marks {
			name, live := strings.CutPrefix(field, "live:")
			order, err := voting.ParseOrder(name)
			switch {
			case field == "articles":
				continue // the count, checked on its own below
			case flagMarks[field]:
				if kind == field && mark != "1" && !regexp.MustCompile(`^0:[0-9a-f]{16}$`).MatchString(mark) {
					fail("indexed: %s = %q, neither built nor being built by a run", field, mark)
				}
				continue
			case live != (kind == "live"):
				continue
			case err != nil || order.String() != name || !live && (order == voting.ByScore || order == voting.ByTime):
				fail("indexed: holds %q, the field of no index", field)
				continue
			case mark != "1" && !regexp.MustCompile(`^0:[0-9a-f]{16}$`).MatchString(mark):
				fail("indexed: %s = %q, neither built nor being built by a run", field, mark)
				continue
			case mark != "1":
				continue
			}
			switch {
			case live && !(voting.View(e.store).LiveGroups && keptOrder[order]):
				checkLive(order, false)
			case !live && !keptOrder[order]:
				checkIndex(e.key(order.String()+":"), order.String(), order, everyArticle, false)
			}
		}
	}
	// The checks of each kind of index the library keeps (schema.Indexes),
	// each a kind's invariant as the table words it.
	checks := map[string]func(){
		"orders": func() {
			for _, order := range voting.View(e.store).Orders {
				if order != voting.ByScore && order != voting.ByTime {
					checkIndex(e.key(order.String()+":"), order.String(), order, everyArticle, true)
				}
			}
			checkMarks("orders")
		},
		"live": func() {
			if voting.View(e.store).LiveGroups {
				kept := map[string]bool{}
				for _, order := range voting.View(e.store).Orders {
					for index := range checkLive(order, true) {
						kept[index] = true
					}
				}
				for _, k := range all {
					if strings.HasPrefix(k, e.key("live:")) && !kept[k] {
						fail("%s is the live index of no kept order of a group", k)
					}
				}
			}
			checkMarks("live")
		},
		"sizes": func() {
			// groupsizes: is the size of each group's set.
			sizes, err := redis.StringMap(c.Do("ZRANGE", e.key("groupsizes:"), 0, -1, "WITHSCORES"))
			if err != nil {
				e.t.Fatalf("ZRANGE groupsizes: %v", err)
			}
			for _, index := range indexes {
				if name, ok := strings.CutPrefix(index, e.key("group:")); ok {
					n, err := redis.Int(c.Do("SCARD", index))
					if err != nil {
						e.t.Fatalf("SCARD %s: %v", index, err)
					}
					if want := strconv.Itoa(n); sizes[name] != want {
						fail("groupsizes: gives %s %q, its set holds %d", name, sizes[name], n)
					}
					delete(sizes, name)
				}
			}
			for name, size := range sizes {
				fail("groupsizes: gives %s %s, which has no set", name, size)
			}
		},
		"history": func() {
			for _, history := range histories {
				user := strings.TrimPrefix(history, e.key("history:"))
				if ttl, err := redis.Int64(c.Do("PTTL", history)); err != nil || ttl < 0 {
					fail("history %s has no time to live (PTTL %d, %v)", history, ttl, err)
				}
				entries, err := redis.Strings(c.Do("ZRANGE", history, 0, -1))
				if err != nil {
					e.t.Fatalf("ZRANGE %s: %v", history, err)
				}
				seen := map[string]bool{}
				for _, entry := range entries {
					word, member, _ := strings.Cut(entry, ":")
					id, isArticle := strings.CutPrefix(member, e.key("article:"))
					if word != "up" && word != "down" || !isArticle {
						fail("%s holds %q, not a direction and an article", history, entry)
						continue
					}
					if seen[member] {
						fail("%s holds %s twice", history, member)
					}
					seen[member] = true
					a, exists := articles[member]
					if !exists {
						if !e.closedDeletes {
							fail("%s holds %q, of no article", history, entry)
						}
						continue
					}
					if time.Unix(0, int64(a.posted*1e9)).Add(cutoff).After(now) {
						set := map[string]string{"up": "voted:", "down": "downvoted:"}[word] + id
						if in, err := redis.Bool(c.Do("SISMEMBER", e.key(set), user)); err != nil || !in {
							fail("%s holds %q, but %s lacks %s", history, entry, set, user)
						}
					}
				}
			}
		},
		"posts": func() { e.checkPosts(c, all, articles, fail) },
		"karma": func() {
			checkMarks("karma")
			e.checkKarma(c, articles, cutoff, marks, fail)
		},
		"links": func() {
			checkMarks("links")
			e.checkLinks(c, articles, marks, fail)
		},
		"active": func() {
			checkMarks("active")
			e.checkActive(c, all, articles, marks, fail)
		},
	}
	for _, ix := range schema.Indexes {
		check, ok := checks[ix.Name]
		if !ok {
			e.t.Fatalf("the invariant checker has no check of the %s indexes (schema.Indexes): %s", ix.Name, ix.Invariant)
		}
		check()
		delete(checks, ix.Name)
	}
	for name := range checks {
		e.t.Fatalf("the invariant checker checks %s indexes, which schema.Indexes does not describe", name)
	}
	e.checkSettings(c, marks, len(articles), weight, cutoff, fail)
	e.checkWalks(c, weight, cutoff, fail)
	e.checkComments(c, all, articles, now, cutoff, voting.View(e.store).Karma || marks["karma"] == "1", fail)
	for _, index := range indexes {
		var members []string
		if strings.HasPrefix(index, e.key("group:")) {
			members, err = redis.Strings(c.Do("SMEMBERS", index))
		} else {
			members, err = redis.Strings(c.Do("ZRANGE", index, 0, -1))
		}
		if err != nil {
			e.t.Fatalf("reading %s: %v", index, err)
		}
		for _, m := range members {
			c.Send("EXISTS", m)
		}
		if err := c.Flush(); err != nil {
			e.t.Fatal(err)
		}
		for _, m := range members {
			if n, err := redis.Int(c.Receive()); err != nil || n != 1 {
				fail("%s holds %s, which has no hash (%v)", index, m, err)
			}
		}
	}
	return broken
}

// articleCounts are what the invariant checker reads of an article: its
// posting time, its score and its counters.
type articleCounts struct {
	posted, score float64
	up, down      int64
}

// hashes reads the hash of each article.
func (e *env) hashes(c redis.Conn, articles map[string]articleCounts) map[string]map[string]string {
	e.t.Helper()
	out := map[string]map[string]string{}
	for member := range articles {
		h, err := redis.StringMap(c.Do("HGETALL", member))
		if err != nil {
			e.t.Fatalf("HGETALL %s: %v", member, err)
		}
		out[member] = h
	}
	return out
}

// checkPosts checks each user's index of articles (posts:<user>) against
// the articles (all are the namespace's keys), through fail.
func (e *env) checkPosts(c redis.Conn, all []string, articles map[string]articleCounts, fail func(format string, args ...any)) {
	e.t.Helper()
	posts := map[string]map[string]string{} // user -> member -> posting time
	for member, h := range e.hashes(c, articles) {
		poster := h["poster"]
		if posts[poster] == nil {
			posts[poster] = map[string]string{}
		}
		posts[poster][member] = h["time"]
	}
	for _, k := range all {
		user, ok := strings.CutPrefix(k, e.key("posts:"))
		if !ok {
			continue
		}
		got, err := redis.StringMap(c.Do("ZRANGE", k, 0, -1, "WITHSCORES"))
		if err != nil {
			e.t.Fatalf("ZRANGE %s: %v", k, err)
		}
		for member, t := range got {
			want, ok := posts[user][member]
			wt, _ := strconv.ParseFloat(want, 64)
			gt, _ := strconv.ParseFloat(t, 64)
			if !ok || wt != gt {
				fail("%s holds %s at %s, but the articles of %s have it at %q", k, member, t, user, want)
			}
		}
		for member := range posts[user] {
			if _, ok := got[member]; !ok {
				fail("%s lacks %s", k, member)
			}
		}
		delete(posts, user)
	}
	for user, members := range posts {
		fail("user %q posted %d articles, but has no index of them", user, len(members))
	}
}

// checkKarma checks each article's part of its poster's karma and karma:
// against the articles, through fail; marks are the fields of indexed:.
func (e *env) checkKarma(c redis.Conn, articles map[string]articleCounts, cutoff time.Duration, marks map[string]string,
	fail func(format string, args ...any)) {
	e.t.Helper()
	withKarma := voting.View(e.store).Karma || marks["karma"] == "1"
	karma := map[string]int64{} // user -> sum of parts
	now := e.clock.Now()
	for member, h := range e.hashes(c, articles) {
		a := articles[member]
		id := strings.TrimPrefix(member, e.key("article:"))
		poster := h["poster"]
		part, has := h["karma"]
		if !has {
			if withKarma {
				fail("article %s has no karma field", id)
			}
			continue
		}
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			fail("article %s: karma %q does not parse", id, part)
			continue
		}
		karma[poster] += n
		if time.Unix(0, int64(a.posted*1e9)).Add(cutoff).After(now) {
			up, _ := redis.Bool(c.Do("SISMEMBER", e.key("voted:"+id), poster))
			down, _ := redis.Bool(c.Do("SISMEMBER", e.key("downvoted:"+id), poster))
			own := int64(0)
			if up {
				own = 1
			} else if down {
				own = -1
			}
			if want := a.up - a.down - own; n != want {
				fail("article %s: karma %d, want %d up - %d down - own vote %d = %d", id, n, a.up, a.down, own, want)
			}
		}
	}
	sums, err := redis.StringMap(c.Do("ZRANGE", e.key("karma:"), 0, -1, "WITHSCORES"))
	if err != nil {
		e.t.Fatalf("ZRANGE karma: %v", err)
	}
	for user, got := range sums {
		want, ok := karma[user]
		if !ok {
			fail("karma: holds %q, who has no article with a karma field", user)
		} else if got != strconv.FormatInt(want, 10) {
			fail("karma: gives %q %s, the parts of their articles sum to %d", user, got, want)
		}
		delete(karma, user)
	}
	for user, sum := range karma {
		// A user whose parts sum to 0 may be missing: DeleteArticle takes
		// a poster out with their last article in posts:<user>.
		if sum != 0 {
			fail("karma: lacks %q, whose articles' parts sum to %d", user, sum)
		}
	}
}

// checkActive checks the index of active users against the articles and
// the comments (all are the namespace's keys), through fail: once built
// (marks, the fields of indexed:), every poster of an article of the
// namespace's own or of a comment not deleted is there with a time no
// earlier than their item's, and every entry's time is one a post could
// have; kept by no Store, there is no index.
func (e *env) checkActive(c redis.Conn, all []string, articles map[string]articleCounts, marks map[string]string,
	fail func(format string, args ...any)) {
	e.t.Helper()
	key := e.key("active:")
	times, err := redis.StringMap(c.Do("ZRANGE", key, 0, -1, "WITHSCORES"))
	if err != nil {
		e.t.Fatalf("ZRANGE %s: %v", key, err)
	}
	if !voting.View(e.store).ActiveUsers {
		if len(times) > 0 && marks["active"] == "" {
			fail("%s holds %d users in a namespace that keeps no index of active users", key, len(times))
		}
		return
	}
	for user, at := range times {
		if _, err := schema.ParseScoreSeconds(at); err != nil {
			fail("%s gives %q the time %q: %v", key, user, at, err)
		}
	}
	if marks["active"] != "1" || marks["articles"] != strconv.Itoa(len(articles)) {
		return // not built, or not for articles another writer added
	}
	// need checks that user is there with a time no earlier than posted.
	need := func(item, user string, posted float64) {
		at, ok := times[user]
		if !ok {
			fail("%s lacks %q, the poster of %s", key, user, item)
			return
		}
		if t, _ := strconv.ParseFloat(at, 64); t < posted {
			fail("%s gives %q the time %s, before their %s's %v", key, user, at, item, posted)
		}
	}
	for member, h := range e.hashes(c, articles) {
		if h["poster"] != "" {
			need(member, h["poster"], articles[member].posted)
		}
	}
	for _, k := range all {
		id, ok := strings.CutPrefix(k, e.key("comment:"))
		if !ok || id == "" || strings.Trim(id, "0123456789") != "" {
			continue
		}
		h, err := redis.StringMap(c.Do("HGETALL", k))
		if err != nil {
			e.t.Fatalf("HGETALL %s: %v", k, err)
		}
		if posted, err := strconv.ParseFloat(h["time"], 64); err == nil && h["deleted"] != "1" && h["poster"] != "" {
			need(k, h["poster"], posted)
		}
	}
}

// checkLinks checks the index of links and linkshares: against the
// articles, through fail; marks are the fields of indexed:.
func (e *env) checkLinks(c redis.Conn, articles map[string]articleCounts, marks map[string]string,
	fail func(format string, args ...any)) {
	e.t.Helper()
	withLinks := voting.View(e.store).UniqueLinks || marks["links"] == "1"
	links := map[string]string{} // article member -> its link's key
	for member, h := range e.hashes(c, articles) {
		links[member] = voting.LinkKey(h["link"])
	}
	linked, err := redis.StringMap(c.Do("HGETALL", e.key("links:")))
	if err != nil {
		e.t.Fatalf("HGETALL links: %v", err)
	}
	listed := map[string]bool{} // "key id" for each article that holds or shares a link
	for key, id := range linked {
		link, err := redis.String(c.Do("HGET", e.key("article:"+id), "link"))
		if _, exists := articles[e.key("article:"+id)]; err != nil || !exists {
			fail("links: gives %q to article %q, which does not exist", key, id)
		} else if voting.LinkKey(link) != key {
			fail("links: gives %q to article %s, whose link is %q", key, id, link)
		}
		listed[key+" "+id] = true
	}
	shares, err := redis.Strings(c.Do("ZRANGE", e.key("linkshares:"), 0, -1))
	if err != nil {
		e.t.Fatalf("ZRANGE linkshares: %v", err)
	}
	for _, member := range shares {
		key, _, _ := strings.Cut(member, "\x00")
		id := strings.TrimLeft(member[max(0, len(member)-19):], "0")
		h, err := redis.StringMap(c.Do("HGETALL", e.key("article:"+id)))
		posted, perr := strconv.ParseFloat(h["time"], 64)
		switch {
		case err != nil || len(h) == 0:
			fail("linkshares: holds %q, of no article", member)
		case voting.LinkKey(h["link"]) != key || perr != nil || voting.LinkShare(key, posted, id) != member:
			fail("linkshares: holds %q, not article %s's link %q posted at %s", member, id, h["link"], h["time"])
		case linked[key] == "" || linked[key] == id:
			fail("linkshares: holds article %s for %q, which links: gives to %q", id, key, linked[key])
		case listed[key+" "+id]:
			fail("linkshares: names article %s twice for %q", id, key)
		}
		listed[key+" "+id] = true
	}
	if withLinks {
		for member, key := range links {
			if id := strings.TrimPrefix(member, e.key("article:")); !listed[key+" "+id] {
				fail("links: and linkshares: lack article %s's link %q", id, key)
			}
		}
	}
}

// cachedGroup reports whether name, a key without its prefix, is a cached
// group listing of some order: score:<group>, top-week:<group> and so on.
func cachedGroup(name string) bool {
	for _, o := range voting.Orders() {
		if index := o.String() + ":"; strings.HasPrefix(name, index) && name != index {
			return true
		}
	}
	return false
}

// checkInvariants fails the test for each broken invariant.
func (e *env) checkInvariants(weight float64, cutoff time.Duration) {
	e.t.Helper()
	broken := e.invariants(weight, cutoff)
	for i, b := range broken {
		if i == 20 {
			e.t.Errorf("... and %d more", len(broken)-20)
			break
		}
		e.t.Error(b)
	}
}

func TestInvariantCheckerFindsEachBreak(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		corrupt func(e *env, id string)
	}{
		{"votes without a voter", func(e *env, id string) { e.do("HINCRBY", e.article(id), "votes", 1) }},
		{"score without a vote", func(e *env, id string) { e.do("ZINCRBY", e.key("score:"), 432, e.article(id)) }},
		{"voter without a vote", func(e *env, id string) { e.do("SADD", e.key("voted:"+id), "ghost") }},
		{"up and down at once", func(e *env, id string) {
			e.do("SADD", e.key("downvoted:"+id), "alice")
			e.do("HINCRBY", e.article(id), "downvotes", 1)
			e.do("ZINCRBY", e.key("score:"), -432, e.article(id))
		}},
		{"group member without a hash", func(e *env, id string) { e.do("SADD", e.key("group:news"), e.article("99")) }},
		{"group record lost", func(e *env, id string) { e.do("DEL", e.key("groups:"+id)) }},
		{"index member without a hash", func(e *env, id string) { e.do("ZADD", e.key("score:"), 1, e.article("98")) }},
		{"hash gone", func(e *env, id string) { e.do("DEL", e.article(id)) }},
		{"time index disagrees", func(e *env, id string) { e.do("ZINCRBY", e.key("time:"), 1, e.article(id)) }},
		{"cached group member without a hash", func(e *env, id string) { e.do("ZADD", e.key("score:news"), 1, e.article("97")) }},
		{"voter set without a TTL", func(e *env, id string) { e.do("PERSIST", e.key("voted:"+id)) }},
		{"voter set of no article", func(e *env, id string) {
			e.do("SADD", e.key("voted:96"), "ghost")
			e.do("PEXPIRE", e.key("voted:96"), 60000)
		}},
		{"counter behind an article", func(e *env, id string) { e.do("SET", e.key("article:"), 0) }},
		{"index marked built that lacks an article", func(e *env, id string) { e.do("HSET", e.key("indexed:"), "votes", "1") }},
		{"live indexes marked built that lack an article", func(e *env, id string) {
			e.do("HSET", e.key("indexed:"), "live:score", "1")
		}},
		{"mark of no index", func(e *env, id string) { e.do("HSET", e.key("indexed:"), "score", "1") }},
		{"mark neither built nor being built", func(e *env, id string) { e.do("HSET", e.key("indexed:"), "votes", "0") }},
		{"group size off by one", func(e *env, id string) { e.do("ZINCRBY", e.key("groupsizes:"), 1, "news") }},
		{"size of no group", func(e *env, id string) { e.do("ZADD", e.key("groupsizes:"), 1, "ghost") }},
		{"group without a size", func(e *env, id string) { e.do("ZREM", e.key("groupsizes:"), "news") }},
		{"article missing from its poster's index", func(e *env, id string) { e.do("ZREM", e.key("posts:alice"), e.article(id)) }},
		{"article in another user's index", func(e *env, id string) { e.do("ZADD", e.key("posts:bob"), 1, e.article(id)) }},
		{"poster's index at another time", func(e *env, id string) { e.do("ZINCRBY", e.key("posts:alice"), 1, e.article(id)) }},
		{"karma off by one", func(e *env, id string) { e.do("ZINCRBY", e.key("karma:"), 1, "alice") }},
		{"article's part of karma off by one", func(e *env, id string) {
			e.do("HINCRBY", e.article(id), "karma", 1)
			e.do("ZINCRBY", e.key("karma:"), 1, "alice")
		}},
		{"karma of a user with no article", func(e *env, id string) { e.do("ZADD", e.key("karma:"), 0, "ghost") }},
		{"article without its part of karma", func(e *env, id string) { e.do("HDEL", e.article(id), "karma") }},
		{"link of no article", func(e *env, id string) { e.do("HSET", e.key("links:"), "https://example.com/x", "99") }},
		{"link of another article", func(e *env, id string) { e.do("HSET", e.key("links:"), "https://example.com/x", id) }},
		{"article's link missing", func(e *env, id string) { e.do("DEL", e.key("links:")) }},
		{"count of the articles indexed off by one", func(e *env, id string) { e.do("HINCRBY", e.key("indexed:"), "articles", 1) }},
		{"count of the articles indexed gone", func(e *env, id string) { e.do("HDEL", e.key("indexed:"), "articles") }},
		{"settings of another vote weight", func(e *env, id string) { e.do("HSET", e.key("settings:"), "weight", "500") }},
		{"settings of another cutoff", func(e *env, id string) { e.do("HSET", e.key("settings:"), "cutoff", "1000") }},
		{"settings that keep an order not kept", func(e *env, id string) { e.do("HSET", e.key("settings:"), "orders", "votes") }},
		{"settings with a field of no setting", func(e *env, id string) { e.do("HSET", e.key("settings:"), "colour", "blue") }},
		{"a walk of Rescore done for other values", func(e *env, id string) {
			e.do("HSET", e.key("progress:"), "rescore", "100 86400000", "rescore-phase", "done", "rescore-at", "1")
		}},
		{"a walk of Rescore at no place", func(e *env, id string) {
			e.do("HSET", e.key("progress:"), "rescore", "432 604800000", "rescore-phase", "comments", "rescore-at", "(5")
		}},
		{"a walk of StopKeeping at no place", func(e *env, id string) { e.do("HSET", e.key("progress:"), "stop-history", "abc") }},
		{"a walk of StopKeeping of no order", func(e *env, id string) { e.do("HSET", e.key("progress:"), "stop-live hot cold", "0") }},
		{"progress: with a field of no walk", func(e *env, id string) { e.do("HSET", e.key("progress:"), "colour", "blue") }},
		{"a lease of the builder that never lapses", func(e *env, id string) { e.do("SET", e.key("builder:"), "0123456789abcdef") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, bookCache, voting.WithKarma(), voting.WithUniqueLinks())
			id := e.post("alice", "checked", "news")
			e.vote("bob", id, voting.Down)
			if broken := e.invariants(voting.DefaultVoteWeight, voting.DefaultCutoff); len(broken) != 0 {
				t.Fatalf("a sound namespace is reported broken: %v", broken)
			}
			tt.corrupt(e, id)
			if broken := e.invariants(voting.DefaultVoteWeight, voting.DefaultCutoff); len(broken) == 0 {
				t.Error("the break went unnoticed")
			}
		})
	}
}

// checkSettings checks the namespace's settings: fields that parse, and are
// what the env's Store goes by once it has read them; and the count of the
// articles the library indexed, which is the time index's size unless the
// test wrote articles as another writer does.
func (e *env) checkSettings(c redis.Conn, marks map[string]string, articles int, weight float64, cutoff time.Duration,
	fail func(format string, args ...any)) {
	fields, err := redis.StringMap(c.Do("HGETALL", e.key("settings:")))
	if err != nil {
		e.t.Fatalf("HGETALL settings: %v", err)
	}
	if count, ok := marks["articles"]; ok && count != strconv.Itoa(articles) && !e.foreign {
		fail("indexed: counts %s articles indexed, time: holds %d", count, articles)
	}
	if len(fields) == 0 {
		if _, ok := marks["articles"]; ok {
			fail("indexed: counts articles in a namespace with no settings")
		}
		return
	}
	if _, ok := marks["articles"]; !ok && articles > 0 && !e.foreign {
		fail("the namespace has settings and %d articles, and no count of them", articles)
	}
	var orders []string
	for _, o := range voting.View(e.store).Orders {
		if o != voting.ByScore && o != voting.ByTime {
			orders = append(orders, o.String())
		}
	}
	// The kinds kept, each a field of Settings tagged with its kind, in the
	// order of schema.Indexes.
	var kinds []string
	view := reflect.ValueOf(voting.View(e.store))
	for _, ix := range schema.Indexes {
		for i := range view.NumField() {
			if view.Type().Field(i).Tag.Get("kind") == ix.Name && view.Field(i).Bool() {
				kinds = append(kinds, ix.Name)
			}
		}
	}
	want := map[string]string{
		"orders": strings.Join(orders, " "), "kinds": strings.Join(kinds, " "),
		"cutoff":  strconv.FormatInt(voting.View(e.store).Cutoff.Milliseconds(), 10),
		"history": strconv.FormatInt(voting.View(e.store).UserHistory.Milliseconds(), 10),
	}
	for field, value := range want {
		if fields[field] != value {
			fail("settings: %s = %q, the Store goes by %q", field, fields[field], value)
		}
	}
	if _, err := strconv.ParseUint(fields["gen"], 10, 64); err != nil {
		fail("settings: gen = %q, no generation", fields["gen"])
	}
	if w, err := strconv.ParseFloat(fields["weight"], 64); err != nil || w != weight {
		fail("settings: weight = %q, the scores' %v", fields["weight"], weight)
	}
	if fields["cutoff"] != strconv.FormatInt(cutoff.Milliseconds(), 10) {
		fail("settings: cutoff = %q, the voter sets' %v", fields["cutoff"], cutoff)
	}
	if len(fields) != len(want)+2 {
		fail("settings: holds %d fields, want %d: %v", len(fields), len(want)+2, fields)
	}
}

// checkWalks checks progress:, where the walks of Rescore and StopKeeping
// go on from: a walk of Rescore names its values and stands in a phase at
// a point of it, and one marked done is of the namespace's weight and
// cutoff (a Rescore of other values starts its own walk before it changes
// them); each walk of StopKeeping is one of the kinds it takes, of known
// orders, at a cursor or done; there is no other field. And builder:, the
// lease of the background build: a token that lapses.
func (e *env) checkWalks(c redis.Conn, weight float64, cutoff time.Duration, fail func(format string, args ...any)) {
	fields, err := redis.StringMap(c.Do("HGETALL", e.key("progress:")))
	if err != nil {
		e.t.Fatalf("HGETALL progress: %v", err)
	}
	digits := func(s string) bool {
		_, err := strconv.ParseUint(s, 10, 64)
		return err == nil
	}
	for field, value := range fields {
		switch {
		case field == "rescore":
			w, ms, ok := strings.Cut(value, " ")
			wv, err := strconv.ParseFloat(w, 64)
			if !ok || err != nil || !digits(ms) {
				fail("progress: rescore = %q, not a weight and a cutoff", value)
			}
			at, phase := fields["rescore-at"], fields["rescore-phase"]
			switch {
			case phase == "articles" && (at == "-inf" || strings.HasPrefix(at, "(") && scoreLike(at[1:])):
			case (phase == "comments" || phase == "done") && digits(at):
			default:
				fail("progress: the walk of Rescore is in phase %q at %q", phase, at)
			}
			if phase == "done" && (wv != weight || ms != strconv.FormatInt(cutoff.Milliseconds(), 10)) {
				fail("progress: a walk of Rescore of %q is done, the namespace's weight and cutoff are %v and %v", value, weight, cutoff)
			}
		case field == "rescore-phase" || field == "rescore-at":
			if _, ok := fields["rescore"]; !ok {
				fail("progress: %s = %q of no walk of Rescore", field, value)
			}
		case field == "stop-karma-articles" || field == "stop-karma-comments" || field == "stop-history" || field == "stop-pending" ||
			strings.HasPrefix(field, "stop-live "):
			for _, name := range strings.Fields(strings.TrimPrefix(field, "stop-live ")) {
				if o, err := voting.ParseOrder(name); strings.HasPrefix(field, "stop-live ") && (err != nil || o.String() != name) {
					fail("progress: %q names no order", field)
				}
			}
			if value != "done" && !digits(value) {
				fail("progress: %s = %q, neither a cursor nor done", field, value)
			}
		default:
			fail("progress: holds %q = %q, the field of no walk", field, value)
		}
	}
	// The builder's lease: a token, expiring within its time.
	if token, err := redis.String(c.Do("GET", e.key("builder:"))); err == nil {
		ttl, _ := redis.Int64(c.Do("PTTL", e.key("builder:")))
		if len(token) != 16 || strings.Trim(token, "0123456789abcdef") != "" || ttl <= 0 || ttl > 10000 {
			fail("builder: holds %q, expiring in %d ms; want a token of 16 hex digits expiring within 10 s", token, ttl)
		}
	} else if err != redis.ErrNil {
		fail("builder: %v", err)
	}
}

// scoreLike reports whether s reads as a number, as a score does.
func scoreLike(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
