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
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
)

// Settings are what a namespace stores: which indexes it keeps, and the
// numbers of its scores. They are the namespace's, kept in Redis (the key
// settings:), not any one Store's: every write by any Store keeps every
// index they name, and scores votes by their weight and cutoff.
//
// A namespace gets its settings from the first Store that calls Redis on
// it, from that Store's options (WithOrders, WithLiveGroups,
// WithUserHistory, WithKarma, WithUniqueLinks, WithVoteWeight, WithCutoff);
// one with no article also keeps live groups, unless that Store was given
// WithGroupCacheTTL (to list groups through the book's cache). A Store
// given an index the namespace lacks adds it, on its first call: from then
// on every Store's writes keep it, and its listings answer ErrNotIndexed
// until Reindex has built it for the articles written before. A Store
// given a vote weight, cutoff or history time other than the namespace's
// is refused, on every call, with an error wrapping ErrInvalid that names
// both values, and writes nothing; a Store not given one takes the
// namespace's.
type Settings struct {
	// Orders are the orders the namespace keeps an index for, in the order
	// of the table: ByScore and ByTime, always, and those of WithOrders.
	Orders []Order `json:"orders"`
	// LiveGroups reports whether it keeps live group indexes.
	LiveGroups bool `json:"liveGroups"`
	// UserHistory is how long a user's history keeps a vote; 0 for none.
	UserHistory time.Duration `json:"userHistory"`
	// Karma reports whether it keeps posters' karma.
	Karma bool `json:"karma"`
	// UniqueLinks reports whether it keeps the index of links and refuses a
	// link another article has.
	UniqueLinks bool `json:"uniqueLinks"`
	// VoteWeight is the score a vote is worth, and Cutoff how long after
	// posting an article takes votes.
	VoteWeight float64       `json:"voteWeight"`
	Cutoff     time.Duration `json:"cutoff"`
}

// Settings reads the namespace's settings afresh, in one round trip once
// they exist (the first call of a Store on a namespace with none writes
// them, or adds what the Store asks for), and the Store goes by them from
// then on.
func (s *Store) Settings(ctx context.Context) (Settings, error) {
	st, err := s.reload(ctx)
	if err != nil {
		return Settings{}, failed(err, "read settings")
	}
	return st.settings(), nil
}

// The fields of settings:.
const (
	setGen     = "gen"
	setWeight  = "weight"
	setCutoff  = "cutoff"  // milliseconds
	setHistory = "history" // milliseconds; 0 for none
	setOrders  = "orders"  // the names of the kept orders beyond the book's two, by spaces
	setKinds   = "kinds"   // the names of the kinds of index kept by an option of no value of its own
)

// maxSettingsReads bounds how often one call reads the settings when they
// change as it reads them.
const maxSettingsReads = 5

// A state is what a Store goes by: the namespace's settings as it last
// read them, of generation gen, and what follows from them.
type state struct {
	gen     string
	weight  float64
	cutoff  time.Duration
	history time.Duration

	// keeps says which orders the namespace keeps an index for; kept are
	// those orders, in the order of the table (ByScore and ByTime first),
	// and indexes their site indexes' keys, in the same order.
	keeps   [len(schema.Orders)]bool
	kept    []Order
	indexes []string
	// live is whether the namespace keeps live group indexes; liveReads
	// whether the Store lists groups from them (it does unless it was given
	// WithGroupCacheTTL and not WithLiveGroups).
	live, liveReads bool
	// kinds says which kinds of index (schema.Indexes) the namespace keeps,
	// by name; hooked are those of them whose writes the scripts' hooks
	// make (script.KindsOf): the variant of each script with hooks a write
	// runs.
	kinds  map[string]bool
	hooked script.Kinds
	// built are the fields of indexed: of the indexes kept beyond the
	// book's two, unbuilt those of all others, and unbuiltLive those of the
	// live indexes among them (internal/schema/marks.go).
	built, unbuilt, unbuiltLive []string

	// vote are vote.lua's arguments after the vote's own, the same for
	// every vote, made once: putting a string in an interface allocates;
	// postBuilt and postUnbuilt, likewise, post.lua's lists of marks, and
	// groupUnbuilt add_groups.lua's.
	vote                                 *script.VoteSettings
	postBuilt, postUnbuilt, groupUnbuilt *script.Names
}

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
			st := s.newState(gen, have)
			s.cur.Store(st)
			return st, nil
		}
		if _, err := runStatus(s.rc.Run(ctx, s.settingsCall(gen, have, want).Eval())); err != nil {
			return nil, err
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
	want.LiveGroups = have.LiveGroups || a.live
	if want.UserHistory == 0 {
		want.UserHistory = a.history.Truncate(time.Millisecond)
	}
	for _, name := range a.kinds {
		switch name {
		case "karma":
			want.Karma = true
		case "links":
			want.UniqueLinks = true
		}
	}
	return want
}

// sameSettings reports whether a and b are the same settings.
func sameSettings(a, b Settings) bool {
	return slices.Equal(a.Orders, b.Orders) && a.LiveGroups == b.LiveGroups && a.UserHistory == b.UserHistory &&
		a.Karma == b.Karma && a.UniqueLinks == b.UniqueLinks && a.VoteWeight == b.VoteWeight && a.Cutoff == b.Cutoff
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
	withLive.LiveGroups = !s.asked.given.groupTTL || s.asked.live
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
		was, is := s.newState(gen, have).built, s.newState(gen, want).built
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

// kindNames are the settings' kinds of index kept by an option of no value
// of its own, as settings: holds them.
func (set Settings) kindNames() string {
	var names []string
	for _, k := range []struct {
		name string
		kept bool
	}{{"live", set.LiveGroups}, {"karma", set.Karma}, {"links", set.UniqueLinks}} {
		if k.kept {
			names = append(names, k.name)
		}
	}
	return strings.Join(names, " ")
}

// parseSettings reads the fields of settings:, the key named key.
func parseSettings(key string, fields map[string]string) (Settings, error) {
	corrupt := func(field string) error {
		return errs.Corruptf("%s holds %s %q", key, field, fields[field])
	}
	var set Settings
	var err error
	if set.VoteWeight, err = strconv.ParseFloat(fields[setWeight], 64); err != nil || !(set.VoteWeight > 0) || set.VoteWeight > MaxVoteWeight {
		return Settings{}, corrupt(setWeight)
	}
	for _, f := range []struct {
		name string
		to   *time.Duration
		min  time.Duration
	}{{setCutoff, &set.Cutoff, time.Second}, {setHistory, &set.UserHistory, 0}} {
		ms, err := strconv.ParseInt(fields[f.name], 10, 64)
		if err != nil || ms < 0 || ms > int64(time.Duration(1<<63-1)/time.Millisecond) || time.Duration(ms)*time.Millisecond < f.min {
			return Settings{}, corrupt(f.name)
		}
		*f.to = time.Duration(ms) * time.Millisecond
	}
	keeps := map[Order]bool{}
	for _, name := range strings.Fields(fields[setOrders]) {
		o, err := ParseOrder(name)
		if err != nil || o.String() != name {
			return Settings{}, corrupt(setOrders)
		}
		keeps[o] = true
	}
	for _, o := range Orders() {
		if keeps[o] || schema.Orders[o].Always {
			set.Orders = append(set.Orders, o)
		}
	}
	for _, name := range strings.Fields(fields[setKinds]) {
		switch name {
		case "live":
			set.LiveGroups = true
		case "karma":
			set.Karma = true
		case "links":
			set.UniqueLinks = true
		default:
			return Settings{}, corrupt(setKinds)
		}
	}
	return set, nil
}

// newState is what a Store goes by under the settings set of generation
// gen.
func (s *Store) newState(gen string, set Settings) *state {
	st := &state{gen: gen, weight: set.VoteWeight, cutoff: set.Cutoff, history: set.UserHistory, live: set.LiveGroups,
		kinds: map[string]bool{"live": set.LiveGroups, "history": set.UserHistory > 0, "karma": set.Karma, "links": set.UniqueLinks}}
	st.liveReads = st.live && (s.asked.live || !s.asked.given.groupTTL)
	for _, o := range set.Orders {
		st.keeps[o] = true
		st.kept = append(st.kept, o)
		st.indexes = append(st.indexes, s.keys.Index(int(o)))
	}
	var kept []string
	for _, ix := range schema.Indexes {
		if st.keepsIndex(ix.Name) {
			kept = append(kept, ix.Name)
		}
	}
	st.hooked = script.KindsOf(kept)
	st.built, st.unbuilt, st.unbuiltLive = st.buildFields()
	st.vote = st.voteSettings(s.keys)
	st.postBuilt, st.postUnbuilt, st.groupUnbuilt = script.NewNames(st.built), script.NewNames(st.unbuilt), script.NewNames(st.unbuiltLive)
	return st
}

// settings are the settings st goes by.
func (st *state) settings() Settings {
	return Settings{Orders: append([]Order(nil), st.kept...), LiveGroups: st.live, UserHistory: st.history,
		Karma: st.kinds["karma"], UniqueLinks: st.kinds["links"], VoteWeight: st.weight, Cutoff: st.cutoff}
}

// buildFields gives the fields of indexed: of the indexes kept (built),
// and of those not (unbuilt), and of those the live ones (the indexes a
// change of groups writes).
func (st *state) buildFields() (built, unbuilt, unbuiltLive []string) {
	mark := func(ix schema.Index, field string, kept bool) {
		switch {
		case field == "":
		case kept:
			built = append(built, field)
		case ix.PerGroup:
			unbuilt, unbuiltLive = append(unbuilt, field), append(unbuiltLive, field)
		default:
			unbuilt = append(unbuilt, field)
		}
	}
	for _, ix := range schema.Indexes {
		if !ix.PerOrder {
			mark(ix, ix.Mark, st.keepsIndex(ix.Name))
			continue
		}
		for i, spec := range schema.Orders {
			if ix.Mark != "" || !spec.Always {
				mark(ix, ix.Mark+spec.Name, st.keeps[i] && st.keepsIndex(ix.Name))
			}
		}
	}
	return built, unbuilt, unbuiltLive
}

// keepsIndex reports whether the kind of index name (schema.Indexes) is
// kept: one that no option keeps, or one whose option the namespace has;
// the orders' it keeps per order, by keeps.
func (st *state) keepsIndex(name string) bool {
	ix, _ := schema.IndexNamed(name)
	return ix.Option == "" || name == "orders" || st.kinds[name]
}

// checkOrder refuses an unknown order, and one whose index the namespace
// does not keep (giving its spec with the error).
func (st *state) checkOrder(o Order) (*schema.OrderSpec, error) {
	spec, ok := o.spec()
	if !ok {
		return nil, errs.Invalidf("unknown order %d", int(o))
	}
	if !st.keeps[o] {
		return spec, errs.Invalidf("order %s is not kept by the namespace: give a Store WithOrders(voting.%s) to add it", spec.Name, spec.Ident)
	}
	return spec, nil
}

// voteSettings are vote.lua's arguments after the vote's own: the
// generation of the settings, the cutoff in seconds, the history's time,
// the live indexes' prefix, the score's change for each net change of
// votes, the kept orders' keys and kinds; made once, with their arguments.
func (st *state) voteSettings(k schema.Keys) *script.VoteSettings {
	livePrefix := ""
	if st.live {
		livePrefix = k.LivePrefix()
	}
	change := func(net float64) string { return schema.FormatFloat(net * st.weight) }
	v := &script.VoteSettings{Gen: st.gen, Cutoff: schema.FormatFloat(st.cutoff.Seconds()), HistoryMillis: st.history.Milliseconds(),
		LivePrefix: livePrefix, MinusTwo: change(-2), MinusOne: change(-1), PlusOne: change(1), PlusTwo: change(2),
		Orders: scriptOrders(st.kept), Prefix: k.Prefix(), Kinds: st.hooked}
	v.Args()
	return v
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
	st, err := s.state(ctx)
	if err != nil {
		return nil, nil, err
	}
	spec, err := st.checkOrder(o)
	if err != nil && spec == nil {
		return nil, nil, err
	}
	if err != nil {
		if st, err = s.reload(ctx); err != nil {
			return nil, nil, err
		}
		if spec, err = st.checkOrder(o); err != nil {
			return nil, nil, err
		}
	}
	return st, spec, nil
}

// knownOrder refuses an unknown order, before any round trip.
func knownOrder(o Order) error {
	if _, ok := o.spec(); !ok {
		return errs.Invalidf("unknown order %d", int(o))
	}
	return nil
}

// keepsKind refuses a read of the kind of index name (schema.Indexes), what
// in an error's words, in a namespace that does not keep it (read afresh
// before it is refused: another Store may have added it); option is the
// option that adds it.
func (s *Store) keepsKind(ctx context.Context, name, what, option string) error {
	ns, err := s.state(ctx)
	if err == nil && !ns.kinds[name] {
		ns, err = s.reload(ctx)
	}
	if err != nil {
		return err
	}
	if !ns.kinds[name] {
		return errs.Invalidf("the namespace keeps no %s: give a Store %s to add it", what, option)
	}
	return nil
}
