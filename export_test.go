package voting

import (
	"reflect"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/model"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/tracking"
)

// SetBatches sets how many articles one step of a window's trimming and one
// step of Reindex take, so that tests reach the steps' edges with a few
// articles.
func SetBatches(s *Store, trim, reindex int) { s.trimBatch, s.reindexBatch = trim, reindex }

// SetHistoryBatch sets how many voters' histories one step of
// DeleteArticle clears.
func SetHistoryBatch(s *Store, n int) { s.historyBatch = n }

// SetStopBatch sets how many keys, groups or articles one step of
// StopKeeping takes.
func SetStopBatch(s *Store, n int) { s.stopBatch = n }

// Cursor is the cursor of the point (value, id) in group's listing by
// order ("" for the site's), as a page ending there gives it.
func Cursor(o Order, group, value, id string) string {
	return makeCursor(o.String(), group, point{value, id})
}

// View is the namespace's settings as s last read them, or before its
// first call those its options ask for, with no round trip.
func View(s *Store) Settings { return s.view() }

// LinkKey is a link's field in the index of links.
func LinkKey(link string) string { return schema.LinkKey(link) }

// LinkShare is the member of linkshares: of the article id, posted at
// posted (Unix seconds), whose link key another article holds.
func LinkShare(key string, posted float64, id string) string { return model.LinkShare(key, posted, id) }

// IndexValue is what the index of order o holds for an article, computed
// in Go (internal/model): the tests' one model of it.
func IndexValue(o Order, posted, ups, downs, score float64) float64 {
	want, _ := model.Value(schema.Orders[o].Kind, posted, ups, downs, score)
	return want
}

// IndexValueMatches reports whether got, a value Redis holds in the index
// of order o, is the one IndexValue gives, to within rounding for a value
// Lua computes with a power.
func IndexValueMatches(o Order, got, posted, ups, downs, score float64) bool {
	return model.ValueMatches(schema.Orders[o].Kind, got, posted, ups, downs, score)
}

// SharedKey is the key the namespace of prefix p could share with that of
// a shorter prefix, other, by which New refuses p: other+x, which is p+y.
func SharedKey(p string) (other, x, y string, ok bool) { return sharedKey(p) }

// ShiftedKey gives keys x and y of a namespace, after the prefix, with
// x == r+y, if there are any.
func ShiftedKey(r string) (x, y string, ok bool) { return shiftedKey(r) }

// A KeyShape is a row of keyShapes: a literal, and the class of its tail,
// "" for none or "id", "group" or "user".
type KeyShape struct{ Literal, Tail string }

// KeyShapes are the shapes the prefix check knows.
func KeyShapes() []KeyShape {
	names := map[tailClass]string{noTail: "", idTail: "id", groupTail: "group", userTail: "user"}
	out := make([]KeyShape, len(keyShapes))
	for i, s := range keyShapes {
		out[i] = KeyShape{s.literal, names[s.tail]}
	}
	return out
}

// A KeyMaker is one way the Store names a key: Make gives the key for a
// tail of the kind Tail ("" for none, when the tail is ignored; "id",
// "group" or "user").
type KeyMaker struct {
	Name string
	Make func(tail string) string
	Tail string
}

// KeyMakers are the methods of keys, under prefix, that name every key a
// Store writes.
func KeyMakers(prefix string) []KeyMaker {
	k := schema.NewKeys(prefix)
	fixed := func(key string) func(string) string { return func(string) string { return key } }
	makers := []KeyMaker{
		{"counter", fixed(k.Counter()), ""},
		{"articleHash", k.ArticleHash, "id"},
		{"votedSet", k.VotedSet, "id"},
		{"downvotedSet", k.DownvotedSet, "id"},
		{"groupSet", k.GroupSet, "group"},
		{"groupRecord", k.GroupRecord, "id"},
		{"userHistory", k.UserHistory, "user"},
		{"groupSizes", fixed(k.GroupSizes()), ""},
		{"userPosts", k.UserPosts, "user"},
		{"pendingVotedSet", k.PendingVotedSet, "id"},
		{"pendingDownvotedSet", k.PendingDownvotedSet, "id"},
		{"trimmedHash", fixed(k.TrimmedHash()), ""},
		{"reindexProgress", fixed(k.ReindexProgress()), ""},
		{"indexedHash", fixed(k.IndexedHash()), ""},
		{"settings", fixed(k.Settings()), ""},
		{"progress", fixed(k.Progress()), ""},
		{"builder", fixed(k.Builder()), ""},
		{"commentCounter", fixed(k.CommentCounter()), ""},
		{"commentHash", k.CommentHash, "id"},
		{"commentVoted", k.CommentVoted, "id"},
		{"commentDownvoted", k.CommentDownvoted, "id"},
		{"thread", k.Thread, "id"},
		{"userComments", k.UserComments, "user"},
	}
	for _, ix := range schema.Indexes {
		for _, part := range ix.Parts {
			makers = append(makers, KeyMaker{ix.Name + " " + part.Key, fixed(k.Whole(part.Key)), ""})
		}
	}
	for _, kind := range schema.CommentKinds {
		makers = append(makers,
			KeyMaker{"replies of an article " + string(kind), func(id string) string { return k.Replies(kind, schema.ArticleParent+id) }, "id"},
			KeyMaker{"replies of a comment " + string(kind), func(id string) string { return k.Replies(kind, schema.CommentParent+id) }, "id"})
	}
	for i := range schema.Orders {
		o := Order(i)
		makers = append(makers,
			KeyMaker{"index " + o.String(), fixed(k.Index(int(o))), ""},
			KeyMaker{"groupCache " + o.String(), func(g string) string { return k.GroupCache(g, int(o)) }, "group"},
			KeyMaker{"liveIndex " + o.String(), func(g string) string { return k.LiveIndex(g, int(o)) }, "group"})
	}
	return makers
}

// CheckTail checks a tail of a KeyMaker's kind as the Store checks its
// input: an article id, a group name or a user id; "" for no tail.
func CheckTail(kind, tail string) error {
	switch kind {
	case "id":
		return checkID(tail)
	case "group":
		return checkGroup(tail)
	case "user":
		return checkUser(tail)
	}
	if tail != "" {
		return errs.Invalidf("no tail expected, got %q", tail)
	}
	return nil
}

// KeyParts are the strings newKeys joins after the prefix: each string
// field of keys but the prefix, each of its indexes' keys and each key a
// kind keeps whole.
func KeyParts() []string {
	const prefix = "P"
	v := reflect.ValueOf(schema.NewKeys(prefix))
	var parts []string
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if v.Type().Field(i).Name == "prefix" {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			parts = append(parts, strings.TrimPrefix(f.String(), prefix))
		case reflect.Array:
			for j := 0; j < f.Len(); j++ {
				parts = append(parts, strings.TrimPrefix(f.Index(j).String(), prefix))
			}
		case reflect.Map:
			for _, key := range f.MapKeys() {
				parts = append(parts, strings.TrimPrefix(f.MapIndex(key).String(), prefix))
			}
		default:
			panic("keys has a field of kind " + f.Kind().String())
		}
	}
	return parts
}

// ClientCache is s's client-side cache (WithClientCache), nil without one.
func ClientCache(s *Store) *tracking.Cache { return s.cache }

// SharedConns are s's auto-pipelining connections (WithAutoPipelining),
// nil without them.
func SharedConns(s *Store) *rconn.Pipes { return s.rc.Pipes }

// BuildRuns is how many background runs of Reindex s has completed.
func BuildRuns(s *Store) int {
	runs, _, _ := s.build.state()
	return runs
}

// BuilderRunning reports whether s's background builder runs now.
func BuilderRunning(s *Store) bool {
	_, running, _ := s.build.state()
	return running
}
