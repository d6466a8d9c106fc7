package schema

// This file holds the orders a listing can take, in one table: each order's
// name, its index's key, the kind of its index and, for a top-of-window
// order, its window. The voting package's Order is an index of the table;
// String, parsing, validation, the key schema and the scripts' arguments
// all read it, so that a new order is one row; what an index of each kind
// holds is one function, value in the scripts' library, which a post, a
// vote and Reindex all ask.

import "time"

// A Kind is what an order's index holds for each article: a function
// of its posting time, up-votes, down-votes and score, which value in
// the scripts' library computes for each kind by its name. A vote moves an entry
// whose value it changes.
type Kind string

const (
	KindScore       Kind = "score"       // the score: time + W x net votes
	KindTime        Kind = "time"        // the posting time
	KindNet         Kind = "net"         // up-votes less down-votes
	KindControversy Kind = "controversy" // Reddit's controversy of the counts
	KindHot         Kind = "hot"         // Reddit's hot ranking of the net votes and time
	KindBest        Kind = "best"        // the Wilson lower bound of the up-votes' share
)

// An OrderSpec is one row of the orders table.
type OrderSpec struct {
	Name    string   // the text form, for URLs and JSON: "top-week"
	Aliases []string // other names ParseOrder takes: "hot", "new", "top"
	Key     string   // the index's key, before the prefix: "top-week:"
	Kind    Kind     // what the index holds
	// Window, for a top-of-window order, is how far back from now its
	// articles were posted. Its index holds the net votes of the articles
	// posted within it, and of ones aged out that no listing has trimmed
	// yet; a listing trims them before it reads.
	Window time.Duration
	Always bool   // kept by every Store: the book's two
	Ident  string // the constant's name, for error messages
}

const day = 24 * time.Hour

// ByScore and ByTime are the book's two orders, the first two rows of the
// table, which every Store keeps.
const (
	ByScore = 0
	ByTime  = 1
)

// Orders is the table of orders, indexed by the voting package's Order.
var Orders = [...]OrderSpec{
	{Ident: "ByScore", Name: "score", Key: "score:", Kind: KindScore, Always: true},
	{Ident: "ByTime", Name: "time", Aliases: []string{"new"}, Key: "time:", Kind: KindTime, Always: true},
	{Ident: "ByVotes", Name: "votes", Aliases: []string{"top", "top-all"}, Key: "votes:", Kind: KindNet},
	{Ident: "ByControversy", Name: "controversy", Aliases: []string{"controversial"}, Key: "controversy:", Kind: KindControversy},
	{Ident: "TopDay", Name: "top-day", Key: "top-day:", Kind: KindNet, Window: day},
	{Ident: "TopWeek", Name: "top-week", Key: "top-week:", Kind: KindNet, Window: 7 * day},
	{Ident: "TopMonth", Name: "top-month", Key: "top-month:", Kind: KindNet, Window: 30 * day},
	{Ident: "TopYear", Name: "top-year", Key: "top-year:", Kind: KindNet, Window: 365 * day},
	{Ident: "ByHot", Name: "hot", Key: "hot:", Kind: KindHot},
	{Ident: "ByBest", Name: "best", Key: "best:", Kind: KindBest},
}

// Cut is the posting time that leaves a window order's window at now: an
// article posted at or before it is out.
func (spec *OrderSpec) Cut(now time.Time) string { return UnixSeconds(now.Add(-spec.Window)) }

// MarkField is the field of trimmed: that holds the mark of a top-of-window
// index of spec's order: the site's ("top-week") for group "", else the
// group's live index's ("top-week:news"); "" for an order with no window.
func MarkField(spec *OrderSpec, group string) string {
	switch {
	case spec.Window == 0:
		return ""
	case group == "":
		return spec.Name
	}
	return spec.Name + ":" + group
}
