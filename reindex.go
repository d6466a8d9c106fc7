package voting

// This file holds Reindex, which builds the indexes of the orders a Store
// keeps for articles that were written without them, in bounded steps so
// that other clients of the same Redis are never held up for long.

import (
	"context"
	"fmt"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// defaultReindexBatch is how many articles one step of Reindex indexes: a
// step sets one entry per kept index for each, under 2 ms of Redis's time
// as a rule with every order kept at 10^6 articles (BENCHMARKS.md).
const defaultReindexBatch = 100

// ReindexProgress is how far Reindex has come.
type ReindexProgress struct {
	// Articles is the number of articles whose entries have been set in
	// every kept index.
	Articles int
	// Skipped is the number of members of the time index passed over: their
	// hash is gone, or its time or counters do not parse (see ErrCorrupt).
	Skipped int
	// Groups is the number of groups whose members' records of their
	// groups have been built.
	Groups int
	// Steps is the number of steps run so far, each one script or one
	// SCAN of the namespace's keys.
	Steps int
}

// Reindex builds the indexes of the Store's kept orders (WithOrders) for
// articles that were posted or voted on before the order was kept: by this
// library with other options, or by the book's own code; and the records of
// articles' groups (see ArticleGroups) from the groups' sets, for articles
// the book's code put in groups. It is ReindexWithProgress with no progress
// report.
func (s *Store) Reindex(ctx context.Context) error {
	_, err := s.ReindexWithProgress(ctx, nil)
	return err
}

// ReindexWithProgress is Reindex, calling progress (if not nil) after each
// step with the counts so far, and returning the final counts.
//
// It first builds the records of articles' groups: it finds the
// namespace's groups with SCAN (on a Redis Cluster, on the node that holds
// the namespace's slot; SCAN reads every key of that node, the namespace's
// and others', a few hundred a step) and walks each group's set with SSCAN.
// Then it walks the time index, oldest article first, a hundred articles a
// step, and sets each article's entry in each kept index from its counters;
// a top-of-window index takes only the articles posted within its window,
// and is first trimmed of those that have aged out. Each step is one atomic
// script of a few milliseconds at most, so other clients of the same Redis
// wait no longer than that. Reindex is safe to run while the site takes
// posts and votes (a step sets what the counters say at that moment; a vote
// after it moves the entry as usual), and to run again; a call ended by its
// context or an error can simply be run again. Its first step checks every
// index it writes, so that an index of the wrong type (ErrCorrupt, naming
// it) stops it before it writes anything; a record of the wrong type stops
// it when met. With no order kept beyond ByScore and ByTime, it builds the
// records alone.
func (s *Store) ReindexWithProgress(ctx context.Context, progress func(ReindexProgress)) (ReindexProgress, error) {
	var done ReindexProgress
	step := func() {
		done.Steps++
		if progress != nil {
			progress(done)
		}
	}
	keys := []string{s.keys.timeIndex(), s.keys.trimmedHash()}
	for _, x := range s.extra {
		keys = append(keys, x.key)
	}
	walk := func(from string, batch int) (articles, skipped int, next string, err error) {
		now := s.now()
		if err := checkClock(now); err != nil {
			return 0, 0, "", err
		}
		reply, err := s.script(ctx, reindexScript, keys, s.extraArgs([]any{from, batch}, now)...)
		if err != nil {
			return 0, 0, "", err
		}
		if word, err := redis.String(reply, nil); err == nil {
			word, detail, _ := strings.Cut(word, " ")
			return 0, 0, "", scriptError("reindex", word, detail)
		}
		values, err := redis.Values(reply, nil)
		if err == nil {
			_, err = redis.Scan(values, &articles, &skipped, &next)
		}
		if err != nil {
			return 0, 0, "", fmt.Errorf("unexpected reply %v: %w", reply, err)
		}
		return articles, skipped, next, nil
	}
	// A first step checks every index key the others write, so that a key
	// of the wrong type stops Reindex before it has written anything.
	if len(s.extra) > 0 {
		if _, _, _, err := walk("-inf", 0); err != nil {
			return done, fmt.Errorf("voting: reindex: %w", err)
		}
	}
	if err := s.reindexRecords(ctx, &done, step); err != nil {
		return done, fmt.Errorf("voting: reindex: %w", err)
	}
	if len(s.extra) == 0 {
		return done, nil
	}
	// Trim each window, so that its mark is where the window starts and
	// the walk adds only what belongs.
	for _, x := range s.extra {
		spec := &orders[x.order]
		if spec.window == 0 {
			continue
		}
		err := s.session(ctx, func(c redis.Conn) error {
			_, err := s.trimming(ctx, c, windowTrimScript,
				[]string{x.key, s.keys.timeIndex(), s.keys.trimmedHash()},
				func(cut string) []any { return []any{spec.name, cut, s.trimBatch} }, spec)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("voting: reindex: trim %s: %w", spec.name, err)
		}
		step()
	}
	for from := "-inf"; from != ""; {
		articles, skipped, next, err := walk(from, s.reindexBatch)
		if err != nil {
			return done, fmt.Errorf("voting: reindex: %w", err)
		}
		from = next
		done.Articles += articles
		done.Skipped += skipped
		step()
	}
	return done, nil
}

// scanCount is how many keys one SCAN of Reindex asks for, and how many
// members of a group one step of its records reads.
const scanCount = 500

// reindexRecords finds the namespace's groups with SCAN, on a Redis
// Cluster on the node that holds the namespace's slot, and builds from each
// group's set the records of its articles' groups, a few hundred members a
// step.
func (s *Store) reindexRecords(ctx context.Context, done *ReindexProgress, step func()) error {
	pattern := globEscape(s.keys.groupSet("")) + "*"
	for cursor := "0"; ; {
		var found []string
		err := s.session(ctx, func(c redis.Conn) error {
			reply, err := redis.Values(do(ctx, c, "SCAN", cursor, "MATCH", pattern, "COUNT", scanCount))
			if err == nil {
				_, err = redis.Scan(reply, &cursor, &found)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("scan for groups: %w", err)
		}
		step()
		for _, key := range found {
			name := strings.TrimPrefix(key, s.keys.groupSet(""))
			if checkGroup(name) != nil {
				continue // not a group this package names
			}
			if err := s.recordGroup(ctx, key, name, step); err != nil {
				return err
			}
			done.Groups++
		}
		if cursor == "0" {
			return nil
		}
	}
}

// recordGroup adds name to the record of each article in the group's set
// key, in steps.
func (s *Store) recordGroup(ctx context.Context, key, name string, step func()) error {
	for cursor := "0"; ; {
		reply, err := s.script(ctx, recordScript, []string{key},
			cursor, scanCount, name, s.keys.articlePrefix(), s.keys.recordPrefix())
		if err != nil {
			return fmt.Errorf("records of group %s: %w", name, err)
		}
		if word, err := redis.String(reply, nil); err == nil {
			word, detail, _ := strings.Cut(word, " ")
			return scriptError("reindex group "+name, word, detail)
		}
		values, err := redis.Values(reply, nil)
		if err == nil {
			_, err = redis.Scan(values, &cursor)
		}
		if err != nil {
			return fmt.Errorf("records of group %s: unexpected reply %v: %w", name, reply, err)
		}
		step()
		if cursor == "0" {
			return nil
		}
	}
}

// globEscape escapes the characters SCAN's MATCH gives a meaning to.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
