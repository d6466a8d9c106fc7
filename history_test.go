package voting_test

// Tests of a user's history (history.go): UserHistory page by page, the
// votes it forgets, UserVotes read from it once voting has closed, and the
// entries of deleted articles.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// TestUserHistoryPages checks a user's history page by page after up,
// down, a switch and a take-back, the times of the votes, and its end d
// after each vote.
func TestUserHistoryPages(t *testing.T) {
	t.Parallel()
	const d = 10 * 24 * time.Hour
	e := newEnv(t, voting.WithPageSize(2), voting.WithUserHistory(d))
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	c := e.post("alice", "c")
	t0 := e.clock.Now()
	type want struct {
		id  string
		dir voting.Direction
		at  time.Duration // after t0
	}
	check := func(what, user string, wants ...want) {
		t.Helper()
		var got []voting.UserVote
		for page := 1; ; page++ {
			h, err := two(e.store.UserHistory(ctx, user, voting.Paging{Page: page}))
			if err != nil {
				t.Fatalf("%s: UserHistory page %d: %v", what, page, err)
			}
			if len(h) > 2 {
				t.Fatalf("%s: page %d holds %d votes in pages of 2", what, page, len(h))
			}
			got = append(got, h...)
			if len(h) < 2 {
				break
			}
		}
		var gotS, wantS []string
		for _, v := range got {
			gotS = append(gotS, fmt.Sprintf("%s %v %v", v.Article.ID, v.Direction, v.At.Sub(t0)))
		}
		for _, w := range wants {
			wantS = append(wantS, fmt.Sprintf("%s %v %v", w.id, w.dir, w.at))
		}
		if strings.Join(gotS, "; ") != strings.Join(wantS, "; ") {
			t.Fatalf("%s: history of %s\ngot  %v\nwant %v", what, user, gotS, wantS)
		}
		for _, v := range got {
			if v.Article.Title == "" || v.Article.Poster != "alice" || v.At.Location() != time.UTC {
				t.Fatalf("%s: %+v is not the article as Article reads it", what, v)
			}
		}
	}
	check("no votes", "bob")
	e.vote("bob", a, voting.Up)
	e.advance(time.Minute)
	e.vote("bob", b, voting.Down)
	e.advance(time.Minute)
	e.vote("bob", c, voting.Up)
	check("up, down, up", "bob", want{c, voting.Up, 2 * time.Minute}, want{b, voting.Down, time.Minute}, want{a, voting.Up, 0})
	e.advance(time.Minute)
	e.vote("bob", a, voting.Down)
	check("a switched", "bob", want{a, voting.Down, 3 * time.Minute}, want{c, voting.Up, 2 * time.Minute}, want{b, voting.Down, time.Minute})
	e.vote("bob", c, voting.Down)
	e.vote("bob", c, voting.Down) // no change
	e.advance(time.Minute)
	e.vote("bob", b, voting.None)
	check("c switched, b taken back", "bob", want{c, voting.Down, 3 * time.Minute}, want{a, voting.Down, 3 * time.Minute})
	check("the posters' own up-votes", "alice", want{c, voting.Up, 0}, want{b, voting.Up, 0}, want{a, voting.Up, 0})
	if h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1 << 40})); err != nil || len(h) != 0 {
		t.Errorf("a page far past the end: %v, %v", h, err)
	}
	if got := e.zset(e.key("history:bob")); len(got) != 2 {
		t.Errorf("history:bob = %v, want 2 entries", got)
	}
	if ttl := e.pttl(e.key("history:bob")); ttl <= d-time.Minute || ttl > d {
		t.Errorf("history:bob lives %v, want about %v", ttl, d)
	}

	// Voting on a closes at the cutoff; from then on UserVotes reads the
	// history. On a real server the voter sets expire by real time: they
	// are deleted here as Redis would at the cutoff.
	e.advance(voting.DefaultCutoff)
	for _, id := range []string{a, b, c} {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	dirs, err := e.store.UserVotes(ctx, "bob", a, b, c, "999")
	if err != nil || fmt.Sprint(dirs) != "[down none down none]" {
		t.Errorf("UserVotes after the cutoff = %v, %v; want [down none down none] from the history", dirs, err)
	}
	// Past d after the last vote, the history holds nothing.
	e.advance(d - voting.DefaultCutoff)
	check("d after the votes", "bob")
	if dirs, err := e.store.UserVotes(ctx, "bob", a, c); err != nil || fmt.Sprint(dirs) != "[none none]" {
		t.Errorf("UserVotes past the history = %v, %v; want [none none]", dirs, err)
	}
}

// TestUserVoteJSON: a history entry encodes with the documented names, the
// direction by name and times in RFC 3339.
func TestUserVoteJSON(t *testing.T) {
	t.Parallel()
	v := voting.UserVote{
		Article:   voting.Article{ID: "7", Title: "t", Link: "https://x", Poster: "p", Posted: start, Points: 1, Upvotes: 2, Downvotes: 1, RankingScore: 1, Groups: []string{"go"}},
		Direction: voting.Down,
		At:        start.Add(time.Second),
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"article":{"id":"7","title":"t","link":"https://x","poster":"p","posted":"2026-11-22T00:00:00Z","points":1,"upvotes":2,"downvotes":1,"rankingScore":1,"comments":0,"groups":["go"]},"direction":"down","at":"2026-11-22T00:00:01Z"}`
	if string(b) != want {
		t.Errorf("JSON:\ngot  %s\nwant %s", b, want)
	}
	var back voting.UserVote
	if err := json.Unmarshal(b, &back); err != nil || back.Direction != voting.Down || !back.At.Equal(v.At) || !reflect.DeepEqual(back.Article, v.Article) {
		t.Errorf("read back %+v, %v", back, err)
	}
}

// TestHistoryDropsOldVotes: a vote older than d leaves the history when the
// user votes again, and is never listed.
func TestHistoryDropsOldVotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(2*time.Hour))
	a := e.post("alice", "a")
	e.vote("bob", a, voting.Up)
	e.advance(90 * time.Minute)
	b := e.post("alice", "b")
	e.vote("bob", b, voting.Up)
	e.advance(time.Hour)
	h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
	if err != nil || len(h) != 1 || h[0].Article.ID != b {
		t.Fatalf("UserHistory = %+v, %v; want only article %s", h, err, b)
	}
	c := e.post("alice", "c")
	e.vote("bob", c, voting.Down)
	if got := e.zset(e.key("history:bob")); len(got) != 2 || strings.Contains(strings.Join(got, " "), e.article(a)) {
		t.Errorf("history:bob = %v, want b and c only", got)
	}
}

// TestHistoryForgetsOldVotesAFewAtATime: the votes a history no longer
// keeps leave it a hundred at a vote, the oldest first, so that no vote
// takes Redis time in proportion to how many votes the user once cast;
// meanwhile no read shows them.
func TestHistoryForgetsOldVotesAFewAtATime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(time.Hour))
	var ids []string
	for i := range 250 {
		ids = append(ids, e.post("alice", "old "+strconv.Itoa(i)))
	}
	for _, id := range ids {
		e.vote("bob", id, voting.Up)
	}
	// A vote within the hour keeps the history; the next, past the hour,
	// forgets a hundred of the 250 old votes.
	e.advance(50 * time.Minute)
	e.vote("bob", e.post("alice", "between"), voting.Up)
	e.advance(50 * time.Minute)
	fresh := e.post("alice", "fresh")
	e.vote("bob", fresh, voting.Up)
	key := e.key("history:bob")
	if n := e.int("ZCARD", key); n != 250-100+2 {
		t.Errorf("bob's history holds %d votes, want %d", n, 250-100+2)
	}
	if got := e.int("ZCOUNT", key, "-inf", unix(e.clock.Now().Add(-time.Hour))); got != 150 {
		t.Errorf("%d old votes are left, want 150 of the 250", got)
	}
	votes, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
	if err != nil || len(votes) != 2 || votes[0].Article.ID != fresh {
		t.Errorf("UserHistory = %+v, %v; want the fresh vote and the one between", votes, err)
	}
	// Voting on them is open: a take-back forgets as a vote does.
	e.vote("bob", ids[0], voting.None)
	e.vote("bob", ids[1], voting.Down)
	if n := e.int("ZCARD", key); n != 3 {
		t.Errorf("bob's history holds %d votes after three more votes, want 3", n)
	}
}

// Once voting has closed, UserVotes reads the history only for votes newer
// than d: an old entry the history still holds (the user voted since, so
// the key lives on, and no vote has pruned it) answers None, exactly at d
// too, as UserHistory leaves it out.
func TestUserVotesIgnoresEntriesOlderThanTheHistory(t *testing.T) {
	t.Parallel()
	const d = 3 * time.Hour
	e := newEnv(t, voting.WithCutoff(time.Hour), voting.WithUserHistory(d))
	t0 := e.clock.Now()
	a := e.post("alice", "a")
	e.vote("bob", a, voting.Up)
	e.advance(2 * time.Hour)
	e.do("DEL", e.key("voted:"+a), e.key("downvoted:"+a))
	b := e.post("alice", "b")
	e.vote("bob", b, voting.Up) // keeps the history alive, does not prune a
	e.clock.set(t0.Add(d - 500*time.Millisecond))
	if h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1})); err != nil || len(h) != 2 {
		t.Errorf("half a second before d: UserHistory = %+v, %v; want a and b", h, err)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.Up {
		t.Errorf("half a second before d: UserVotes = %v, %v; want [up]", dirs, err)
	}
	e.clock.set(t0.Add(d))
	if h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1})); err != nil || len(h) != 1 || h[0].Article.ID != b {
		t.Errorf("at d: UserHistory = %+v, %v; want only b", h, err)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.None {
		t.Errorf("at d: UserVotes = %v, %v; want [none]", dirs, err)
	}
	e.clock.set(t0.Add(d + time.Minute))
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.None {
		t.Errorf("past d: UserVotes = %v, %v; want [none]", dirs, err)
	}
}

// TestHistoryOfADeletedClosedArticle: an article deleted after its voting
// closed (its voter sets expired, so the deletion cannot name its voters)
// is left out of the history and its entry dropped when the history is read.
func TestHistoryOfADeletedClosedArticle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(30*24*time.Hour))
	e.closedDeletes = true
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	e.vote("bob", a, voting.Up)
	e.vote("bob", b, voting.Down)
	e.advance(voting.DefaultCutoff + time.Second)
	for _, id := range []string{a, b} {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	if err := e.store.DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := e.zset(e.key("history:bob")); len(got) != 2 {
		t.Fatalf("history:bob = %v: the deletion should not have found bob", got)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a, b); err != nil || fmt.Sprint(dirs) != "[none down]" {
		t.Errorf("UserVotes = %v, %v; want [none down]", dirs, err)
	}
	h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
	if err != nil || len(h) != 1 || h[0].Article.ID != b || h[0].Direction != voting.Down {
		t.Fatalf("UserHistory = %+v, %v; want only b, down", h, err)
	}
	if got := e.zset(e.key("history:bob")); len(got) != 1 || !strings.HasPrefix(got[0], "down:"+e.article(b)+"=") {
		t.Errorf("history:bob = %v after reading it, want only b's entry", got)
	}
}

// A down-vote on an article deleted after voting closed is dropped from
// the history when UserHistory meets it.
func TestHistoryDropsADeletedDownVote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(30*24*time.Hour))
	e.closedDeletes = true
	a := e.post("alice", "a")
	e.vote("bob", a, voting.Down)
	e.advance(voting.DefaultCutoff + time.Second)
	e.do("DEL", e.key("voted:"+a), e.key("downvoted:"+a))
	if err := e.store.DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	if h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1})); err != nil || len(h) != 0 {
		t.Fatalf("UserHistory = %+v, %v; want none", h, err)
	}
	if e.exists(e.key("history:bob")) {
		t.Errorf("history:bob = %v, want it gone", e.zset(e.key("history:bob")))
	}
}

// TestHistoryPagesAfterPruning: when UserHistory drops the entry of an
// article deleted after its voting closed, it reads the page again, so
// that reading page after page still gives every other vote once.
func TestHistoryPagesAfterPruning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithPageSize(2), voting.WithUserHistory(30*24*time.Hour))
	e.closedDeletes = true
	var ids []string
	for _, title := range []string{"a", "b", "c", "d", "f", "g"} {
		ids = append(ids, e.post("alice", title))
	}
	for _, id := range ids { // newest vote last
		e.vote("bob", id, voting.Up)
		e.advance(time.Minute)
	}
	e.advance(voting.DefaultCutoff)
	for _, id := range ids {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	for _, id := range []string{ids[5], ids[3]} {
		if err := e.store.DeleteArticle(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for page := 1; page < 10; page++ {
		h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: page}))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range h {
			got = append(got, v.Article.ID)
		}
		if len(h) < 2 {
			break
		}
	}
	if want := []string{ids[4], ids[2], ids[1], ids[0]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history read page by page: %v, want %v", got, want)
	}
	if n := e.int("ZCARD", e.key("history:bob")); n != 4 {
		t.Errorf("history:bob holds %d entries after the reads, want 4", n)
	}
}

// TestHistoryEntriesTheLibraryDoesNotWrite: a history entry that is no
// vote ("none:", "sideways:" or no article) is skipped; one whose time is
// outside the range of times is ErrCorrupt naming the history, from
// UserHistory and, once voting has closed, from UserVotes; a voter set of
// the wrong type is ErrCorrupt naming it.
func TestHistoryEntriesTheLibraryDoesNotWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(365*24*time.Hour))
	a := e.post("alice", "a")
	b := e.post("alice", "b")
	e.vote("bob", a, voting.Up)
	key := e.key("history:bob")
	at := e.clock.Now().Unix()
	e.do("ZADD", key, at+1, "none:"+e.article(b), at+2, "sideways:"+e.article(b), at+3, "up:", at+4, "up:nothing")
	h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
	if err != nil || len(h) != 1 || h[0].Article.ID != a || h[0].Direction != voting.Up {
		t.Fatalf("UserHistory = %+v, %v; want only a, up", h, err)
	}
	e.do("ZADD", key, 3e11, "down:"+e.article(b))
	if _, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1})); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
		t.Errorf("UserHistory with a time of 3e11: %v, want ErrCorrupt naming %s", err, key)
	}
	e.advance(voting.DefaultCutoff + time.Second)
	for _, id := range []string{a, b} {
		e.do("DEL", e.key("voted:"+id), e.key("downvoted:"+id))
	}
	if _, err := e.store.UserVotes(ctx, "bob", a, b); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), key) {
		t.Errorf("UserVotes with a time of 3e11: %v, want ErrCorrupt naming %s", err, key)
	}
	if dirs, err := e.store.UserVotes(ctx, "bob", a); err != nil || dirs[0] != voting.Up {
		t.Errorf("UserVotes of a alone = %v, %v; want [up] from the history", dirs, err)
	}
	e.do("SET", e.key("voted:"+a), "x")
	if _, err := e.store.UserVotes(ctx, "bob", a); !errors.Is(err, voting.ErrCorrupt) || !strings.Contains(err.Error(), e.key("voted:"+a)) {
		t.Errorf("UserVotes with voted:%s a string: %v, want ErrCorrupt naming it", a, err)
	}
}

// TestHistoryOfAUserWithBraces: a user's name may hold braces; the history
// key still lies in the namespace's slot on Redis Cluster (the prefix's
// hash tag comes first), so the vote, the post, the history and the
// deletion all work for such a user.
func TestHistoryOfAUserWithBraces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(time.Hour), voting.WithLiveGroups())
	const user = "{other}x{y}"
	id := e.post(user, "by braces", "go")
	other := e.post("alice", "a", "go")
	e.advance(time.Second)
	e.vote(user, other, voting.Down)
	h, err := two(e.store.UserHistory(ctx, user, voting.Paging{Page: 1}))
	if err != nil || len(h) != 2 || h[0].Article.ID != other || h[0].Direction != voting.Down || h[1].Article.ID != id {
		t.Fatalf("UserHistory = %+v, %v", h, err)
	}
	for _, d := range []string{id, other} {
		if err := e.store.DeleteArticle(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if e.exists(e.key("history:" + user)) {
		t.Errorf("the history of %q is left after deleting both articles", user)
	}
}

// TestCountUserHistoryCountsItsPages: the count of a user's history is the
// number of votes its pages hold together, as votes are cast, switched,
// taken back and age out, read by any Store of the namespace; in a
// namespace without a history it is ErrInvalid.
func TestCountUserHistoryCountsItsPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithUserHistory(2*time.Hour), voting.WithPageSize(3))
	check := func(when string) {
		t.Helper()
		var all []voting.UserVote
		for page := 1; ; page++ {
			got, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: page}))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, got...)
			if len(got) < 3 {
				break
			}
		}
		if n, err := e.store.CountUserHistory(ctx, "bob"); err != nil || n != int64(len(all)) {
			t.Errorf("%s: CountUserHistory = %d, %v; the pages hold %d", when, n, err, len(all))
		}
	}
	check("before any vote")
	var ids []string
	for i := range 7 {
		ids = append(ids, e.post("alice", fmt.Sprint("article ", i)))
		e.vote("bob", ids[i], voting.Up)
		e.advance(20 * time.Minute)
	}
	check("after 7 votes")
	e.vote("bob", ids[6], voting.Down)
	e.vote("bob", ids[5], voting.None)
	check("after a switch and a take-back")
	e.advance(50 * time.Minute) // the oldest age out
	check("after the oldest aged out")
	if _, err := e.store.CountUserHistory(ctx, ""); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("CountUserHistory of no user: %v, want ErrInvalid", err)
	}
	// A Store given no WithUserHistory reads the namespace's history; in a
	// namespace that keeps none, the count is ErrInvalid.
	want, err := e.store.CountUserHistory(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	plain := storeAt(t, e, e.clock.Now())
	if n, err := plain.CountUserHistory(ctx, "bob"); err != nil || n != want {
		t.Errorf("CountUserHistory by a Store given no history = %d, %v; want the namespace's %d", n, err, want)
	}
	if _, err := newEnv(t).store.CountUserHistory(ctx, "bob"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("CountUserHistory without a history: %v, want ErrInvalid", err)
	}
}

// sendLog records the commands sent through a connection for a pipeline,
// each with its arguments.
type sendLog struct {
	mu   sync.Mutex
	sent [][]any
}

// sendConn is a connection that records what it sends in a pipeline.
type sendConn struct {
	redis.Conn
	log *sendLog
}

func (c sendConn) Send(cmd string, args ...any) error {
	c.log.mu.Lock()
	c.log.sent = append(c.log.sent, append([]any{cmd}, args...))
	c.log.mu.Unlock()
	return c.Conn.Send(cmd, args...)
}

// TestUserVotesOfManyClosedArticles: UserVotes of thousands of articles
// whose voting has closed reads each one's direction from the history, in
// one round trip, sending no command that reads more than a thousand
// members, so that no ZMSCORE holds Redis for long however many ids a
// caller gives (100,000 held it 91 to 240 ms in one command).
func TestUserVotesOfManyClosedArticles(t *testing.T) {
	t.Parallel()
	const n = 2500
	e := newEnv(t, voting.WithUserHistory(30*24*time.Hour))
	at := unix(e.clock.Now().Add(-time.Hour))
	ids := make([]string, n)
	want := make([]voting.Direction, n)
	err := e.pipelined(func(send func(cmd string, args ...any)) {
		for i := range ids {
			ids[i] = strconv.Itoa(i + 1)
			member := e.article(ids[i])
			send("ZADD", e.key("score:"), at+432, member)
			switch i % 3 {
			case 0:
				send("ZADD", e.key("history:bob"), at, "up:"+member)
				want[i] = voting.Up
			case 1:
				send("ZADD", e.key("history:bob"), at, "down:"+member)
				want[i] = voting.Down
			default:
				want[i] = voting.None
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.store.UserVotes(ctx, "bob", ids...)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("UserVotes of %d closed articles = %d directions, %v; want each from the history", n, len(got), err)
	}
	p, ok := e.pool.(*redis.Pool)
	if !ok {
		return // a cluster client's connections cannot be wrapped
	}
	log := &sendLog{}
	s, err := voting.New(wrapPool{p, func(c redis.Conn) redis.Conn { return sendConn{c, log} }},
		voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now), voting.WithUserHistory(30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.UserVotes(ctx, "bob", ids...); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("UserVotes through recorded connections: %v", err)
	}
	zmscores := 0
	for _, cmd := range log.sent {
		if cmd[0] == "ZMSCORE" {
			zmscores++
			if members := len(cmd) - 2; members > 1000 {
				t.Errorf("a ZMSCORE of %v reads %d members, more than 1000", cmd[1], members)
			}
		}
	}
	if zmscores == 0 {
		t.Error("UserVotes sent no ZMSCORE")
	}
}

// TestHistoryCutAtTheWindowsEdge: a vote exactly the history's time old is
// out of the history: reads leave it out, and the next vote or post of
// the user forgets it, as a vote older than that; through a Store whose
// clock lags, whose history's edge is earlier, it stays stored (and out of
// the other Store's reads) until a vote forgets it.
func TestHistoryCutAtTheWindowsEdge(t *testing.T) {
	t.Parallel()
	const d = time.Hour
	e := newEnv(t, voting.WithUserHistory(d))
	t0 := e.clock.Now()
	a := e.post("alice", "a")
	e.vote("bob", a, voting.Up)
	b := e.post("alice", "b")
	c := e.post("alice", "c")
	key, entry := e.key("history:bob"), "up:"+e.article(a)
	e.clock.set(t0.Add(d))
	if h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1})); err != nil || len(h) != 0 {
		t.Errorf("at the edge: UserHistory = %+v, %v; want none", h, err)
	}
	lagging := storeAt(t, e, t0.Add(d-time.Second), voting.WithUserHistory(d))
	if err := lagging.Vote(ctx, "bob", b, voting.Up); err != nil {
		t.Fatal(err)
	}
	if e.do("ZSCORE", key, entry) == nil {
		t.Errorf("a vote through a Store a second behind forgot the vote at its edge's other side")
	}
	h, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1}))
	if n, cerr := e.store.CountUserHistory(ctx, "bob"); err != nil || cerr != nil || len(h) != 1 || h[0].Article.ID != b || n != 1 {
		t.Errorf("at the edge after the lagging vote: UserHistory = %+v, %v, count %d, %v; want b alone", h, err, n, cerr)
	}
	e.vote("bob", c, voting.Down)
	if got := e.do("ZSCORE", key, entry); got != nil {
		t.Errorf("a vote at the edge left the vote exactly its history's time old: %s", got)
	}
	if n := e.int("ZCARD", key); n != 2 {
		t.Errorf("bob's history holds %d votes, want b's and c's", n)
	}
}

// TestHistoryPagesEndWithTheWindow: a history read by rank ends where the
// votes it keeps end, though older votes the user cast are still stored
// (no vote has forgotten them yet): the page that holds the window's last
// vote stops there, and the pages past it, where the older votes lie by
// rank, are empty.
func TestHistoryPagesEndWithTheWindow(t *testing.T) {
	t.Parallel()
	const d = time.Hour
	e := newEnv(t, voting.WithUserHistory(d), voting.WithPageSize(3))
	key := e.key("history:bob")
	now := e.clock.Now().Unix()
	var want []string
	err := e.pipelined(func(send func(cmd string, args ...any)) {
		for i := range 12 {
			id := strconv.Itoa(i + 1)
			member := e.article(id)
			send("HSET", member, "title", "t", "link", "https://example.com/", "poster", "alice", "time", now-7200, "votes", 1)
			send("ZADD", e.key("score:"), now-7200+432, member)
			// The votes on 1 to 6 older than the hour, on 7 exactly an
			// hour old, on 8 to 12 within it.
			send("ZADD", key, now-int64(12-i)*600, "up:"+member)
			if i >= 7 {
				want = append([]string{id}, want...)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for page := 1; page <= 5; page++ {
		votes, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: page}))
		if err != nil {
			t.Fatal(err)
		}
		if page > 2 && len(votes) != 0 {
			t.Errorf("page %d = %d votes, want none past the window", page, len(votes))
		}
		for _, v := range votes {
			got = append(got, v.Article.ID)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the pages list %v, want %v", got, want)
	}
	if n, err := e.store.CountUserHistory(ctx, "bob"); err != nil || n != int64(len(want)) {
		t.Errorf("CountUserHistory = %d, %v; want %d", n, err, len(want))
	}
}

// TestHistoryOfAFractionOfAMillisecond: a history's time is kept to the
// millisecond, as the scripts keep it (a time to live, the cut of what a
// vote forgets), so that reads leave out exactly what a vote forgets: a
// time of an hour and 500µs is an hour, for reads and writes alike. A
// microsecond count would have reads keep for 500µs more a vote that a
// vote forgets, or Redis has expired.
func TestHistoryOfAFractionOfAMillisecond(t *testing.T) {
	t.Parallel()
	const d = time.Hour + 500*time.Microsecond
	e := newEnv(t, voting.WithUserHistory(d))
	if got := voting.View(e.store).UserHistory; got != time.Hour {
		t.Errorf("HistoryTime() = %v, want %v", got, time.Hour)
	}
	a := e.post("bob", "first")
	b := e.post("bob", "second")
	c := e.post("bob", "third")
	e.vote("alice", a, voting.Up)
	list := func() []string {
		t.Helper()
		h, err := two(e.store.UserHistory(ctx, "alice", voting.Paging{Page: 1}))
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, v := range h {
			ids = append(ids, v.Article.ID)
		}
		return ids
	}
	e.advance(time.Hour - 200*time.Microsecond)
	e.vote("alice", b, voting.Up)
	if got := list(); strings.Join(got, " ") != b+" "+a {
		t.Errorf("200µs before the hour: %v, want both votes", got)
	}
	e.advance(400 * time.Microsecond)
	if got := list(); strings.Join(got, " ") != b {
		t.Errorf("200µs past the hour: %v, want only the second vote", got)
	}
	e.vote("alice", c, voting.Up)
	if got := list(); strings.Join(got, " ") != c+" "+b {
		t.Errorf("after a vote 200µs past the hour: %v, want the second and third votes", got)
	}
	if n := e.int("ZCARD", e.key("history:alice")); n != 2 {
		t.Errorf("alice's history holds %d votes, want 2: the vote past the hour forgets the first", n)
	}
}
