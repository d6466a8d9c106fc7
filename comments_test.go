package voting_test

// Tests of comments: posting, voting, reading a thread in each order, a
// page at a time and as a tree, editing, deleting, and the article's
// discussion going with it.

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/roundtrip"
)

// comment posts a comment and fails the test on an error.
func (e *env) comment(poster, article, parent, body string) string {
	e.t.Helper()
	id, err := e.store.PostComment(ctx, poster, article, parent, body)
	if err != nil {
		e.t.Fatalf("PostComment(%q, %s, %q): %v", poster, article, parent, err)
	}
	return id
}

// voteComment votes on a comment and fails the test on an error.
func (e *env) voteComment(user, id string, dir voting.Direction) {
	e.t.Helper()
	if err := e.store.VoteComment(ctx, user, id, dir); err != nil {
		e.t.Fatalf("VoteComment(%q, %s, %v): %v", user, id, dir, err)
	}
}

// commentIDs are the ids of comments.
func commentIDs(comments []voting.Comment) []string {
	ids := make([]string, len(comments))
	for i, c := range comments {
		ids[i] = c.ID
	}
	return ids
}

func TestPostCommentStoresTheComment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	e.advance(time.Minute)
	top := e.comment("bob", a, "", "first!")
	e.advance(time.Second)
	reply := e.comment("carol", a, top, "a reply")

	posted := unix(e.clock.Now())
	if got, want := e.hash(e.key("comment:"+reply)), map[string]string{
		"article": a, "parent": top, "poster": "carol", "body": "a reply", "time": strconv.FormatFloat(posted, 'f', -1, 64), "votes": "1", "depth": "1",
	}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the reply's hash = %v, want %v", got, want)
	}
	if got := e.str("HGET", e.key("comment:"+top), "replies"); got != "1" {
		t.Errorf("the parent's replies = %q, want 1", got)
	}
	if got := e.str("HGET", e.article(a), "comments"); got != "2" {
		t.Errorf("the article's comments = %q, want 2", got)
	}
	if got := e.strs("SMEMBERS", e.key("comment-up:"+reply)); len(got) != 1 || got[0] != "carol" {
		t.Errorf("the reply's up-voters = %v, want the poster", got)
	}
	if ttl := e.pttl(e.key("comment-up:" + reply)); ttl <= 0 || ttl > voting.DefaultCutoff {
		t.Errorf("the reply's voter set expires in %v, want within the cutoff", ttl)
	}
	for _, kind := range []string{"best", "net", "time", "controversy"} {
		if got := e.zset(e.key("replies:" + kind + ":c:" + top)); len(got) != 1 || !strings.HasPrefix(got[0], e.key("comment:"+reply)+"=") {
			t.Errorf("replies:%s of the parent = %v, want the reply", kind, got)
		}
	}
	if got := e.zscore(e.key("replies:net:a:"+a), e.key("comment:"+top)); got != 1 {
		t.Errorf("the comment's net votes = %v, want 1", got)
	}
	if got := e.zscore(e.key("replies:time:a:"+a), e.key("comment:"+top)); got != posted-1 {
		t.Errorf("the comment's time = %v, want %v", got, posted-1)
	}
	if got := e.zset(e.key("usercomments:carol")); len(got) != 1 || got[0] != e.key("comment:"+reply)+"="+strconv.FormatFloat(posted, 'f', -1, 64) {
		t.Errorf("carol's comments = %v", got)
	}
	c, err := e.store.Comment(ctx, reply)
	if err != nil {
		t.Fatal(err)
	}
	want := voting.Comment{ID: reply, ArticleID: a, ParentID: top, Poster: "carol", Body: "a reply", Posted: e.clock.Now().UTC(),
		Points: 1, Upvotes: 1, Depth: 1}
	if c != want {
		t.Errorf("Comment = %+v, want %+v", c, want)
	}
	art, err := e.store.Article(ctx, a)
	if err != nil || art.Comments != 2 {
		t.Errorf("Article(%s).Comments = %d, %v; want 2", a, art.Comments, err)
	}
	page, _, err := e.store.List(ctx, voting.Query{Paging: voting.Paging{Page: 1}})
	if err != nil || len(page) != 1 || page[0].Comments != 2 {
		t.Errorf("a listing's article = %+v, %v; want 2 comments", page, err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestPostCommentRefusesBadInputAndWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	other := e.post("alice", "elsewhere")
	top := e.comment("bob", a, "", "first")
	gone := e.comment("bob", a, top, "to delete")
	tomb := e.comment("bob", a, "", "a tombstone soon")
	e.comment("carol", a, tomb, "keeps it")
	if err := e.store.DeleteComment(ctx, tomb); err != nil {
		t.Fatal(err)
	}
	if err := e.store.DeleteComment(ctx, gone); err != nil {
		t.Fatal(err)
	}
	deep := e.comment("bob", a, top, "deep")
	e.do("HSET", e.key("comment:"+deep), "depth", voting.MaxCommentDepth)
	tests := []struct {
		name                          string
		poster, article, parent, body string
		want                          error
	}{
		{"no article", "bob", "999", "", "hi", voting.ErrNotFound},
		{"no parent", "bob", a, "999", "hi", voting.ErrNotFound},
		{"a deleted parent", "bob", a, gone, "hi", voting.ErrNotFound},
		{"a tombstone parent", "bob", a, tomb, "hi", voting.ErrNotFound},
		{"a parent on another article", "bob", other, top, "hi", voting.ErrInvalid},
		{"too deep", "bob", a, deep, "hi", voting.ErrInvalid},
		{"an empty body", "bob", a, "", "", voting.ErrInvalid},
		{"a blank body", "bob", a, "", "   ", voting.ErrInvalid},
		{"a long body", "bob", a, "", strings.Repeat("x", voting.MaxCommentLen+1), voting.ErrInvalid},
		{"a body of line breaks and tabs", "bob", a, "", "\n\r\n\t \n", voting.ErrInvalid},
		{"a NUL", "bob", a, "", "one\x00two", voting.ErrInvalid},
		{"a bell", "bob", a, "", "ding\a", voting.ErrInvalid},
		{"an escape", "bob", a, "", "\x1b[31mred", voting.ErrInvalid},
		{"invalid UTF-8", "bob", a, "", "caf\xe9", voting.ErrInvalid},
		{"no poster", "", a, "", "hi", voting.ErrInvalid},
		{"a bad article id", "bob", "x1", "", "hi", voting.ErrInvalid},
		{"a bad parent id", "bob", a, "01", "hi", voting.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.dump()
			_, err := e.store.PostComment(ctx, tt.poster, tt.article, tt.parent, tt.body)
			if !errors.Is(err, tt.want) {
				t.Errorf("PostComment = %v, want %v", err, tt.want)
			}
			if after := e.dump(); after != before {
				t.Errorf("a refused comment wrote:\n%s\nwas:\n%s", after, before)
			}
		})
	}
	if _, err := e.store.PostComment(ctx, "bob", a, "", strings.Repeat("x", voting.MaxCommentLen)); err != nil {
		t.Errorf("a body of MaxCommentLen characters: %v", err)
	}
}

func TestVoteCommentMovesItAmongItsSiblings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	first := e.comment("bob", a, "", "first")
	e.advance(time.Second)
	second := e.comment("carol", a, "", "second")
	best := func() []string {
		t.Helper()
		page, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: voting.CommentsByBest, Paging: voting.Paging{Page: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return commentIDs(page)
	}
	// Ties on best go to the greater member: the second.
	if got := best(); fmt.Sprint(got) != fmt.Sprint([]string{second, first}) {
		t.Fatalf("best before the votes = %v", got)
	}
	e.voteComment("dave", first, voting.Up)
	e.voteComment("erin", first, voting.Up)
	e.voteComment("dave", second, voting.Down)
	if got := best(); fmt.Sprint(got) != fmt.Sprint([]string{first, second}) {
		t.Errorf("best after the votes = %v, want %s first", got, first)
	}
	c, err := e.store.Comment(ctx, second)
	if err != nil || c.Upvotes != 1 || c.Downvotes != 1 || c.Points != 0 {
		t.Errorf("the second = %+v, %v; want 1 up, 1 down", c, err)
	}
	dirs, err := e.store.UserCommentVotes(ctx, "dave", first, second, "999")
	if err != nil || fmt.Sprint(dirs) != fmt.Sprint([]voting.Direction{voting.Up, voting.Down, voting.None}) {
		t.Errorf("UserCommentVotes = %v, %v", dirs, err)
	}
	// A switch, the same again, and a vote taken back.
	e.voteComment("dave", second, voting.Up)
	e.voteComment("dave", second, voting.Up)
	e.voteComment("erin", first, voting.None)
	for id, want := range map[string][2]int64{first: {2, 0}, second: {2, 0}} {
		c, err := e.store.Comment(ctx, id)
		if err != nil || c.Upvotes != want[0] || c.Downvotes != want[1] {
			t.Errorf("comment %s = %+v, %v; want %v", id, c, err, want)
		}
	}
	if err := e.store.VoteComment(ctx, "dave", "999", voting.Up); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("a vote on no comment: %v", err)
	}
	if err := e.store.VoteComment(ctx, "dave", first, 0); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("a vote of no direction: %v", err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	e.advance(voting.DefaultCutoff)
	before := e.dump()
	if err := e.store.VoteComment(ctx, "zed", first, voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("a vote past the cutoff: %v", err)
	}
	if e.dump() != before {
		t.Error("a vote past the cutoff wrote")
	}
}

// thread posts comments on a new article: tops top-level comments, the
// i-th with i up-votes from others, posted a second apart.
func (e *env) thread(tops int) (string, []string) {
	e.t.Helper()
	a := e.post("alice", "discussed")
	ids := make([]string, tops)
	for i := range ids {
		e.advance(time.Second)
		ids[i] = e.comment(fmt.Sprintf("poster%d", i), a, "", fmt.Sprintf("comment %d", i))
		for v := range i {
			e.voteComment(fmt.Sprintf("voter%d", v), ids[i], voting.Up)
		}
	}
	return a, ids
}

func TestCommentsInEachOrderByPageAndCursor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ids := e.thread(5)
	e.voteComment("hater1", ids[1], voting.Down)
	e.voteComment("hater2", ids[1], voting.Down) // ids[1]: 2 up, 2 down
	rev := func(s []string) []string {
		out := append([]string(nil), s...)
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out
	}
	want := map[voting.CommentOrder][]string{
		voting.CommentsByNew:         rev(ids),
		voting.CommentsByOld:         ids,
		voting.CommentsByTop:         {ids[4], ids[3], ids[2], ids[0], ids[1]},
		voting.CommentsByBest:        {ids[4], ids[3], ids[2], ids[0], ids[1]},
		voting.CommentsByControversy: {ids[1], ids[4], ids[3], ids[2], ids[0]},
	}
	for order, ids := range want {
		t.Run(order.String(), func(t *testing.T) {
			var byPage []string
			for p := 1; p <= 3; p++ {
				page, next, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: order, Paging: voting.Paging{Page: p, Size: 2}})
				if err != nil || next != "" {
					t.Fatalf("page %d: %v, next %q", p, err, next)
				}
				byPage = append(byPage, commentIDs(page)...)
			}
			if fmt.Sprint(byPage) != fmt.Sprint(ids) {
				t.Errorf("by page: %v, want %v", byPage, ids)
			}
			var byCursor []string
			after := ""
			for range 4 {
				page, next, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: order, Paging: voting.Paging{After: after, Size: 2}})
				if err != nil {
					t.Fatal(err)
				}
				byCursor = append(byCursor, commentIDs(page)...)
				if after = next; after == "" {
					break
				}
			}
			if fmt.Sprint(byCursor) != fmt.Sprint(ids) {
				t.Errorf("by cursor: %v, want %v", byCursor, ids)
			}
		})
	}
	// A cursor of one order is refused by another, and by another parent.
	_, next, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: voting.CommentsByOld, Paging: voting.Paging{Size: 2}})
	if err != nil || next == "" {
		t.Fatalf("first page by cursor: %v, %q", err, next)
	}
	if _, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: voting.CommentsByNew, Paging: voting.Paging{After: next}}); !errors.Is(err, voting.ErrInvalid) ||
		!strings.Contains(err.Error(), "the comments under a:"+a+" by old") {
		t.Errorf("a cursor of another order: %v", err)
	}
	if _, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Parent: ids[0], Order: voting.CommentsByOld, Paging: voting.Paging{After: next}}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("a cursor of another parent: %v", err)
	}
	if _, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: 9}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("an unknown order: %v", err)
	}
	if _, _, err := e.store.Comments(ctx, "999", voting.CommentQuery{}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("the comments of no article: %v", err)
	}
	for _, name := range []string{"best", "top", "new", "old", "controversial"} {
		o, err := voting.ParseCommentOrder(name)
		if err != nil || o.String() != name {
			t.Errorf("ParseCommentOrder(%q) = %v, %v", name, o, err)
		}
	}
}

// TestOneNameReadsTheSameOrderOfArticlesAndComments: the controversial
// order parses by either of its names, of articles and of comments alike,
// whatever the case; an unknown name lists the names.
func TestOneNameReadsTheSameOrderOfArticlesAndComments(t *testing.T) {
	for _, name := range []string{"controversy", "controversial", "CONTROVERSIAL", "Controversy"} {
		if o, err := voting.ParseOrder(name); err != nil || o != voting.ByControversy {
			t.Errorf("ParseOrder(%q) = %v, %v; want ByControversy", name, o, err)
		}
		if o, err := voting.ParseCommentOrder(name); err != nil || o != voting.CommentsByControversy {
			t.Errorf("ParseCommentOrder(%q) = %v, %v; want CommentsByControversy", name, o, err)
		}
	}
	_, err := voting.ParseCommentOrder("hottest")
	if !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), `unknown comment order "hottest": want one of best, top, new, old, controversial`) {
		t.Errorf("ParseCommentOrder(\"hottest\") = %v", err)
	}
	_, err = voting.ParseOrder("hottest")
	if !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), `unknown order "hottest": want one of score, `) {
		t.Errorf("ParseOrder(\"hottest\") = %v", err)
	}
}

func TestCommentsOfAParent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	other := e.post("alice", "elsewhere")
	top := e.comment("bob", a, "", "top")
	var replies []string
	for i := range 3 {
		e.advance(time.Second)
		replies = append(replies, e.comment("carol", a, top, fmt.Sprint("reply ", i)))
	}
	page, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Parent: top, Order: voting.CommentsByOld, Paging: voting.Paging{Page: 1}})
	if err != nil || fmt.Sprint(commentIDs(page)) != fmt.Sprint(replies) {
		t.Errorf("replies = %v, %v; want %v", commentIDs(page), err, replies)
	}
	if _, _, err := e.store.Comments(ctx, other, voting.CommentQuery{Parent: top}); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("the replies of a comment of another article: %v", err)
	}
	if _, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Parent: "999"}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("the replies of no comment: %v", err)
	}
}

func TestDeleteCommentLeavesATombstoneOrNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	top := e.comment("bob", a, "", "top")
	mid := e.comment("carol", a, top, "mid")
	leaf := e.comment("dave", a, mid, "leaf")
	e.voteComment("erin", mid, voting.Down)

	// A comment with a reply stays, a tombstone, in its place.
	if err := e.store.DeleteComment(ctx, mid); err != nil {
		t.Fatal(err)
	}
	c, err := e.store.Comment(ctx, mid)
	want := voting.Comment{ID: mid, ArticleID: a, ParentID: top, Posted: c.Posted, Upvotes: 1, Downvotes: 1, Replies: 1, Depth: 1, Deleted: true}
	if err != nil || c != want {
		t.Errorf("the tombstone = %+v, %v; want %+v", c, err, want)
	}
	if e.exists(e.key("comment-up:"+mid)) || e.exists(e.key("comment-down:"+mid)) {
		t.Error("the tombstone keeps its voters")
	}
	page, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Parent: top, Paging: voting.Paging{Page: 1}})
	if err != nil || len(page) != 1 || !page[0].Deleted {
		t.Errorf("the replies of top = %+v, %v; want the tombstone", page, err)
	}
	if err := e.store.DeleteComment(ctx, mid); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("deleting a tombstone: %v", err)
	}
	if err := e.store.VoteComment(ctx, "zed", mid, voting.Up); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("a vote on a tombstone: %v", err)
	}
	if err := e.store.EditComment(ctx, mid, "back"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("an edit of a tombstone: %v", err)
	}
	art, _ := e.store.Article(ctx, a)
	if art.Comments != 2 {
		t.Errorf("the article counts %d comments, want 2", art.Comments)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)

	// Its last reply gone, the tombstone goes too; the top stays.
	if err := e.store.DeleteComment(ctx, leaf); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{mid, leaf} {
		if _, err := e.store.Comment(ctx, id); !errors.Is(err, voting.ErrNotFound) {
			t.Errorf("comment %s after its deletion: %v", id, err)
		}
	}
	c, err = e.store.Comment(ctx, top)
	if err != nil || c.Replies != 0 {
		t.Errorf("the top = %+v, %v; want no reply", c, err)
	}
	art, _ = e.store.Article(ctx, a)
	if art.Comments != 1 {
		t.Errorf("the article counts %d comments, want 1", art.Comments)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	if err := e.store.DeleteComment(ctx, top); err != nil {
		t.Fatal(err)
	}
	for _, k := range e.keys() {
		name := strings.TrimPrefix(k, e.prefix)
		if strings.HasPrefix(name, "comment:") && name != "comment:" || strings.HasPrefix(name, "replies:") ||
			strings.HasPrefix(name, "thread:") || strings.HasPrefix(name, "usercomments:") || strings.HasPrefix(name, "comment-up:") {
			t.Errorf("%s is left once every comment is deleted", k)
		}
	}
}

func TestEditAndUserComments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	var mine []string
	for i := range 3 {
		e.advance(time.Second)
		mine = append(mine, e.comment("bob", a, "", fmt.Sprint("mine ", i)))
	}
	e.comment("carol", a, mine[0], "not bob's")
	if err := e.store.EditComment(ctx, mine[1], "edited"); err != nil {
		t.Fatal(err)
	}
	if c, _ := e.store.Comment(ctx, mine[1]); c.Body != "edited" {
		t.Errorf("the body after the edit = %q", c.Body)
	}
	before := e.dump()
	if err := e.store.EditComment(ctx, mine[1], ""); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("an empty edit: %v", err)
	}
	if err := e.store.EditComment(ctx, "999", "x"); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("an edit of no comment: %v", err)
	}
	if e.dump() != before {
		t.Error("a refused edit wrote")
	}
	if err := e.store.DeleteComment(ctx, mine[2]); err != nil {
		t.Fatal(err)
	}
	page, next, err := e.store.UserComments(ctx, "bob", voting.Paging{Size: 1})
	if err != nil || len(page) != 1 || page[0].ID != mine[1] || next == "" {
		t.Fatalf("bob's first comment = %v, %q, %v", commentIDs(page), next, err)
	}
	page, next, err = e.store.UserComments(ctx, "bob", voting.Paging{After: next, Size: 1})
	if err != nil || len(page) != 1 || page[0].ID != mine[0] || next != "" {
		t.Errorf("bob's next comment = %v, %q, %v", commentIDs(page), next, err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

func TestThreadReadsATreeInBoundedRoundTrips(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	trips := roundtrip.New(e.redis())
	s, err := voting.New(trips, noBuilder, voting.WithPrefix(e.prefix), voting.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	a := e.post("alice", "discussed")
	// Three tops; the first with three replies, the first of those with
	// two of its own, and one of those with one more.
	tops := []string{e.comment("u", a, "", "t0"), e.comment("u", a, "", "t1"), e.comment("u", a, "", "t2")}
	e.voteComment("v", tops[0], voting.Up)
	e.voteComment("w", tops[0], voting.Up)
	e.voteComment("v", tops[1], voting.Up)
	r := []string{e.comment("u", a, tops[0], "r0"), e.comment("u", a, tops[0], "r1"), e.comment("u", a, tops[0], "r2")}
	e.voteComment("v", r[0], voting.Up)
	rr := []string{e.comment("u", a, r[0], "rr0"), e.comment("u", a, r[0], "rr1")}
	e.voteComment("v", rr[0], voting.Up)
	e.comment("u", a, rr[0], "rrr0")

	trips.Reset()
	nodes, more, err := s.Thread(ctx, a, voting.ThreadQuery{Order: voting.CommentsByTop, Top: 2, Replies: 2, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := trips.Trips(); got != 2+2 {
		t.Errorf("the thread took %d round trips, want depth + 2 = 4", got)
	}
	if more != 1 {
		t.Errorf("more = %d, want 1 top-level comment not read", more)
	}
	var b strings.Builder
	var walk func(ns []voting.CommentNode, depth int)
	walk = func(ns []voting.CommentNode, depth int) {
		for _, n := range ns {
			fmt.Fprintf(&b, "%s%s more=%d;", strings.Repeat(".", depth), n.Body, n.More)
			walk(n.Children, depth+1)
		}
	}
	walk(nodes, 0)
	if want := "t0 more=1;.r0 more=0;..rr0 more=1;..rr1 more=0;.r2 more=0;t1 more=0;"; b.String() != want {
		t.Errorf("the tree = %s\nwant       %s", b.String(), want)
	}
	for _, bad := range []voting.ThreadQuery{{Top: -1}, {Depth: voting.MaxThreadDepth + 1}, {Top: 1000, Replies: 1000, Depth: 1}, {Order: 7}} {
		if _, _, err := s.Thread(ctx, a, bad); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("Thread(%+v): %v, want ErrInvalid", bad, err)
		}
	}
	if _, _, err := s.Thread(ctx, "999", voting.ThreadQuery{}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("the thread of no article: %v", err)
	}
}

func TestDeleteArticleTakesItsDiscussion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	kept := e.post("alice", "kept")
	keep := e.comment("bob", kept, "", "stays")
	parent := ""
	for i := range 450 { // three steps of the purge
		id := e.comment(fmt.Sprint("u", i%7), a, parent, fmt.Sprint("c", i))
		if i%3 == 0 {
			parent = id
		}
	}
	e.voteComment("zed", parent, voting.Down)
	if err := e.store.DeleteArticle(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, k := range e.keys() {
		name := strings.TrimPrefix(k, e.prefix)
		if strings.Contains(name, "article:"+a) || strings.HasPrefix(name, "thread:"+a) {
			t.Errorf("%s is left after the article's deletion", k)
		}
	}
	if c, err := e.store.Comment(ctx, keep); err != nil || c.Body != "stays" {
		t.Errorf("another article's comment = %+v, %v", c, err)
	}
	page, _, err := e.store.UserComments(ctx, "u0", voting.Paging{Page: 1})
	if err != nil || len(page) != 0 {
		t.Errorf("u0's comments after the deletion = %v, %v", commentIDs(page), err)
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}

// A chain of tombstones longer than one step climbs goes a hundred at a
// time, each step reading every parent whose count it lowers.
func TestDeleteCommentClimbsAHundredTombstones(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "deep")
	chain := []string{e.comment("bob", a, "", "0")}
	for i := 1; i < 105; i++ {
		chain = append(chain, e.comment("bob", a, chain[i-1], fmt.Sprint(i)))
	}
	for _, id := range chain[:104] {
		if err := e.store.DeleteComment(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	// The tombstone above the hundred, whose count the step lowers, is
	// read first: of the wrong type, it stops the step before any write.
	restore := e.corruptAs(e.key("comment:"+chain[3]), "string")
	before := e.dump()
	if err := e.store.DeleteComment(ctx, chain[104]); !errors.Is(err, voting.ErrCorrupt) {
		t.Errorf("deleting under a parent of the wrong type: %v, want ErrCorrupt", err)
	}
	if e.dump() != before {
		t.Error("the refused deletion wrote")
	}
	restore()
	if err := e.store.DeleteComment(ctx, chain[104]); err != nil {
		t.Fatal(err)
	}
	// The deepest and the 100 tombstones above it are gone; the tombstone
	// above those has no reply left, and the 3 above it one each.
	for i, id := range chain {
		c, err := e.store.Comment(ctx, id)
		switch {
		case i >= 4:
			if !errors.Is(err, voting.ErrNotFound) {
				t.Errorf("comment %d of the chain = %+v, %v; want it gone", i, c, err)
			}
		case err != nil || !c.Deleted || c.Replies != map[bool]int64{true: 0, false: 1}[i == 3]:
			t.Errorf("comment %d of the chain = %+v, %v", i, c, err)
		}
	}
}

// A reply whose parent a deletion of the article took already (a
// DeleteArticle cut short) is deleted without a count to lower.
func TestDeleteCommentOfAParentGoneAlready(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "going")
	p := e.comment("bob", a, "", "parent")
	r := e.comment("carol", a, p, "reply")
	e.do("DEL", e.key("comment:"+p), e.article(a))
	if err := e.store.DeleteComment(ctx, r); err != nil {
		t.Fatalf("deleting the reply: %v", err)
	}
	if e.exists(e.key("comment:" + p)) {
		t.Error("the deletion wrote the parent's hash again")
	}
}

// TestACommentBodyIsMultiLineText: a body keeps its line breaks, tabs,
// indentation and spaces at either end, as posted and as edited, in every
// read.
func TestACommentBodyIsMultiLineText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	long := strings.Repeat("\n", voting.MaxCommentLen-1) + "x"
	for _, body := range []string{
		"first line\nsecond line",
		"para\r\n\r\npara",
		"list:\n- one\n- two",
		"a\ttab",
		"    indented code",
		"a trailing space ",
		"\nstarts with a line break",
		long,
	} {
		short := body
		if len(short) > 40 {
			short = short[:40] + "..."
		}
		id, err := e.store.PostComment(ctx, "bob", a, "", body)
		if err != nil {
			t.Errorf("PostComment(%q) = %v", short, err)
			continue
		}
		if got := e.hash(e.key("comment:" + id))["body"]; got != body {
			t.Errorf("comment:%s body = %q, want %q", id, got, short)
		}
		if c, err := e.store.Comment(ctx, id); err != nil || c.Body != body {
			t.Errorf("Comment(%s) = %v, the body as posted %t; want %q", id, err, c.Body == body, short)
		}
		edited := "\tedited\n" + body
		if body == long {
			edited = strings.Repeat("\t", voting.MaxCommentLen-1) + "y"
		}
		if err := e.store.EditComment(ctx, id, edited); err != nil {
			t.Errorf("EditComment of %q = %v", short, err)
		}
		if c, err := e.store.Comment(ctx, id); err != nil || c.Body != edited {
			t.Errorf("Comment(%s) after the edit = %v, the body as edited %t", id, err, c.Body == edited)
		}
	}
	page, _, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: voting.CommentsByOld})
	if err != nil || len(page) != 8 || page[0].Body != "\tedited\nfirst line\nsecond line" {
		t.Fatalf("Comments oldest first = %d comments, first %q, %v", len(page), firstBody(page), err)
	}
	before := e.dump()
	if err := e.store.EditComment(ctx, page[0].ID, "bad\x00"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("EditComment with a NUL = %v, want ErrInvalid", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a refused edit wrote")
	}
}

func firstBody(page []voting.Comment) string {
	if len(page) == 0 {
		return ""
	}
	return page[0].Body
}

// TestACommentPageTooFarOnIsEmpty: a page number so large that its bounds
// overflow is past the end of every list of comments, as of articles.
func TestACommentPageTooFarOnIsEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	top := e.comment("bob", a, "", "first")
	e.comment("carol", a, top, "reply")
	for _, page := range []int{3, math.MaxInt} {
		for _, o := range []voting.CommentOrder{voting.CommentsByBest, voting.CommentsByTop, voting.CommentsByNew,
			voting.CommentsByOld, voting.CommentsByControversy} {
			for _, parent := range []string{"", top} {
				got, next, err := e.store.Comments(ctx, a, voting.CommentQuery{Parent: parent, Order: o, Paging: voting.Paging{Page: page}})
				if err != nil || len(got) != 0 || next != "" {
					t.Errorf("Comments(parent %q, %v, page %d) = %v, %q, %v; want an empty page", parent, o, page, commentIDs(got), next, err)
				}
			}
		}
		got, next, err := e.store.UserComments(ctx, "bob", voting.Paging{Page: page})
		if err != nil || len(got) != 0 || next != "" {
			t.Errorf("UserComments(page %d) = %v, %q, %v; want an empty page", page, commentIDs(got), next, err)
		}
	}
	if _, _, err := e.store.Comments(ctx, "999", voting.CommentQuery{Paging: voting.Paging{Page: math.MaxInt}}); !errors.Is(err, voting.ErrNotFound) {
		t.Errorf("Comments of no article, a page too far on = %v, want ErrNotFound", err)
	}
}

// TestACommentCursorCarriesNoKey: a cursor of a list of comments holds the
// comment's id, as an article cursor holds the article's, not the
// namespace's key of it, and a walk by cursor still lists every comment.
func TestACommentCursorCarriesNoKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	var ids []string
	for i := range 5 {
		ids = append(ids, e.comment("bob", a, "", fmt.Sprintf("comment %d", i)))
		e.advance(time.Second)
	}
	for _, o := range []voting.CommentOrder{voting.CommentsByNew, voting.CommentsByOld} {
		var walked []string
		after := ""
		for {
			page, next, err := e.store.Comments(ctx, a, voting.CommentQuery{Order: o, Paging: voting.Paging{After: after, Size: 2}})
			if err != nil {
				t.Fatal(err)
			}
			walked = append(walked, commentIDs(page)...)
			if next == "" {
				break
			}
			raw, err := base64.RawURLEncoding.DecodeString(next)
			if err != nil {
				t.Fatal(err)
			}
			fields := strings.Split(string(raw), "\n")
			if last := page[len(page)-1].ID; fields[len(fields)-1] != last || strings.Contains(string(raw), "comment:") {
				t.Errorf("%v: a cursor holds %q, want the last comment's id %s alone", o, raw, last)
			}
			after = next
		}
		if want := sorted(ids); !reflect.DeepEqual(sorted(walked), want) || len(walked) != len(ids) {
			t.Errorf("%v by cursor: %v, want each of %v once", o, walked, ids)
		}
	}
	_, next, err := e.store.UserComments(ctx, "bob", voting.Paging{Size: 2})
	raw, _ := base64.RawURLEncoding.DecodeString(next)
	if err != nil || strings.Contains(string(raw), "comment:") {
		t.Errorf("UserComments' cursor holds %q, %v; want no key", raw, err)
	}
}

// TestACommentVoteAtTheCutoffIsClosed: a vote at exactly the comment's
// posting time plus the cutoff is closed, and a millisecond before it is
// open, by the Store's clock alone (Redis's keeps the voter sets).
func TestACommentVoteAtTheCutoffIsClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithCutoff(time.Hour))
	a := e.post("alice", "discussed")
	open := e.comment("bob", a, "", "open")
	closed := e.comment("bob", a, "", "closed")
	posted := e.clock.Now()
	e.clock.set(posted.Add(time.Hour - time.Millisecond))
	if err := e.store.VoteComment(ctx, "carol", open, voting.Up); err != nil {
		t.Errorf("a vote a millisecond before the cutoff = %v", err)
	}
	e.clock.set(posted.Add(time.Hour))
	before := e.dump()
	if err := e.store.VoteComment(ctx, "carol", closed, voting.Up); !errors.Is(err, voting.ErrVotingClosed) {
		t.Errorf("a vote at exactly the cutoff = %v, want ErrVotingClosed", err)
	}
	if after := e.dump(); after != before {
		t.Errorf("a closed vote wrote:\n%s\nwas:\n%s", after, before)
	}
}

// TestAnOldestFirstCursorPastADeletedComment: a cursor of the comments
// oldest first whose comment is deleted since goes on with the comments
// after it, those of the same second among them, each once.
func TestAnOldestFirstCursorPastADeletedComment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	var ids []string
	for i := range 5 {
		ids = append(ids, e.comment("bob", a, "", fmt.Sprintf("comment %d", i))) // all in one second
	}
	q := voting.CommentQuery{Order: voting.CommentsByOld, Paging: voting.Paging{Size: 2}}
	first, next, err := e.store.Comments(ctx, a, q)
	if err != nil || len(first) != 2 || next == "" {
		t.Fatalf("the first page = %v, %q, %v", commentIDs(first), next, err)
	}
	if err := e.store.DeleteComment(ctx, first[1].ID); err != nil {
		t.Fatal(err)
	}
	walked := commentIDs(first)
	for next != "" {
		q.After = next
		var page []voting.Comment
		if page, next, err = e.store.Comments(ctx, a, q); err != nil {
			t.Fatal(err)
		}
		walked = append(walked, commentIDs(page)...)
	}
	if !reflect.DeepEqual(sorted(walked), sorted(ids)) {
		t.Errorf("the walk listed %v, want each of %v once", walked, ids)
	}
}

// TestThreadsDefaultFitsLargePageSizes: Thread with a zero ThreadQuery
// takes the Store's page size for its top comments, or fewer where the
// tree would pass MaxThreadNodes, at any page size.
func TestThreadsDefaultFitsLargePageSizes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	for i := range 5 {
		top := e.comment("bob", a, "", fmt.Sprintf("top %d", i))
		e.comment("carol", a, top, "reply")
	}
	for _, size := range []int{25, 100, 500, voting.MaxPageSize} {
		s := e.with(voting.WithPageSize(size))
		nodes, more, err := s.Thread(ctx, a, voting.ThreadQuery{})
		if err != nil || len(nodes) != 5 || more != 0 {
			t.Errorf("Thread with page size %d = %d top comments, %d more, %v; want the 5", size, len(nodes), more, err)
		}
	}
}

// TestAReplyAtMaxCommentDepth: a reply at MaxCommentDepth is taken, one a
// level deeper is refused and writes nothing.
func TestAReplyAtMaxCommentDepth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	top := e.comment("bob", a, "", "top")
	parent := e.comment("bob", a, top, "a reply")
	// The chain to MaxCommentDepth, but for its last two levels, as its
	// depth says.
	e.do("HSET", e.key("comment:"+parent), "depth", voting.MaxCommentDepth-1)
	deepest, err := e.store.PostComment(ctx, "carol", a, parent, "the deepest")
	if err != nil {
		t.Fatalf("a reply at MaxCommentDepth = %v", err)
	}
	if got := e.hash(e.key("comment:" + deepest))["depth"]; got != strconv.Itoa(voting.MaxCommentDepth) {
		t.Errorf("the deepest reply's depth = %s, want %d", got, voting.MaxCommentDepth)
	}
	before := e.dump()
	if _, err := e.store.PostComment(ctx, "dave", a, deepest, "too deep"); !errors.Is(err, voting.ErrInvalid) {
		t.Errorf("a reply past MaxCommentDepth = %v, want ErrInvalid", err)
	}
	if after := e.dump(); after != before {
		t.Error("a reply too deep wrote")
	}
}

// TestReindexSkipsAReplyWhoseParentIsGone: Reindex skips and counts a
// reply whose parent comment's hash is gone, and indexes the others.
func TestReindexSkipsAReplyWhoseParentIsGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post("alice", "discussed")
	gone := e.comment("bob", a, "", "gone")
	orphan := e.comment("carol", a, gone, "an orphan")
	kept := e.comment("dave", a, "", "kept")
	e.do("DEL", e.key("comment:"+gone))
	for _, kind := range []string{"best", "net", "time", "controversy"} {
		e.do("DEL", e.key("replies:"+kind+":a:"+a), e.key("replies:"+kind+":c:"+gone))
	}
	e.do("DEL", e.key("thread:"+a))
	p, err := e.store.ReindexWithProgress(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Comments != 1 || p.Skipped != 1 {
		t.Errorf("Reindex's progress = %+v, want 1 comment indexed and the orphan skipped", p)
	}
	if got := e.zset(e.key("thread:" + a)); len(got) != 1 || !strings.HasSuffix(got[0], "comment:"+kept+"=1795305600") {
		t.Errorf("thread:%s = %v, want comment %s alone", a, got, kept)
	}
	if e.exists(e.key("replies:time:c:" + gone)) {
		t.Errorf("Reindex indexed the orphan %s under its gone parent", orphan)
	}
}
