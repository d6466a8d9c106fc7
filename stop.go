package voting

// This file holds StopKeeping, which takes indexes out of the namespace's
// settings and then removes their keys in bounded steps.

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// StopKeeping stops keeping, in the namespace, the indexes the options
// name: the orders of WithOrders (not ByScore or ByTime, which are the
// book's), the live group indexes (WithLiveGroups), the users' histories
// (WithUserHistory, of any time), the posters' karma (WithKarma) and the
// index of links (WithUniqueLinks). Any other option, or ByScore or ByTime,
// is refused with an error wrapping ErrInvalid, and nothing is written.
//
// It first takes them out of the namespace's settings, so that from then
// on no Store's write keeps them (a Store's write made for the settings
// before is refused in Redis and made again), and ends any unfinished run
// of Reindex (the next call starts a new run of what is kept then). Then
// it removes their keys, in steps of a few hundred keys or articles each,
// one round trip a step, so that other clients wait no longer than a step:
// an index's sorted sets and hashes (UNLINK, which frees a large key in the
// background), each group's live indexes, each article's and each
// comment's part of karma, and each user's history. A call ended by its context leaves the settings
// changed and some keys behind: call it again to finish.
//
// A Store that reads the settings for the first time after this, given an
// option of an index stopped, adds it again (not built until Reindex): stop
// an index once no process's Store is given its option. Stores that read
// the settings before go by the namespace's from their next write.
func (s *Store) StopKeeping(ctx context.Context, opts ...Option) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "stop keeping indexes")
		}
	}()
	stop, err := stopped(opts)
	if err != nil {
		return err
	}
	if _, err := s.state(ctx); err != nil {
		return err
	}
	// What the namespace keeps once the indexes stop; stopped already, a
	// call cut short goes on removing their keys.
	gen, now, err := s.changeSettings(ctx, func(have Settings) Settings { return without(have, stop) })
	if err != nil {
		return err
	}
	s.cur.Store(makeState(s.keys, s.asked, gen, now))
	// A run of Reindex under way builds what the settings kept before: its
	// next step finds no progress, and its call starts a run of what is
	// kept now.
	if err := s.rc.Session(ctx, func(c rconn.Link) error {
		_, err := c.Do("UNLINK", s.keys.ReindexProgress())
		return err
	}); err != nil {
		return err
	}
	return s.removeStopped(ctx, now, stop)
}

// stopped are the indexes opts name, as a Settings of what to stop: the
// orders, and true or a time for each kind.
func stopped(opts []Option) (Settings, error) {
	cfg := defaultConfig()
	for i, opt := range opts {
		if opt == nil {
			return Settings{}, errs.Invalidf("option %d of %d is nil", i+1, len(opts))
		}
		opt(&cfg)
	}
	def := defaultConfig()
	if cfg.prefix != def.prefix || cfg.given.weight || cfg.given.cutoff || cfg.given.groupTTL || cfg.pageSize != def.pageSize ||
		cfg.timeout != def.timeout {
		return Settings{}, errs.Invalidf("StopKeeping takes the options of indexes: WithOrders, WithLiveGroups, WithUserHistory, " +
			"WithKarma and WithUniqueLinks")
	}
	var stop Settings
	for _, o := range cfg.orders {
		spec, ok := o.spec()
		switch {
		case !ok:
			return Settings{}, errs.Invalidf("WithOrders: unknown order %d", int(o))
		case spec.Always:
			return Settings{}, errs.Invalidf("the %s index is the book's, always kept", spec.Name)
		}
		stop.Orders = append(stop.Orders, o)
	}
	stop.LiveGroups = cfg.live
	if cfg.given.history {
		stop.UserHistory = 1
	}
	stop.Karma = slices.Contains(cfg.kinds, "karma")
	stop.UniqueLinks = slices.Contains(cfg.kinds, "links")
	return stop, nil
}

// without is have with the indexes of stop taken out.
func without(have, stop Settings) Settings {
	want := have
	want.Orders = slices.DeleteFunc(slices.Clone(have.Orders), func(o Order) bool { return slices.Contains(stop.Orders, o) })
	want.LiveGroups = have.LiveGroups && !stop.LiveGroups
	if stop.UserHistory > 0 {
		want.UserHistory = 0
	}
	want.Karma = have.Karma && !stop.Karma
	want.UniqueLinks = have.UniqueLinks && !stop.UniqueLinks
	return want
}

// stopBatch is how many keys, groups or articles one step of StopKeeping
// takes.
const stopBatch = 200

// removeStopped removes the keys of the indexes of stop that the namespace
// no longer keeps (now): the site's indexes of the orders and their
// windows' marks, the groups' live indexes of those orders (or of every
// order, with live groups stopped), karma: and each article's part, the
// index of links, and the users' histories with the sets of deleted
// articles' voters whose histories were still to clear. Each removal is
// one that a second call repeats harmlessly, so that a call cut short is
// finished by the next.
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
	var live []Order // the orders whose groups' live indexes go
	switch {
	case stop.LiveGroups && !now.LiveGroups:
		live = Orders()
	case now.LiveGroups:
		live = slices.DeleteFunc(slices.Clone(stop.Orders), func(o Order) bool { return slices.Contains(now.Orders, o) })
	}
	karma := stop.Karma && !now.Karma
	if karma {
		unlink = append(unlink, k.Whole(schema.KarmaPart), k.CommentKarma())
	}
	if stop.UniqueLinks && !now.UniqueLinks {
		unlink = append(unlink, k.Whole(schema.LinksPart), k.Whole(schema.SharesPart))
	}
	err := s.rc.Session(ctx, func(c rconn.Link) error {
		cmds := []rconn.Command{}
		if len(unlink) > 0 {
			cmds = append(cmds, rconn.Command{Name: "UNLINK", Args: unlink})
		}
		if len(marks) > 0 {
			cmds = append(cmds, rconn.Command{Name: "HDEL", Args: append([]any{k.TrimmedHash()}, marks...)})
		}
		if len(cmds) == 0 {
			return nil
		}
		return pipelined(c, cmds)
	})
	if err != nil {
		return err
	}
	if len(live) > 0 {
		// Each group's live indexes of the orders, and their windows' marks.
		err := s.scanSteps(ctx, "ZSCAN", k.GroupSizes(), "", func(c rconn.Link, found []string) error {
			var keys, fields []any
			for i := 0; i < len(found); i += 2 { // member, score
				for _, o := range live {
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
			return pipelined(c, cmds)
		})
		if err != nil {
			return err
		}
	}
	if karma {
		// Each article's part of its poster's karma.
		err := s.scanSteps(ctx, "ZSCAN", k.TimeIndex(), "", func(c rconn.Link, found []string) error {
			cmds := make([]rconn.Command, 0, len(found)/2)
			for i := 0; i < len(found); i += 2 {
				cmds = append(cmds, rconn.Command{Name: "HDEL", Args: []any{found[i], "karma"}})
			}
			return pipelined(c, cmds)
		})
		if err != nil {
			return err
		}
		if err := s.removeCommentParts(ctx); err != nil {
			return err
		}
	}
	if stop.UserHistory > 0 && now.UserHistory == 0 {
		// The users' histories, and the voter sets of deleted articles kept
		// to clear them: keys of their own, found with SCAN (on a Redis
		// Cluster, on the node of the namespace's slot).
		for _, part := range []string{schema.HistoryPart, schema.PendingPart} {
			err := s.scanSteps(ctx, "SCAN", "", globEscape(k.Prefix()+part)+"*", func(c rconn.Link, found []string) error {
				args := make([]any, len(found))
				for i, key := range found {
					args[i] = key
				}
				_, err := c.Do("UNLINK", args...)
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// removeCommentParts takes each comment's part of karma out of its hash,
// by id up to the counter's last, stopBatch comments a step.
func (s *Store) removeCommentParts(ctx context.Context) error {
	k := s.keys
	var last int64
	err := s.rc.Session(ctx, func(c rconn.Link) error {
		text, err := redis.String(c.Do("GET", k.CommentCounter()))
		switch {
		case err == redis.ErrNil:
			return nil
		case err != nil:
			return errs.WrongType(err, k.CommentCounter(), "GET")
		}
		if last, err = strconv.ParseInt(text, 10, 64); err != nil || last < 0 {
			return errs.Corruptf("%s holds %q, not a comment id", k.CommentCounter(), text)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for from := int64(1); from <= last; from += stopBatch {
		err := s.rc.Session(ctx, func(c rconn.Link) error {
			cmds := make([]rconn.Command, 0, stopBatch)
			for id := from; id < from+stopBatch && id <= last; id++ {
				cmds = append(cmds, rconn.Command{Name: "HDEL", Args: []any{k.CommentHash(strconv.FormatInt(id, 10)), "karma"}})
			}
			return pipelined(c, cmds)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pipelined runs cmds in one round trip, and gives the first error a
// command's reply is, naming its key (the first argument).
func pipelined(c rconn.Link, cmds []rconn.Command) error {
	replies, err := c.Pipeline(cmds)
	if err != nil {
		return err
	}
	for i, r := range replies {
		if rerr, ok := r.(redis.Error); ok {
			return errs.WrongType(fmt.Errorf("%s %v: %w", cmds[i].Name, cmds[i].Args[0], rerr), fmt.Sprint(cmds[i].Args[0]), cmds[i].Name)
		}
	}
	return nil
}

// scanSteps walks key with cmd (ZSCAN), or the keyspace with SCAN and
// pattern, stopBatch entries a step, and calls step with each batch found
// that is not empty, on the step's connection.
func (s *Store) scanSteps(ctx context.Context, cmd, key, pattern string, step func(c rconn.Link, found []string) error) error {
	cursor := "0"
	for {
		err := s.rc.Session(ctx, func(c rconn.Link) error {
			args := []any{cursor, "COUNT", stopBatch}
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
			if len(found) == 0 {
				return nil
			}
			return step(c, found)
		})
		if err != nil || cursor == "0" {
			return err
		}
	}
}
