package voting

// This file holds what a Store goes by: the namespace's settings (Settings)
// as it last read them, and what follows from them for its scripts'
// arguments (state), with the form settings: keeps them in.

import (
	"encoding/json"
	"fmt"
	"reflect"
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
// until it is built for the articles written before, by that Store in the
// background (WithAutoReindex) or by Reindex; Building says how far that
// has come. A Store
// given a vote weight, cutoff or history time other than the namespace's
// is refused, on every call, with an error wrapping ErrInvalid that names
// both values, and writes nothing; a Store not given one takes the
// namespace's. StopKeeping takes indexes out, and Rescore changes the
// weight and cutoff, each in bounded steps.
//
// Articles another writer posts (the book's code, a script, an older
// release) are noticed: the namespace counts the articles the library has
// indexed, and a listing of an index beyond the book's two compares the
// count with the size of the time index in its first round trip, answering
// ErrNotIndexed while they differ (a group's live listing falls back to
// the book's). Votes another writer casts are not noticed: run Reindex
// after them.
type Settings struct {
	// Orders are the orders the namespace keeps an index for, in the order
	// of the table: ByScore and ByTime, always, and those of WithOrders.
	Orders []Order `json:"orders"`
	// LiveGroups reports whether it keeps live group indexes.
	LiveGroups bool `json:"liveGroups" kind:"live"`
	// UserHistory is how long a user's history keeps a vote; 0 for none.
	// JSON carries it, and Cutoff, as a duration's text ("1h0m0s"), as
	// time.Duration's String writes it and time.ParseDuration reads it.
	UserHistory time.Duration `json:"userHistory"`
	// Karma reports whether it keeps posters' karma.
	Karma bool `json:"karma" kind:"karma"`
	// UniqueLinks reports whether it keeps the index of links and refuses a
	// link another article has.
	UniqueLinks bool `json:"uniqueLinks" kind:"links"`
	// ActiveUsers reports whether it keeps the index of active users
	// (WithActiveUsers).
	ActiveUsers bool `json:"activeUsers" kind:"active"`
	// VoteWeight is the score a vote is worth, and Cutoff how long after
	// posting an article takes votes.
	VoteWeight float64       `json:"voteWeight"`
	Cutoff     time.Duration `json:"cutoff"`

	// Building is how far the build of the indexes the namespace keeps has
	// come, as Settings read it; the zero Building elsewhere.
	Building Building `json:"building"`
}

// settingsJSON is the type of Settings as JSON carries it: Settings'
// fields, in their order, with their tags, but its durations text. It is
// made from Settings, so that a field added there needs nothing here.
var settingsJSON = func() reflect.Type {
	t := reflect.TypeFor[Settings]()
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		fields[i] = t.Field(i)
		if fields[i].Type == durationType {
			fields[i].Type = reflect.TypeFor[string]()
		}
	}
	return reflect.StructOf(fields)
}()

var durationType = reflect.TypeFor[time.Duration]()

// MarshalJSON writes the settings with their durations as text, such as
// "cutoff":"168h0m0s", not as nanoseconds, and no orders as [].
func (set Settings) MarshalJSON() ([]byte, error) {
	if set.Orders == nil {
		set.Orders = []Order{}
	}
	from, j := reflect.ValueOf(set), reflect.New(settingsJSON).Elem()
	for i := range from.NumField() {
		if d, ok := from.Field(i).Interface().(time.Duration); ok {
			j.Field(i).SetString(d.String())
		} else {
			j.Field(i).Set(from.Field(i))
		}
	}
	return json.Marshal(j.Interface())
}

// UnmarshalJSON reads what MarshalJSON writes; a duration missing or ""
// is 0.
func (set *Settings) UnmarshalJSON(data []byte) error {
	j := reflect.New(settingsJSON)
	if err := json.Unmarshal(data, j.Interface()); err != nil {
		return err
	}
	var read Settings
	to := reflect.ValueOf(&read).Elem()
	for i := range to.NumField() {
		field := j.Elem().Field(i)
		if to.Field(i).Type() != durationType {
			to.Field(i).Set(field)
			continue
		}
		if text := field.String(); text != "" {
			d, err := time.ParseDuration(text)
			if err != nil {
				return fmt.Errorf("voting: settings: %w", err)
			}
			to.Field(i).SetInt(int64(d))
		}
	}
	*set = read
	return nil
}

// A flagKind is a kind of index (schema.Indexes) kept by an option of no
// value of its own (keepKind): a bool field of Settings whose tag kind
// names it.
type flagKind struct {
	name  string
	field int // Settings'
}

// flagKinds are the kinds of index kept by an option of no value of their
// own, in the order of schema.Indexes, the order settings: names them in.
// Every place that reads, writes or compares them goes through this table,
// so that such a kind is one field of Settings and its option.
var flagKinds = func() []flagKind {
	t := reflect.TypeFor[Settings]()
	var kinds []flagKind
	for _, ix := range schema.Indexes {
		for i := range t.NumField() {
			if f := t.Field(i); f.Tag.Get("kind") == ix.Name && f.Type.Kind() == reflect.Bool {
				kinds = append(kinds, flagKind{name: ix.Name, field: i})
			}
		}
	}
	return kinds
}()

// in reports whether set keeps the kind.
func (k flagKind) in(set Settings) bool { return reflect.ValueOf(set).Field(k.field).Bool() }

// keep makes set keep the kind, or not.
func (k flagKind) keep(set *Settings, kept bool) {
	reflect.ValueOf(set).Elem().Field(k.field).SetBool(kept)
}

// Building is how far the build of the namespace's indexes has come, as
// Settings reports it.
type Building struct {
	// Unbuilt names the indexes the namespace keeps that do not hold
	// every article yet, by the fields of indexed: (the order's name, as
	// "hot"; "live:" and the order's name for the groups' live indexes;
	// "karma", "links"): their listings and counts answer ErrNotIndexed
	// until a run of Reindex builds them. None when all are built.
	Unbuilt []string `json:"unbuilt,omitempty"`
	// Run is how far the run of Reindex under way has come, across its
	// calls (Done false); nil when none is under way.
	Run *ReindexProgress `json:"run,omitempty"`
	// Background reports whether a Store builds them in the background:
	// some Store holds the lease of the build (WithAutoReindex).
	Background bool `json:"background"`
	// Err is why this Store's last background run failed, "" if it did
	// not (it tries again, after a pause of up to 30 s).
	Err string `json:"err,omitempty"`
}

// ReindexProgress is how far a run of Reindex has come. A run is the work of
// one or more calls, each going on where the last stopped, until one
// completes it; the counts are the run's, across its calls.
type ReindexProgress struct {
	// Articles is the number of articles the run has set in every kept
	// index.
	Articles int `json:"articles"`
	// Skipped is the number of members of the time index and of the groups'
	// sets passed over: their hash is gone, or its time or counters do not
	// parse (see ErrCorrupt), or they are no article of the namespace; and
	// of comments whose hash does not parse or whose article or parent
	// comment is gone.
	Skipped int `json:"skipped"`
	// Comments is the number of comments the run has set in their
	// parent's indexes, their article's thread and their poster's
	// comments.
	Comments int `json:"comments"`
	// Groups is the number of groups whose members' records of their
	// groups have been built: a group that SCAN gives in two batches, as
	// it may while Redis grows its table, is walked, and counted, twice.
	Groups int `json:"groups"`
	// Steps is the number of steps run so far, each one script or one
	// SCAN of the namespace's keys.
	Steps int `json:"steps"`
	// Done reports that the run is complete: this call finished it.
	Done bool `json:"done"`
	// Duplicates is the number of articles, with WithUniqueLinks, whose
	// link another article has before them in the index of links: one that
	// was there before the run, or the oldest of those the run found with
	// it. DuplicateLinks names the first of them, at most
	// maxReportedDuplicates (100), ordered by id.
	Duplicates     int             `json:"duplicates"`
	DuplicateLinks []DuplicateLink `json:"duplicateLinks,omitempty"`
}

// A DuplicateLink is an article whose link another article, its Holder,
// has in the index of links (WithUniqueLinks).
type DuplicateLink struct {
	ID     string `json:"id"`
	Holder string `json:"holder"`
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

// knownOrder refuses an unknown order, before any round trip.
func knownOrder(o Order) error {
	if _, ok := o.spec(); !ok {
		return errs.Invalidf("unknown order %d", int(o))
	}
	return nil
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
