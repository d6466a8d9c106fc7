package voting

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"
)

// The key schema: the families of keys of schema.Families, each with what
// it holds (keys_doc_test.go holds this table, and doc.go's, to that list).
// With an empty prefix these are exactly the keys of Redis in Action,
// chapter 1, so data written by the book's code and by this package can be
// served by either:
//
//	article:              string  counter; INCR gives the next article id
//	article:<id>          hash    title, link, poster, time, votes (+ downvotes)
//	score:                zset    member article:<id>, score = time + W x (up - down)
//	time:                 zset    member article:<id>, score = posting time
//	voted:<id>            set     users who up-voted; expires at the cutoff
//	downvoted:<id>        set     users who down-voted; expires at the cutoff
//	group:<name>          set     members article:<id>
//	groups:<id>           set     the names of the groups article:<id> is in (this
//	                              package's record, so that an article's groups can be
//	                              found from it; the book's code writes none)
//	history:<user>        zset    with WithUserHistory, the user's votes: members
//	                              up:article:<id> and down:article:<id>, scored with the
//	                              time of the vote (a post is its poster's up-vote);
//	                              expires the history's time after the user's last vote
//	groupsizes:           zset    member a group's name, score = the number of articles
//	                              in its set: a name joins with a group's first article
//	                              and leaves with its last (Groups)
//	posts:<user>          zset    the user's articles (Query.User): member
//	                              article:<id>, score = posting time
//	score:<name>          zset    cached group listing by score; expires after the TTL
//	time:<name>           zset    cached group listing by time; expires after the TTL
//	deleted:voted:<id>    set     with WithUserHistory, the up-voters of a deleted
//	deleted:downvoted:<id>        article (and down-voters) whose histories DeleteArticle
//	                              has yet to clear: its voter sets, renamed, with their
//	                              time to live
//	reindex:              hash    where an unfinished Reindex goes on from (reindex.go)
//	indexed:              hash    which indexes hold every article (internal/schema/marks.go): field
//	                              "votes", "top-week", ... for a site index beyond the
//	                              book's two, "live:score", ... for the live group indexes
//	                              of an order; "1" built, "0:<token>" being built by
//	                              the run of Reindex of that token; "karma" and "links"
//	                              for the indexes of WithKarma and WithUniqueLinks;
//	                              "articles", the count of the articles the library
//	                              has indexed, which listings compare with time:
//	settings:             hash    the namespace's settings (settings.go): gen, a
//	                              generation every write checks; weight; cutoff and
//	                              history in milliseconds; orders, the kept orders
//	                              beyond the book's two; kinds: live, karma, links
//	progress:             hash    where the walks of Rescore and StopKeeping go on
//	                              from (rescore.go, stop.go): rescore, the weight and
//	                              cutoff walked to; rescore-phase, articles, comments
//	                              or done; rescore-at, a time (the articles) or a
//	                              comment id; stop-live <orders>, stop-karma-articles,
//	                              stop-karma-comments, stop-history, stop-pending: a
//	                              SCAN cursor or comment id, or done
//	builder:              string  the lease of the Store that builds unbuilt indexes
//	                              in the background (build.go): its token, expiring
//	                              unless renewed
//
// With WithKarma, each poster's karma, and in each article's hash the part
// of it the article gives:
//
//	karma:                zset    member a user who has posted, score = the sum of the
//	                              karma fields of the user's articles (Karma, TopPosters)
//	article:<id>          hash    field karma = up - down, less the poster's own vote
//	karma-comments:       zset    member a user with a comment, score = the sum of the
//	                              karma fields of the user's comments (CommentKarma,
//	                              TopCommenters)
//	comment:<id>          hash    field karma = up - down, less the poster's own vote
//
// With WithUniqueLinks, the index of links:
//
//	links:                hash    field a link as schema.LinkKey writes it (scheme and host
//	                              in lower case, no fragment), value the id of the
//	                              article that holds it
//	linkshares:           zset    where Reindex found a link that more than one article
//	                              had, the others, oldest first: each member the link's
//	                              key, a zero byte, the posting time (whole seconds from
//	                              the year 1 in 12 digits, the fraction in 9) and the id
//	                              (19 digits, zeros in front), all scored 0; the oldest
//	                              takes the link when its holder gives it up
//
// With WithActiveUsers, the index of active users:
//
//	active:               zset    member a user who has posted an article or a comment,
//	                              score = the latest time they posted one (ActiveUsers,
//	                              LastActive)
//
// With WithOrders, one more index per kept order (orders.go has the table),
// each with members article:<id>:
//
//	votes:                zset    score = up - down (ByVotes)
//	controversy:          zset    score = Reddit's controversy of up and down (ByControversy)
//	top-day:              zset    score = up - down, articles posted in the last day (TopDay)
//	top-week:, top-month:, top-year:  the same for 7, 30 and 365 days
//	hot:                  zset    score = Reddit's hot ranking of up - down and the time (ByHot)
//	best:                 zset    score = the Wilson lower bound of the up-votes' share (ByBest)
//	trimmed:              hash    per top-of-window index (field "top-day", ...), the
//	                              posting time up to which it has been trimmed
//	<index><name>         zset    cached group listing of that order, as score:<name>
//
// With WithLiveGroups, instead of the cached group listings, one live index
// per group per kept order, written by every post, vote and group change:
//
//	live:<index><name>    zset    the group's articles in that order's index, with the
//	                              same scores: live:score:news, live:time:news,
//	                              live:top-week:news
//	trimmed:              hash    also the marks of live top-of-window indexes, in the
//	                              field "<order>:<name>" ("top-week:news")
//
// Comments (PostComment), each another votable item, with members
// comment:<id>:
//
//	comment:              string  counter; INCR gives the next comment id
//	comment:<id>          hash    article, parent (a comment id, "" for a comment on the
//	                              article), poster, body, time, votes, downvotes,
//	                              replies (its direct replies), depth (0 on the
//	                              article); deleted "1" for a tombstone, which has no
//	                              poster and no body; own, the poster's own vote once
//	                              they change it from the post's up-vote: "-1", or "0"
//	                              for none (so Reindex counts comment karma after the
//	                              voter sets expire)
//	comment-up:<id>       set     users who up-voted the comment; expires at the cutoff
//	comment-down:<id>     set     users who down-voted it; expires at the cutoff
//	replies:<kind>:a:<id> zset    the comments on article <id> (and the replies to
//	replies:<kind>:c:<id>         comment <id>), scored by kind: best (the Wilson
//	                              lower bound), net (up - down), time (posting
//	                              time), controversy; the comment orders read them
//	thread:<id>           zset    every comment of article <id>, scored by posting time
//	usercomments:<user>   zset    the user's comments not deleted, by posting time
//	article:<id>          hash    field comments = its comments not deleted
//
// The downvoted set and the downvotes field are this package's additions; the
// book's code never reads them, and a hash without downvotes has none. Once
// a voter set has expired (its counter is above zero and the set is gone),
// the article takes no more votes, whatever any clock says.
//
// A prefix goes in front of every key and every member, so "news:" gives
// news:article:7 in news:score:. A prefix holding a hash tag, such as
// "{news}:", puts every key of the namespace in one Redis Cluster slot; group
// names may not contain braces so that the prefix's tag is always the first.
// New refuses a prefix under which keys of another namespace could fall
// (checkPrefix, from keyShapes): "" and "live:" would share live:score:news.

// A keyShape is one kind of key of a namespace, after the prefix: a
// literal, which ends in ':', and then a tail of a class.
type keyShape struct {
	literal string
	tail    tailClass
}

// A tailClass is what follows a key's literal.
type tailClass int

const (
	noTail    tailClass = iota // nothing: score:
	idTail                     // an article id, decimal digits: voted:7
	groupTail                  // a group name, as checkGroup takes it: score:news
	userTail                   // a user id, as checkUser takes it, ':' included: history:alice
)

// keyShapes are the shapes of all the keys of a namespace, made from the
// parts newKeys joins, the keys each kind of index keeps whole
// (schema.Indexes) and the orders table, for checkPrefix, which refuses
// a prefix under which keys of another namespace could fall.
var keyShapes = func() []keyShape {
	shapes := []keyShape{
		{schema.ArticlePart, noTail}, {schema.ArticlePart, idTail},
		{schema.VotedPart, idTail}, {schema.DownvotedPart, idTail},
		{schema.GroupPart, groupTail}, {schema.RecordPart, idTail},
		{schema.HistoryPart, userTail}, {schema.PostsPart, userTail},
		{schema.PendingPart + schema.VotedPart, idTail}, {schema.PendingPart + schema.DownvotedPart, idTail},
		{schema.TrimmedPart, noTail}, {schema.ReindexPart, noTail}, {schema.IndexedPart, noTail},
		{schema.SettingsPart, noTail}, {schema.ProgressPart, noTail}, {schema.BuilderPart, noTail},
	}
	shapes = append(shapes,
		keyShape{schema.CommentPart, noTail}, keyShape{schema.CommentPart, idTail},
		keyShape{schema.CommentVotedPart, idTail}, keyShape{schema.CommentDownvotedPart, idTail},
		keyShape{schema.ThreadPart, idTail}, keyShape{schema.UserCommentsPart, userTail})
	for _, kind := range schema.CommentKinds {
		for _, parent := range []string{schema.ArticleParent, schema.CommentParent} {
			shapes = append(shapes, keyShape{schema.RepliesPart + string(kind) + ":" + parent, idTail})
		}
	}
	for _, ix := range schema.Indexes {
		for _, part := range ix.Parts {
			shapes = append(shapes, keyShape{part.Key, noTail}) // a kind's keys kept whole
		}
	}
	for _, spec := range schema.Orders {
		shapes = append(shapes,
			keyShape{spec.Key, noTail},                      // the index
			keyShape{spec.Key, groupTail},                   // a group's cached listing
			keyShape{schema.LivePart + spec.Key, groupTail}) // a group's live index
	}
	return shapes
}()

// holds reports whether s is a tail of the class.
func (c tailClass) holds(s string) bool {
	switch c {
	case idTail:
		return idOK(s)
	case groupTail:
		return checkGroup(s) == nil
	case userTail:
		return checkUser(s) == nil
	}
	return s == ""
}

// samples are tails of the class for shiftedKey to try: a plain one, and
// "7", which every class with a tail holds.
func (c tailClass) samples() []string {
	switch c {
	case noTail:
		return []string{""}
	case groupTail:
		return []string{"news", "7"}
	case userTail:
		return []string{"alice", "7"}
	}
	return []string{"7"}
}

// shiftedKey finds keys x and y of a namespace, after the prefix, with
// x == r + y: then the namespaces of prefixes P and P+r share the key P+x.
// For each pair of shapes it puts r before y's literal: where that string
// starts with x's literal, x's tail must hold the rest and then y's tail;
// where it is the start of x's literal, y's tail must hold the rest of x's
// literal and then x's tail. A rest that is not empty ends in ':', as every
// literal does, which of the classes only a user id holds, and it holds it
// followed by any sample (a rest is at most MaxPrefixLen bytes and a
// literal); an empty rest needs a tail both classes hold, and "7" is one
// if there is any. So the samples find a pair wherever there is one.
func shiftedKey(r string) (x, y string, ok bool) {
	for _, sx := range keyShapes {
		if !strings.HasPrefix(r, sx.literal) && !strings.HasPrefix(sx.literal, r) {
			continue
		}
		for _, sy := range keyShapes {
			joined := r + sy.literal
			if rest, ok := strings.CutPrefix(joined, sx.literal); ok {
				for _, t := range sy.tail.samples() {
					if sx.tail.holds(rest + t) {
						return joined + t, sy.literal + t, true
					}
				}
			} else if rest, ok := strings.CutPrefix(sx.literal, joined); ok {
				for _, t := range sx.tail.samples() {
					if sy.tail.holds(rest + t) {
						return sx.literal + t, sy.literal + rest + t, true
					}
				}
			}
		}
	}
	return "", "", false
}

// MaxPrefixLen is the longest key prefix, in bytes.
const MaxPrefixLen = 64

// hasHashTag reports whether Redis Cluster finds a hash tag in a key that
// starts with prefix: a first '{', then at least one character, then a '}'.
// Nothing after the prefix in a key of the namespace holds a brace, so every
// key then has the prefix's tag.
func hasHashTag(prefix string) bool {
	open := strings.IndexByte(prefix, '{')
	return open >= 0 && strings.IndexByte(prefix[open+1:], '}') > 0
}

// checkPrefix checks a prefix's length and characters, and refuses one
// under which keys of another namespace could fall.
func checkPrefix(p string) error {
	if len(p) > MaxPrefixLen {
		return errs.Invalidf("prefix is longer than %d bytes", MaxPrefixLen)
	}
	if !utf8.ValidString(p) {
		return errs.Invalidf("prefix %q is not valid UTF-8", p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return errs.Invalidf("prefix %q holds a space or control character", p)
		}
	}
	if other, x, y, ok := sharedKey(p); ok {
		return errs.Invalidf("prefix %q could share keys with the namespace of prefix %q: the key %q is that namespace's %q and this one's %q",
			p, other, other+x, x, y)
	}
	return nil
}

// sharedKey finds a key that the namespace of prefix p could share with
// that of a shorter prefix, other: other+x, which is p+y. Keys P+x and Q+y
// of two namespaces are one only if one prefix starts the other, say
// Q = P+r, and then x = r+y: so each end r of p is tried.
func sharedKey(p string) (other, x, y string, ok bool) {
	for i := range p {
		if x, y, ok := shiftedKey(p[i:]); ok {
			return p[:i], x, y, true
		}
	}
	return "", "", "", false
}
