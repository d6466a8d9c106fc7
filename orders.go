package voting

// This file holds the orders a listing can take, in one table: each order's
// name, its index's key, the kind of its index and, for a top-of-window
// order, its window. String, parsing, validation, the key schema and the
// scripts' arguments all read that table, so that a new order is one row;
// what an index of each kind holds is one function, value in
// lua/prelude.lua, which a post, a vote and Reindex all ask.

import (
	"strconv"
	"strings"
	"time"
)

// An Order is the order of a listing. ByScore and ByTime are the book's and
// are kept by every Store; a Store keeps the indexes of the others only when
// New is given WithOrders.
type Order int

const (
	// ByScore lists the highest score first: time + W x (up - down), the
	// book's ranking. It is the zero Order.
	ByScore Order = iota
	// ByTime lists the newest article first ("new").
	ByTime
	// ByVotes lists the most net votes first, up-votes less down-votes
	// ("top" of all time).
	ByVotes
	// ByControversy lists the most controversial first, as Reddit ranks it:
	// with u up-votes (the poster's own included) and d down-votes,
	// (u + d) ^ (min(u, d) / max(u, d)), and 0 when u or d is 0.
	ByControversy
	// TopDay is ByVotes among the articles posted in the last 24 hours.
	TopDay
	// TopWeek is ByVotes among the articles posted in the last 7 days.
	TopWeek
	// TopMonth is ByVotes among the articles posted in the last 30 days.
	TopMonth
	// TopYear is ByVotes among the articles posted in the last 365 days.
	TopYear
	// ByHot lists the hottest first, as Reddit's hot ranking: with s = up
	// - down (the poster's own up-vote counted) and t the posting time in
	// Unix seconds, sign(s) x log10(max(|s|, 1)) + (t - 1134028003) / 45000.
	// Ten times the net votes buy 12.5 hours.
	ByHot
	// ByBest lists the best first, as Reddit's "best": the lower bound of
	// the Wilson score interval of the up-votes' share, with z =
	// 1.281551565545 (80 % confidence) and n = up + down, p = up / n:
	// (p + z²/2n - z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), and 0 when n is
	// 0. Many votes, mostly up, rank above few.
	ByBest
)

// An indexKind is what an order's index holds for each article: a function
// of its posting time, up-votes, down-votes and score, which value in
// lua/prelude.lua computes for each kind by its name. A vote moves an entry
// whose value it changes.
type indexKind string

const (
	kindScore       indexKind = "score"       // the score: time + W x net votes
	kindTime        indexKind = "time"        // the posting time
	kindNet         indexKind = "net"         // up-votes less down-votes
	kindControversy indexKind = "controversy" // Reddit's controversy of the counts
	kindHot         indexKind = "hot"         // Reddit's hot ranking of the net votes and time
	kindBest        indexKind = "best"        // the Wilson lower bound of the up-votes' share
)

// An orderSpec is one row of the orders table.
type orderSpec struct {
	name    string    // the text form, for URLs and JSON: "top-week"
	aliases []string  // other names ParseOrder takes: "hot", "new", "top"
	key     string    // the index's key, before the prefix: "top-week:"
	kind    indexKind // what the index holds
	// window, for a top-of-window order, is how far back from now its
	// articles were posted. Its index holds the net votes of the articles
	// posted within it, and of ones aged out that no listing has trimmed
	// yet; a listing trims them before it reads.
	window time.Duration
	always bool   // kept by every Store: the book's two
	ident  string // the constant's name, for error messages
}

const day = 24 * time.Hour

// orders is the table of orders, indexed by Order.
var orders = [...]orderSpec{
	ByScore:       {ident: "ByScore", name: "score", key: "score:", kind: kindScore, always: true},
	ByTime:        {ident: "ByTime", name: "time", aliases: []string{"new"}, key: "time:", kind: kindTime, always: true},
	ByVotes:       {ident: "ByVotes", name: "votes", aliases: []string{"top", "top-all"}, key: "votes:", kind: kindNet},
	ByControversy: {ident: "ByControversy", name: "controversy", aliases: []string{"controversial"}, key: "controversy:", kind: kindControversy},
	TopDay:        {ident: "TopDay", name: "top-day", key: "top-day:", kind: kindNet, window: day},
	TopWeek:       {ident: "TopWeek", name: "top-week", key: "top-week:", kind: kindNet, window: 7 * day},
	TopMonth:      {ident: "TopMonth", name: "top-month", key: "top-month:", kind: kindNet, window: 30 * day},
	TopYear:       {ident: "TopYear", name: "top-year", key: "top-year:", kind: kindNet, window: 365 * day},
	ByHot:         {ident: "ByHot", name: "hot", key: "hot:", kind: kindHot},
	ByBest:        {ident: "ByBest", name: "best", key: "best:", kind: kindBest},
}

// spec is o's row; ok is false for an unknown Order.
func (o Order) spec() (spec *orderSpec, ok bool) {
	if o < 0 || int(o) >= len(orders) {
		return nil, false
	}
	return &orders[o], true
}

// Orders returns every Order there is, in the order of the table.
func Orders() []Order {
	all := make([]Order, len(orders))
	for i := range orders {
		all[i] = Order(i)
	}
	return all
}

// String returns the order's name, as ParseOrder takes it: "score", "time",
// "votes", "controversy", "top-day", "top-week", "top-month", "top-year",
// "hot" or "best".
func (o Order) String() string {
	if spec, ok := o.spec(); ok {
		return spec.name
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

// ParseOrder returns the Order named name, as String writes it, or by one
// of the names sites use for it: "new" for ByTime, "top" and "top-all" for
// ByVotes, "controversial" for ByControversy. "hot" is ByHot, Reddit's
// ranking (it was an alias of ByScore before ByHot). Case does
// not matter. An unknown name gives an error wrapping ErrInvalid.
func ParseOrder(name string) (Order, error) {
	for i, spec := range orders {
		if strings.EqualFold(name, spec.name) {
			return Order(i), nil
		}
		for _, alias := range spec.aliases {
			if strings.EqualFold(name, alias) {
				return Order(i), nil
			}
		}
	}
	names := make([]string, len(orders))
	for i, spec := range orders {
		names[i] = spec.name
	}
	return 0, invalid("unknown order %q: want one of %s", name, strings.Join(names, ", "))
}

// MarshalText writes the order's name, as String does; an unknown Order is
// an error.
func (o Order) MarshalText() ([]byte, error) {
	if _, ok := o.spec(); !ok {
		return nil, invalid("unknown order %d", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads an order's name as ParseOrder does.
func (o *Order) UnmarshalText(text []byte) error {
	parsed, err := ParseOrder(string(text))
	if err != nil {
		return err
	}
	*o = parsed
	return nil
}

// checkOrder refuses an unknown order, and one whose index the Store does
// not keep.
func (s *Store) checkOrder(o Order) (*orderSpec, error) {
	spec, ok := o.spec()
	if !ok {
		return nil, invalid("unknown order %d", int(o))
	}
	if !s.keeps[o] {
		return nil, invalid("order %s is not kept by this Store: give New WithOrders(voting.%s)", spec.name, spec.ident)
	}
	return spec, nil
}

// An orderField is a field of an order that a script takes in its list of
// the kept orders (see lua/prelude.lua's reader).
type orderField int

const (
	orderKey    orderField = iota // its index's key, after the prefix: "top-week:"
	orderKind                     // the kind of its index: "net"
	orderWindow                   // a window order's name, the field of its mark in trimmed:; "" for none
	orderCut                      // the posting time that leaves the window at now; "" for none
)

// orderList appends to c the list of the orders given, as a script takes
// them (see call.columns): with the fields given, in that order.
func orderList(c *call, list []Order, now time.Time, fields ...orderField) {
	get := make([]func(i int) any, len(fields))
	for j, f := range fields {
		get[j] = func(i int) any {
			spec := &orders[list[i]]
			switch f {
			case orderKey:
				return spec.key
			case orderKind:
				return string(spec.kind)
			case orderWindow:
				return markField(spec, "")
			}
			if spec.window == 0 {
				return ""
			}
			return spec.cut(now)
		}
	}
	c.columns(len(list), get...)
}

// cut is the posting time that leaves a window order's window at now: an
// article posted at or before it is out.
func (spec *orderSpec) cut(now time.Time) string { return unixSeconds(now.Add(-spec.window)) }
