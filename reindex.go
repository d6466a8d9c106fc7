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
// library with other options, or by the book's own code; the records of
// articles' groups (see ArticleGroups) from the groups' sets, for articles
// the book's code put in groups; and, with live groups (WithLiveGroups),
// each group's live indexes. So a site written by the book's code switches
// to live groups with one call. It is ReindexWithProgress with no progress
// report.
func (s *Store) Reindex(ctx context.Context) error {
	_, err := s.ReindexWithProgress(ctx, nil)
	return err
}

// ReindexWithProgress is Reindex, calling progress (if not nil) after each
// step with the counts so far, and returning the final counts.
//
// With orders kept beyond ByScore and ByTime, it first walks the time
// index, oldest article first, a hundred articles a step, and sets each
// article's entry in each kept index from its counters; a top-of-window
// index takes only the articles posted within its window, and is first
// trimmed of those that have aged out. Then it finds the namespace's groups
// with SCAN (on a Redis Cluster, on the node that holds the namespace's
// slot; SCAN reads every key of that node, the namespace's and others', a
// few hundred a step) and walks each group's set with SSCAN, a few hundred
// members a step, adding the group to each article's record and, with live
// groups, setting the article's entry in each of the group's live indexes
// to its entry in the site's index of that order.
//
// Each step is one atomic script of a few milliseconds at most, so other
// clients of the same Redis wait no longer than that. Reindex is safe to
// run while the site takes posts and votes (a step sets what the indexes
// say at that moment; a vote after it moves the entry as usual), and to run
// again; a call ended by its context or an error can simply be run again.
// Its first step checks every site index it writes, so that an index of the
// wrong type (ErrCorrupt, naming it) stops it before it writes anything; a
// record or a live index of the wrong type stops it when met.
//
// It adds, and never removes: an article the book's code took out of a
// group keeps its place in the record and the group's live indexes until
// RemoveFromGroups takes it out.
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
	if len(s.extra) > 0 {
		if err := s.reindexOrders(ctx, walk, &done, step); err != nil {
			return done, fmt.Errorf("voting: reindex: %w", err)
		}
	}
	if err := s.reindexGroups(ctx, &done, step); err != nil {
		return done, fmt.Errorf("voting: reindex: %w", err)
	}
	return done, nil
}

// reindexOrders builds the site's indexes of the kept orders beyond the
// book's two: a first step checks every index key the others write, so that
// a key of the wrong type stops Reindex before it has written anything; then
// each window is trimmed, so that its mark is where the window starts and
// the walk adds only what belongs; then the walk of the time index.
func (s *Store) reindexOrders(ctx context.Context, walk func(from string, batch int) (int, int, string, error),
	done *ReindexProgress, step func()) error {
	if _, _, _, err := walk("-inf", 0); err != nil {
		return err
	}
	for _, x := range s.extra {
		spec := &orders[x.order]
		if spec.window == 0 {
			continue
		}
		err := s.session(ctx, func(c redis.Conn) error { return s.trimWindow(ctx, c, s.siteListing(x.order)) })
		if err != nil {
			return fmt.Errorf("trim %s: %w", spec.name, err)
		}
		step()
	}
	for from := "-inf"; from != ""; {
		articles, skipped, next, err := walk(from, s.reindexBatch)
		if err != nil {
			return err
		}
		from = next
		done.Articles += articles
		done.Skipped += skipped
		step()
	}
	return nil
}

// scanCount is how many keys one SCAN of Reindex asks for, and how many
// members of a group one step of its records reads without live groups.
const scanCount = 500

// liveEntriesPerStep is about how many entries in a group's live indexes
// one step of Reindex sets: about 2 ms of Redis's time at 10^6 articles
// (BENCHMARKS.md), so that with every order kept a step reads 31 of the
// group's members, and with the book's two 125.
const liveEntriesPerStep = 250

// groupBatch is how many members of a group one step of Reindex reads.
func (s *Store) groupBatch() int {
	if !s.live {
		return scanCount
	}
	return max(25, liveEntriesPerStep/len(s.kept))
}

// reindexGroups finds the namespace's groups with SCAN, on a Redis Cluster
// on the node that holds the namespace's slot, and builds from each group's
// set the records of its articles' groups and, with live groups, the
// group's live indexes, a few hundred members a step.
func (s *Store) reindexGroups(ctx context.Context, done *ReindexProgress, step func()) error {
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
			if err := s.recordGroup(ctx, key, name, done, step); err != nil {
				return err
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}

// recordGroup walks the group's set key, in steps: it adds name to the
// record of each of its articles and, with live groups, sets the article's
// entries in the group's live indexes. The group counts as done with its
// last step.
func (s *Store) recordGroup(ctx context.Context, key, name string, done *ReindexProgress, step func()) error {
	keys := []string{key, s.keys.trimmedHash(), s.keys.groupNames()}
	args := []any{"0", s.groupBatch(), name, s.keys.articlePrefix(), s.keys.recordPrefix(), 0}
	if s.live {
		now := s.now()
		if err := checkClock(now); err != nil {
			return err
		}
		args[5] = len(s.kept)
		for _, o := range s.kept {
			keys = append(keys, s.keys.index(o))
			args = append(args, markField(&orders[o], name), "")
			if spec := &orders[o]; spec.window > 0 {
				args[len(args)-1] = spec.cut(now)
			}
		}
		keys = s.appendLiveIndexes(keys, []string{name})
	}
	for cursor := "0"; ; {
		args[0] = cursor
		reply, err := s.script(ctx, recordScript, keys, args...)
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
		if cursor == "0" {
			done.Groups++
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
