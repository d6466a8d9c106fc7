package voting

// This file holds the orders a listing can take, in one table: each order's
// name, its index's key, what its index holds (and so how a post and a vote
// move it) and, for a top-of-window order, its window. String, parsing,
// validation, the key schema and the scripts all read that table, so that a
// new order is one row.

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
	// book's ("hot"). It is the zero Order.
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
)

// An indexKind is what an order's index holds for each article, and so how
// a post and a vote change it. The scripts know each kind by its name.
type indexKind string

const (
	holdsScore       indexKind = "score"       // time + W x net votes, moved by W x each vote
	holdsTime        indexKind = "time"        // the posting time; votes do not move it
	holdsNet         indexKind = "net"         // up-votes less down-votes
	holdsControversy indexKind = "controversy" // Reddit's controversy of the counts
)

// An orderSpec is one row of the orders table.
type orderSpec struct {
	name    string    // the text form, for URLs and JSON: "top-week"
	aliases []string  // other names ParseOrder takes: "hot", "new", "top"
	key     string    // the index's key, before the prefix: "top-week:"
	holds   indexKind // what the index holds
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
	ByScore:       {ident: "ByScore", name: "score", aliases: []string{"hot"}, key: "score:", holds: holdsScore, always: true},
	ByTime:        {ident: "ByTime", name: "time", aliases: []string{"new"}, key: "time:", holds: holdsTime, always: true},
	ByVotes:       {ident: "ByVotes", name: "votes", aliases: []string{"top", "top-all"}, key: "votes:", holds: holdsNet},
	ByControversy: {ident: "ByControversy", name: "controversy", aliases: []string{"controversial"}, key: "controversy:", holds: holdsControversy},
	TopDay:        {ident: "TopDay", name: "top-day", key: "top-day:", holds: holdsNet, window: day},
	TopWeek:       {ident: "TopWeek", name: "top-week", key: "top-week:", holds: holdsNet, window: 7 * day},
	TopMonth:      {ident: "TopMonth", name: "top-month", key: "top-month:", holds: holdsNet, window: 30 * day},
	TopYear:       {ident: "TopYear", name: "top-year", key: "top-year:", holds: holdsNet, window: 365 * day},
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
// "votes", "controversy", "top-day", "top-week", "top-month" or "top-year".
func (o Order) String() string {
	if spec, ok := o.spec(); ok {
		return spec.name
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

// ParseOrder returns the Order named name, as String writes it, or by one
// of the names sites use for it: "hot" for ByScore, "new" for ByTime, "top"
// and "top-all" for ByVotes, "controversial" for ByControversy. Case does
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

// Orders returns the orders the Store keeps indexes for, and so can list
// by: ByScore, ByTime and those given to WithOrders, in the order of the
// table.
func (s *Store) Orders() []Order {
	var kept []Order
	for i := range orders {
		if s.keeps[i] {
			kept = append(kept, Order(i))
		}
	}
	return kept
}

// A keptIndex is an index beyond the book's two that a Store keeps, as its
// scripts see it.
type keptIndex struct {
	order Order
	key   string // with the prefix
}

// keptOrders works out, from the orders WithOrders gave (known ones: the
// options are checked first), which the Store keeps, and the indexes beyond
// the book's two, in the order of the table.
func keptOrders(given []Order, k keys) (keeps [len(orders)]bool, extra []keptIndex) {
	for _, o := range given {
		keeps[o] = true
	}
	for i, spec := range orders {
		if spec.always {
			keeps[i] = true
		} else if keeps[i] {
			extra = append(extra, keptIndex{order: Order(i), key: k.index(Order(i))})
		}
	}
	return keeps, extra
}
