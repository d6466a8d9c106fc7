package voting

// This file holds StopKeeping, which takes indexes out of the namespace's
// settings and then removes their keys in bounded steps.

import (
	"context"
	"slices"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
)

// StopKeeping stops keeping, in the namespace, the indexes the options
// name: the orders of WithOrders (not ByScore or ByTime, which are the
// book's), the live group indexes (WithLiveGroups), the users' histories
// (WithUserHistory, of any time), the posters' karma (WithKarma), the
// index of links (WithUniqueLinks) and the index of active users
// (WithActiveUsers). It takes those options only (an IndexOption); a nil one, ByScore or ByTime, or an unknown order is
// refused with an error wrapping ErrInvalid, and nothing is written.
//
// It first takes them out of the namespace's settings, so that from then
// on no Store's write keeps them (a Store's write made for the settings
// before is refused in Redis and made again), and ends any unfinished run
// of Reindex (the next call starts a new run of what is kept then). Then
// it removes their keys, in steps of a few hundred keys or articles each,
// one or two round trips a step, so that other clients wait no longer than
// a step: an index's sorted sets and hashes (UNLINK, which frees a large
// key in the background), each group's live indexes, each article's and
// each comment's part of karma, and each user's history. A call ended by
// its context leaves the settings changed and some keys behind: call it
// again to finish. Each walk keeps
// where it stands in Redis (the hash progress:), so that the next call,
// by any Store of the namespace, goes on where the last stopped.
//
// A Store that reads the settings for the first time after this, given an
// option of an index stopped, adds it again (not built until Reindex),
// first finishing what a call cut short left of its parts in the items'
// hashes: stop an index once no process's Store is given its option.
// Stores that read the settings before go by the namespace's from their
// next write.
func (s *Store) StopKeeping(ctx context.Context, indexes ...IndexOption) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, "stop keeping indexes")
		}
	}()
	stop, err := stopOptions(indexes)
	if err != nil {
		return err
	}
	if _, err := s.state(ctx); err != nil {
		return err
	}
	// What the namespace keeps once the indexes stop; stopped already, a
	// call cut short goes on removing their keys. The walks that removing
	// what stops now takes start from the beginning, recorded before the
	// settings change so that no call can go on with an earlier walk of
	// their kind.
	gen, now, err := s.changeSettings(ctx, func(have Settings) Settings { return without(have, stop) }, func(c rconn.Link, have, want Settings) error {
		fields := stopWalks(want, stop).starting(have, want)
		if len(fields) == 0 {
			return nil
		}
		args := []any{s.keys.Progress()}
		for _, f := range fields {
			args = append(args, f, "0")
		}
		_, err := c.CheckedPipeline([]rconn.Command{{Name: "HSET", Args: args}})
		return err
	})
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

// stopOptions are the indexes opts name, as a Settings of what to stop: the
// orders, and true or a time for each kind.
func stopOptions(opts []IndexOption) (Settings, error) {
	var cfg config
	for i, opt := range opts {
		if opt == nil {
			return Settings{}, errs.Invalidf("option %d of %d is nil", i+1, len(opts))
		}
		opt.apply(&cfg)
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
	if cfg.given.history {
		stop.UserHistory = 1
	}
	for _, k := range flagKinds {
		k.keep(&stop, cfg.keeps(k.name))
	}
	return stop, nil
}

// without is have with the indexes of stop taken out.
func without(have, stop Settings) Settings {
	want := have
	want.Orders = slices.DeleteFunc(slices.Clone(have.Orders), func(o Order) bool { return slices.Contains(stop.Orders, o) })
	if stop.UserHistory > 0 {
		want.UserHistory = 0
	}
	for _, k := range flagKinds {
		k.keep(&want, k.in(have) && !k.in(stop))
	}
	return want
}
