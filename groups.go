package voting

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// Group names are 1 to MaxGroupLen letters, digits, '-', '_' and '.'.

// AddToGroups adds an article to groups in one atomic step. It returns an
// error wrapping ErrNotFound, and adds nothing, if there is no such article
// (none that Article finds).
// At least one group must be given.
func (s *Store) AddToGroups(ctx context.Context, articleID string, groups ...string) error {
	sets, err := s.groupKeys(articleID, groups)
	if err != nil {
		return err
	}
	k := s.keys
	member := k.articleHash(articleID)
	indexes := 0
	if s.live {
		indexes = len(s.kept)
	}
	now := s.now()
	if indexes > 0 {
		if err := checkClock(now); err != nil {
			return err
		}
	}
	keys := make([]string, 0, 5+indexes+len(groups)*(1+indexes))
	keys = append(keys, member, k.scoreIndex(), k.groupRecord(articleID), k.trimmedHash(), k.groupNames())
	args := make([]any, 0, 4+2*indexes+len(groups))
	args = append(args, member, len(groups), indexes, k.groupSet(""))
	for _, o := range s.kept[:indexes] {
		spec := &orders[o]
		keys = append(keys, k.index(o))
		cut := ""
		if spec.window > 0 {
			cut = spec.cut(now)
		}
		args = append(args, markField(spec, ""), cut)
	}
	keys = append(keys, sets...)
	keys = s.appendLiveIndexes(keys, groups)
	for _, g := range groups {
		args = append(args, g)
	}
	return s.articleScript(ctx, addGroupsScript, "add article "+articleID+" to groups", articleID, keys, args)
}

// articleScript runs a script that writes an article, and reads its reply:
// nil for ok, an error wrapping ErrNotFound for notfound, and the script's
// error otherwise. what names the operation in errors.
func (s *Store) articleScript(ctx context.Context, sc *script, what, articleID string, keys []string, args []any) error {
	reply, err := redis.String(s.script(ctx, sc, keys, args...))
	if err != nil {
		return fmt.Errorf("voting: %s: %w", what, err)
	}
	word, detail, _ := strings.Cut(reply, " ")
	switch word {
	case replyOK:
		return nil
	case replyNotFound:
		return fmt.Errorf("%w: article %s", ErrNotFound, articleID)
	}
	return scriptError(what, word, detail)
}

// RemoveFromGroups takes an article out of groups in one atomic step, and
// out of the groups' listings (live, or the book's cached ones) at once. The
// article need not exist any more, so that groups can be cleaned up; a group
// the article is not in is left as it is. At least one group must be given.
func (s *Store) RemoveFromGroups(ctx context.Context, articleID string, groups ...string) error {
	sets, err := s.groupKeys(articleID, groups)
	if err != nil {
		return err
	}
	keys := append([]string{s.keys.groupRecord(articleID)}, sets...)
	if s.live {
		keys = s.appendLiveIndexes(keys, groups)
	} else {
		// The article leaves the groups' cached listings at once too, so
		// that none lists it, or keeps it after a deletion, until it
		// expires.
		for _, g := range groups {
			for _, o := range s.kept {
				keys = append(keys, s.keys.groupCache(g, o))
			}
		}
	}
	reply, err := redis.String(s.script(ctx, removeGroupsScript, keys, names(s.keys.articleHash(articleID), groups)...))
	if err != nil {
		return fmt.Errorf("voting: remove article %s from groups: %w", articleID, err)
	}
	if word, detail, _ := strings.Cut(reply, " "); word != replyOK {
		return scriptError("remove article "+articleID+" from groups", word, detail)
	}
	return nil
}

// appendLiveIndexes appends, with live groups, each group's live index of
// each kept order, a group at a time.
func (s *Store) appendLiveIndexes(keys, groups []string) []string {
	if !s.live {
		return keys
	}
	for _, g := range groups {
		for _, o := range s.kept {
			keys = append(keys, s.keys.liveIndex(g, o))
		}
	}
	return keys
}

// names are a group script's arguments: the member, then the groups' names.
func names(member string, groups []string) []any {
	args := make([]any, 0, 1+len(groups))
	args = append(args, member)
	for _, g := range groups {
		args = append(args, g)
	}
	return args
}

// ArticleGroups returns the names of the groups an article is in, sorted,
// from the article's record of its groups, in one round trip. It returns an
// error wrapping ErrNotFound, as Article does, if there is no such article.
// An article written by the book's own code has no record (the book keeps
// only the groups' sets) until Reindex builds one, and gives none.
func (s *Store) ArticleGroups(ctx context.Context, articleID string) ([]string, error) {
	if err := checkID(articleID); err != nil {
		return nil, err
	}
	member := s.keys.articleHash(articleID)
	replies, err := s.pipeline(ctx, []command{
		{"HGET", []any{member, "time"}},
		{"ZSCORE", []any{s.keys.scoreIndex(), member}},
		{"SMEMBERS", []any{s.keys.groupRecord(articleID)}},
	})
	if err != nil {
		return nil, fmt.Errorf("voting: groups of article %s: %w", articleID, err)
	}
	if replies[0] == nil || replies[1] == nil {
		return nil, fmt.Errorf("%w: article %s", ErrNotFound, articleID)
	}
	groups, err := redis.Strings(replies[2], nil)
	if err != nil {
		if rerr, ok := err.(redis.Error); ok && strings.HasPrefix(string(rerr), "WRONGTYPE") {
			err = fmt.Errorf("%w: %s is of the wrong type for SMEMBERS", ErrCorrupt, s.keys.groupRecord(articleID))
		}
		return nil, fmt.Errorf("voting: groups of article %s: %w", articleID, err)
	}
	sort.Strings(groups)
	return groups, nil
}

// groupKeys checks an article id and group names and gives the groups' keys.
func (s *Store) groupKeys(articleID string, groups []string) ([]string, error) {
	if err := checkID(articleID); err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, invalid("no groups given")
	}
	if err := checkGroups(groups); err != nil {
		return nil, err
	}
	keys := make([]string, len(groups))
	for i, g := range groups {
		keys[i] = s.keys.groupSet(g)
	}
	return keys, nil
}

// GetGroupArticles returns a page of a group's articles in the given order,
// one the Store keeps, as GetArticles does.
//
// With live groups (WithLiveGroups) it reads the group's live index of the
// order, exact and never stale, in two round trips whatever the group's
// size, as a site page does.
//
// Without them, as in the book, the group's listing is the intersection of
// the group with the order's index, cached for the group cache TTL
// (WithGroupCacheTTL): articles posted, voted on or regrouped within that
// time may be listed in their old places, and a top-of-window listing may
// hold an article that has aged out of the window since the cache was
// built, though each article returned is read fresh. Building the cache and
// reading the page are one atomic step, so concurrent readers of a cold
// group build it once; it takes Redis time in proportion to the sizes of
// the group and the index, during which other clients wait (2.6 s for a
// group of a million articles, see the README). It takes two round trips to
// Redis whatever the page size.
func (s *Store) GetGroupArticles(ctx context.Context, group string, page int, order Order) ([]Article, error) {
	if err := checkGroup(group); err != nil {
		return nil, err
	}
	spec, start, stop, past, err := s.pageRange(page, order)
	if err != nil {
		return nil, err
	}
	if past {
		return []Article{}, nil
	}
	var articles []Article
	if s.live {
		articles, err = s.list(ctx, s.liveListing(group, order), start, stop)
	} else {
		articles, err = s.cachedGroupPage(ctx, group, order, spec, start, stop)
	}
	if err != nil {
		return nil, fmt.Errorf("voting: list group %s by %v: %w", group, order, err)
	}
	return articles, nil
}

// cachedGroupPage reads a page of the book's cached group listing,
// building it first if it is missing.
func (s *Store) cachedGroupPage(ctx context.Context, group string, order Order, spec *orderSpec, start, stop int64) ([]Article, error) {
	k := s.keys
	var articles []Article
	err := s.session(ctx, func(c redis.Conn) error {
		// The cache's scores may be as old as the cache; fetch reads
		// each article's score afresh.
		page, err := s.trimming(ctx, c, groupPageScript,
			[]string{k.groupCache(group, order), k.groupSet(group), k.index(order), k.timeIndex(), k.trimmedHash()},
			func(cut string) []any {
				return []any{s.groupTTL.Milliseconds(), start, stop, markField(spec, ""), cut, s.trimBatch}
			}, spec)
		if err != nil {
			return err
		}
		articles, _, err = s.fetch(ctx, c, page, false)
		return err
	})
	return articles, err
}
