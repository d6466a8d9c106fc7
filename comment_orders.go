package voting

// This file holds the orders a list of comments is read in; their values
// and indexes are described in internal/schema/comments.go.

import (
	"strconv"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"
)

// A CommentOrder is the order a list of comments is read in. Its text and
// JSON forms are "best", "top", "new", "old" and "controversial".
type CommentOrder int

const (
	// CommentsByBest orders by the lower bound of the Wilson score
	// interval of the up-votes' share, as ByBest and Reddit's "best": the
	// zero CommentOrder.
	CommentsByBest CommentOrder = iota
	// CommentsByTop orders by net votes, most first.
	CommentsByTop
	// CommentsByNew orders by posting time, newest first.
	CommentsByNew
	// CommentsByOld orders by posting time, oldest first.
	CommentsByOld
	// CommentsByControversy orders by Reddit's controversy, as
	// ByControversy.
	CommentsByControversy
)

// spec is o's row of the table, or an error wrapping ErrInvalid.
func (o CommentOrder) spec() (*schema.CommentOrderSpec, error) {
	if o < 0 || int(o) >= len(schema.CommentOrders) {
		return nil, errs.Invalidf("unknown comment order %d", int(o))
	}
	return &schema.CommentOrders[o], nil
}

// String returns the order's name: "best", "top", "new", "old" or
// "controversial".
func (o CommentOrder) String() string {
	if spec, err := o.spec(); err == nil {
		return spec.Name
	}
	return "CommentOrder(" + strconv.Itoa(int(o)) + ")"
}

// ParseCommentOrder returns the comment order named name, as String writes
// it, or by another name it has, as ParseOrder reads the articles' orders:
// "controversy" for CommentsByControversy, as ByControversy is named, so
// that one name reads the same order of articles and of comments. Case
// does not matter. Any other name is an error wrapping ErrInvalid.
func ParseCommentOrder(name string) (CommentOrder, error) {
	i, err := parseName("comment order", name, len(schema.CommentOrders), func(i int) (string, []string) {
		return schema.CommentOrders[i].Name, schema.CommentOrders[i].Aliases
	})
	return CommentOrder(i), err
}

// MarshalText writes the order's name; an unknown order is an error.
func (o CommentOrder) MarshalText() ([]byte, error) {
	spec, err := o.spec()
	if err != nil {
		return nil, err
	}
	return []byte(spec.Name), nil
}

// UnmarshalText reads an order's name as ParseCommentOrder does.
func (o *CommentOrder) UnmarshalText(text []byte) error {
	parsed, err := ParseCommentOrder(string(text))
	if err != nil {
		return err
	}
	*o = parsed
	return nil
}
