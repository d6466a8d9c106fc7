package voting_test

// The one table of the keys of the wrong type: for every operation, every
// key it writes (found by running it) and every key it reads (named in the
// table), set to a value of another type, must make the operation fail with
// ErrCorrupt naming the key and write nothing; put back, the operation must
// succeed. Each key is tried as a string and as the collection it is most
// easily taken for (a set for a sorted set and the other way round), which
// is what a write that no read has proven meets half-way.

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

// A keyedOp is an operation of the table: how to prepare the namespace for
// it, the call, the keys it reads without writing them (with live groups,
// and with the book's cached group listings), and the keys it passes over
// when they are of the wrong type (and why). An operation in steps, as
// Reindex is, stops at the step that meets the key, which writes nothing;
// the steps before it stand.
type keyedOp struct {
	name                         string
	setup                        func(e *env)
	call                         func(e *env) error
	reads, liveReads, cacheReads []string
	passes                       []string
	steps                        bool
}

// wrongTypeStores are the Stores the table runs on: one that keeps
// everything, and one with the book's cached group listings.
var wrongTypeStores = []struct {
	name string
	opts []voting.Option
}{
	{"everything", []voting.Option{voting.WithOrders(voting.Orders()...), voting.WithLiveGroups(),
		voting.WithUserHistory(30 * 24 * time.Hour), voting.WithKarma(), voting.WithUniqueLinks(), voting.WithActiveUsers()}},
	{"cached groups", []voting.Option{bookCache, voting.WithOrders(voting.Orders()...), voting.WithUserHistory(30 * 24 * time.Hour)}},
}

// wrongTypeSite is what every operation of the table starts from: article 1
// in g1 and g2, up-voted by bob and down-voted by carol; article 2 in g2.
func wrongTypeSite(e *env) {
	e.post("alice", "first", "g1", "g2")
	e.post("alice", "second", "g2")
	e.vote("bob", "1", voting.Up)
	e.vote("carol", "1", voting.Down)
	// On the Store that keeps everything (comments depend on no option,
	// so once is enough): comment 1 by bob on article 1; comment 2 by
	// carol, a reply to it, down-voted by dave.
	if voting.View(e.store).LiveGroups {
		e.comment("bob", "1", "", "first")
		e.comment("carol", "1", "1", "a reply")
		e.voteComment("dave", "2", voting.Down)
	}
	e.advance(time.Minute)
}

func keyedOps() []keyedOp {
	aged := func(e *env) { e.advance(8 * 24 * time.Hour) }
	list := func(order voting.Order) func(e *env) error {
		return func(e *env) error { _, err := e.store.GetArticles(ctx, 1, order); return err }
	}
	listGroup := func(order voting.Order) func(e *env) error {
		return func(e *env) error { _, err := e.store.GetGroupArticles(ctx, "g2", 1, order); return err }
	}
	return []keyedOp{
		{name: "PostArticle", call: func(e *env) error {
			_, err := e.store.PostArticle(ctx, "dave", "third", "https://example.com/third", "g1", "g3")
			return err
		}, reads: []string{"trimmed:", "indexed:"}},
		{name: "Vote up", call: func(e *env) error { return e.store.Vote(ctx, "dave", "1", voting.Up) },
			reads: []string{"downvoted:1"}, liveReads: []string{"groups:1"}},
		{name: "Vote first down-vote", call: func(e *env) error { return e.store.Vote(ctx, "dave", "2", voting.Down) },
			reads: []string{"voted:2"}, liveReads: []string{"groups:2"}},
		{name: "Vote switch", call: func(e *env) error { return e.store.Vote(ctx, "carol", "1", voting.Up) }},
		{name: "Vote take back", call: func(e *env) error { return e.store.Vote(ctx, "bob", "1", voting.None) }},
		{name: "AddToGroups", call: func(e *env) error { return e.store.AddToGroups(ctx, "2", "g1", "g3") },
			reads: []string{"groups:2", "indexed:"}, liveReads: []string{"trimmed:"}},
		{name: "EditArticle", call: func(e *env) error {
			return e.store.EditArticle(ctx, "1", "First, edited", "https://example.com/edited")
		}, reads: []string{"score:"}},
		{name: "Articles", call: func(e *env) error { _, err := e.store.Articles(ctx, "2", "1"); return err },
			reads: []string{"score:"}},
		{name: "RemoveFromGroups", call: func(e *env) error { return e.store.RemoveFromGroups(ctx, "1", "g1") }},
		{name: "DeleteArticle", call: func(e *env) error { return e.store.DeleteArticle(ctx, "1") },
			// A voter's history is cleared after the article is gone, and
			// one of the wrong type holds no entry to clear. Its comments
			// go in steps after it.
			passes: []string{"history:alice", "history:bob", "history:carol"}, steps: true},
		{name: "DeleteArticle in steps", setup: func(e *env) { voting.SetHistoryBatch(e.store, 1) },
			call:   func(e *env) error { return e.store.DeleteArticle(ctx, "1") },
			passes: []string{"history:alice", "history:bob", "history:carol"}, steps: true},
		{name: "Reindex", setup: func(e *env) {
			for _, k := range e.keys() {
				if name := strings.TrimPrefix(k, e.prefix); name != "score:" && name != "time:" &&
					(strings.HasPrefix(name, "live:") || strings.HasPrefix(name, "groups:") || strings.HasPrefix(name, "top-") ||
						strings.HasPrefix(name, "posts:") || name == "votes:" || name == "controversy:" || name == "karma:" ||
						name == "links:") {
					e.do("DEL", k)
				}
			}
		}, call: func(e *env) error { return e.store.Reindex(ctx) }, reads: []string{"time:", "score:", "reindex:", "indexed:"}, steps: true},
		{name: "GetArticles by top-week, aged", setup: aged, call: list(voting.TopWeek), reads: []string{"time:", "indexed:"}},
		{name: "GetGroupArticles by top-week, aged", setup: aged, call: listGroup(voting.TopWeek), reads: []string{"indexed:"},
			liveReads: []string{"live:time:g2"}, cacheReads: []string{"time:", "group:g2"}},
		{name: "CountArticles by top-day, aged", setup: aged, call: func(e *env) error {
			_, err := e.store.Count(ctx, voting.Query{Order: voting.TopDay})
			return err
		}, reads: []string{"time:", "indexed:"}},
		{name: "GetArticles by votes", call: list(voting.ByVotes), reads: []string{"votes:", "score:", "indexed:"}},
		{name: "GetGroupArticles by score", call: listGroup(voting.ByScore),
			liveReads: []string{"live:score:g2", "indexed:"}, cacheReads: []string{"group:g2", "score:", "score:g2"}},
		{name: "CountGroupArticles by score", call: func(e *env) error {
			_, err := e.store.Count(ctx, voting.Query{Group: "g2", Order: voting.ByScore})
			return err
		}, liveReads: []string{"live:score:g2", "indexed:"}, cacheReads: []string{"group:g2"}},
		{name: "CountGroupArticles by top-week", call: func(e *env) error {
			_, err := e.store.Count(ctx, voting.Query{Group: "g2", Order: voting.TopWeek})
			return err
		}, reads: []string{"indexed:"}, liveReads: []string{"live:top-week:g2"}, cacheReads: []string{"group:g2", "top-week:", "time:"}},
		{name: "GetArticlesAfter by votes", call: func(e *env) error {
			_, _, err := e.store.List(ctx, voting.Query{Order: voting.ByVotes, Paging: voting.Paging{After: voting.Cursor(voting.ByVotes, "", "1", "2")}})
			return err
		}, reads: []string{"votes:", "score:", "indexed:"}},
		{name: "GetGroupArticlesAfter by score", call: func(e *env) error {
			_, _, err := e.store.List(ctx, voting.Query{Group: "g2", Order: voting.ByScore, Paging: voting.Paging{After: voting.Cursor(voting.ByScore, "g2", "1", "9")}})
			return err
		}, liveReads: []string{"live:score:g2", "indexed:"}, cacheReads: []string{"group:g2", "score:", "score:g2"}},
		{name: "UserVotes", call: func(e *env) error { _, err := e.store.UserVotes(ctx, "bob", "1", "2"); return err },
			reads: []string{"voted:1", "downvoted:1", "voted:2", "history:bob", "score:"}},
		{name: "UserHistory", call: func(e *env) error { _, err := two(e.store.UserHistory(ctx, "bob", voting.Paging{Page: 1})); return err },
			reads: []string{"history:bob", "score:"}},
		{name: "ArticleGroups", call: func(e *env) error { _, err := groupsOf(e.store.Article(ctx, "1")); return err },
			reads: []string{"groups:1"}},
		{name: "Article", call: func(e *env) error { _, err := e.store.Article(ctx, "1"); return err },
			reads: []string{"article:1", "score:"}},
		{name: "UserArticles", call: func(e *env) error {
			_, err := two(e.store.List(ctx, voting.Query{User: "alice", Order: voting.ByTime, Paging: voting.Paging{Page: 1}}))
			return err
		},
			reads: []string{"posts:alice", "score:"}},
		{name: "CountUserArticles", call: func(e *env) error {
			_, err := e.store.Count(ctx, voting.Query{User: "alice", Order: voting.ByTime})
			return err
		},
			reads: []string{"posts:alice"}},
		{name: "Groups", call: func(e *env) error { _, err := two(e.store.Groups(ctx, voting.Paging{Page: 1})); return err },
			reads: []string{"groupsizes:"}},
		{name: "CountGroups", call: func(e *env) error { _, err := e.store.CountGroups(ctx); return err },
			reads: []string{"groupsizes:"}},
	}
}

// keyedCommentOps are the operations of comments, which the table runs on
// the Store that keeps everything, whose site holds comments.
func keyedCommentOps() []keyedOp {
	return []keyedOp{
		{name: "PostComment", call: func(e *env) error { _, err := e.store.PostComment(ctx, "dave", "1", "1", "hi"); return err },
			reads: []string{"score:"}},
		{name: "VoteComment up", call: func(e *env) error { return e.store.VoteComment(ctx, "dave", "1", voting.Up) }},
		{name: "VoteComment first down-vote", call: func(e *env) error { return e.store.VoteComment(ctx, "erin", "1", voting.Down) },
			reads: []string{"comment-up:1"}},
		{name: "VoteComment switch", call: func(e *env) error { return e.store.VoteComment(ctx, "dave", "2", voting.Up) }},
		{name: "EditComment", call: func(e *env) error { return e.store.EditComment(ctx, "1", "edited") }},
		{name: "DeleteComment to a tombstone", call: func(e *env) error { return e.store.DeleteComment(ctx, "1") }},
		{name: "DeleteComment whole", call: func(e *env) error { return e.store.DeleteComment(ctx, "2") }},
		{name: "Comment", call: func(e *env) error { _, err := e.store.Comment(ctx, "1"); return err },
			reads: []string{"comment:1"}},
		{name: "Comments", call: func(e *env) error {
			_, err := two(e.store.Comments(ctx, "1", voting.CommentQuery{Paging: voting.Paging{Page: 1}}))
			return err
		},
			reads: []string{"replies:best:a:1", "article:1", "comment:1"}},
		{name: "Comments of a parent by cursor", call: func(e *env) error {
			_, err := two(e.store.Comments(ctx, "1", voting.CommentQuery{Parent: "1", Order: voting.CommentsByOld}))
			return err
		}, reads: []string{"replies:time:c:1", "comment:1", "comment:2"}},
		{name: "Thread", call: func(e *env) error { _, _, err := e.store.Thread(ctx, "1", voting.ThreadQuery{}); return err },
			reads: []string{"replies:best:a:1", "article:1", "comment:1", "replies:best:c:1", "comment:2"}},
		{name: "UserComments", call: func(e *env) error {
			_, err := two(e.store.UserComments(ctx, "carol", voting.Paging{Page: 1}))
			return err
		},
			reads: []string{"usercomments:carol", "comment:2"}},
		{name: "UserCommentVotes", call: func(e *env) error { _, err := e.store.UserCommentVotes(ctx, "dave", "1", "2"); return err },
			reads: []string{"comment-up:1", "comment-up:2", "comment-down:2"}},
		{name: "CommentKarma", call: func(e *env) error { _, err := e.store.CommentKarma(ctx, "bob"); return err },
			reads: []string{"karma-comments:", "indexed:"}},
		{name: "TopCommenters", call: func(e *env) error {
			_, err := two(e.store.TopCommenters(ctx, voting.Paging{Page: 1}))
			return err
		}, reads: []string{"karma-comments:", "indexed:"}},
	}
}

// keyedPeopleOps are the operations of the table that only a Store with
// karma, unique links and active users runs.
func keyedPeopleOps() []keyedOp {
	return []keyedOp{
		{name: "Karma", call: func(e *env) error { _, err := e.store.Karma(ctx, "alice"); return err },
			reads: []string{"karma:", "indexed:"}},
		{name: "TopPosters", call: func(e *env) error { _, err := two(e.store.TopPosters(ctx, voting.Paging{Page: 1})); return err },
			reads: []string{"karma:", "indexed:"}},
		{name: "ArticleByLink", call: func(e *env) error {
			_, err := e.store.ArticleByLink(ctx, "https://EXAMPLE.com/first")
			return err
		}, reads: []string{"links:", "indexed:", "article:1", "score:"}},
		{name: "ActiveUsers", call: func(e *env) error { _, err := e.store.ActiveUsers(ctx, time.Unix(0, 0)); return err },
			reads: []string{"active:", "indexed:"}},
		{name: "LastActive", call: func(e *env) error { _, err := e.store.LastActive(ctx, "alice"); return err },
			reads: []string{"active:", "indexed:"}},
		{name: "PostArticle of a new link", call: func(e *env) error {
			_, err := e.store.PostArticle(ctx, "dave", "third", "https://example.com/third", "g1")
			return err
		}, reads: []string{"trimmed:", "indexed:"}},
	}
}

// dumpLines splits env.dump's text into its lines by key.
func dumpLines(dump string) map[string]string {
	lines := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(dump), "\n") {
		if key, _, ok := strings.Cut(line, " "); ok {
			lines[key] = line
		}
	}
	return lines
}

// writtenKeys runs op on e, a fresh namespace holding wrongTypeSite, and
// gives the keys its call changed, created or deleted, with each one's type
// before or after.
func writtenKeys(t *testing.T, e *env, op keyedOp) map[string]string {
	t.Helper()
	if op.setup != nil {
		op.setup(e)
	}
	before := dumpLines(e.dump())
	if err := op.call(e); err != nil {
		t.Fatalf("%s: %v", op.name, err)
	}
	after := dumpLines(e.dump())
	written := map[string]string{}
	for _, lines := range []map[string]string{before, after} {
		for key, line := range lines {
			if before[key] != after[key] {
				typ := strings.Fields(line)[1]
				written[strings.TrimPrefix(key, e.prefix)] = typ
			}
		}
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
	return written
}

// wrongTypesFor are the types a key of type typ is tried as.
func wrongTypesFor(typ string) []string {
	switch typ {
	case "zset":
		return []string{"string", "set"}
	case "set":
		return []string{"string", "zset"}
	case "hash":
		return []string{"string", "set"}
	}
	return []string{"hash", "zset"}
}

// corruptAs moves key aside and puts a value of type typ in its place; the
// function it returns puts the key back.
func (e *env) corruptAs(key, typ string) (restore func()) {
	e.t.Helper()
	backup := e.key("backup")
	had := e.exists(key)
	if had {
		e.do("RENAME", key, backup)
	}
	switch typ {
	case "string":
		e.do("SET", key, "not of this type")
	case "set":
		e.do("SADD", key, "not of this type")
	case "zset":
		e.do("ZADD", key, 1, "not of this type")
	case "hash":
		e.do("HSET", key, "not", "of this type")
	}
	return func() {
		e.t.Helper()
		e.do("DEL", key)
		if had {
			e.do("RENAME", backup, key)
		}
	}
}

func TestEveryKeyOfTheWrongTypeIsRefused(t *testing.T) {
	t.Parallel()
	for i, st := range wrongTypeStores {
		ops := keyedOps()
		if i == 0 {
			ops = append(append(ops, keyedPeopleOps()...), keyedCommentOps()...)
		}
		// Each case starts from wrongTypeSite in a namespace of its own.
		// On miniredis, whose Lua runs slowly, the site is built once and
		// each case's server is given a copy of its keys; on a real server
		// each case builds it.
		site := newEnv(t, st.opts...)
		wrongTypeSite(site)
		fresh := func(t *testing.T) *env {
			e := newEnv(t, st.opts...)
			wrongTypeSite(e)
			return e
		}
		if !site.real() {
			snap := site.snapshot()
			if copied := newEnvFrom(t, snap, st.opts...); copied.dump() != site.dump() {
				t.Fatalf("the copy of the site differs:\n%s\nthe site:\n%s", copied.dump(), site.dump())
			}
			fresh = func(t *testing.T) *env { return newEnvFrom(t, snap, st.opts...) }
		}
		for _, op := range ops {
			written := writtenKeys(t, fresh(t), op)
			keys := map[string]string{}
			for key, typ := range written {
				keys[key] = typ
			}
			reads := append([]string(nil), op.reads...)
			if live := st.name == "everything"; live {
				reads = append(reads, op.liveReads...)
			} else {
				reads = append(reads, op.cacheReads...)
			}
			for _, key := range reads {
				if _, ok := keys[key]; !ok {
					keys[key] = ""
				}
			}
			names := make([]string, 0, len(keys))
			for key := range keys {
				names = append(names, key)
			}
			sort.Strings(names)
			for _, name := range names {
				typ := keys[name]
				if typ == "" {
					if typ = site.str("TYPE", site.key(name)); typ == "none" {
						continue // a read of a key this Store does not keep
					}
				}
				for i, wrong := range wrongTypesFor(typ) {
					t.Run(st.name+"/"+op.name+"/"+name+" as a "+wrong, func(t *testing.T) {
						t.Parallel() // each case has a namespace of its own
						e := fresh(t)
						if op.setup != nil {
							op.setup(e)
						}
						key := e.key(name)
						restore := e.corruptAs(key, wrong)
						before := e.dump()
						err := op.call(e)
						passes := false
						for _, p := range op.passes {
							passes = passes || p == name
						}
						switch {
						case passes && err != nil:
							t.Errorf("%s with %s a %s = %v, want it passed over", op.name, key, wrong, err)
						case passes:
							if got := dumpLines(e.dump())[key]; got != dumpLines(before)[key] {
								t.Errorf("%s wrote %s: %s, was %s", op.name, key, got, dumpLines(before)[key])
							}
							return
						case !errors.Is(err, voting.ErrCorrupt):
							t.Errorf("%s with %s a %s = %v, want ErrCorrupt", op.name, key, wrong, err)
						case !strings.Contains(err.Error(), key):
							t.Errorf("%s: error %q does not name the key %s", op.name, err, key)
						}
						if after := e.dump(); op.steps {
							if got := dumpLines(after)[key]; got != dumpLines(before)[key] {
								t.Errorf("%s wrote %s: %s, was %s", op.name, key, got, dumpLines(before)[key])
							}
						} else if after != before {
							t.Errorf("%s wrote though %s is a %s:\nbefore %s\nafter  %s", op.name, key, wrong, before, after)
						}
						restore()
						if err := op.call(e); err != nil {
							t.Errorf("%s once %s is sound again: %v", op.name, key, err)
						}
						if i == 0 { // once a key is enough to see the state sound
							e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
						}
					})
				}
			}
		}
	}
}
