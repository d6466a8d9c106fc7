package voting

// This file holds the windows of the top-of-window orders (TopDay to
// TopYear): an index that holds only the articles posted within its window,
// trimmed lazily, in bounded steps, before anything reads it. A mark in
// trimmed: says how far each window's index has been trimmed.

import (
	"context"

	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"
)

// defaultTrimBatch is how many aged-out articles one script takes out of a
// window's index at most: about a millisecond of Redis's time.
const defaultTrimBatch = 500

// windowCut is the posting time that leaves spec's window now, by the
// Store's clock: an article posted at or before it is out of the window.
// It is "" for an order with no window.
func (s *Store) windowCut(spec *schema.OrderSpec) (string, error) {
	if spec.Window == 0 {
		return "", nil
	}
	now := s.now()
	if err := schema.CheckClock(now); err != nil {
		return "", err
	}
	return spec.Cut(now), nil
}

// trimmed reads the status of a script that trims a window first: done is
// true for ok, and for notindexed (the trim is done, and the index not
// built: the caller that lists it says so); false for more, which asks the
// caller to run the script again, unless ctx has ended; an error for
// anything else.
func trimmed(ctx context.Context, reply any, err error) (done bool, _ error) {
	st, err := script.ReadStatus(reply, err)
	switch {
	case err != nil:
		return false, err
	case st.Word == script.ReplyOK, st.Word == script.ReplyNotIndexed:
		return true, nil
	case st.Word == script.ReplyMore:
		return false, ctx.Err()
	}
	return false, st.Err()
}

// trimCall is trim_window.lua's run for listing l at cut.
func (s *Store) trimCall(l listing, cut string) script.Call {
	t := script.TrimWindow{Window: l.index, ByTime: l.byTime, Trimmed: s.keys.TrimmedHash(), Indexed: s.keys.IndexedHash(),
		Articles: s.keys.TimeIndex(), Field: l.field, Cut: cut, Batch: s.trimBatch, Built: l.built}
	return t.Call()
}

// trimWindow trims a window listing to its window, in steps.
func (s *Store) trimWindow(c rconn.Link, l listing) error {
	for {
		cut, err := s.windowCut(l.spec)
		if err != nil {
			return err
		}
		reply, err := c.Run(s.trimCall(l, cut).Eval())
		if done, err := trimmed(c.Context(), reply, err); done || err != nil {
			return err
		}
	}
}
