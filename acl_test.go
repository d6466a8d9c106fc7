package voting_test

// This file tests the least-privilege ACL user of docs/operations.md: a
// Store whose user is granted exactly the commands below, on its prefix's
// keys alone, can make every call of its API.

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// aclCommands are the commands a Store sends, its scripts' included: the
// ACL example of docs/operations.md grants exactly these (TestDocsACLIsTheTestedOne).
const aclCommands = "+evalsha +eval +get +set +hmget +zscore +zmscore +zrevrange +sismember " +
	"+incr +exists +hset +hget +hgetall +hincrby +sadd +srem +spop +pexpire +zadd +zincrby +zinterstore +del +unlink +rename " +
	"+smembers +zcard +zrangebyscore +zrem +scan +sscan +zscan +scard +hlen +hdel +zrevrank +zcount +zrangebylex +hkeys +hsetnx " +
	"+zrange +zrank"

// noRedis are the Store's methods that send nothing to Redis.
var noRedis = []string{"CacheStats", "Close", "PageSize", "Timeout"}

// aclCall is one call of the API, by the name of the method it calls.
type aclCall struct {
	method string
	call   func(context.Context) error
}

// everyCall calls every method of s that sends anything to Redis, in an
// order in which each succeeds on a namespace of its own that keeps every
// index: posts, votes and comments first, then what reads them, then what
// changes the settings and deletes.
func everyCall(s *voting.Store) []aclCall {
	var id, other, comment, next string
	page := voting.Paging{Page: 1}
	return []aclCall{
		{"Settings", func(ctx context.Context) error { _, err := s.Settings(ctx); return err }},
		{"PostArticle", func(ctx context.Context) (err error) {
			if other, err = s.PostArticle(ctx, "alice", "first", "https://example.com/1", "g"); err != nil {
				return err
			}
			id, err = s.PostArticle(ctx, "bob", "second", "https://example.com/2", "g", "h")
			return err
		}},
		{"Vote", func(ctx context.Context) error { return s.Vote(ctx, "carol", id, voting.Down) }},
		{"AddToGroups", func(ctx context.Context) error { return s.AddToGroups(ctx, id, "k") }},
		{"RemoveFromGroups", func(ctx context.Context) error { return s.RemoveFromGroups(ctx, id, "h") }},
		{"EditArticle", func(ctx context.Context) error { return s.EditArticle(ctx, id, "edited", "https://example.com/e") }},
		{"Article", func(ctx context.Context) error { _, err := s.Article(ctx, id); return err }},
		{"Articles", func(ctx context.Context) error { _, err := s.Articles(ctx, id, other); return err }},
		{"ArticleByLink", func(ctx context.Context) error { _, err := s.ArticleByLink(ctx, "https://example.com/e"); return err }},
		{"UserVotes", func(ctx context.Context) error { _, err := s.UserVotes(ctx, "carol", id, other); return err }},
		{"GetArticles", func(ctx context.Context) error {
			for _, o := range voting.Orders() {
				if _, err := s.GetArticles(ctx, 1, o); err != nil {
					return err
				}
			}
			return nil
		}},
		{"GetGroupArticles", func(ctx context.Context) error {
			for _, o := range voting.Orders() {
				if _, err := s.GetGroupArticles(ctx, "g", 1, o); err != nil {
					return err
				}
			}
			return nil
		}},
		{"List", func(ctx context.Context) error {
			for _, q := range []voting.Query{{Order: voting.ByHot}, {Group: "g", Order: voting.TopWeek}, {User: "bob", Order: voting.ByTime}} {
				q.Size = 1
				_, after, err := s.List(ctx, q)
				if err == nil {
					q.After = after
					_, _, err = s.List(ctx, q)
				}
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"Count", func(ctx context.Context) error {
			_, err := s.Count(ctx, voting.Query{Group: "g", Order: voting.TopDay})
			return err
		}},
		{"Rank", func(ctx context.Context) error {
			_, err := s.Rank(ctx, id, voting.Query{Group: "g", Order: voting.ByBest})
			return err
		}},
		{"Cursor", func(ctx context.Context) error {
			_, err := s.Cursor(ctx, id, voting.Query{Order: voting.ByVotes})
			return err
		}},
		{"Groups", func(ctx context.Context) error { _, err := two(s.Groups(ctx, page)); return err }},
		{"CountGroups", func(ctx context.Context) error { _, err := s.CountGroups(ctx); return err }},
		{"Karma", func(ctx context.Context) error { _, err := s.Karma(ctx, "bob"); return err }},
		{"ActiveUsers", func(ctx context.Context) error { _, err := s.ActiveUsers(ctx, time.Unix(0, 0)); return err }},
		{"LastActive", func(ctx context.Context) error { _, err := s.LastActive(ctx, "bob"); return err }},
		{"TopPosters", func(ctx context.Context) error { _, err := two(s.TopPosters(ctx, page)); return err }},
		{"CountPosters", func(ctx context.Context) error { _, err := s.CountPosters(ctx); return err }},
		{"UserHistory", func(ctx context.Context) error { _, err := two(s.UserHistory(ctx, "carol", page)); return err }},
		{"CountUserHistory", func(ctx context.Context) error { _, err := s.CountUserHistory(ctx, "carol"); return err }},
		{"PostComment", func(ctx context.Context) (err error) {
			top, err := s.PostComment(ctx, "dave", id, "", "top\nof two lines")
			if err == nil {
				comment, err = s.PostComment(ctx, "erin", id, top, "a reply")
			}
			return err
		}},
		{"VoteComment", func(ctx context.Context) error { return s.VoteComment(ctx, "carol", comment, voting.Up) }},
		{"UserCommentVotes", func(ctx context.Context) error { _, err := s.UserCommentVotes(ctx, "carol", comment); return err }},
		{"EditComment", func(ctx context.Context) error { return s.EditComment(ctx, comment, "edited") }},
		{"Comment", func(ctx context.Context) error { _, err := s.Comment(ctx, comment); return err }},
		{"Comments", func(ctx context.Context) error {
			for _, o := range []voting.CommentOrder{voting.CommentsByBest, voting.CommentsByTop, voting.CommentsByNew,
				voting.CommentsByOld, voting.CommentsByControversy} {
				_, after, err := s.Comments(ctx, id, voting.CommentQuery{Order: o, Paging: voting.Paging{Size: 1}})
				if err == nil {
					_, _, err = s.Comments(ctx, id, voting.CommentQuery{Order: o, Paging: voting.Paging{After: after}})
				}
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"Thread", func(ctx context.Context) error { _, _, err := s.Thread(ctx, id, voting.ThreadQuery{}); return err }},
		{"UserComments", func(ctx context.Context) error {
			_, next, _ = s.UserComments(ctx, "dave", voting.Paging{Size: 1})
			_, _, err := s.UserComments(ctx, "erin", voting.Paging{After: next})
			return err
		}},
		{"CommentKarma", func(ctx context.Context) error { _, err := s.CommentKarma(ctx, "erin"); return err }},
		{"TopCommenters", func(ctx context.Context) error { _, err := two(s.TopCommenters(ctx, page)); return err }},
		{"Profile", func(ctx context.Context) error { _, err := s.Profile(ctx, "bob"); return err }},
		{"DeleteComment", func(ctx context.Context) error { return s.DeleteComment(ctx, comment) }},
		{"Reindex", s.Reindex},
		{"ReindexWithProgress", func(ctx context.Context) error { _, err := s.ReindexWithProgress(ctx, nil); return err }},
		{"Rescore", func(ctx context.Context) error { return s.Rescore(ctx, 300, 48*time.Hour) }},
		{"StopKeeping", func(ctx context.Context) error {
			return s.StopKeeping(ctx, voting.WithOrders(voting.ByHot), voting.WithLiveGroups(), voting.WithKarma(),
				voting.WithUniqueLinks(), voting.WithUserHistory(time.Hour))
		}},
		{"DeleteArticle", func(ctx context.Context) error { return s.DeleteArticle(ctx, id) }},
	}
}

// TestLeastPrivilegeACLUser: a user granted aclCommands on its prefix's
// keys alone makes every call of the API, each index kept, its background
// build included; and writes nothing outside its pattern.
func TestLeastPrivilegeACLUser(t *testing.T) {
	srv := startServer(t)
	args := []any{"SETUSER", "voting", "on", ">pw", "~news:*", "resetchannels", "-@all"}
	for _, c := range strings.Fields(aclCommands) {
		args = append(args, c)
	}
	if _, err := srv.admin("ACL", args...); err != nil {
		t.Fatal(err)
	}
	pool := srv.pool(redis.DialUsername("voting"), redis.DialPassword("pw"))
	defer pool.Close()
	all, err := voting.New(pool, voting.WithPrefix("news:"), voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(),
		voting.WithUserHistory(time.Hour), voting.WithKarma(), voting.WithUniqueLinks(), voting.WithActiveUsers(), voting.WithCutoff(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	called := map[string]bool{}
	for _, c := range everyCall(all) {
		called[c.method] = true
		if err := c.call(ctx); err != nil {
			t.Errorf("%s as the ACL user: %v", c.method, err)
		}
	}
	// Every method of the Store that sends anything is called.
	typ := reflect.TypeOf(all)
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !called[name] && !slices.Contains(noRedis, name) {
			t.Errorf("%s is not called as the ACL user: add it to everyCall, or to noRedis if it sends nothing", name)
		}
	}

	// The background build, its lease included: a plain Store writes
	// articles, one given an order adds it and builds it.
	plain, err := voting.New(pool, noBuilder, voting.WithPrefix("news:built:"))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := plain.PostArticle(ctx, "alice", "plain", "https://example.com/plain", "g"); err != nil {
			t.Fatalf("as the ACL user: %v", err)
		}
	}
	built, err := voting.New(pool, voting.WithPrefix("news:built:"), voting.WithOrders(voting.ByHot))
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	set := waitBuilt(t, built)
	if set.Building.Err != "" {
		t.Errorf("the background build as the ACL user: %s", set.Building.Err)
	}
	if _, err := built.GetArticles(ctx, 1, voting.ByHot); err != nil {
		t.Errorf("hot once built as the ACL user: %v", err)
	}

	// With no prefix, the keys are outside the user's pattern.
	outside, err := voting.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outside.PostArticle(ctx, "alice", "t", "https://example.com/"); err == nil {
		t.Error("the ACL user wrote outside its key pattern")
	}
}
