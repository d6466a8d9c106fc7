package voting

// This file holds what a Store goes by: the namespace's settings
// (Settings, namespace.go) as it last read them, and what follows from
// them for its scripts' arguments (state), with the form settings: keeps
// them in.

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
)

// The fields of settings:.
const (
	setGen     = "gen"
	setWeight  = "weight"
	setCutoff  = "cutoff"  // milliseconds
	setHistory = "history" // milliseconds; 0 for none
	setOrders  = "orders"  // the names of the kept orders beyond the book's two, by spaces
	setKinds   = "kinds"   // the names of the kinds of index kept by an option of no value of its own
)

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

// sameSettings reports whether a and b are the same settings.
func sameSettings(a, b Settings) bool {
	for _, k := range flagKinds {
		if k.in(a) != k.in(b) {
			return false
		}
	}
	return slices.Equal(a.Orders, b.Orders) && a.UserHistory == b.UserHistory && a.VoteWeight == b.VoteWeight && a.Cutoff == b.Cutoff
}

// kindNames are the settings' kinds of index kept by an option of no value
// of its own (flagKinds), as settings: holds them.
func (set Settings) kindNames() string {
	var names []string
	for _, k := range flagKinds {
		if k.in(set) {
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
		i := slices.IndexFunc(flagKinds, func(k flagKind) bool { return k.name == name })
		if i < 0 {
			return Settings{}, corrupt(setKinds)
		}
		flagKinds[i].keep(&set, true)
	}
	return set, nil
}

// makeState is what a Store of keys k, given the options asked, goes by
// under the settings set of generation gen.
func makeState(k schema.Keys, asked config, gen string, set Settings) *state {
	st := &state{gen: gen, weight: set.VoteWeight, cutoff: set.Cutoff, history: set.UserHistory, live: set.LiveGroups,
		kinds: map[string]bool{"history": set.UserHistory > 0}}
	for _, k := range flagKinds {
		st.kinds[k.name] = k.in(set)
	}
	st.liveReads = st.live && (asked.keeps("live") || !asked.given.groupTTL)
	for _, o := range set.Orders {
		st.keeps[o] = true
		st.kept = append(st.kept, o)
		st.indexes = append(st.indexes, k.Index(int(o)))
	}
	var kept []string
	for _, ix := range schema.Indexes {
		if st.keepsIndex(ix.Name) {
			kept = append(kept, ix.Name)
		}
	}
	st.hooked = script.KindsOf(kept)
	st.built, st.unbuilt, st.unbuiltLive = st.buildFields()
	st.vote = st.voteSettings(k)
	st.postBuilt, st.postUnbuilt, st.groupUnbuilt = script.NewNames(st.built), script.NewNames(st.unbuilt), script.NewNames(st.unbuiltLive)
	return st
}

// settings are the settings st goes by.
func (st *state) settings() Settings {
	set := Settings{Orders: append([]Order(nil), st.kept...), UserHistory: st.history, VoteWeight: st.weight, Cutoff: st.cutoff}
	for _, k := range flagKinds {
		k.keep(&set, st.kinds[k.name])
	}
	return set
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

// progressCounts are the counts of a run of Reindex that its progress,
// the fields of reindex:, hold.
func progressCounts(fields map[string]string) ReindexProgress {
	var p ReindexProgress
	for name, n := range map[string]*int{"articles": &p.Articles, "skipped": &p.Skipped, "comments": &p.Comments,
		"groups": &p.Groups, "steps": &p.Steps, "duplicates": &p.Duplicates} {
		*n, _ = strconv.Atoi(fields[name])
	}
	for field, holder := range fields {
		if id, ok := strings.CutPrefix(field, "duplicate:"); ok {
			p.DuplicateLinks = append(p.DuplicateLinks, DuplicateLink{ID: id, Holder: holder})
		}
	}
	sortDuplicates(p.DuplicateLinks)
	return p
}
