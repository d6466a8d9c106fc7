package voting

// This file holds the orders a listing can take: Order, an index of the
// orders table (internal/schema), which String, parsing, validation, the
// key schema and the scripts' arguments all read, so that a new order is a
// constant here and a row there.

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
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

// spec is o's row; ok is false for an unknown Order.
func (o Order) spec() (spec *schema.OrderSpec, ok bool) {
	if o < 0 || int(o) >= len(schema.Orders) {
		return nil, false
	}
	return &schema.Orders[o], true
}

// Orders returns every Order there is, in the order of the table.
func Orders() []Order {
	all := make([]Order, len(schema.Orders))
	for i := range schema.Orders {
		all[i] = Order(i)
	}
	return all
}

// String returns the order's name, as ParseOrder takes it: "score", "time",
// "votes", "controversy", "top-day", "top-week", "top-month", "top-year",
// "hot" or "best".
func (o Order) String() string {
	if spec, ok := o.spec(); ok {
		return spec.Name
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

// ParseOrder returns the Order named name, as String writes it, or by one
// of the names sites use for it: "new" for ByTime, "top" and "top-all" for
// ByVotes, "controversial" for ByControversy. "hot" is ByHot, Reddit's
// ranking (it was an alias of ByScore before ByHot). Case does
// not matter. An unknown name gives an error wrapping ErrInvalid.
func ParseOrder(name string) (Order, error) {
	i, err := parseName("order", name, len(schema.Orders), func(i int) (string, []string) {
		return schema.Orders[i].Name, schema.Orders[i].Aliases
	})
	return Order(i), err
}

// parseName is the row of a table of n rows (orders, comment orders) that
// name names, by the row's name or one of its aliases (row gives them);
// case does not matter. An unknown name gives an error wrapping ErrInvalid
// that lists the rows' names.
func parseName(what, name string, n int, row func(i int) (name string, aliases []string)) (int, error) {
	names := make([]string, n)
	for i := range n {
		own, aliases := row(i)
		if strings.EqualFold(name, own) || slices.ContainsFunc(aliases, func(a string) bool { return strings.EqualFold(name, a) }) {
			return i, nil
		}
		names[i] = own
	}
	return 0, errs.Invalidf("unknown %s %q: want one of %s", what, name, strings.Join(names, ", "))
}

// MarshalText writes the order's name, as String does; an unknown Order is
// an error.
func (o Order) MarshalText() ([]byte, error) {
	if _, ok := o.spec(); !ok {
		return nil, errs.Invalidf("unknown order %d", int(o))
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

// scriptOrders are the orders of list as a script takes them, with no
// window's cut (for a script that takes none).
func scriptOrders(list []Order) []script.Order {
	out := make([]script.Order, len(list))
	for i, o := range list {
		out[i] = script.OrderOf(int(o), "")
	}
	return out
}

// scriptOrdersAt are the orders of list as a script takes them, each
// window with its cut at now.
func scriptOrdersAt(list []Order, now time.Time) []script.Order {
	out := make([]script.Order, len(list))
	for i, o := range list {
		cut := ""
		if spec := &schema.Orders[o]; spec.Window != 0 {
			cut = spec.Cut(now)
		}
		out[i] = script.OrderOf(int(o), cut)
	}
	return out
}
