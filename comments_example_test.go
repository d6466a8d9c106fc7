package voting_test

// The examples of docs/comments.md: each ```go block of that guide is a run
// of lines of one of these functions, which go test compiles and runs,
// output included; TestDocsGoBlocksAreCompiled keeps the copies true.

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/articlevote/voting"
)

// comment posts a comment by poster on article (a reply to parent if not
// "") with votes from ups and downs other users, and returns its id.
func (d *docSite) comment(store *voting.Store, poster, article, parent, body string, ups, downs int) string {
	ctx := context.Background()
	id, err := store.PostComment(ctx, poster, article, parent, body)
	if err != nil {
		log.Fatal(err)
	}
	for i := range ups + downs {
		dir := voting.Up
		if i >= ups {
			dir = voting.Down
		}
		if err := store.VoteComment(ctx, fmt.Sprintf("voter%d", i), id, dir); err != nil {
			log.Fatal(err)
		}
	}
	return id
}

// A comment on an article and a reply to it: each starts with its
// poster's up-vote, and the article counts both.
func ExampleStore_PostComment_reply() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	article := site.post(store, "alice", "Redis in Action", 0, 0)

	top, err := store.PostComment(ctx, "bob", article, "", "Chapter 1 is the best intro to sorted sets.")
	if err != nil {
		log.Fatal(err)
	}
	reply, err := store.PostComment(ctx, "carol", article, top, "Agreed, and chapter 6 for Lua.")
	if err != nil {
		log.Fatal(err)
	}
	c, err := store.Comment(ctx, reply)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("comment %s by %s, a reply to %s at depth %d, %+d points\n", c.ID, c.Poster, c.ParentID, c.Depth, c.Points)
	a, err := store.Article(ctx, article)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q has %d comments\n", a.Title, a.Comments)

	_, err = store.PostComment(ctx, "dave", article, "99", "A reply to nothing")
	fmt.Println(errors.Is(err, voting.ErrNotFound))
	// Output:
	// comment 2 by carol, a reply to 1 at depth 1, +1 points
	// "Redis in Action" has 2 comments
	// true
}

// A page of comments with a viewer's arrows beside each, and a vote after
// the cutoff.
func ExampleStore_UserCommentVotes_arrows() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	article := site.post(store, "alice", "Redis in Action", 0, 0)
	first := site.comment(store, "bob", article, "", "First!", 0, 2)
	site.comment(store, "carol", article, "", "A careful review", 3, 0)

	if err := store.VoteComment(ctx, "dave", first, voting.Up); err != nil {
		log.Fatal(err)
	}
	page, _, err := store.Comments(ctx, article, voting.CommentQuery{Order: voting.CommentsByTop})
	if err != nil {
		log.Fatal(err)
	}
	ids := make([]string, len(page))
	for i, c := range page {
		ids[i] = c.ID
	}
	arrows, err := store.UserCommentVotes(ctx, "dave", ids...)
	if err != nil {
		log.Fatal(err)
	}
	for i, c := range page {
		fmt.Printf("%-16s %+d points, dave: %v\n", c.Body, c.Points, arrows[i])
	}

	site.advance(voting.DefaultCutoff) // a week after the comments
	err = store.VoteComment(ctx, "erin", first, voting.Up)
	fmt.Println(errors.Is(err, voting.ErrVotingClosed))
	// Output:
	// A careful review +4 points, dave: none
	// First!           +0 points, dave: up
	// true
}

// One article's comments in each of the five sorts, by the names a
// request gives.
func ExampleParseCommentOrder_sorts() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	article := site.post(store, "alice", "Redis in Action", 0, 0)
	site.comment(store, "bob", article, "", "Few votes, all up", 8, 0)
	site.advance(time.Hour)
	site.comment(store, "carol", article, "", "Many votes, mostly up", 20, 3)
	site.advance(time.Hour)
	site.comment(store, "dave", article, "", "Split down the middle", 9, 10)
	site.advance(time.Hour)
	site.comment(store, "erin", article, "", "Newest, no votes", 0, 0)

	for _, name := range []string{"best", "top", "new", "old", "controversial"} {
		order, err := voting.ParseCommentOrder(name) // ?sort= of a request
		if err != nil {
			log.Fatal(err) // a handler answers 400: errors.Is(err, voting.ErrInvalid)
		}
		page, _, err := store.Comments(ctx, article, voting.CommentQuery{Order: order})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(order)
		for _, c := range page {
			fmt.Printf("  %-22s %+d (%d up, %d down)\n", c.Body, c.Points, c.Upvotes, c.Downvotes)
		}
	}
	// Output:
	// best
	//   Few votes, all up      +9 (9 up, 0 down)
	//   Many votes, mostly up  +18 (21 up, 3 down)
	//   Newest, no votes       +1 (1 up, 0 down)
	//   Split down the middle  +0 (10 up, 10 down)
	// top
	//   Many votes, mostly up  +18 (21 up, 3 down)
	//   Few votes, all up      +9 (9 up, 0 down)
	//   Newest, no votes       +1 (1 up, 0 down)
	//   Split down the middle  +0 (10 up, 10 down)
	// new
	//   Newest, no votes       +1 (1 up, 0 down)
	//   Split down the middle  +0 (10 up, 10 down)
	//   Many votes, mostly up  +18 (21 up, 3 down)
	//   Few votes, all up      +9 (9 up, 0 down)
	// old
	//   Few votes, all up      +9 (9 up, 0 down)
	//   Many votes, mostly up  +18 (21 up, 3 down)
	//   Split down the middle  +0 (10 up, 10 down)
	//   Newest, no votes       +1 (1 up, 0 down)
	// controversial
	//   Split down the middle  +0 (10 up, 10 down)
	//   Many votes, mostly up  +18 (21 up, 3 down)
	//   Newest, no votes       +1 (1 up, 0 down)
	//   Few votes, all up      +9 (9 up, 0 down)
}

// The first screen of a discussion as a tree, with "load more" where a
// comment has replies the tree left out, and those replies loaded.
func ExampleStore_Thread_loadMore() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	article := site.post(store, "alice", "Redis in Action", 0, 0)
	question := site.comment(store, "bob", article, "", "Which chapter first?", 0, 0)
	for i, who := range []string{"carol", "dave", "erin", "frank", "grace"} {
		site.advance(time.Minute)
		reply := site.comment(store, who, article, question, fmt.Sprintf("Chapter %d", i+1), 0, 0)
		if i == 0 {
			site.comment(store, "bob", article, reply, "Thanks!", 0, 0)
		}
	}
	site.comment(store, "heidi", article, "", "Great book", 0, 0)
	site.comment(store, "ivan", article, "", "Out of date?", 0, 0)

	q := voting.ThreadQuery{Order: voting.CommentsByOld, Top: 2, Replies: 2, Depth: 1}
	nodes, more, err := store.Thread(ctx, article, q)
	if err != nil {
		log.Fatal(err)
	}
	var show func(nodes []voting.CommentNode, indent string)
	show = func(nodes []voting.CommentNode, indent string) {
		for _, n := range nodes {
			fmt.Printf("%s%s: %s\n", indent, n.Poster, n.Body)
			show(n.Children, indent+"  ")
			if n.More > 0 {
				fmt.Printf("%s  [load %d more]\n", indent, n.More)
			}
		}
	}
	show(nodes, "")
	fmt.Printf("[load %d more comments]\n", more)

	// "load 3 more" under the question: its replies, a page by cursor.
	replies, next, err := store.Comments(ctx, article, voting.CommentQuery{Parent: question, Order: q.Order})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range replies {
		fmt.Printf("  %s: %s, replies %d\n", c.Poster, c.Body, c.Replies)
	}
	fmt.Println("more:", next != "")

	// "load 1 more comments": the page after the tree's first q.Top.
	rest, _, err := store.Comments(ctx, article, voting.CommentQuery{Order: q.Order, Paging: voting.Paging{Page: 2, Size: q.Top}})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range rest {
		fmt.Printf("%s: %s\n", c.Poster, c.Body)
	}
	// Output:
	// bob: Which chapter first?
	//   carol: Chapter 1
	//     [load 1 more]
	//   dave: Chapter 2
	//   [load 3 more]
	// heidi: Great book
	// [load 1 more comments]
	//   carol: Chapter 1, replies 1
	//   dave: Chapter 2, replies 0
	//   erin: Chapter 3, replies 0
	//   frank: Chapter 4, replies 0
	//   grace: Chapter 5, replies 0
	// more: false
	// ivan: Out of date?
}

// A walk through an article's comments by cursor, newest first, two a
// page.
func ExampleCommentQuery_cursor() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	article := site.post(store, "alice", "Redis in Action", 0, 0)
	for _, body := range []string{"One", "Two", "Three", "Four", "Five"} {
		site.comment(store, "bob", article, "", body, 0, 0)
		site.advance(time.Minute)
	}

	q := voting.CommentQuery{Order: voting.CommentsByNew, Paging: voting.Paging{Size: 2}}
	for {
		page, next, err := store.Comments(ctx, article, q)
		if err != nil {
			log.Fatal(err)
		}
		for _, c := range page {
			fmt.Print(c.Body, " ")
		}
		fmt.Println("|")
		if next == "" {
			break
		}
		q.After = next
	}
	// Output:
	// Five Four |
	// Three Two |
	// One |
}

// Deleting a comment that has a reply leaves a tombstone in its place,
// the reply under it; deleting one without replies takes it away.
func ExampleStore_DeleteComment_tombstone() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	article := site.post(store, "alice", "Redis in Action", 0, 0)
	parent := site.comment(store, "bob", article, "", "Buy it at my shop!", 0, 0)
	site.comment(store, "carol", article, parent, "The library has it too.", 0, 0)
	lonely := site.comment(store, "dave", article, "", "Me too", 0, 0)

	for _, id := range []string{parent, lonely} {
		if err := store.DeleteComment(ctx, id); err != nil {
			log.Fatal(err)
		}
	}
	page, _, err := store.Comments(ctx, article, voting.CommentQuery{})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range page {
		if c.Deleted {
			fmt.Printf("%s [deleted] poster %q, body %q, replies %d\n", c.ID, c.Poster, c.Body, c.Replies)
		}
	}
	replies, _, err := store.Comments(ctx, article, voting.CommentQuery{Parent: parent})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("  %s %s: %s\n", replies[0].ID, replies[0].Poster, replies[0].Body)
	_, err = store.Comment(ctx, lonely)
	fmt.Println(errors.Is(err, voting.ErrNotFound))
	a, err := store.Article(ctx, article)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Comments, "comment")
	// Output:
	// 1 [deleted] poster "", body "", replies 1
	//   2 carol: The library has it too.
	// true
	// 1 comment
}

// A comment's body is multi-line text, kept as posted; a blank one, or one
// with a control character other than tab and line breaks, is refused.
func ExampleStore_PostComment_multiLine() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store()
	article := site.post(store, "alice", "Redis in Action", 0, 0)

	body := "Two things:\r\n\r\n\t- sorted sets\n\t- Lua scripts\n\n  -- bob "
	id, err := store.PostComment(ctx, "bob", article, "", body)
	if err != nil {
		log.Fatal(err)
	}
	c, err := store.Comment(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Body == body)
	fmt.Printf("%q\n", c.Body)

	tooLong := strings.Repeat("word ", voting.MaxCommentLen/5) + "!"
	for _, bad := range []string{" \n\t\n", "a bell\a", "Latin-1 caf\xe9", tooLong} {
		_, err := store.PostComment(ctx, "bob", article, "", bad)
		fmt.Println(errors.Is(err, voting.ErrInvalid), err)
	}
	// Output:
	// true
	// "Two things:\r\n\r\n\t- sorted sets\n\t- Lua scripts\n\n  -- bob "
	// true voting: comment on article 1: invalid input: comment is blank: it has only white space
	// true voting: comment on article 1: invalid input: comment holds the control character U+0007 at byte 6
	// true voting: comment on article 1: invalid input: comment is not valid UTF-8
	// true voting: comment on article 1: invalid input: comment is longer than 10000 characters
}

// Comment karma, kept apart from the karma of articles, and a user's
// counts and karma in one read.
func ExampleStore_CommentKarma() {
	site := newDocSite()
	defer site.stop()
	ctx := context.Background()
	store := site.store(voting.WithKarma())
	article := site.post(store, "alice", "Redis in Action", 2, 0)
	site.comment(store, "bob", article, "", "A careful review", 3, 1)
	site.comment(store, "carol", article, "", "First!", 0, 2)

	karma, err := store.CommentKarma(ctx, "bob")
	if err != nil {
		log.Fatal(err)
	}
	top, _, err := store.TopCommenters(ctx, voting.Paging{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(karma, top)
	p, err := store.Profile(ctx, "bob")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: posts %d, comments %d, karma %d, comment karma %d\n", p.User, p.Posts, p.Comments, p.Karma, p.CommentKarma)
	// Output:
	// 2 [{bob 2} {carol -2}]
	// bob: posts 0, comments 1, karma 0, comment karma 2
}
