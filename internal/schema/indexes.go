package schema

// This file holds one description of each kind of index the library keeps
// beside the book's own layout: its keys, what writes it, how Reindex
// builds it, its mark in indexed: and what must hold of it. The Go that
// marks indexes built, names a run of Reindex, words ErrNotIndexed, keeps
// the settings and takes a kind out (StopKeeping) reads it; the scripts'
// code for each kind is in the library file it names; and the invariant
// checker has one check per kind, which its test holds to this table, so
// that a kind added here is checked.
//
// A kind kept by an option of no value of its own, for articles and
// comments alike, is added in four places (the active users' are the
// example): its row here; its hooks, in its file of the scripts' library
// (internal/script/lua/lib/<Lib>.lua, <name>On<Event> and
// <name>OnComment<Event>); its field of Settings, tagged kind:"<name>"
// (namespace.go); and its option, keepKind("<name>"), with the calls that
// read it (a file of its own, as active.go). The key schema's tables
// (keys.go, doc.go) then name its keys, and the invariant checker its
// check: tests fail until they do.

import (
	"fmt"
	"strings"

	"github.com/articlevote/voting/internal/errs"
)

// An Index is one kind of index.
type Index struct {
	// Name names the kind: in a run of Reindex's name, and in the
	// invariant checker's list of checks.
	Name string
	// Option is the option that keeps it ("" for one every Store keeps),
	// and What the kind in an error's words ("index of links").
	Option, What string
	// PerOrder is set for a kind with an index per kept order; its marks
	// are then Mark + the order's name ("live:score"), and the book's two
	// orders' site indexes need none. PerGroup is set for a kind with an
	// index per group, which a change of groups writes.
	PerOrder, PerGroup bool
	// Mark is the field of its mark in indexed:, or for a kind per order
	// the start of each order's; "" for a kind that needs none (every
	// Store writes it, or it is the book's own).
	Mark string
	// Lib is the file of the scripts' library that holds the Lua of the
	// kind's writes ("" for one whose few writes each script makes
	// inline): for a kind an option keeps, its hooks, which the writes of
	// the kind run (internal/script/lua/lib/hooks.lua).
	Lib string
	// Parts are the keys of the namespace the kind keeps whole, each its
	// name after the prefix (Key) and its type; they are among Families.
	// Its Lua names each by script.PartConstant ("karma:" is KARMA_PART),
	// prefix .. KARMA_PART.
	Parts []Family
	// Fields are the fields of an item's hash (an article's, a comment's)
	// its Lib's hooks read; Owns those its hooks write there, which
	// StopKeeping takes out of every item's hash.
	Fields, Owns []string
	// Missing says, in ErrNotIndexed's words, what the kind lacks until
	// Reindex builds it; Verb what Reindex does to it there ("build" if
	// empty).
	Missing, Verb string
	// Keys, Writes, Rebuild and Invariant say where the kind lives, what
	// keeps it, how Reindex builds it for articles written without it,
	// and what the invariant checker holds of it.
	Keys, Writes, Rebuild, Invariant string
}

// Indexes are the kinds of index, in the order Reindex's run names them.
var Indexes = []Index{
	{
		Name: "orders", Option: "WithOrders", PerOrder: true, Lib: "values",
		Missing: "the %s index does not hold every article yet",
		Keys:    "votes:, controversy:, top-day: ... hot:, best: (the orders table), members article:<id>; trimmed: for the windows' marks",
		Writes:  "every post adds the article, every vote moves its entry where the value changes (value in lib/values.lua), a window's listing trims it",
		Rebuild: "the walk of the time index sets each article's entry from its counters, a window's only within the window",
		Invariant: "every article has its entry, equal to what its counters say; a window holds exactly those posted after its mark " +
			"and its start",
	},
	{
		Name: "live", Option: "WithLiveGroups", PerOrder: true, PerGroup: true, Mark: LivePart,
		Missing: "the groups' live %s indexes do not hold every article yet",
		Keys:    "live:<order key><group> per group per kept order; trimmed: <window>:<group> for the windows' marks",
		Writes:  "posts and group changes add and take out the article, votes move it, as in the site's index of the order",
		Rebuild: "the walk of each group's set copies each member's entry from the site's index of each kept order",
		Invariant: "each live index holds the entries the site's index of its order would hold if it listed only the group's " +
			"members (the group's own mark for a window), with the same values",
	},
	{
		Name: "history", Option: "WithUserHistory", Lib: "history",
		Keys:      "history:<user>: members up:article:<id> and down:article:<id>, scored with the time of the vote",
		Writes:    "every vote and post of the user adds or moves the entry and forgets up to 100 entries past the history's time",
		Rebuild:   "none: a history starts with the option (the votes cast before it are not known)",
		Invariant: "each entry is the user's vote on the article while voting is open, at most one per article",
	},
	{
		Name:      "posts",
		Keys:      "posts:<user>: the user's articles, scored with their posting time",
		Writes:    "every post adds the article, every deletion takes it out, in every namespace",
		Rebuild:   "the walk of the time index adds each article to its poster's index",
		Invariant: "posts:<user> holds exactly the articles whose hash names the user as poster, each at its posting time",
	},
	{
		Name: "sizes", Lib: "groups", Parts: []Family{{SizesPart, "zset"}},
		Keys:      "groupsizes:: member a group's name, score the number of articles in its set",
		Writes:    "posts and group changes add one per group joined; group changes and deletions set the size from SCARD",
		Rebuild:   "the walk of each group's set sets its size from the set's",
		Invariant: "it gives each group whose set has members the set's size, and holds no other name",
	},
	{
		Name: "karma", Option: "WithKarma", What: "karma", Mark: "karma", Lib: "karma", Parts: []Family{{KarmaPart, "zset"}, {CommentKarmaPart, "zset"}},
		Fields: []string{"poster", "karma"}, Owns: []string{"karma"},
		Missing: "karma does not count every article yet", Verb: "count",
		Keys: "karma:: member a poster, score the sum of the karma fields of their articles; the field karma of article:<id>; " +
			"karma-comments: and the field karma of comment:<id>, the same of comments",
		Writes: "a post enters the poster, a vote by anyone but the poster moves the article's part and the poster's sum, a deletion takes the part away; " +
			"comments the same in karma-comments:, which a commenter leaves with their last comment",
		Rebuild: "the walk of the time index counts each article's part from its voter sets while voting is open; the walk of the comments each comment's",
		Invariant: "every article has its part, equal while voting is open to its up-votes less its down-votes less the poster's " +
			"own vote; karma: gives each poster the sum of their parts; every comment likewise, and karma-comments: gives each " +
			"user with a comment the sum of their comments' parts",
	},
	{
		Name: "links", Option: "WithUniqueLinks", What: "index of links", Mark: "links", Lib: "links", Parts: []Family{{LinksPart, "hash"}, {SharesPart, "zset"}},
		Fields:  []string{"link", "time"},
		Missing: "the index of links does not hold every article's yet",
		Keys:    "links:: field a link's key (LinkKey), value the id of the article that holds it; linkshares: the others that Reindex found with it",
		Writes:  "a post or edit of a link holds it, and is refused if another does; an edit or deletion gives it up to the oldest that shares it",
		Rebuild: "the walk of the time index makes each article hold its link, or share it behind the article that holds it",
		Invariant: "every field names an article with that link, every member of linkshares: one that shares it; every article " +
			"holds or shares its link",
	},
	{
		Name: "active", Option: "WithActiveUsers", What: "index of active users", Mark: "active", Lib: "active",
		Parts: []Family{{"active:", "zset"}}, Fields: []string{"poster"},
		Missing:   "the index of active users does not hold every poster yet",
		Keys:      "active:: member a user who has posted an article or a comment, score the latest time they posted one",
		Writes:    "a post of an article or a comment moves its poster's time on; a deletion leaves it",
		Rebuild:   "the walks of the time index and of the comments move each poster's time on to their item's",
		Invariant: "every poster of an article or a comment not deleted is there with a time no earlier than their item's",
	},
}

// IndexNamed is the kind of the name, and whether there is one.
func IndexNamed(name string) (Index, bool) {
	for _, ix := range Indexes {
		if ix.Name == name {
			return ix, true
		}
	}
	return Index{}, false
}

// MarkOf is the field of indexed: of the kind of index name (Indexes).
func MarkOf(name string) string {
	ix, _ := IndexNamed(name)
	return ix.Mark
}

// NotIndexed is errs.ErrNotIndexed for a listing of the index whose field
// of indexed: is field, in its kind's words.
func NotIndexed(field string) error {
	for _, ix := range Indexes {
		switch {
		case ix.Mark == "" && !ix.PerOrder, ix.Missing == "":
			continue
		case ix.PerOrder && ix.Mark != "" && strings.HasPrefix(field, ix.Mark):
			return errs.Of(errs.ErrNotIndexed, fmt.Sprintf(ix.Missing, strings.TrimPrefix(field, ix.Mark))+": run Reindex to build them")
		case !ix.PerOrder && field == ix.Mark:
			return errs.Of(errs.ErrNotIndexed, ix.Missing+": run Reindex to "+rebuildVerb(ix)+" it")
		}
	}
	ix, _ := IndexNamed("orders")
	return errs.Of(errs.ErrNotIndexed, fmt.Sprintf(ix.Missing, field)+": run Reindex to build it")
}

// rebuildVerb is what Reindex does to the kind, in ErrNotIndexed's words.
func rebuildVerb(ix Index) string {
	if ix.Verb == "" {
		return "build"
	}
	return ix.Verb
}
