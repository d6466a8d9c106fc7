package voting_test

// Tests of the package's errors (errors.go): each names the operation once,
// after the package's name, once.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// TestErrorsNameThePackageAndTheOperationOnce: every public method's error
// reads "voting: <operation>: <what went wrong>", whatever went wrong and
// however deep, and wraps the sentinel errors.Is finds.
func TestErrorsNameThePackageAndTheOperationOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithOrders(voting.ByVotes))
	id := e.post("alice", "first", "go")
	e.do("HSET", e.article("9"), "time", "abc", "votes", "1")
	e.do("ZADD", e.key("score:"), 1, e.article("9"))
	history, err := voting.New(e.pool, noBuilder, voting.WithPrefix(e.prefix), voting.WithUserHistory(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		call func() error
		want error
		text string // the error's text begins with it
	}{
		{func() error { _, err := voting.New(e.pool, voting.WithPageSize(0)); return err },
			voting.ErrInvalid, "voting: new store: invalid input: page size 0"},
		{func() error { _, err := e.store.PostArticle(ctx, "alice", "", "https://example.com/"); return err },
			voting.ErrInvalid, "voting: post article: invalid input: title is empty"},
		{func() error { _, err := e.store.PostArticle(ctx, "alice", "   ", "https://example.com/"); return err },
			voting.ErrInvalid, "voting: post article: invalid input: title is blank"},
		{func() error { return e.store.Vote(ctx, "bob", "", voting.Up) },
			voting.ErrInvalid, `voting: vote on article "": invalid input: article id is empty`},
		{func() error { return e.store.Vote(ctx, "bob", id, 0) },
			voting.ErrInvalid, "voting: vote on article " + id + ": invalid input: no vote direction given"},
		{func() error { _, err := voting.New(e.pool, nil); return err },
			voting.ErrInvalid, "voting: new store: invalid input: option 1 of 1 is nil"},
		{func() error { return e.store.Vote(ctx, "bob", "42", voting.Up) },
			voting.ErrNotFound, "voting: vote on article 42: article not found"},
		{func() error { return e.store.Vote(ctx, "bob", "9", voting.Up) },
			voting.ErrCorrupt, "voting: vote on article 9: corrupt data: " + e.article("9") + " field time"},
		{func() error { _, err := e.store.Article(ctx, "9"); return err },
			voting.ErrCorrupt, "voting: article 9: corrupt data: field time"},
		{func() error { _, err := e.store.GetArticles(ctx, 1, voting.TopDay); return err },
			voting.ErrInvalid, "voting: list articles by top-day: invalid input: order top-day is not kept"},
		{func() error {
			_, err := e.store.Count(ctx, voting.Query{Group: "a b", Order: voting.ByScore})
			return err
		},
			voting.ErrInvalid, "voting: count group a b by score: invalid input"},
		{func() error { return e.store.AddToGroups(ctx, id) },
			voting.ErrInvalid, "voting: add article " + id + " to groups: invalid input: no groups given"},
		{func() error { return e.store.DeleteArticle(ctx, "77") },
			voting.ErrNotFound, "voting: delete article 77: article not found"},
		{func() error { _, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1})); return err },
			voting.ErrInvalid, `voting: history of user "bob": invalid input`},
		{func() error { _, err := two(history.UserHistory(ctx, "bob", voting.Paging{Page: -1})); return err },
			voting.ErrInvalid, `voting: history of user "bob": invalid input: page -1`},
		{func() error {
			e.do("SET", e.key("votes:"), "x")
			defer e.do("DEL", e.key("votes:"))
			return e.store.Reindex(ctx)
		}, voting.ErrCorrupt, "voting: reindex: corrupt data: " + e.key("votes:") + " is of the wrong type"},
		{func() error {
			record := e.key("groups:" + id)
			e.do("DEL", record)
			e.do("SET", record, "x")
			defer e.do("DEL", record)
			return e.store.Reindex(ctx)
		}, voting.ErrCorrupt, "voting: reindex: group go: corrupt data: " + e.key("groups:"+id)},
		{func() error {
			done, cancel := context.WithCancel(ctx)
			cancel()
			_, err := e.store.GetArticles(done, 1, voting.ByScore)
			return err
		}, context.Canceled, "voting: list articles by score: context canceled"},
	} {
		err := c.call()
		switch {
		case !errors.Is(err, c.want):
			t.Errorf("%v: want %v", err, c.want)
		case !strings.HasPrefix(err.Error(), c.text):
			t.Errorf("%q: want it to begin %q", err, c.text)
		case strings.Count(err.Error(), "voting:") != 1:
			t.Errorf("%q names the package more than once", err)
		}
	}
}
