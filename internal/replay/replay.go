// Package replay sends round trips recorded by package roundtrip again,
// through plain redigo, so that the benchmarks of package voting can set the
// library beside a client that sends exactly the same commands and does
// nothing else: no context, no checks, no conversion of replies.
package replay

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/articlevote/voting/internal/roundtrip"
	"github.com/gomodule/redigo/redis"
)

// A Script is a recorded operation's round trips, ready to send again.
type Script struct {
	trips []trip
}

type trip struct {
	pipelined bool
	cmds      []roundtrip.Command
}

// From makes a Script of recorded round trips. Every string and []byte
// argument goes through rewrite, if not nil: to move the commands to another
// namespace, say. A trip that failed, or got no reply, is refused.
func From(recorded []roundtrip.Trip, rewrite func(string) string) (*Script, error) {
	if len(recorded) == 0 {
		return nil, errors.New("replay: nothing recorded")
	}
	s := &Script{trips: make([]trip, len(recorded))}
	for i, t := range recorded {
		if t.Err != nil {
			return nil, fmt.Errorf("replay: round trip %d failed: %w", i+1, t.Err)
		}
		if len(t.Commands) == 0 {
			return nil, fmt.Errorf("replay: round trip %d sent no command", i+1)
		}
		if !t.Pipelined() && len(t.Commands) != 1 {
			return nil, fmt.Errorf("replay: round trip %d sent %d commands with %s; only a pipeline can be replayed", i+1, len(t.Commands), t.Via)
		}
		s.trips[i] = trip{pipelined: t.Pipelined(), cmds: make([]roundtrip.Command, len(t.Commands))}
		for j, c := range t.Commands {
			args := make([]any, len(c.Args))
			for k, a := range c.Args {
				args[k] = rewriteArg(a, rewrite)
			}
			s.trips[i].cmds[j] = roundtrip.Command{Name: c.Name, Args: args}
		}
	}
	return s, nil
}

func rewriteArg(a any, rewrite func(string) string) any {
	if rewrite == nil {
		return a
	}
	switch v := a.(type) {
	case string:
		return rewrite(v)
	case []byte:
		return []byte(rewrite(string(v)))
	}
	return a
}

// Trips is the number of round trips the Script sends each Run.
func (s *Script) Trips() int { return len(s.trips) }

// Commands is the number of commands the Script sends each Run.
func (s *Script) Commands() int {
	n := 0
	for _, t := range s.trips {
		n += len(t.cmds)
	}
	return n
}

// Run sends the Script on c and reads every reply: a trip of one command
// with c.Do, a pipeline with c.Send for each command, c.Flush, and
// c.Receive for each reply. It returns the first error, a Redis error reply
// included, and discards the replies.
func (s *Script) Run(c redis.Conn) error {
	for i := range s.trips {
		t := &s.trips[i]
		if !t.pipelined {
			if _, err := c.Do(t.cmds[0].Name, t.cmds[0].Args...); err != nil {
				return err
			}
			continue
		}
		for _, cmd := range t.cmds {
			if err := c.Send(cmd.Name, cmd.Args...); err != nil {
				return err
			}
		}
		if err := c.Flush(); err != nil {
			return err
		}
		var first error
		for range t.cmds {
			if _, err := c.Receive(); err != nil && first == nil {
				first = err
			}
		}
		if first != nil {
			return first
		}
	}
	return nil
}

// Send sends every command of every trip on c with c.Send and no Flush, as
// one part of a deep pipeline, and returns how many replies the caller is to
// Receive. It is for measuring what the server can do with the commands,
// whatever waiting for replies costs.
func (s *Script) Send(c redis.Conn) (int, error) {
	n := 0
	for i := range s.trips {
		for _, cmd := range s.trips[i].cmds {
			if err := c.Send(cmd.Name, cmd.Args...); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// A Slot is the places of an argument that changes from one Run to the
// next, such as the user of a vote.
type Slot []place

type place struct{ trip, cmd, arg int }

// Find returns the places of every argument whose string value is v. It
// fails if there is none: a value recorded on purpose, such as a marked user
// name, should be found.
func (s *Script) Find(v string) (Slot, error) {
	var slot Slot
	for i, t := range s.trips {
		for j, c := range t.cmds {
			for k, a := range c.Args {
				if str, ok := wire(a); ok && str == v {
					slot = append(slot, place{i, j, k})
				}
			}
		}
	}
	if len(slot) == 0 {
		return nil, fmt.Errorf("replay: no argument %q in the recording", v)
	}
	return slot, nil
}

// Set puts v at every place of slot.
func (s *Script) Set(slot Slot, v any) {
	for _, p := range slot {
		s.trips[p.trip].cmds[p.cmd].Args[p.arg] = v
	}
}

// Clone returns a copy of s whose arguments can be Set without touching s's,
// for use by another goroutine.
func (s *Script) Clone() *Script {
	c := &Script{trips: make([]trip, len(s.trips))}
	for i, t := range s.trips {
		c.trips[i] = trip{pipelined: t.pipelined, cmds: make([]roundtrip.Command, len(t.cmds))}
		for j, cmd := range t.cmds {
			c.trips[i].cmds[j] = roundtrip.Command{Name: cmd.Name, Args: append([]any(nil), cmd.Args...)}
		}
	}
	return c
}

// Compare checks that got, a recording of a replay, sent what want, a
// recording of the library, sent once want's strings go through rewrite (the
// same rewrite the Script was made with): as many round trips, each sent
// alike (one command, or a pipeline), with the same commands and arguments
// byte for byte as they go on the wire, and replies that are equal once
// want's go through rewrite. It returns an error naming the first
// difference.
func Compare(want, got []roundtrip.Trip, rewrite func(string) string) error {
	same := func(s string) string { return s }
	if rewrite == nil {
		rewrite = same
	}
	if len(want) != len(got) {
		return fmt.Errorf("replay: %d round trips, the library's %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		at := fmt.Sprintf("round trip %d", i+1)
		if w.Err != nil || g.Err != nil {
			return fmt.Errorf("replay: %s failed: library %v, replay %v", at, w.Err, g.Err)
		}
		if w.Pipelined() != g.Pipelined() {
			return fmt.Errorf("replay: %s sent with %s, the library's with %s", at, g.Via, w.Via)
		}
		if len(w.Commands) != len(g.Commands) {
			return fmt.Errorf("replay: %s sent %d commands, the library's %d", at, len(g.Commands), len(w.Commands))
		}
		for j := range w.Commands {
			wc, gc := w.Commands[j], g.Commands[j]
			at := fmt.Sprintf("%s, command %d", at, j+1)
			if wc.Name != gc.Name || len(wc.Args) != len(gc.Args) {
				return fmt.Errorf("replay: %s is %s with %d arguments, the library's %s with %d",
					at, gc.Name, len(gc.Args), wc.Name, len(wc.Args))
			}
			for k := range wc.Args {
				ws, _ := wire(rewriteArg(wc.Args[k], rewrite))
				gs, _ := wire(gc.Args[k])
				if ws != gs {
					return fmt.Errorf("replay: %s (%s), argument %d is %q, the library's %q (rewritten)", at, wc.Name, k+1, gs, ws)
				}
			}
		}
		if len(w.Replies) != len(g.Replies) {
			return fmt.Errorf("replay: %s read %d replies, the library's %d", at, len(g.Replies), len(w.Replies))
		}
		for j := range w.Replies {
			if wr, gr := rewriteReply(w.Replies[j], rewrite), rewriteReply(g.Replies[j], same); !reflect.DeepEqual(wr, gr) {
				return fmt.Errorf("replay: %s, reply %d is %s, the library's %s (rewritten)", at, j+1, show(gr), show(wr))
			}
		}
	}
	return nil
}

// rewriteReply rewrites a reply's strings, making every bulk string a string
// so that replies compare with reflect.DeepEqual.
func rewriteReply(r any, rewrite func(string) string) any {
	switch v := r.(type) {
	case []byte:
		return rewrite(string(v))
	case string:
		return rewrite(v)
	case redis.Error:
		return redis.Error(rewrite(string(v)))
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = rewriteReply(x, rewrite)
		}
		return out
	}
	return r
}

func show(r any) string {
	s := fmt.Sprintf("%q", r)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// wire is an argument as redigo writes it; ok is false for types it writes
// with fmt, which Find does not match.
func wire(a any) (s string, ok bool) {
	switch v := a.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case bool:
		if v {
			return "1", true
		}
		return "0", true
	case nil:
		return "", true
	case redis.Argument:
		return wire(v.RedisArg())
	}
	return fmt.Sprint(a), false
}
