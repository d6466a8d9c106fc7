package voting

// This file holds the builder: a Store that adds an index to a namespace
// with articles (WithOrders, WithKarma... given to a Store of a namespace
// that lacks them) runs Reindex in the background until the index is
// built, one Store of the namespace at a time, under a lease in Redis that
// another Store takes over if the builder stops renewing it.

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// leaseTime is how long the builder's lease lasts unless renewed: it is
// renewed after each step of Reindex once a third of it has passed, so a
// builder that stops (a process that died) is taken over within it.
const leaseTime = 10 * time.Second

// retryPause bounds the builder's pause after a failed run, before it tries
// again; the pause doubles from a second.
const retryPause = 30 * time.Second

// A builder runs a Store's background builds: one goroutine at a time,
// started when the Store adds an index or a listing finds one not built,
// ending once nothing is left to build, another Store holds the lease, or
// Close.
type builder struct {
	s     *Store
	token string

	mu      sync.Mutex
	running bool
	closed  bool
	// stop is closed by close: the goroutine sends no step after it, and
	// ends; done is closed when the goroutine has ended.
	stop chan struct{}
	done chan struct{}
	// checked is when the goroutine last ended, to bound how often a
	// listing that finds an index not built starts it again.
	checked time.Time
	// runs counts the runs of Reindex the builder has completed, for tests.
	runs int
	// err is the last run's error, nil once a run succeeds.
	err error
}

// newBuilder is the builder of s.
func newBuilder(s *Store) (*builder, error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	return &builder{s: s, token: token, stop: make(chan struct{})}, nil
}

// ensure starts the builder's goroutine unless it runs, the Store is
// closed, or (unless now) it ended less than a second ago.
func (b *builder) ensure(now bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running || b.closed || !now && time.Since(b.checked) < time.Second {
		return
	}
	b.running, b.done = true, make(chan struct{})
	go b.run(b.done)
}

// close stops the goroutine, if it runs, once its step in flight has its
// reply (a step is never cut short, so none lands after close returns),
// and gives the lease up.
func (b *builder) close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.stop)
	}
	running, done := b.running, b.done
	b.mu.Unlock()
	if running {
		<-done
	}
}

// stopped reports whether close has been called.
func (b *builder) stopped() bool {
	select {
	case <-b.stop:
		return true
	default:
		return false
	}
}

// run builds what the namespace has not built, as long as there is such
// an index and the lease is the builder's; it pauses after a failure.
// Its round trips are bounded by the Store's timeout, not cut short by
// close, which it heeds between them.
func (b *builder) run(done chan struct{}) {
	defer close(done)
	defer func() {
		b.mu.Lock()
		b.running, b.checked = false, time.Now()
		b.mu.Unlock()
	}()
	ctx := context.Background()
	pause := time.Second
	for !b.stopped() {
		unbuilt, err := b.s.unbuilt(ctx)
		if err == nil && len(unbuilt) == 0 {
			return
		}
		if err == nil {
			var held bool
			if held, err = b.lease(ctx, "take"); err == nil && !held {
				return // another Store builds
			}
		}
		if err == nil {
			err = b.build(ctx)
		}
		b.mu.Lock()
		b.err = err
		if err == nil {
			b.runs++
		}
		b.mu.Unlock()
		if err == nil {
			continue // the settings may have changed as it built
		}
		if b.stopped() {
			break
		}
		if errors.Is(err, errs.ErrInvalid) || errors.Is(err, errs.ErrCorrupt) {
			// Not to be mended by trying again (a Store refused by the
			// namespace's settings, a key of the wrong type): the next
			// listing that finds the index unbuilt tries, once it is.
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-b.stop:
		case <-t.C:
		}
		t.Stop()
		pause = min(2*pause, retryPause)
	}
	// Closed, or failed for good: the lease goes, so that another Store
	// takes over at once.
	_, _ = b.lease(ctx, "release")
}

// build runs Reindex under the lease, renewing it as the run goes on: a
// run that loses it (the builder stalled past it, and another Store took
// it) stops, and so does one the Store closes, each between two steps.
func (b *builder) build(ctx context.Context) error {
	run, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewed := time.Now()
	_, err := b.s.ReindexWithProgress(run, func(ReindexProgress) {
		if b.stopped() {
			cancel(errClosed)
			return
		}
		if time.Since(renewed) < leaseTime/3 {
			return
		}
		held, err := b.lease(run, "renew")
		switch {
		case err != nil:
			cancel(err)
		case !held:
			cancel(errLeaseLost)
		default:
			renewed = time.Now()
		}
	})
	if cause := context.Cause(run); err != nil && cause != nil {
		return cause
	}
	if err == nil {
		_, err = b.lease(ctx, "release")
	}
	return err
}

// errClosed ends a background run whose Store was closed.
var errClosed = errors.New("the Store was closed")

// errLeaseLost ends a background run whose lease another Store took.
var errLeaseLost = errors.New("the lease of the background build went to another Store")

// lease runs op on the builder's lease and reports whether the builder
// holds it after (for "release", whether it gave it up).
func (b *builder) lease(ctx context.Context, op string) (bool, error) {
	l := script.Lease{Lease: b.s.keys.Builder(), Token: b.token, Op: op, Millis: leaseTime.Milliseconds()}
	st, err := script.ReadStatus(b.s.rc.Run(ctx, l.Call().Eval()))
	switch {
	case err != nil:
		return false, err
	case st.Word == script.ReplyOK:
		return true, nil
	case st.Word == script.ReplyTaken:
		return false, nil
	}
	return false, st.Err()
}

// unbuilt are the fields of indexed: (internal/schema/marks.go) of the
// indexes the namespace keeps that are not built, none for a namespace
// with no article, as the settings read afresh say.
func (s *Store) unbuilt(ctx context.Context) ([]string, error) {
	st, err := s.reload(ctx)
	if err != nil || len(st.built) == 0 {
		return nil, err
	}
	var marks []string
	var articles int64
	cmds := []rconn.Command{
		{Name: "HMGET", Args: append([]any{s.keys.IndexedHash()}, toAny(st.built)...)},
		{Name: "ZCARD", Args: []any{s.keys.TimeIndex()}},
	}
	replies, err := s.rc.Pipeline(ctx, cmds)
	if err == nil {
		err = rconn.ReplyError(cmds, replies)
	}
	if err == nil {
		marks, err = redis.Strings(replies[0], nil)
	}
	if err == nil {
		articles, err = redis.Int64(replies[1], nil)
	}
	if err != nil || articles == 0 {
		return nil, err
	}
	var unbuilt []string
	for i, mark := range marks {
		if mark != schema.BuiltYes {
			unbuilt = append(unbuilt, st.built[i])
		}
	}
	return unbuilt, nil
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

// building reads how far the build of the namespace's indexes has come,
// in one round trip.
func (s *Store) building(ctx context.Context, st *state) (Building, error) {
	k := s.keys
	cmds := []rconn.Command{
		{Name: "HGETALL", Args: []any{k.IndexedHash()}},
		{Name: "ZCARD", Args: []any{k.TimeIndex()}},
		{Name: "HGETALL", Args: []any{k.ReindexProgress()}},
		{Name: "EXISTS", Args: []any{k.Builder()}},
	}
	replies, err := s.rc.Pipeline(ctx, cmds)
	if err == nil {
		err = rconn.ReplyError(cmds, replies)
	}
	var marks, progress map[string]string
	var articles, lease int64
	if err == nil {
		marks, err = redis.StringMap(replies[0], nil)
	}
	if err == nil {
		articles, err = redis.Int64(replies[1], nil)
	}
	if err == nil {
		progress, err = redis.StringMap(replies[2], nil)
	}
	if err == nil {
		lease, err = redis.Int64(replies[3], nil)
	}
	if err != nil {
		return Building{}, err
	}
	b := Building{Background: lease > 0}
	for _, field := range st.built {
		if articles > 0 && marks[field] != schema.BuiltYes {
			b.Unbuilt = append(b.Unbuilt, field)
		}
	}
	if len(progress) > 0 {
		run := progressCounts(progress)
		b.Run = &run
	}
	if s.build != nil {
		s.build.mu.Lock()
		if s.build.err != nil {
			b.Err = s.build.err.Error()
		}
		s.build.mu.Unlock()
	}
	return b, nil
}

// buildRuns is how many background runs of Reindex the Store has
// completed, for tests.
func (s *Store) buildRuns() int {
	if s.build == nil {
		return 0
	}
	s.build.mu.Lock()
	defer s.build.mu.Unlock()
	return s.build.runs
}
