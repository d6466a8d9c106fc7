package voting

// This file holds the builder, which builds the indexes its owner added to
// a namespace with articles (WithOrders, WithKarma... given where the
// namespace lacked them) in the background, one builder of the namespace
// at a time, under a lease in Redis that another builder takes over if
// this one stops renewing it. What it builds is its buildWorker's (the
// owner's runs, in reindex.go); the builder keeps the goroutine, the lease
// and the pauses, and reads how far the build has come.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// leaseTime is how long the builder's lease lasts unless renewed: it is
// renewed after each step of a run once a third of it has passed, so a
// builder that stops (a process that died) is taken over within it.
const leaseTime = 10 * time.Second

// retryPause bounds the builder's pause after a failed run, before it tries
// again; the pause doubles from a second.
const retryPause = 30 * time.Second

// A buildWorker is what a builder builds: left reports whether an index is
// left to build, and run makes a run that builds them, calling step after
// each of its steps (step ends the run, with its error, by cancelling the
// context it is given).
type buildWorker struct {
	left func(ctx context.Context) (bool, error)
	run  func(ctx context.Context, step func()) error
}

// A builder runs its owner's background builds: one goroutine at a time,
// started when the owner adds an index or a listing finds one not built,
// ending once nothing is left to build, another builder holds the lease,
// or close.
type builder struct {
	rc    *rconn.Client
	lease string // the lease's key
	token string
	work  buildWorker

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
	// runs counts the runs the builder has completed, for tests.
	runs int
	// err is the last run's error, nil once a run succeeds.
	err error
}

// newBuilder is a builder of work whose round trips rc makes, under the
// lease of the key lease.
func newBuilder(rc *rconn.Client, lease string, work buildWorker) (*builder, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("a token for the builder's lease: %w", err)
	}
	return &builder{rc: rc, lease: lease, token: hex.EncodeToString(b[:]), work: work, stop: make(chan struct{})}, nil
}

// ensure starts the builder's goroutine unless it runs, it is closed, or
// (unless now) it ended less than a second ago.
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

// closing reports whether close has been called.
func (b *builder) closing() bool {
	select {
	case <-b.stop:
		return true
	default:
		return false
	}
}

// run builds what its work says is left, as long as anything is and the lease
// is the builder's; it pauses after a failure. Its round trips are bounded
// by the owner's timeout, not cut short by close, which it heeds between
// them.
func (b *builder) run(done chan struct{}) {
	defer close(done)
	defer func() {
		b.mu.Lock()
		b.running, b.checked = false, time.Now()
		b.mu.Unlock()
	}()
	ctx := context.Background()
	pause := time.Second
	for !b.closing() {
		left, err := b.work.left(ctx)
		if err == nil && !left {
			return
		}
		if err == nil {
			var held bool
			if held, err = b.hold(ctx, "take"); err == nil && !held {
				return // another builder builds
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
		if b.closing() {
			break
		}
		if errors.Is(err, errs.ErrInvalid) || errors.Is(err, errs.ErrCorrupt) {
			// Not to be mended by trying again (an owner the namespace's
			// settings refuse, a key of the wrong type): the next listing
			// that finds the index unbuilt tries, once it is.
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
	// Closed, or failed for good: the lease goes, so that another builder
	// takes over at once.
	_, _ = b.hold(ctx, "release")
}

// build makes its work's run under the lease, renewing it as the run goes
// on: a run that loses it (the builder stalled past it, and another took
// it) stops, and so does one whose builder is closed, each between two
// steps.
func (b *builder) build(ctx context.Context) error {
	run, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewed := time.Now()
	err := b.work.run(run, func() {
		if b.closing() {
			cancel(errClosed)
			return
		}
		if time.Since(renewed) < leaseTime/3 {
			return
		}
		held, err := b.hold(run, "renew")
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
		_, err = b.hold(ctx, "release")
	}
	return err
}

// errClosed ends a background run whose builder was closed.
var errClosed = errors.New("the background build was closed")

// errLeaseLost ends a background run whose lease another builder took.
var errLeaseLost = errors.New("the lease of the background build went to another process's builder")

// hold runs op on the builder's lease and reports whether the builder
// holds it after (for "release", whether it gave it up).
func (b *builder) hold(ctx context.Context, op string) (bool, error) {
	l := script.Lease{Lease: b.lease, Token: b.token, Op: op, Millis: leaseTime.Milliseconds()}
	st, err := script.ReadStatus(b.rc.Run(ctx, l.Call().Eval()))
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

// state gives the builder's count of completed runs, whether it runs now,
// and its last run's error (nil if none).
func (b *builder) state() (runs int, running bool, err error) {
	if b == nil {
		return 0, false, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.runs, b.running, b.err
}

// readBuilding reads how far the build of the indexes st keeps has come,
// in one round trip on rc, with b's last error (b nil for none).
func readBuilding(ctx context.Context, rc *rconn.Client, k schema.Keys, st *state, b *builder) (Building, error) {
	cmds := []rconn.Command{
		{Name: "HGETALL", Args: []any{k.IndexedHash()}},
		{Name: "ZCARD", Args: []any{k.TimeIndex()}},
		{Name: "HGETALL", Args: []any{k.ReindexProgress()}},
		{Name: "EXISTS", Args: []any{k.Builder()}},
	}
	replies, err := rc.CheckedPipeline(ctx, cmds)
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
	got := Building{Background: lease > 0}
	for _, field := range st.built {
		if articles > 0 && marks[field] != schema.BuiltYes {
			got.Unbuilt = append(got.Unbuilt, field)
		}
	}
	if len(progress) > 0 {
		run := progressCounts(progress)
		got.Run = &run
	}
	if _, _, err := b.state(); err != nil {
		got.Err = err.Error()
	}
	return got, nil
}
