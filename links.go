package voting

// This file holds unique links (WithUniqueLinks): ArticleByLink, which
// reads the index of links. When two links are the same is
// schema.LinkKey's rule, which the scripts' linkKey mirrors.

import (
	"context"
	"fmt"
	"strings"

	"github.com/articlevote/voting/internal/errs"
	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"

	"github.com/gomodule/redigo/redis"
)

// ArticleByLink returns the article that has the link url (WithUniqueLinks),
// or the one with the same link by schema.LinkKey's rule: another case of the
// scheme and host, or another fragment. Where Reindex found several
// articles with one link, it is the one that holds the link: the oldest,
// or once that has given the link up (deleted, or edited to another), the
// oldest of those left. It takes two round trips. It returns an error
// wrapping ErrNotFound if no article has it, one wrapping ErrInvalid if the
// link breaks a post's rules or the namespace does not keep links unique, and
// one wrapping ErrNotIndexed if articles were written without unique links
// and Reindex has not built the index of links since.
func (s *Store) ArticleByLink(ctx context.Context, url string) (a Article, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("article by link %q", url))
		}
	}()
	if err := checkLink(url); err != nil {
		return Article{}, err
	}
	if err := s.keepsKind(ctx, "links"); err != nil {
		return Article{}, err
	}
	l := listing{spec: &unordered, index: s.keys.Whole(schema.LinksPart), built: schema.MarkOf("links"), kind: "links"}
	var id string
	err = s.rc.Session(ctx, func(c rconn.Link) error {
		var err error
		id, err = redis.String(s.read(c, l, rconn.Command{Name: "HGET", Args: []any{l.index, schema.LinkKey(url)}}))
		if err == redis.ErrNil {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return Article{}, s.recheck(ctx, err, l)
	}
	// The holder's id; a field written before linkshares: held the ids of
	// all that share the link, the holder first.
	if first, _, _ := strings.Cut(id, " "); checkID(first) == nil {
		id = first
	} else {
		return Article{}, errs.Corruptf("%s holds %q for the link, not article ids", s.keys.Whole(schema.LinksPart), id)
	}
	return s.article(ctx, id)
}
