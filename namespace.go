package voting

// This file holds the namespace's settings as a user sees them: Settings,
// with their JSON, the kinds of index kept by an option of no value of
// their own (flagKinds: each a field of Settings), and how far their
// build has come (Building, ReindexProgress). What a Store goes by is
// state.go's; settings.go reads and changes them.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/schema"
)

// Settings are what a namespace stores: which indexes it keeps, and the
// numbers of its scores. They are the namespace's, kept in Redis (the key
// settings:), not any one Store's: every write by any Store keeps every
// index they name, and scores votes by their weight and cutoff.
//
// A namespace gets its settings from the first Store that calls Redis on
// it, from that Store's options (WithOrders, WithLiveGroups,
// WithUserHistory, WithKarma, WithUniqueLinks, WithActiveUsers,
// WithVoteWeight, WithCutoff);
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

// sortDuplicates orders duplicate links by id, as numbers.
func sortDuplicates(d []DuplicateLink) {
	slices.SortFunc(d, func(a, b DuplicateLink) int {
		return cmp.Or(cmp.Compare(len(a.ID), len(b.ID)), strings.Compare(a.ID, b.ID))
	})
}
