package voting

// This file holds Rescore, which changes the namespace's vote weight and
// cutoff and sets every article's score afresh, in bounded steps.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
	"github.com/articlevote/voting/internal/script"

	"github.com/gomodule/redigo/redis"
)

// Rescore changes the namespace's vote weight and cutoff (Settings) to
// weight and cutoff, with the rules of WithVoteWeight and WithCutoff (an
// error wrapping ErrInvalid, and nothing written, otherwise), and then sets
// every article's score to its posting time plus weight times its up-votes
// less its down-votes, in the site's score index and its groups' live
// ones, and gives the voter sets of every article and every comment the
// time to live that ends at its posting time plus cutoff, by the Store's
// clock: a set whose voting has closed by then is deleted, and the article
// or comment takes no more votes. Voting that has closed stays closed
// under a longer cutoff, since its voter sets are gone.
//
// From the change on, every Store's vote moves scores by the new weight (a
// vote made for the settings before is refused in Redis and made again),
// and a Store given WithVoteWeight or WithCutoff of the old values is
// refused on its next call: give its processes the new values, or none.
// The walk goes over the time index oldest first, then over the comments
// by id, a hundred a step, each step one atomic script of a few
// milliseconds, so that other clients wait no longer than that. Until it
// is done, listings by score rank the articles not yet walked by their old
// scores, and the book's cached group listings keep theirs until they
// expire.
//
// Its progress is kept in Redis (the hash progress:), so that a call ended
// by its context or an error leaves the settings changed and the walk
// where it stopped, and the next call with the same values, by any Store
// of the namespace, goes on from there: a deadline too short for the whole
// walk still gets it done over a few calls. A call once the walk of those
// values is done returns at once. A call with other values starts a walk
// of its own (the walk of the values before, done or not, is of no more
// use).
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
	k := s.keys
	run := schema.FormatFloat(weight) + " " + strconv.FormatInt(cutoff.Milliseconds(), 10)
	gen, have, err := s.changeSettings(ctx, func(set Settings) Settings {
		set.VoteWeight, set.Cutoff = weight, cutoff
		return set
	}, func(c rconn.Link, _, _ Settings) error {
		// A walk of other values, done or not, is of no use once the
		// values change: it starts anew, before they do, so that no call
		// goes on with it whatever stops this one.
		_, err := c.Do("HSET", k.Progress(), "rescore", run, "rescore-phase", "articles", "rescore-at", "-inf")
		return errs.WrongType(err, k.Progress(), "HSET")
	})
	if err != nil {
		return err
	}
	phase, at, err := s.rescoreProgress(ctx, run)
	if err != nil || phase == "done" {
		return err
	}
	articles := script.Rescore{ByTime: k.TimeIndex(), ByScore: k.ScoreIndex(), Settings: k.Settings(), Progress: k.Progress(),
		Gen: gen, Run: run, Batch: s.reindexBatch, ArticlePrefix: k.ArticlePrefix(), RecordPrefix: k.RecordPrefix(),
		VotedPrefix: k.VotedPrefix(), DownvotedPrefix: k.DownvotedPrefix(), Weight: schema.FormatFloat(weight),
		CutoffMillis: cutoff.Milliseconds()}
	comments := script.RescoreComments{Settings: k.Settings(), Counter: k.CommentCounter(), Progress: k.Progress(), Run: run,
		Batch: s.reindexBatch, CommentPrefix: k.CommentPrefix(), VotedPrefix: k.CommentVotedPrefix(),
		DownvotedPrefix: k.CommentDownvotedPrefix(), CutoffMillis: cutoff.Milliseconds()}
	for phase != "done" {
		now := s.now()
		if err := schema.CheckClock(now); err != nil {
			return err
		}
		var call script.Call
		if phase == "articles" {
			articles.Gen, articles.From, articles.NowMillis = gen, at, now.UnixMilli()
			articles.LiveScorePrefix = ""
			if have.LiveGroups {
				articles.LiveScorePrefix = k.LiveIndex("", int(ByScore))
			}
			call = articles.Call()
		} else {
			from, err := strconv.ParseInt(at, 10, 64)
			if err != nil {
				return errs.Corruptf("%s holds rescore-at %q, not a comment id", k.Progress(), at)
			}
			comments.Gen, comments.From, comments.NowMillis = gen, from, now.UnixMilli()
			call = comments.Call()
		}
		reply, err := s.rc.Run(ctx, call.Eval())
		if unsettled(reply, err) {
			// The settings changed as the walk went on: it goes on under
			// them if they keep these numbers.
			if gen, have, err = s.readSettings(ctx); err != nil {
				return err
			}
			if have.VoteWeight != weight || have.Cutoff != cutoff {
				return fmt.Errorf("the namespace's weight and cutoff changed to %v and %v as the articles were rescored",
					have.VoteWeight, have.Cutoff)
			}
			continue
		}
		if phase, at, err = rescoreStep(phase, reply, err); err != nil {
			return err
		}
	}
	return nil
}

// rescoreStep is where the walk goes on after a step of phase whose reply
// and error these are: the phase and the point in it.
func rescoreStep(phase string, reply any, err error) (string, string, error) {
	values, err := script.ReadList(reply, err)
	var next string
	if err == nil {
		_, err = redis.Scan(values, &next)
	}
	switch {
	case err != nil:
		return "", "", err
	case next != "":
		return phase, next, nil
	case phase == "articles":
		return "comments", "0", nil
	}
	return "done", "", nil
}

// rescoreProgress reads where the walk of run stands: its phase
// ("articles", "comments" or "done") and the point in it; the start of a
// walk if the progress is of another run, or none.
func (s *Store) rescoreProgress(ctx context.Context, run string) (phase, at string, err error) {
	k := s.keys
	var fields []string
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var err error
		fields, err = redis.Strings(c.Do("HMGET", k.Progress(), "rescore", "rescore-phase", "rescore-at"))
		return errs.WrongType(err, k.Progress(), "HMGET")
	})
	switch {
	case err != nil:
		return "", "", err
	case fields[0] != run:
		return "articles", "-inf", nil
	case fields[1] == "done" || fields[1] == "articles" && fields[2] != "" || fields[1] == "comments" && decimalDigits(fields[2]):
		return fields[1], fields[2], nil
	}
	return "", "", errs.Corruptf("%s holds rescore-phase %q and rescore-at %q", k.Progress(), fields[1], fields[2])
}
