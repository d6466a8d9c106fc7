package voting

// This file holds Rescore, which changes the namespace's vote weight and
// cutoff and sets every article's score afresh, in bounded steps.

import (
	"context"
	"fmt"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// Rescore changes the namespace's vote weight and cutoff (Settings) to
// weight and cutoff, with the rules of WithVoteWeight and WithCutoff (an
// error wrapping ErrInvalid, and nothing written, otherwise), and then sets
// every article's score to its posting time plus weight times its up-votes
// less its down-votes, in the site's score index and its groups' live
// ones, and gives its voter sets the time to live that ends at its posting
// time plus cutoff, by the Store's clock: a set whose voting has closed by
// then is deleted, and the article takes no more votes. Voting that has closed stays closed
// under a longer cutoff, since its voter sets are gone.
//
// From the change on, every Store's vote moves scores by the new weight (a
// vote made for the settings before is refused in Redis and made again),
// and a Store given WithVoteWeight or WithCutoff of the old values is
// refused on its next call: give its processes the new values, or none.
// The walk goes over the time index oldest first, a hundred articles a
// step, each step one atomic script of a few milliseconds, so that other
// clients wait no longer than that. Until it is done, listings by score
// rank the articles not yet walked by their old scores, and the book's
// cached group listings keep theirs until they expire. A call ended by its
// context leaves the settings changed and some scores as they were: call
// it again with the same values to finish (a step sets a score from the
// counters, so walking an article twice changes nothing).
func (s *Store) Rescore(ctx context.Context, weight float64, cutoff time.Duration) (err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("rescore to weight %v, cutoff %v", weight, cutoff))
		}
	}()
	if !(weight > 0) || weight > MaxVoteWeight {
		return errs.Invalidf("vote weight %v is outside (0, %g]", weight, float64(MaxVoteWeight))
	}
	if cutoff < time.Second {
		return errs.Invalidf("cutoff %v is shorter than a second", cutoff)
	}
	cutoff = cutoff.Truncate(time.Millisecond)
	gen, have, err := s.changeSettings(ctx, func(set Settings) Settings {
		set.VoteWeight, set.Cutoff = weight, cutoff
		return set
	})
	if err != nil {
		return err
	}
	k := s.keys
	step := script.Rescore{ByTime: k.TimeIndex(), ByScore: k.ScoreIndex(), Settings: k.Settings(), Gen: gen, From: "-inf",
		Batch: s.reindexBatch, ArticlePrefix: k.ArticlePrefix(), RecordPrefix: k.RecordPrefix(), VotedPrefix: k.VotedPrefix(),
		DownvotedPrefix: k.DownvotedPrefix(), Weight: schema.FormatFloat(weight), CutoffMillis: cutoff.Milliseconds()}
	for {
		if have.LiveGroups {
			step.LiveScorePrefix = k.LiveIndex("", int(ByScore))
		} else {
			step.LiveScorePrefix = ""
		}
		now := s.now()
		if err := schema.CheckClock(now); err != nil {
			return err
		}
		step.NowMillis = now.UnixMilli()
		reply, err := s.rc.Run(ctx, step.Call().Eval())
		if unsettled(reply, err) {
			// The settings changed as the walk went on: it goes on under
			// them if they keep these numbers.
			if step.Gen, have, err = s.readSettings(ctx); err != nil {
				return err
			}
			if have.VoteWeight != weight || have.Cutoff != cutoff {
				return fmt.Errorf("the namespace's weight and cutoff changed to %v and %v as the articles were rescored",
					have.VoteWeight, have.Cutoff)
			}
			continue
		}
		values, err := script.ReadList(reply, err)
		if err != nil {
			if st, serr := script.ReadStatus(reply, nil); serr == nil {
				return st.Err()
			}
			return err
		}
		var next string
		var n int
		if _, err := redis.Scan(values, &next, &n); err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		step.From = next
	}
}
