package script

// This file holds a Call: one run of a script with its KEYS and ARGV, as
// the struct of the script's arguments builds it (args_gen.go, made from
// the script's header), and the pieces those structs are built with.

import (
	"errors"

	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// A Call is one run of a script: the script and its KEYS and ARGV, in the
// order of its header.
type Call struct {
	Script *Script
	Keys   []string
	Args   []any
}

// Eval is the call as a round trip runs it: the arguments of EVALSHA (the
// script's SHA-1, the number of keys, the keys and the arguments), the
// script's source, for EVAL when Redis does not have it, and, for a script
// whose header says it never writes or that its reply tells, how a round
// trip learns whether it wrote.
func (c Call) Eval() rconn.Eval {
	args := make([]any, 0, 2+len(c.Keys)+len(c.Args))
	args = append(args, c.Script.SHA(), len(c.Keys))
	for _, k := range c.Keys {
		args = append(args, k)
	}
	e := rconn.Eval{Args: append(args, c.Args...), Source: c.Script.Source()}
	switch c.Script.header.writes {
	case "never":
		e.Writes = neverWrites
	case "reply":
		e.Writes = replyWrote
	}
	return e
}

// neverWrites is the Eval.Writes of a script that never writes.
func neverWrites(any, error) bool { return false }

// replyWrote is the Eval.Writes of a script whose status reply says when
// it wrote: a round trip that failed before its reply may have written,
// unless Redis answered an error, which a script raises only before it
// writes and Redis gives only for a script it did not run.
func replyWrote(reply any, err error) bool {
	if err != nil {
		var rerr redis.Error
		return !errors.As(err, &rerr)
	}
	st, err := ReadStatus(reply, nil)
	return err == nil && st.Detail == Wrote
}

// Flag is a yes or no as a script takes it (":flag"): '1' or '0'.
func Flag(yes bool) any {
	if yes {
		return "1"
	}
	return "0"
}

// Names are a list of names a script takes as a list of one column
// ("built[field]"), the same for every call of a Store: their arguments
// are made once, since putting a string in an interface allocates.
type Names struct {
	list []string
	args []any
}

// NewNames are the names of list.
func NewNames(list []string) *Names {
	return &Names{list: list, args: appendNames(make([]any, 0, 1+len(list)), list)}
}

// List is the names.
func (n *Names) List() []string { return n.list }

// size is the number of arguments n is sent as: its length and its names.
func (n *Names) size() int {
	if n == nil {
		return 1
	}
	return len(n.args)
}

// appendList appends to args the list n as a script takes it; none for nil.
func appendList(args []any, n *Names) []any {
	if n == nil {
		return append(args, 0)
	}
	return append(args, n.args...)
}

// appendNames appends to args a list of one column, as the library's
// columns reads it: its length, then its entries.
func appendNames(args []any, names []string) []any {
	args = append(args, len(names))
	for _, n := range names {
		args = append(args, n)
	}
	return args
}

// A Text is one entry of a script's list of an article's text fields
// ("texts[name value]"): those no index reads, which a script stores as
// they are.
type Text struct {
	Name, Value string
}

// An Order is one entry of a script's list of orders ("orders[...]"):
// those of its columns the script takes, each as the order's row in the
// orders table gives it (schema.Orders) and, for a window, its cut now.
type Order struct {
	Key    string // the index's key after the prefix: "top-week:"
	Kind   string // the kind of its index: "net"
	Window string // a window order's name, the field of its mark in trimmed:; "" for none
	Cut    string // the posting time that leaves the window now; "" for none
}

// OrderOf is the entry of the order of the table's row o, with its window's
// cut at now (a Unix time as schema.UnixSeconds writes it; "" for no cut).
func OrderOf(o int, cut string) Order {
	spec := &schema.Orders[o]
	return Order{Key: spec.Key, Kind: string(spec.Kind), Window: schema.MarkField(spec, ""), Cut: cut}
}
