package voting_test

// The invariant checker's part of comments (checkComments), and the test
// that it finds each break of them.

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/model"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// A storedComment is a comment's hash as the checker reads it.
type storedComment struct {
	member, id, article, parent, poster, body string
	posted                                    float64
	up, down, replies, depth                  int64
	deleted                                   bool
	karma                                     *int64 // the field karma, if any
	own                                       int64  // the poster's own vote, as the field own keeps it
}

// checkComments checks every comment key of the namespace (all are its
// keys) against the articles, through fail:
//   - every comment:<id> hash has the fields a comment has: an article of
//     time:, a parent that is "" or a comment of the same article one level
//     up (depth), counters that parse, an id within the counter; one not
//     deleted has a poster and a body, one deleted (a tombstone) has
//     neither, and has replies;
//   - replies counts the comments whose parent it is;
//   - each parent (article or comment) has, for each kind of the comment
//     orders, replies:<kind>:<parent> holding exactly its children with the
//     value of their counts; no such key is left for a parent with none;
//   - thread:<article> holds exactly the article's comments, by time;
//   - the article's comments field counts its comments not deleted;
//   - usercomments:<user> holds exactly the user's comments not deleted,
//     by time;
//   - comment-up:/comment-down: sets belong to comments not deleted, have a time
//     to live, and while voting is open their sizes are the counters, with
//     no user in both;
//   - with karma kept or marked built (withKarma), each comment not deleted
//     has its part of its poster's comment karma (its field karma), equal
//     to its up-votes less its down-votes less the poster's own vote (its
//     field own, which while voting is open the voter sets agree with),
//     and a tombstone has none; karma-comments: gives
//     exactly the users with a comment not deleted the sum of their parts.
func (e *env) checkComments(c redis.Conn, all []string, articles map[string]articleCounts, now time.Time, cutoff time.Duration,
	withKarma bool, fail func(format string, args ...any)) {
	k := schema.NewKeys(e.prefix)
	counter, err := redis.String(c.Do("GET", k.CommentCounter()))
	if err != nil && err != redis.ErrNil {
		e.t.Fatalf("GET %s: %v", k.CommentCounter(), err)
	}
	last, _ := strconv.ParseUint(counter, 10, 64)
	comments := map[string]*storedComment{} // by id
	var voterSets, indexes, threads, userLists []string
	for _, key := range all {
		name := strings.TrimPrefix(key, e.prefix)
		switch {
		case strings.HasPrefix(name, schema.CommentPart) && name != schema.CommentPart:
			id := strings.TrimPrefix(name, schema.CommentPart)
			h, err := redis.StringMap(c.Do("HGETALL", key))
			if err != nil {
				fail("%s: %v", key, err)
				continue
			}
			sc := &storedComment{member: key, id: id, article: h["article"], parent: h["parent"], poster: h["poster"], body: h["body"],
				deleted: h["deleted"] == "1"}
			var errs [5]error
			sc.posted, errs[0] = strconv.ParseFloat(h["time"], 64)
			for i, f := range []struct {
				field string
				to    *int64
			}{{"votes", &sc.up}, {"downvotes", &sc.down}, {"replies", &sc.replies}, {"depth", &sc.depth}} {
				v := h[f.field]
				if v == "" {
					v = "0"
				}
				*f.to, errs[i+1] = strconv.ParseInt(v, 10, 64)
			}
			sc.own = 1
			if v, ok := h["own"]; ok {
				if sc.own, err = strconv.ParseInt(v, 10, 64); err != nil || sc.own < -1 || sc.own > 0 || sc.deleted {
					fail("comment %s: own %q is no vote of the poster's but the up-vote, or it is deleted", id, v)
				}
			}
			if v, ok := h["karma"]; ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					fail("comment %s: karma %q does not parse", id, v)
				}
				sc.karma = &n
			}
			for _, err := range errs {
				if err != nil {
					fail("comment %s: a field does not parse: %v (%v)", id, err, h)
				}
			}
			if n, err := strconv.ParseUint(id, 10, 64); err != nil || n > last {
				fail("comment %s is past the counter %q", id, counter)
			}
			comments[id] = sc
		case strings.HasPrefix(name, schema.CommentVotedPart), strings.HasPrefix(name, schema.CommentDownvotedPart):
			voterSets = append(voterSets, key)
		case strings.HasPrefix(name, schema.RepliesPart):
			indexes = append(indexes, key)
		case strings.HasPrefix(name, schema.ThreadPart):
			threads = append(threads, key)
		case strings.HasPrefix(name, schema.UserCommentsPart):
			userLists = append(userLists, key)
		}
	}

	children := map[string][]*storedComment{} // by parent name: "a:7", "c:12"
	live := map[string]int64{}                // an article member's comments not deleted
	inThread := map[string]map[string]float64{}
	byUser := map[string]map[string]float64{}
	for id, sc := range comments {
		article := k.ArticleHash(sc.article)
		if _, ok := articles[article]; !ok {
			fail("comment %s is on article %q, which is no article of time:", id, sc.article)
		}
		parentName := schema.ParentName(sc.article, sc.parent)
		children[parentName] = append(children[parentName], sc)
		if sc.parent == "" {
			if sc.depth != 0 {
				fail("comment %s on the article has depth %d", id, sc.depth)
			}
		} else if p, ok := comments[sc.parent]; !ok {
			fail("comment %s replies to %s, which is no comment", id, sc.parent)
		} else if p.article != sc.article || sc.depth != p.depth+1 {
			fail("comment %s (article %s, depth %d) replies to %s (article %s, depth %d)", id, sc.article, sc.depth, sc.parent,
				p.article, p.depth)
		}
		if inThread[article] == nil {
			inThread[article] = map[string]float64{}
		}
		inThread[article][sc.member] = sc.posted
		switch {
		case sc.deleted && (sc.poster != "" || sc.body != ""):
			fail("deleted comment %s keeps its poster %q or body", id, sc.poster)
		case sc.deleted && sc.replies == 0:
			fail("deleted comment %s has no reply, and is still there", id)
		case !sc.deleted && (sc.poster == "" || sc.body == ""):
			fail("comment %s has no poster or no body", id)
		case !sc.deleted:
			live[article]++
			if byUser[sc.poster] == nil {
				byUser[sc.poster] = map[string]float64{}
			}
			byUser[sc.poster][sc.member] = sc.posted
		}
	}
	for id, sc := range comments {
		if n := int64(len(children[schema.ParentName("", id)])); sc.replies != n {
			fail("comment %s counts %d replies, has %d", id, sc.replies, n)
		}
	}
	for member := range articles {
		n, err := redis.Int64(c.Do("HGET", member, "comments"))
		if err != nil && err != redis.ErrNil {
			fail("%s field comments: %v", member, err)
		}
		if n != live[member] {
			fail("%s counts %d comments, has %d not deleted", member, n, live[member])
		}
	}

	// The parents' indexes.
	seen := map[string]bool{}
	for parent, kids := range children {
		for _, kind := range schema.CommentKinds {
			key := k.Replies(kind, parent)
			seen[key] = true
			entries, err := redis.StringMap(c.Do("ZRANGE", key, 0, -1, "WITHSCORES"))
			if err != nil {
				fail("ZRANGE %s: %v", key, err)
				continue
			}
			if len(entries) != len(kids) {
				fail("%s holds %d comments, want %d", key, len(entries), len(kids))
			}
			for _, sc := range kids {
				v, ok := entries[sc.member]
				got, _ := strconv.ParseFloat(v, 64)
				if !ok || !model.ValueMatches(kind, got, sc.posted, float64(sc.up), float64(sc.down), 0) {
					want, _ := model.Value(kind, sc.posted, float64(sc.up), float64(sc.down), 0)
					fail("%s gives %s %q, want %v (%d up, %d down)", key, sc.member, v, want, sc.up, sc.down)
				}
			}
		}
	}
	for _, key := range indexes {
		if !seen[key] {
			fail("%s is left with no comment of its parent", key)
		}
	}
	checkSet := func(key string, want map[string]float64) {
		got, err := redis.StringMap(c.Do("ZRANGE", key, 0, -1, "WITHSCORES"))
		if err != nil {
			fail("ZRANGE %s: %v", key, err)
			return
		}
		if len(got) != len(want) {
			fail("%s holds %d comments, want %d", key, len(got), len(want))
		}
		for member, t := range want {
			if v, _ := strconv.ParseFloat(got[member], 64); v != t {
				fail("%s gives %s %q, want its time %v", key, member, got[member], t)
			}
		}
	}
	for article, want := range inThread {
		checkSet(k.Thread(strings.TrimPrefix(article, k.ArticlePrefix())), want)
	}
	for _, key := range threads {
		if _, ok := inThread[k.ArticlePrefix()+strings.TrimPrefix(key, k.ThreadPrefix())]; !ok {
			fail("%s is left with no comment", key)
		}
	}
	for user, want := range byUser {
		checkSet(k.UserComments(user), want)
	}
	for _, key := range userLists {
		if _, ok := byUser[strings.TrimPrefix(key, k.UserCommentsPrefix())]; !ok {
			fail("%s is left with no comment of the user", key)
		}
	}

	// The voter sets.
	for _, key := range voterSets {
		name := strings.TrimPrefix(key, e.prefix)
		_, id, _ := strings.Cut(name, ":")
		sc, ok := comments[id]
		if !ok || sc.deleted {
			fail("voter set %s belongs to no comment, or to a deleted one", key)
		}
		if ttl, err := redis.Int64(c.Do("PTTL", key)); err != nil || ttl < 0 {
			fail("voter set %s has no time to live (PTTL %d, %v)", key, ttl, err)
		}
	}
	e.checkCommentKarma(c, comments, now, cutoff, withKarma, fail)
	for id, sc := range comments {
		if sc.deleted || !time.Unix(0, int64(sc.posted*1e9)).Add(cutoff).After(now) {
			continue
		}
		up, err1 := redis.Strings(c.Do("SMEMBERS", k.CommentVoted(id)))
		down, err2 := redis.Strings(c.Do("SMEMBERS", k.CommentDownvoted(id)))
		if err1 != nil || err2 != nil {
			fail("comment %s's voter sets: %v %v", id, err1, err2)
			continue
		}
		if int64(len(up)) != sc.up || int64(len(down)) != sc.down {
			fail("comment %s: counters %d/%d, voter sets %d/%d", id, sc.up, sc.down, len(up), len(down))
		}
		own := int64(0)
		if slices.Contains(up, sc.poster) {
			own = 1
		} else if slices.Contains(down, sc.poster) {
			own = -1
		}
		if own != sc.own {
			fail("comment %s: the poster's own vote is %d, its field own says %d", id, own, sc.own)
		}
		for _, u := range down {
			for _, v := range up {
				if u == v {
					fail("comment %s: user %q is both an up- and a down-voter", id, u)
				}
			}
		}
	}
}

// checkCommentKarma checks the comments' parts of their posters' comment
// karma and karma-comments: (checkComments).
func (e *env) checkCommentKarma(c redis.Conn, comments map[string]*storedComment, now time.Time, cutoff time.Duration,
	withKarma bool, fail func(format string, args ...any)) {
	k := schema.NewKeys(e.prefix)
	sums := map[string]int64{}
	for id, sc := range comments {
		switch {
		case sc.deleted && sc.karma != nil:
			fail("deleted comment %s keeps its part of karma", id)
		case sc.deleted:
		case sc.karma == nil && withKarma:
			fail("comment %s has no karma field", id)
		case sc.karma != nil:
			sums[sc.poster] += *sc.karma
			if want := sc.up - sc.down - sc.own; *sc.karma != want {
				fail("comment %s: karma %d, want %d up - %d down - own vote %d = %d", id, *sc.karma, sc.up, sc.down, sc.own, want)
			}
		}
	}
	got, err := redis.StringMap(c.Do("ZRANGE", k.CommentKarma(), 0, -1, "WITHSCORES"))
	if err != nil {
		fail("ZRANGE %s: %v", k.CommentKarma(), err)
		return
	}
	if !withKarma && len(got) == 0 {
		return
	}
	for user, v := range got {
		want, ok := sums[user]
		if !ok {
			fail("%s holds %q, who has no comment with a part of karma", k.CommentKarma(), user)
		} else if v != strconv.FormatInt(want, 10) {
			fail("%s gives %q %s, the parts of their comments sum to %d", k.CommentKarma(), user, v, want)
		}
		delete(sums, user)
	}
	for user, sum := range sums {
		fail("%s lacks %q, whose comments' parts sum to %d", k.CommentKarma(), user, sum)
	}
}

func TestInvariantCheckerFindsEachCommentBreak(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		corrupt func(e *env, article, top, reply string)
	}{
		{"votes without a voter", func(e *env, _, top, _ string) { e.do("HINCRBY", e.key("comment:"+top), "votes", 1) }},
		{"voter without a vote", func(e *env, _, top, _ string) { e.do("SADD", e.key("comment-up:"+top), "ghost") }},
		{"index value off", func(e *env, a, top, _ string) {
			e.do("ZINCRBY", e.key("replies:net:a:"+a), 1, e.key("comment:"+top))
		}},
		{"index missing a comment", func(e *env, a, top, _ string) {
			e.do("ZREM", e.key("replies:best:a:"+a), e.key("comment:"+top))
		}},
		{"reply count off", func(e *env, _, top, _ string) { e.do("HINCRBY", e.key("comment:"+top), "replies", 1) }},
		{"article's count off", func(e *env, a, _, _ string) { e.do("HINCRBY", e.article(a), "comments", 1) }},
		{"comment out of its thread", func(e *env, a, top, _ string) { e.do("ZREM", e.key("thread:"+a), e.key("comment:"+top)) }},
		{"comment out of its poster's list", func(e *env, _, _, reply string) {
			e.do("ZREM", e.key("usercomments:bob"), e.key("comment:"+reply))
		}},
		{"reply at the wrong depth", func(e *env, _, _, reply string) { e.do("HSET", e.key("comment:"+reply), "depth", "5") }},
		{"hash gone", func(e *env, _, _, reply string) { e.do("DEL", e.key("comment:"+reply)) }},
		{"tombstone without replies", func(e *env, _, _, reply string) {
			e.do("HSET", e.key("comment:"+reply), "deleted", "1")
			e.do("HDEL", e.key("comment:"+reply), "poster", "body")
		}},
		{"counter behind a comment", func(e *env, _, _, _ string) { e.do("SET", e.key("comment:"), 0) }},
		{"index of no comment", func(e *env, _, _, _ string) { e.do("ZADD", e.key("replies:net:c:99"), 1, "x") }},
		{"comment karma off by one", func(e *env, _, _, _ string) { e.do("ZINCRBY", e.key("karma-comments:"), 1, "alice") }},
		{"comment's part of karma off by one", func(e *env, _, top, _ string) {
			e.do("HINCRBY", e.key("comment:"+top), "karma", 1)
			e.do("ZINCRBY", e.key("karma-comments:"), 1, "alice")
		}},
		{"comment karma of a user with no comment", func(e *env, _, _, _ string) { e.do("ZADD", e.key("karma-comments:"), 0, "ghost") }},
		{"commenter out of comment karma", func(e *env, _, _, _ string) { e.do("ZREM", e.key("karma-comments:"), "bob") }},
		{"comment without its part of karma", func(e *env, _, top, _ string) { e.do("HDEL", e.key("comment:"+top), "karma") }},
		{"poster's own vote off", func(e *env, _, top, _ string) { e.do("HSET", e.key("comment:"+top), "own", "-1") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, voting.WithKarma())
			a := e.post("alice", "discussed")
			top, err := e.store.PostComment(ctx, "alice", a, "", "first")
			if err != nil {
				t.Fatal(err)
			}
			reply, err := e.store.PostComment(ctx, "bob", a, top, "a reply")
			if err != nil {
				t.Fatal(err)
			}
			if err := e.store.VoteComment(ctx, "carol", top, voting.Down); err != nil {
				t.Fatal(err)
			}
			if broken := e.invariants(voting.DefaultVoteWeight, voting.DefaultCutoff); len(broken) != 0 {
				t.Fatalf("a sound namespace is reported broken: %v", broken)
			}
			tt.corrupt(e, a, top, reply)
			if broken := e.invariants(voting.DefaultVoteWeight, voting.DefaultCutoff); len(broken) == 0 {
				t.Error("the break went unnoticed")
			}
		})
	}
}
