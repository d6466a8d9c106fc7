package voting

// This file holds the removal of the indexes a namespace stops keeping:
// their keys, and the walks that take their entries and fields out in
// bounded steps, each keeping where it stands in progress: so that a call
// cut short is finished by the next (Rescore's walks keep theirs there
// too). StopKeeping (stop.go) runs it; a Store that adds a kind back
// (settings.go) first finishes what a stop cut short left of it.

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/gomodule/redigo/redis"
)

// removeStopped removes the keys of the indexes of stop that the namespace
// no longer keeps (now): the site's indexes of the orders and their
// windows' marks, the groups' live indexes of those orders (or of every
// order, with live groups stopped), each kind's keys (schema.Index's
// Parts: karma:, links:, active: ...) and its fields of every article's
// and comment's hash (Owns: each item's part of karma), and the users'
// histories with the sets of deleted articles' voters whose histories
// were still to clear. Each removal is
// one that a second call repeats harmlessly, and each walk keeps where it
// stands in progress: (stopWalks), so that a call cut short is finished
// by the next from where it stopped.
func (s *Store) removeStopped(ctx context.Context, now, stop Settings) error {
	k := s.keys
	var unlink []any
	var marks []any // fields of trimmed: of windows stopped
	for _, o := range stop.Orders {
		if slices.Contains(now.Orders, o) {
			continue
		}
		unlink = append(unlink, k.Index(int(o)))
		if f := schema.MarkField(&schema.Orders[o], ""); f != "" {
			marks = append(marks, f)
		}
	}
	walks := stopWalks(now, stop)
	for _, f := range stoppedKinds(now, stop) {
		ix, _ := schema.IndexNamed(f.name)
		for _, part := range ix.Parts {
			unlink = append(unlink, k.Whole(part.Key))
		}
	}
	var cmds []rconn.Command
	if len(unlink) > 0 {
		cmds = append(cmds, rconn.Command{Name: "UNLINK", Args: unlink})
	}
	if len(marks) > 0 {
		cmds = append(cmds, rconn.Command{Name: "HDEL", Args: append([]any{k.TrimmedHash()}, marks...)})
	}
	if len(cmds) > 0 {
		if _, err := s.rc.CheckedPipeline(ctx, cmds); err != nil {
			return err
		}
	}
	if walks.live != "" {
		// Each group's live indexes of the orders, and their windows' marks.
		err := s.scanSteps(ctx, "ZSCAN", k.GroupSizes(), "", walks.live, func(found []string) []rconn.Command {
			var keys, fields []any
			for i := 0; i < len(found); i += 2 { // member, score
				for _, o := range walks.liveOrders {
					keys = append(keys, k.LiveIndex(found[i], int(o)))
					if f := schema.MarkField(&schema.Orders[o], found[i]); f != "" {
						fields = append(fields, f)
					}
				}
			}
			cmds := []rconn.Command{{Name: "UNLINK", Args: keys}}
			if len(fields) > 0 {
				cmds = append(cmds, rconn.Command{Name: "HDEL", Args: append([]any{k.TrimmedHash()}, fields...)})
			}
			return cmds
		})
		if err != nil {
			return err
		}
	}
	for _, w := range walks.owned {
		// The kind's fields of each article's hash, then of each comment's.
		err := s.scanSteps(ctx, "ZSCAN", k.TimeIndex(), "", w.articles, func(found []string) []rconn.Command {
			cmds := make([]rconn.Command, 0, len(found)/2)
			for i := 0; i < len(found); i += 2 {
				cmds = append(cmds, rconn.Command{Name: "HDEL", Args: append([]any{found[i]}, w.fields...)})
			}
			return cmds
		})
		if err != nil {
			return err
		}
		if err := s.removeCommentFields(ctx, w.comments, w.fields); err != nil {
			return err
		}
	}
	if stop.UserHistory > 0 && now.UserHistory == 0 {
		// The users' histories, and the voter sets of deleted articles kept
		// to clear them: keys of their own, found with SCAN (on a Redis
		// Cluster, on the node of the namespace's slot).
		for part, field := range map[string]string{schema.HistoryPart: walks.history, schema.PendingPart: walks.pending} {
			err := s.scanSteps(ctx, "SCAN", "", globEscape(k.Prefix()+part)+"*", field, func(found []string) []rconn.Command {
				args := make([]any, len(found))
				for i, key := range found {
					args[i] = key
				}
				return []rconn.Command{{Name: "UNLINK", Args: args}}
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// finishStopped finishes, before want keeps them again, the removal of
// the kinds of index with fields of the items (Owns) that have does not
// keep and a StopKeeping cut short left half done (a walk of their fields
// under way in progress:): their keys and what is left of their fields.
// Otherwise a part a stop left in an item's hash would be taken, by the
// next vote and by Reindex, for one its poster's sum holds.
func (s *Store) finishStopped(ctx context.Context, have, want Settings) error {
	var stop Settings
	for _, f := range flagKinds {
		if ix, _ := schema.IndexNamed(f.name); len(ix.Owns) > 0 && f.in(want) && !f.in(have) {
			f.keep(&stop, true)
		}
	}
	walks := stopWalks(have, stop)
	if len(walks.owned) == 0 {
		return nil
	}
	args := []any{s.keys.Progress()}
	for _, w := range walks.owned {
		args = append(args, w.articles, w.comments)
	}
	var at []string
	if err := s.rc.Session(ctx, func(c rconn.Link) (err error) {
		at, err = redis.Strings(c.Do("HMGET", args...))
		return errs.WrongType(err, s.keys.Progress(), "HMGET")
	}); err != nil {
		return err
	}
	for _, a := range at {
		if a != "" && a != walkDone {
			return s.removeStopped(ctx, have, stop)
		}
	}
	return nil
}

// The walks of StopKeeping, as the fields of progress: name them: the
// field of each holds where the walk goes on from (a SCAN cursor, or the
// last comment id walked) while it is under way.
type walkFields struct {
	// live walks the groups to remove their live indexes of liveOrders
	// (its field names the orders, since a walk of other orders' is
	// another walk); "" for none.
	live       string
	liveOrders []Order
	// owned take the fields of the kinds stopped out of each article's
	// hash and each comment's (schema.Index's Owns), one walk of each a
	// kind; history and pending remove the users' histories and the
	// deleted articles' voter sets kept to clear them.
	owned            []ownedWalk
	history, pending string
}

// An ownedWalk takes the fields of a kind of index out of the items'
// hashes: articles and comments name the walks of each in progress:.
type ownedWalk struct {
	kind               flagKind
	fields             []any
	articles, comments string
}

// stoppedKinds are the kinds of index kept by an option of no value of
// their own (flagKinds) that stop names and the namespace keeps no more
// (now).
func stoppedKinds(now, stop Settings) []flagKind {
	var out []flagKind
	for _, f := range flagKinds {
		if f.in(stop) && !f.in(now) {
			out = append(out, f)
		}
	}
	return out
}

// stopWalks are the walks that removing the indexes of stop, which the
// namespace keeps no more (now), takes.
func stopWalks(now, stop Settings) walkFields {
	w := walkFields{history: "stop-history", pending: "stop-pending"}
	for _, f := range stoppedKinds(now, stop) {
		if ix, _ := schema.IndexNamed(f.name); len(ix.Owns) > 0 {
			fields := make([]any, len(ix.Owns))
			for i, field := range ix.Owns {
				fields[i] = field
			}
			w.owned = append(w.owned, ownedWalk{kind: f, fields: fields, articles: "stop-" + ix.Name + "-articles",
				comments: "stop-" + ix.Name + "-comments"})
		}
	}
	switch {
	case stop.LiveGroups && !now.LiveGroups:
		w.liveOrders = Orders()
	case now.LiveGroups:
		w.liveOrders = slices.DeleteFunc(slices.Clone(stop.Orders), func(o Order) bool { return slices.Contains(now.Orders, o) })
	}
	if len(w.liveOrders) > 0 {
		names := make([]string, len(w.liveOrders))
		for i, o := range w.liveOrders {
			names[i] = o.String()
		}
		w.live = "stop-live " + strings.Join(names, " ")
	}
	return w
}

// starting are the fields of the walks that stopping what have keeps and
// want does not starts: each starts from the beginning, whatever an
// earlier walk of its kind left.
func (w walkFields) starting(have, want Settings) []string {
	var fields []string
	if w.live != "" {
		fields = append(fields, w.live)
	}
	for _, o := range w.owned {
		if o.kind.in(have) && !o.kind.in(want) {
			fields = append(fields, o.articles, o.comments)
		}
	}
	if have.UserHistory > 0 && want.UserHistory == 0 {
		fields = append(fields, w.history, w.pending)
	}
	return fields
}

// removeCommentFields takes the fields out of each comment's hash, by id
// up to the counter's last, stopBatch comments a step, from the id after
// the one progress: holds in field.
func (s *Store) removeCommentFields(ctx context.Context, field string, fields []any) error {
	k := s.keys
	var last, from int64
	done := false
	err := s.rc.Session(ctx, func(c rconn.Link) error {
		text, err := redis.String(c.Do("GET", k.CommentCounter()))
		switch {
		case err == redis.ErrNil:
			text = "0"
		case err != nil:
			return errs.WrongType(err, k.CommentCounter(), "GET")
		}
		if last, err = strconv.ParseInt(text, 10, 64); err != nil || last < 0 {
			return errs.Corruptf("%s holds %q, not a comment id", k.CommentCounter(), text)
		}
		at, err := s.walkedTo(c, field)
		if err != nil || at == walkDone {
			done = true
			return err
		}
		if from, err = strconv.ParseInt(at, 10, 64); err != nil || from < 0 {
			return errs.Corruptf("%s holds %s %q, not a comment id", k.Progress(), field, at)
		}
		return nil
	})
	if err != nil || done {
		return err
	}
	for {
		to := min(from+int64(s.stopBatch), last)
		err := s.rc.Session(ctx, func(c rconn.Link) error {
			cmds := make([]rconn.Command, 0, s.stopBatch+1)
			for id := from + 1; id <= to; id++ {
				cmds = append(cmds, rconn.Command{Name: "HDEL", Args: append([]any{k.CommentHash(strconv.FormatInt(id, 10))}, fields...)})
			}
			_, err := c.CheckedPipeline(append(cmds, s.walked(field, strconv.FormatInt(to, 10), to >= last)))
			return err
		})
		if err != nil || to >= last {
			return err
		}
		from = to
	}
}

// walkedTo is where the walk of field goes on from, as progress: holds
// it: "done" for a walk that is done, "0", the start, for one that no call
// has recorded (written before walks were recorded, or lost).
func (s *Store) walkedTo(c rconn.Link, field string) (string, error) {
	at, err := redis.String(c.Do("HGET", s.keys.Progress(), field))
	switch {
	case err == redis.ErrNil:
		return "0", nil
	case err != nil:
		return "", errs.WrongType(err, s.keys.Progress(), "HGET")
	}
	return at, nil
}

// walked is the command that records in progress: that the walk of field
// goes on from at, or that it is done: a call after that walks it no more,
// until a StopKeeping of its index starts it anew.
func (s *Store) walked(field, at string, done bool) rconn.Command {
	if done {
		at = walkDone
	}
	return rconn.Command{Name: "HSET", Args: []any{s.keys.Progress(), field, at}}
}

// walkDone is what progress: holds for a walk that is done.
const walkDone = "done"

// scanSteps walks key with cmd (ZSCAN), or the keyspace with SCAN and
// pattern, stopBatch entries a step, from the cursor progress: holds in
// field: each step sends, in the round trip after its scan, the commands
// step makes of what it found (if anything) and the record of the next
// cursor, or of the walk's end.
func (s *Store) scanSteps(ctx context.Context, cmd, key, pattern, field string, step func(found []string) []rconn.Command) error {
	var cursor string
	for {
		err := s.rc.Session(ctx, func(c rconn.Link) error {
			if cursor == "" {
				var err error
				if cursor, err = s.walkedTo(c, field); err != nil || cursor == walkDone {
					return err
				}
				if !decimalDigits(cursor) {
					return errs.Corruptf("%s holds %s %q, not a cursor", s.keys.Progress(), field, cursor)
				}
			}
			args := []any{cursor, "COUNT", s.stopBatch}
			if key != "" {
				args = append([]any{key}, args...)
			}
			if pattern != "" {
				args = append(args, "MATCH", pattern)
			}
			reply, err := redis.Values(c.Do(cmd, args...))
			if err != nil {
				return errs.WrongType(err, key, cmd)
			}
			var found []string
			if _, err := redis.Scan(reply, &cursor, &found); err != nil {
				return err
			}
			var cmds []rconn.Command
			if len(found) > 0 {
				cmds = step(found)
			}
			_, err = c.CheckedPipeline(append(cmds, s.walked(field, cursor, cursor == "0")))
			return err
		})
		if err != nil || cursor == "0" || cursor == walkDone {
			return err
		}
	}
}
