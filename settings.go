package voting

// This file holds the namespace's settings: what it stores, kept in Redis
// beside its data (the hash settings:), so that every Store of the
// namespace, in every process and release, keeps the same indexes and
// scores by the same formula. A Store reads them on its first call; each
// write carries the generation it was made for, and a write made for
// settings that have changed since is refused before it writes anything,
// and made again for the new ones.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// Settings reads the namespace's settings afresh (the first call of a
// Store on a namespace with none writes them, or adds what the Store asks
// for), and the Store goes by them from then on; with how far the build of
// its indexes has come (Settings.Building), in two round trips once they
// exist.
func (s *Store) Settings(ctx context.Context) (Settings, error) {
	st, err := s.reload(ctx)
	if err != nil {
		return Settings{}, failed(err, "read settings")
	}
	set := st.settings()
	if set.Building, err = readBuilding(ctx, &s.rc, s.keys, st, s.build); err != nil {
		return Settings{}, failed(err, "read settings")
	}
	return set, nil
}

// maxSettingsReads bounds how often one call reads the settings when they
// change as it reads them.
const maxSettingsReads = 5

// state gives what the Store goes by: the namespace's settings as last
// read, read (and written, for a namespace with none or one that lacks what
// the Store asks for) on the Store's first call.
func (s *Store) state(ctx context.Context) (*state, error) {
	if st := s.cur.Load(); st != nil {
		return st, nil
	}
	return s.reload(ctx)
}

// reload reads the namespace's settings, writes them if the namespace has
// none or, on the Store's first read, lacks what the Store asks for, and
// makes them what the Store goes by. A later read takes them as they are,
// so that indexes StopKeeping stopped stay stopped for a Store that asked
// for them when it started.
func (s *Store) reload(ctx context.Context) (*state, error) {
	first := s.cur.Load() == nil
	for range maxSettingsReads {
		gen, have, err := s.readSettings(ctx)
		if err != nil {
			return nil, err
		}
		if gen != "" {
			if err := s.agrees(have); err != nil {
				return nil, err
			}
		}
		want := have
		if first || gen == "" {
			want = s.wanted(have, gen != "")
		}
		if gen != "" && sameSettings(have, want) {
			st := makeState(s.keys, s.asked, gen, have)
			s.cur.Store(st)
			return st, nil
		}
		if gen != "" {
			if err := s.finishStopped(ctx, have, want); err != nil {
				return nil, err
			}
		}
		st, err := script.ReadStatus(s.rc.Run(ctx, s.settingsCall(gen, have, want).Eval()))
		if err == nil && st.Word != script.ReplyOK && st.Word != script.ReplyChanged {
			err = st.Err()
		}
		if err != nil {
			return nil, err
		}
		if st.Detail == "unbuilt" {
			// The Store added indexes to a namespace with articles, or
			// wrote the settings of one the book's code filled: what it
			// added is built in the background (WithAutoReindex).
			defer s.build.ensure(true)
		}
	}
	return nil, fmt.Errorf("the settings changed %d times as they were read: try again", maxSettingsReads)
}

// agrees refuses namespace settings whose numbers differ from those the
// Store was given.
func (s *Store) agrees(have Settings) error {
	a := s.asked
	ns := s.keys.Prefix()
	switch {
	case a.given.weight && a.weight != have.VoteWeight:
		return errs.Invalidf("the namespace %q scores a vote %v, this Store %v: give New WithVoteWeight(%v), the namespace's, or no WithVoteWeight; Rescore changes the namespace's",
			ns, have.VoteWeight, a.weight, have.VoteWeight)
	case a.given.cutoff && a.cutoff.Truncate(time.Millisecond) != have.Cutoff:
		return errs.Invalidf("the namespace %q closes voting %v after posting, this Store %v: give New WithCutoff(%v), the namespace's, or no WithCutoff; Rescore changes the namespace's",
			ns, have.Cutoff, a.cutoff, have.Cutoff)
	case a.history > 0 && have.UserHistory > 0 && a.history.Truncate(time.Millisecond) != have.UserHistory:
		return errs.Invalidf("the namespace %q keeps a user's votes %v, this Store %v: give New WithUserHistory(%v), the namespace's, or no WithUserHistory; StopKeeping stops the namespace's",
			ns, have.UserHistory, a.history, have.UserHistory)
	}
	return nil
}

// wanted are the settings the namespace should have: those it has (if it
// has any) with what the Store asks for added, or the Store's own.
func (s *Store) wanted(have Settings, exists bool) Settings {
	a := s.asked
	if !exists {
		have = Settings{VoteWeight: a.weight, Cutoff: a.cutoff.Truncate(time.Millisecond)}
	}
	keeps := map[Order]bool{}
	for _, o := range slices.Concat(have.Orders, a.orders) {
		keeps[o] = true
	}
	want := have
	want.Orders = nil
	for _, o := range Orders() {
		if keeps[o] || schema.Orders[o].Always {
			want.Orders = append(want.Orders, o)
		}
	}
	if want.UserHistory == 0 {
		want.UserHistory = a.history.Truncate(time.Millisecond)
	}
	for _, k := range flagKinds {
		if a.keeps(k.name) {
			k.keep(&want, true)
		}
	}
	return want
}

// settingsCall is settings.lua's run that turns the settings have, of
// generation gen ("" for none), into want.
func (s *Store) settingsCall(gen string, have, want Settings) script.Call {
	k := s.keys
	var names []string
	for _, o := range want.Orders {
		if !schema.Orders[o].Always {
			names = append(names, schema.Orders[o].Name)
		}
	}
	kinds := want.kindNames()
	withLive := want
	withLive.LiveGroups = !s.asked.given.groupTTL || s.asked.keeps("live")
	cl := script.Settings{
		Settings: k.Settings(), Indexed: k.IndexedHash(), ByTime: k.TimeIndex(),
		Gen: gen, Kinds: kinds, KindsIfEmpty: withLive.kindNames(),
		Fields: []script.Text{
			{Name: setWeight, Value: schema.FormatFloat(want.VoteWeight)},
			{Name: setCutoff, Value: strconv.FormatInt(want.Cutoff.Milliseconds(), 10)},
			{Name: setHistory, Value: strconv.FormatInt(want.UserHistory.Milliseconds(), 10)},
			{Name: setOrders, Value: strings.Join(names, " ")},
		},
	}
	if gen != "" {
		// The marks of the indexes added, not built until Reindex builds
		// them, and of those stopped.
		was, is := makeState(s.keys, s.asked, gen, have).built, makeState(s.keys, s.asked, gen, want).built
		for _, f := range is {
			if !slices.Contains(was, f) {
				cl.Unmark = append(cl.Unmark, f)
			}
		}
		for _, f := range was {
			if !slices.Contains(is, f) {
				cl.Unmark = append(cl.Unmark, f)
			}
		}
	}
	return cl.Call()
}

// unsettled reports whether a write's reply says that the namespace's
// settings changed since the write was made: then the Store reads them
// again and makes it anew.
func unsettled(reply any, err error) bool {
	st, serr := script.ReadStatus(reply, err)
	return serr == nil && st.Word == script.ReplySettings
}

// write runs the script make makes from what the Store goes by, made again
// from the namespace's settings read afresh as long as the namespace's
// settings change under it (a few times at most), and gives its reply and
// the state it was made from.
func (s *Store) write(ctx context.Context, make func(st *state) script.Call) (any, *state, error) {
	return s.writeWith(ctx, func(st *state) (any, error) { return s.rc.Run(ctx, make(st).Eval()) })
}

// writeWith is write for a write that run makes and runs itself.
func (s *Store) writeWith(ctx context.Context, run func(st *state) (any, error)) (any, *state, error) {
	st, err := s.state(ctx)
	if err != nil {
		return nil, nil, err
	}
	for attempt := 1; ; attempt++ {
		reply, err := run(st)
		if !unsettled(reply, err) {
			return reply, st, err
		}
		if attempt == maxSettingsReads {
			return nil, st, fmt.Errorf("the namespace's settings changed %d times as the call was made: try again", attempt)
		}
		if st, err = s.reload(ctx); err != nil {
			return nil, st, err
		}
	}
}

// writeReply is write's reply and error, without the state.
func (s *Store) writeReply(reply any, _ *state, err error) (any, error) { return reply, err }

// checkOrder gives what the Store goes by, having refused an unknown order
// and one whose index the namespace does not keep (read afresh before it
// is refused: another Store may have added it).
func (s *Store) checkOrder(ctx context.Context, o Order) (*state, *schema.OrderSpec, error) {
	if err := knownOrder(o); err != nil {
		return nil, nil, err
	}
	st, err := s.stateFor(ctx, func(st *state) bool { return !st.keeps[o] })
	if err != nil {
		return nil, nil, err
	}
	spec, err := s.kept(st, o)
	if err != nil {
		return nil, nil, err
	}
	return st, spec, nil
}

// checkOrder refuses an unknown order, and one whose index the namespace
// does not keep (giving its spec with the error).
func (st *state) checkOrder(o Order) (*schema.OrderSpec, error) {
	spec, ok := o.spec()
	if !ok {
		return nil, errs.Invalidf("unknown order %d", int(o))
	}
	if !st.keeps[o] {
		return spec, errs.Invalidf("order %s is not kept by the namespace: WithOrders(voting.%s) adds it", spec.Name, spec.Ident)
	}
	return spec, nil
}

// knownOrder refuses an unknown order, before any round trip.
func knownOrder(o Order) error {
	if _, ok := o.spec(); !ok {
		return errs.Invalidf("unknown order %d", int(o))
	}
	return nil
}

// kept refuses, as checkOrder does, an order whose index st does not keep,
// telling a Store that was given it that it was stopped since.
func (s *Store) kept(st *state, o Order) (*schema.OrderSpec, error) {
	spec, err := st.checkOrder(o)
	if err != nil && slices.Contains(s.asked.orders, o) {
		ix, _ := schema.IndexNamed("orders")
		return nil, stoppedSince("order "+spec.Name, ix.Option+"(voting."+spec.Ident+")")
	}
	return spec, err
}

// stoppedSince is the error of a read of an index that the Store was
// given the option of (what, option) and the namespace keeps no more:
// another Store's StopKeeping stopped it after this one started, which
// added it or found it kept. The Store goes by the namespace's settings,
// so it does not add it back itself.
func stoppedSince(what, option string) error {
	return errs.Invalidf("%s is not kept by the namespace: StopKeeping stopped it there after this Store, given %s, started; "+
		"a Store given %s that starts after that adds it back and builds it", what, option, option)
}

// stateFor gives what the Store goes by, read afresh once if it lacks
// what a call needs (lacks says so): another Store may have added it since
// the Store read the settings.
func (s *Store) stateFor(ctx context.Context, lacks func(st *state) bool) (*state, error) {
	st, err := s.state(ctx)
	if err == nil && lacks(st) {
		st, err = s.reload(ctx)
	}
	return st, err
}

// keepsKind refuses a read of the kind of index name (schema.Indexes) in
// a namespace that does not keep it (read afresh before it is refused:
// another Store may have added it), in the words of its row: what it is,
// and the option that adds it.
func (s *Store) keepsKind(ctx context.Context, name string) error {
	ix, _ := schema.IndexNamed(name)
	what, option := ix.What, ix.Option+"()"
	ns, err := s.stateFor(ctx, func(st *state) bool { return !st.kinds[name] })
	if err != nil {
		return err
	}
	switch {
	case ns.kinds[name]:
	case slices.Contains(s.asked.kinds, name):
		return stoppedSince("the "+what, option)
	default:
		return errs.Invalidf("the namespace keeps no %s: give a Store %s to add it", what, option)
	}
	return nil
}

// changeSettings makes the namespace's settings what change makes of
// those it has (a namespace with none gets the Store's first, as its first
// call writes them), written by settings.lua if they differ, and gives them
// as they stand then, with their generation. before, if not nil, runs just
// before each such write, on a connection of its own, with the settings
// the namespace has and those it will have.
func (s *Store) changeSettings(ctx context.Context, change func(have Settings) Settings,
	before func(c rconn.Link, have, want Settings) error) (string, Settings, error) {
	for range maxSettingsReads {
		gen, have, err := s.readSettings(ctx)
		if err != nil {
			return "", Settings{}, err
		}
		if gen == "" {
			if _, err := s.reload(ctx); err != nil {
				return "", Settings{}, err
			}
			continue
		}
		want := change(have)
		if sameSettings(have, want) {
			return gen, have, nil
		}
		if before != nil {
			if err := s.rc.Session(ctx, func(c rconn.Link) error { return before(c, have, want) }); err != nil {
				return "", Settings{}, err
			}
		}
		if _, err := runStatus(s.rc.Run(ctx, s.settingsCall(gen, have, want).Eval())); err != nil {
			return "", Settings{}, err
		}
	}
	return "", Settings{}, fmt.Errorf("the settings changed %d times as they were written: try again", maxSettingsReads)
}

// readSettings reads the namespace's settings and their generation ("" for
// none).
func (s *Store) readSettings(ctx context.Context) (gen string, set Settings, err error) {
	k := s.keys
	var fields map[string]string
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var err error
		fields, err = redis.StringMap(c.Do("HGETALL", k.Settings()))
		return errs.WrongType(err, k.Settings(), "HGETALL")
	})
	if err != nil || len(fields) == 0 {
		return "", Settings{}, err
	}
	// A hash with fields but no generation is damaged, not absent: taken
	// for none, the Store's own options would be written over it.
	if n, perr := strconv.ParseUint(fields[setGen], 10, 64); perr != nil || n == 0 {
		return "", Settings{}, errs.Corruptf("%s holds %s %q, not a generation", k.Settings(), setGen, fields[setGen])
	}
	set, err = parseSettings(k.Settings(), fields)
	return fields[setGen], set, err
}

// runStatus is a script's status word, "changed" and "ok" among them, or
// the error of any other.
func runStatus(reply any, err error) (string, error) {
	st, err := script.ReadStatus(reply, err)
	if err != nil {
		return "", err
	}
	switch st.Word {
	case script.ReplyOK, script.ReplyChanged:
		return st.Word, nil
	}
	return "", st.Err()
}

// view is the namespace's settings as the Store last read them, or before
// its first call those its options ask for.
func (s *Store) view() Settings {
	if st := s.cur.Load(); st != nil {
		return st.settings()
	}
	return s.wanted(Settings{}, false)
}
