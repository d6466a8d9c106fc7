package voting

// This file holds Reindex, which builds the indexes of the orders a Store
// keeps for articles that were written without them, the records of
// articles' groups and the live group indexes, in bounded steps so that
// other clients of the same Redis are never held up for long, and with its
// progress kept in Redis so that a run cut short goes on where it stopped.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// maxReportedDuplicates is how many duplicate links a run of Reindex names.
const maxReportedDuplicates = 100

// Reindex builds the indexes of the Store's kept orders (WithOrders) for
// articles that were posted or voted on before the order was kept: by this
// library with other options, or by the book's own code; each user's index
// of their articles (Query.User); with WithKarma, the posters' karma;
// with WithUniqueLinks, the index of links; the records of articles' groups
// (Article.Groups) from the groups' sets, for articles the book's code
// put in groups, and the groups' sizes (Groups); and, with live groups
// (WithLiveGroups), each group's live indexes; and the comments' indexes
// (their parents' indexes, the threads, the users' lists of comments) with,
// with WithKarma, the commenters' karma. So a site written by the
// book's code switches to live groups with one call. It is
// ReindexWithProgress with no progress report: it returns nil once the run
// is complete.
func (s *Store) Reindex(ctx context.Context) error {
	_, err := s.ReindexWithProgress(ctx, nil)
	return err
}

// ReindexWithProgress is Reindex, calling progress (if not nil) after each
// step with the run's counts so far, and returning them; Done is true when
// this call completed the run.
//
// The run's progress is kept in Redis (the hash reindex:), so that a call
// ended by its context or an error leaves it where it stopped, and the next
// call, by any Store of the namespace with the same orders and live groups,
// goes on from there: a deadline too short for the whole run still gets it
// done over a few calls. A call by a Store with other options starts a run
// of its own, in place of the other. Once a run is complete, the next call
// starts a new one. A call whose run another took the place of while it
// ran goes on with the run there is, or starts one, up to three times.
//
// Listings of an index the run builds answer ErrNotIndexed until the run
// completes. A run marks an index built only if no later run started in
// its place; and it counts as indexed only the articles the time index held
// beyond the namespace's count when it started, so that an article another
// writer (the book's code) posts while it runs leaves the indexes unbuilt
// for the next run (see ErrNotIndexed). A run builds what the namespace
// keeps when it starts (Settings); StopKeeping ends a run under way, and
// the call goes on with a run of what is kept then.
//
// A run first walks the time index, oldest article first, a hundred
// articles a step, and sets each article's entry in each kept index from
// its counters (a window's index takes only the articles posted within its
// window, and is first trimmed of those that have aged out) and in its
// poster's index of articles. With karma, it counts each article's part of
// its poster's karma from its voter sets while its voting is open; once it
// has closed, an article keeps the part it has, and one with none gets its
// up-votes less its down-votes less one, the post's own up-vote (the book's
// code allows no other vote by the poster). With unique links, it makes
// each article the holder of its link in the index of links, unless an
// article that exists holds it already or an older one the run met has
// it: then the article shares the link (linkshares:, oldest first, a
// member each), is counted in Duplicates and named in DuplicateLinks, and
// keeps its link, which stays taken while any of them has it, passing to
// the oldest that shares it when its holder gives it up.
//
// Then it walks the comments by id, from the first to the last the counter
// gave, a hundred a step, and sets each comment's entry in each of its
// parent's indexes from its counters, in its article's thread and, unless
// it is a tombstone, in its poster's comments; with karma it counts each
// comment's part of its poster's comment karma as it does an article's. A
// comment whose article or parent comment is gone is skipped and counted.
//
// Then it finds the namespace's groups with SCAN (on a Redis Cluster, on the
// node that holds the namespace's slot; SCAN reads every key of that node,
// the namespace's and others', a few hundred a step) and walks each group's
// set with SSCAN, a few hundred members a step (a few dozen with live
// groups), adding the group to each article's record and, with live
// groups, setting the article's entry in each of the group's live indexes
// from its counters. A member of a group whose article is gone (deleted
// before its record named the group) leaves the group. The group's last
// step sets its size.
//
// Each step is one atomic script of a few milliseconds at most, so other
// clients of the same Redis wait no longer than that. Reindex is safe to
// run while the site takes posts and votes (a step sets what the counters
// say at that moment; a vote after it moves the entry as usual), and to run
// again. Each call first checks every site index it writes, so that an index
// of the wrong type (ErrCorrupt, naming it) stops it before it writes
// anything; a record or a live index of the wrong type stops it when met.
//
// It adds, and never removes: an article the book's code took out of a
// group keeps its place in the record and the group's live indexes until
// RemoveFromGroups takes it out.
func (s *Store) ReindexWithProgress(ctx context.Context, progress func(ReindexProgress)) (done ReindexProgress, err error) {
	defer func() {
		if err != nil {
			err = failed(err, "reindex")
		}
	}()
	// A run builds what the namespace keeps now: its settings read afresh.
	ns, err := s.reload(ctx)
	if err != nil {
		return ReindexProgress{}, err
	}
	r := &reindexRun{s: s, ns: ns, ctx: ctx, progress: progress, name: ns.reindexRunName()}
	if len(ns.kept) > 2 || ns.live {
		// The walks read the clock: one outside the years of posting times
		// stops the run before it writes its progress.
		if err := schema.CheckClock(s.now()); err != nil {
			return r.counts, err
		}
	}
	// A run another took the place of (a later run started over it) cannot
	// mark its indexes built: the call goes on with the run there is, a few
	// times at most.
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			// The run taken over may be StopKeeping's doing: what is kept
			// is read again.
			if r.ns, err = s.reload(ctx); err != nil {
				return r.counts, err
			}
			r.name = r.ns.reindexRunName()
		}
		err := r.load()
		if err == nil && r.phase == "orders" {
			err = r.orders()
		}
		if err == nil && r.phase == "comments" {
			err = r.comments()
		}
		if err == nil {
			err = r.walkGroups()
		}
		if err == nil {
			err = r.finish()
		}
		switch {
		case err == nil:
			r.counts.Done = true
			return r.counts, nil
		case !errors.Is(err, errSuperseded):
			return r.counts, err
		case attempt == maxReindexAttempts:
			return r.counts, fmt.Errorf("other runs of Reindex took the place of this one's %d times: call it again", attempt)
		}
	}
}

// errSuperseded is a step's word that the run's progress is another run's:
// one that took this one's place, or none, the run being complete.
var errSuperseded = errors.New("another run of Reindex took this one's place")

// superseded is errSuperseded for a step's reply that says so, and the
// error of any other reply that is no list.
func superseded(reply any, err error) ([]any, error) {
	if st, serr := script.ReadStatus(reply, err); serr == nil && st.Word == script.ReplySuperseded {
		return nil, errSuperseded
	}
	return script.ReadList(reply, err)
}

// finish completes the run: it marks built the indexes the run built.
func (r *reindexRun) finish() error {
	s := r.s
	finish := script.ReindexDone{Progress: s.keys.ReindexProgress(), Indexed: s.keys.IndexedHash(),
		Run: r.run, Token: r.token, Built: r.ns.built}
	values, err := superseded(s.rc.Run(r.ctx, finish.Call().Eval()))
	if err == nil {
		values, err = redis.Scan(values, &r.counts.Duplicates)
	}
	// The run's duplicates as its progress held them: every step's.
	r.counts.DuplicateLinks = nil
	return r.duplicates(values, err)
}

// duplicates adds to the counts the duplicate links of a step's reply,
// values after the counts: an id and its holder's, for each. err is the
// reply's.
func (r *reindexRun) duplicates(values []any, err error) error {
	for ; err == nil && len(values) >= 2; values = values[2:] {
		var d DuplicateLink
		if _, err = redis.Scan(values, &d.ID, &d.Holder); err == nil {
			r.counts.DuplicateLinks = append(r.counts.DuplicateLinks, d)
		}
	}
	sortDuplicates(r.counts.DuplicateLinks)
	return err
}

// maxReindexAttempts bounds how often one call of Reindex goes on with a
// run that took the place of its own.
const maxReindexAttempts = 3

// newToken makes a run's token: 16 random hex digits.
func newToken() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("a token for the run: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// reindexRunName names what a run of Reindex builds, so that a run is gone
// on with only by Stores that build the same: the kinds of index
// (schema.Indexes) that an option keeps and Reindex builds, of the orders'
// those of the kept orders beyond the book's two.
func (st *state) reindexRunName() string {
	var words []string
	for _, ix := range schema.Indexes {
		switch {
		case ix.Option == "" || ix.Mark == "" && !ix.PerOrder:
			// Built by every run, or by none.
		case ix.Name == "orders":
			for _, o := range st.kept[2:] {
				words = append(words, schema.Orders[o].Name)
			}
		case st.keepsIndex(ix.Name):
			words = append(words, ix.Name)
		}
	}
	return strings.Join(words, " ")
}

// A reindexRun is one call of Reindex and where its run stands: the fields
// of the hash reindex:, read when the call starts and written by each step.
type reindexRun struct {
	s        *Store
	ns       *state
	ctx      context.Context
	progress func(ReindexProgress)
	counts   ReindexProgress

	// name is what the run builds (reindexRunName); token tells the run
	// from any other of the same name that takes its place, and run is the
	// two, as the progress hash names its run. The marks of the indexes
	// the run builds carry its token (internal/schema/marks.go).
	name, token, run string
	// phase is "orders" while the time index is walked, then "comments"
	// while the comments are, then "groups";
	// scan is the SCAN cursor of the batch of groups being walked; group is
	// the group being walked. The steps' scripts keep where the walk of the
	// time index and of each group goes on from themselves, and which
	// groups of the batch are walked.
	phase, scan, group string
}

// load reads where the run stands, or starts a new one if there is none, or
// only one of another Store's options.
func (r *reindexRun) load() error {
	s := r.s
	var fields map[string]string
	err := s.rc.Session(r.ctx, func(c rconn.Link) error {
		var err error
		fields, err = redis.StringMap(c.Do("HGETALL", s.keys.ReindexProgress()))
		return errs.WrongType(err, s.keys.ReindexProgress(), "HGETALL")
	})
	if err != nil {
		return err
	}
	r.counts = ReindexProgress{}
	name, token, _ := strings.Cut(fields["run"], "#")
	if name != r.name || token == "" || !slices.Contains([]string{"orders", "comments", "groups"}, fields["phase"]) {
		// A new run, in place of any other: its indexes are being built by
		// it, unless they are built already.
		r.phase, r.scan, r.group = "orders", "0", ""
		token, err := newToken()
		if err != nil {
			return err
		}
		r.token, r.run = token, r.name+"#"+token
		start := script.ReindexStart{Progress: s.keys.ReindexProgress(), Indexed: s.keys.IndexedHash(), ByTime: s.keys.TimeIndex(),
			Run: r.run, Phase: r.phase, Token: r.token, Built: r.ns.built}
		st, err := script.ReadStatus(s.rc.Run(r.ctx, start.Call().Eval()))
		if err == nil && st.Word != script.ReplyOK {
			err = st.Err()
		}
		return err
	}
	r.token, r.run = token, fields["run"]
	r.phase, r.scan, r.group = fields["phase"], fields["scan"], fields["group"]
	if r.scan == "" {
		r.scan = "0"
	}
	r.counts = progressCounts(fields)
	return nil
}

// report reports the counts after a step.
func (r *reindexRun) report() {
	if r.progress != nil {
		r.progress(r.counts)
	}
}

// orders builds the site's indexes of the kept orders beyond the book's
// two, the users' indexes of their articles, karma and the index of links:
// a first step checks every index key the others write, so that a key
// of the wrong type stops Reindex before it has written anything; then each
// window is trimmed, so that its mark is where the window starts and the
// walk adds only what belongs; then the walk of the time index, from where
// the run stands.
func (r *reindexRun) orders() error {
	s := r.s
	if err := r.walk(0); err != nil {
		return err
	}
	for _, o := range r.ns.kept[2:] {
		if schema.Orders[o].Window == 0 {
			continue
		}
		err := s.rc.Session(r.ctx, func(c rconn.Link) error {
			if err := s.trimWindow(c, s.siteListing(o)); err != nil {
				return err
			}
			n, err := redis.Int(c.Do("HINCRBY", s.keys.ReindexProgress(), "steps", 1))
			if err == nil {
				r.counts.Steps = n // a failed round trip leaves the count as it was
			}
			return err
		})
		if err != nil {
			return within("trim "+schema.Orders[o].Name, err)
		}
		r.report()
	}
	for r.phase == "orders" {
		if err := r.walk(s.reindexBatch); err != nil {
			return err
		}
		r.report()
	}
	return nil
}

// walk runs one step of the walk of the time index, of batch articles, or
// with batch 0 the check of the keys alone.
func (r *reindexRun) walk(batch int) error {
	s := r.s
	now := s.now()
	if err := schema.CheckClock(now); err != nil {
		return err
	}
	k := s.keys
	step := script.ReindexOrders{
		ByTime: k.TimeIndex(), ByScore: k.ScoreIndex(), Trimmed: k.TrimmedHash(), Progress: k.ReindexProgress(),
		Indexes: r.ns.indexes[2:],

		Run: r.run, Batch: batch, ArticlePrefix: k.ArticlePrefix(), VotedPrefix: k.VotedPrefix(),
		DownvotedPrefix: k.DownvotedPrefix(), PostsPrefix: k.PostsPrefix(),
		MaxDuplicates: maxReportedDuplicates, Orders: scriptOrdersAt(r.ns.kept[2:], now), Prefix: k.Prefix(), Kinds: r.ns.hooked,
	}
	reply, err := s.rc.Run(r.ctx, step.Call().Eval())
	if batch == 0 {
		st, err := script.ReadStatus(reply, err)
		if err == nil && st.Word != script.ReplyOK {
			err = st.Err()
		}
		return err
	}
	values, err := superseded(reply, err)
	var next string
	if err == nil {
		values, err = redis.Scan(values, &next, &r.counts.Articles, &r.counts.Skipped, &r.counts.Steps, &r.counts.Duplicates)
	}
	err = r.duplicates(values, err)
	if err == nil && next == "" {
		r.phase = "comments"
	}
	return err
}

// comments walks the comments by id, a batch a step, from where the run
// stands, setting each one's entries in its parent's indexes, its
// article's thread and its poster's comments, and with karma counting its
// part of its poster's comment karma.
func (r *reindexRun) comments() error {
	s := r.s
	k := s.keys
	step := script.ReindexComments{Progress: k.ReindexProgress(), Counter: k.CommentCounter(), Prefix: k.Prefix(),
		Run: r.run, Batch: s.reindexBatch, CommentPrefix: k.CommentPrefix(), VotedPrefix: k.CommentVotedPrefix(),
		DownvotedPrefix: k.CommentDownvotedPrefix(), RepliesPrefix: k.RepliesPrefix(), ArticlePrefix: k.ArticlePrefix(),
		ThreadPrefix: k.ThreadPrefix(), PostsPrefix: k.UserCommentsPrefix(), Orders: commentKinds, Kinds: r.ns.hooked}
	call := step.Call()
	for {
		values, err := superseded(s.rc.Run(r.ctx, call.Eval()))
		var next string
		if err == nil {
			_, err = redis.Scan(values, &next, &r.counts.Comments, &r.counts.Skipped, &r.counts.Steps)
		}
		if err != nil {
			return err
		}
		r.report()
		if next == "" {
			r.phase = "groups"
			return nil
		}
	}
}

// scanCount is how many keys one SCAN of Reindex asks for.
const scanCount = 500

// liveEntriesPerStep is about how many entries in a group's live indexes
// one step of Reindex sets: about 2 ms of Redis's time at 10^6 articles
// (BENCHMARKS.md), so that with every order kept a step reads 31 of the
// group's members, and with the book's two 125.
const liveEntriesPerStep = 250

// groupBatch is how many members of a group one step of Reindex reads.
func (st *state) groupBatch() int {
	if !st.live {
		return 200
	}
	return max(25, liveEntriesPerStep/len(st.kept))
}

// walkGroups finds the namespace's groups with SCAN, on a Redis Cluster on the
// node that holds the namespace's slot, and builds from each group's set the
// records of its articles' groups and, with live groups, the group's live
// indexes, in steps, from where the run stands. Each SCAN records its cursor
// first, so that a later call scans the same batch again: it goes on with
// the group it was walking, then walks every group of the batch that the
// run has not recorded as walked. Redis gives a batch in another order, and
// may give it other keys, once its table has grown; a group it moves to a
// later batch is walked there, again if it was walked here, which adds
// nothing.
func (r *reindexRun) walkGroups() error {
	s := r.s
	pattern := globEscape(s.keys.GroupSet("")) + "*"
	for {
		var found []string
		var next string
		walked := map[string]bool{}
		err := s.rc.Session(r.ctx, func(c rconn.Link) error {
			// The cursor is recorded first, by the run alone.
			scan := script.ReindexScan{Progress: s.keys.ReindexProgress(), Run: r.run, Scan: r.scan}
			reply, err := c.Run(scan.Call().Eval())
			values, err := superseded(reply, err)
			var names []string
			if err == nil {
				_, err = redis.Scan(values, &r.counts.Steps)
			}
			if err == nil {
				names, err = redis.Strings(values[1:], nil)
			}
			if err != nil {
				return err
			}
			for _, name := range names {
				walked[name] = true
			}
			scanned, err := redis.Values(c.Do("SCAN", r.scan, "MATCH", pattern, "COUNT", scanCount))
			if err == nil {
				_, err = redis.Scan(scanned, &next, &found)
			}
			return err
		})
		if err != nil {
			return within("scan for groups", err)
		}
		r.report()
		// The group the last call was walking first, then the others.
		todo := make([]string, 0, len(found))
		for _, key := range found {
			name := strings.TrimPrefix(key, s.keys.GroupSet(""))
			switch {
			case checkGroup(name) != nil, walked[name]:
				// Not a group this package names, or walked already.
			case name == r.group:
				todo = append([]string{name}, todo...)
			default:
				todo = append(todo, name)
			}
			walked[name] = true // a key SCAN gives twice is walked once
		}
		for _, name := range todo {
			if err := r.walkGroup(name); err != nil {
				return err
			}
		}
		r.group = ""
		if next == "0" {
			return nil
		}
		r.scan = next
	}
}

// walkGroup walks the set of the group name, in steps from where the run
// stands: it adds name to the record of each of its articles and, with
// live groups, sets the article's entries in the group's live indexes. The
// group counts as done with its last step.
func (r *reindexRun) walkGroup(name string) error {
	s := r.s
	for {
		c, err := s.reindexGroupCall(r.ns, r.run, name)
		if err != nil {
			return err
		}
		values, err := superseded(s.rc.Run(r.ctx, c.Eval()))
		var cursor string
		var records int
		if err == nil {
			_, err = redis.Scan(values, &cursor, &records, &r.counts.Skipped, &r.counts.Groups, &r.counts.Steps)
		}
		if err != nil {
			return within("group "+name, err)
		}
		r.report()
		if cursor == "0" {
			return nil
		}
	}
}

// reindexGroupCall is reindex_group.lua's run for a step of the walk of
// the group name.
func (s *Store) reindexGroupCall(ns *state, run, name string) (script.Call, error) {
	k := s.keys
	var live []Order
	var indexes []string
	livePrefix := ""
	now := time.Time{}
	if ns.live {
		live, indexes, livePrefix, now = ns.kept, ns.indexes, k.LivePrefix(), s.now()
		if err := schema.CheckClock(now); err != nil {
			return script.Call{}, err
		}
	}
	g := script.ReindexGroup{
		Group: k.GroupSet(name), ByScore: k.ScoreIndex(), ByTime: k.TimeIndex(), Trimmed: k.TrimmedHash(),
		Sizes: k.GroupSizes(), Progress: k.ReindexProgress(), Indexes: indexes,

		Run: run, Name: name, ScanCount: ns.groupBatch(), ArticlePrefix: k.ArticlePrefix(), RecordPrefix: k.RecordPrefix(),
		LivePrefix: livePrefix, Orders: scriptOrdersAt(live, now),
	}
	return g.Call(), nil
}

// unbuiltLeft reports whether the namespace keeps an index it has not
// built (the Store's builder builds it: buildWorker).
func (s *Store) unbuiltLeft(ctx context.Context) (bool, error) {
	unbuilt, err := s.unbuilt(ctx)
	return len(unbuilt) > 0, err
}

// reindexSteps runs Reindex for the Store's builder (buildWorker).
func (s *Store) reindexSteps(ctx context.Context, step func()) error {
	_, err := s.ReindexWithProgress(ctx, func(ReindexProgress) { step() })
	return err
}

// unbuilt are the fields of indexed: (internal/schema/marks.go) of the
// indexes the namespace keeps that are not built, none for a namespace
// with no article, as the settings read afresh say.
func (s *Store) unbuilt(ctx context.Context) ([]string, error) {
	st, err := s.reload(ctx)
	if err != nil || len(st.built) == 0 {
		return nil, err
	}
	b, err := readBuilding(ctx, &s.rc, s.keys, st, s.build)
	return b.Unbuilt, err
}
