package main

// This file holds the site's comments: an article's thread on its page,
// with sort tabs, vote arrows, reply forms and "load more" links that work
// without JavaScript; a page of a comment's replies (or of more comments
// on the article); and the JSON API's comment routes.

import (
	"context"
	"net/http"
	"net/url"

	"github.com/articlevote/voting"
)

// commentSorts are the thread's tabs, in the order shown.
var commentSorts = []string{"best", "top", "new", "old", "controversial"}

var errNotCommenter = &siteError{http.StatusForbidden, "only the poster may delete a comment"}

// A thread is what an article's page shows of its discussion: a tree, or
// a page of one parent's comments, with the viewer's votes on them.
type thread struct {
	Sort   string
	Nodes  []voting.CommentNode
	More   int64  // comments on the article not shown
	Parent string // the comment whose replies a page of replies shows
	Next   string // that page's next cursor
	Votes  map[string]string
}

// sortOf is the comment order a request's "sort" names, best by default.
func sortOf(r *http.Request) (voting.CommentOrder, string, error) {
	name := r.URL.Query().Get("sort")
	if name == "" {
		name = "best"
	}
	o, err := voting.ParseCommentOrder(name)
	return o, name, err
}

// commentVotes reads the viewer's votes on the comments of nodes, and their
// children, for the arrows.
func (s *server) commentVotes(r *http.Request, nodes []voting.CommentNode) map[string]string {
	votes := map[string]string{}
	viewer := s.viewer(r)
	if viewer == "" {
		return votes
	}
	var ids []string
	var walk func([]voting.CommentNode)
	walk = func(ns []voting.CommentNode) {
		for _, n := range ns {
			ids = append(ids, n.ID)
			walk(n.Children)
		}
	}
	walk(nodes)
	dirs, err := s.store.UserCommentVotes(r.Context(), viewer, ids...)
	if err != nil {
		s.warn(r, "read the viewer's votes on comments", err) // the arrows show none
		return votes
	}
	for i, d := range dirs {
		if d != voting.None {
			votes[ids[i]] = d.String()
		}
	}
	return votes
}

// threadOf reads the first screen of an article's thread in the request's
// sort.
func (s *server) threadOf(r *http.Request, id string) (*thread, error) {
	o, name, err := sortOf(r)
	if err != nil {
		return nil, err
	}
	nodes, more, err := s.store.Thread(r.Context(), id, voting.ThreadQuery{Order: o, Top: 30, Replies: 3, Depth: 3})
	if err != nil {
		return nil, err
	}
	return &thread{Sort: name, Nodes: nodes, More: more, Votes: s.commentVotes(r, nodes)}, nil
}

// repliesPage shows one page of a comment's replies, or with no parent of
// the comments on the article, by cursor, each with its own replies'
// count: where "load more" goes.
func (s *server) repliesPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.view(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	o, name, err := sortOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	comments, next, err := s.store.Comments(r.Context(), v.ID, voting.CommentQuery{Parent: q.Get("parent"), Order: o,
		Paging: voting.Paging{After: q.Get("after")}})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	nodes := make([]voting.CommentNode, len(comments))
	for i, c := range comments {
		nodes[i] = voting.CommentNode{Comment: c, More: c.Replies, Children: []voting.CommentNode{}}
	}
	t := &thread{Sort: name, Nodes: nodes, Parent: q.Get("parent"), Next: next, Votes: s.commentVotes(r, nodes)}
	s.render(w, r, http.StatusOK, "article.html", &pageData{Title: v.Title, Article: &v, Votes: s.votes(r, []ranked{v}), Thread: t})
}

// MoreRepliesHref is where "load more" of a comment's replies goes.
func (t *thread) MoreRepliesHref(article, parent string) string {
	return "/a/" + url.PathEscape(article) + "/comments?" + url.Values{"parent": {parent}, "sort": {t.Sort}}.Encode()
}

// NextHref is the page after a page of comments.
func (t *thread) NextHref(article string) string {
	q := url.Values{"sort": {t.Sort}, "after": {t.Next}}
	if t.Parent != "" {
		q.Set("parent", t.Parent)
	}
	return "/a/" + url.PathEscape(article) + "/comments?" + q.Encode()
}

// MoreHref is where "load more" of the article's own comments goes.
func (t *thread) MoreHref(article string) string {
	return "/a/" + url.PathEscape(article) + "/comments?" + url.Values{"sort": {t.Sort}}.Encode()
}

// Sorts are the tabs.
func (t *thread) Sorts() []string { return commentSorts }

// comment posts body by user on the article, as a reply to parent if not "".
func (s *server) comment(ctx context.Context, user, article, parent, body string) (voting.Comment, error) {
	if user == "" {
		return voting.Comment{}, errNoSession
	}
	id, err := s.store.PostComment(ctx, user, article, parent, body)
	if err != nil {
		return voting.Comment{}, err
	}
	return s.store.Comment(ctx, id)
}

// voteComment records user's vote on a comment.
func (s *server) voteComment(ctx context.Context, user, id string, dir voting.Direction) (voting.Comment, error) {
	if user == "" {
		return voting.Comment{}, errNoSession
	}
	if err := s.store.VoteComment(ctx, user, id, dir); err != nil {
		return voting.Comment{}, err
	}
	return s.store.Comment(ctx, id)
}

// removeComment deletes a comment, by its poster alone.
func (s *server) removeComment(ctx context.Context, user, id string) error {
	if user == "" {
		return errNoSession
	}
	c, err := s.store.Comment(ctx, id)
	if err != nil {
		return err
	}
	if !c.Deleted && c.Poster != user {
		return errNotCommenter
	}
	return s.store.DeleteComment(ctx, id) // a tombstone's is not found
}

func (s *server) commentForm(w http.ResponseWriter, r *http.Request) {
	if _, err := s.comment(r.Context(), s.viewer(r), r.PathValue("id"), r.PostFormValue("parent"), r.PostFormValue("body")); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}

func (s *server) commentVoteForm(w http.ResponseWriter, r *http.Request) {
	dir, err := voting.ParseDirection(r.PostFormValue("dir"))
	if err == nil {
		_, err = s.voteComment(r.Context(), s.viewer(r), r.PathValue("cid"), dir)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}

func (s *server) commentDeleteForm(w http.ResponseWriter, r *http.Request) {
	if err := s.removeComment(r.Context(), s.viewer(r), r.PathValue("cid")); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}

// The JSON API's comment routes.

func (s *server) apiComments(w http.ResponseWriter, r *http.Request) {
	o, _, err := sortOf(r)
	if err != nil {
		apiFail(w, r, err)
		return
	}
	q := r.URL.Query()
	p, err := pagingOf(q)
	if err != nil {
		apiFail(w, r, err)
		return
	}
	comments, next, err := s.store.Comments(r.Context(), r.PathValue("id"), voting.CommentQuery{Parent: q.Get("parent"), Order: o, Paging: p})
	answer(w, r, map[string]any{"comments": comments, "next": next}, err)
}

func (s *server) apiThread(w http.ResponseWriter, r *http.Request) {
	o, _, err := sortOf(r)
	if err != nil {
		apiFail(w, r, err)
		return
	}
	nodes, more, err := s.store.Thread(r.Context(), r.PathValue("id"), voting.ThreadQuery{Order: o})
	answer(w, r, map[string]any{"comments": nodes, "more": more}, err)
}

func (s *server) apiPostComment(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Parent string `json:"parent"`
		Body   string `json:"body"`
	}
	if err := decode(r, &body); err != nil {
		apiFail(w, r, err)
		return
	}
	c, err := s.comment(r.Context(), s.viewer(r), r.PathValue("id"), body.Parent, body.Body)
	if err != nil {
		apiFail(w, r, err)
		return
	}
	reply(w, http.StatusCreated, c)
}

func (s *server) apiVoteComment(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Direction voting.Direction `json:"direction"`
	}
	if err := decode(r, &body); err != nil {
		apiFail(w, r, err)
		return
	}
	c, err := s.voteComment(r.Context(), s.viewer(r), r.PathValue("cid"), body.Direction)
	answer(w, r, c, err)
}

func (s *server) apiDeleteComment(w http.ResponseWriter, r *http.Request) {
	if err := s.removeComment(r.Context(), s.viewer(r), r.PathValue("cid")); err != nil {
		apiFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) apiUserComments(w http.ResponseWriter, r *http.Request) {
	p, err := pagingOf(r.URL.Query())
	if err != nil {
		apiFail(w, r, err)
		return
	}
	comments, next, err := s.store.UserComments(r.Context(), r.PathValue("user"), p)
	answer(w, r, map[string]any{"comments": comments, "next": next}, err)
}

// A nodeView is one comment of a thread as the "comment" template shows
// it: the node, the page, and the viewer's vote on it.
type nodeView struct {
	voting.CommentNode
	Page *pageData
	Vote string
}

// nodeData is the view of node n of page p.
func nodeData(p *pageData, n voting.CommentNode) nodeView {
	return nodeView{CommentNode: n, Page: p, Vote: p.Thread.Votes[n.ID]}
}
