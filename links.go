package voting

// This file holds unique links (WithUniqueLinks): when two links are the
// same (linkKey, which lua/prelude.lua's linkKey mirrors for the scripts),
// and ArticleByLink, which reads the index of links.

import (
	"context"
	"fmt"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// linkKey is a link's field in the index of links: the link without its
// fragment (from the first '#'), and with the ASCII letters of its scheme
// and of its host (the authority after any user info) in lower case, so
// that links that differ only there are the same link. Its path, query and
// user info are kept as they are: servers may tell their case apart.
func linkKey(link string) string {
	link, _, _ = strings.Cut(link, "#")
	scheme, rest, ok := strings.Cut(link, "://")
	if !ok || !schemeOK(scheme) {
		return link
	}
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	at := strings.LastIndexByte(authority, '@') + 1
	return asciiLower(scheme) + "://" + authority[:at] + asciiLower(authority[at:]) + tail
}

// schemeOK reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '.' and '-'.
func schemeOK(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return s != ""
}

// asciiLower is s with its ASCII letters in lower case, and every other
// byte as it is, as Lua's string.lower gives it in Redis.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ArticleByLink returns the article that has the link url (WithUniqueLinks),
// or the one with the same link by linkKey's rule: another case of the
// scheme and host, or another fragment. Where Reindex found several
// articles with one link, it is the one that holds the link: the oldest,
// or once that has given the link up (deleted, or edited to another), the
// oldest of those left. It takes two round trips. It returns an error
// wrapping ErrNotFound if no article has it, one wrapping ErrInvalid if the
// link breaks a post's rules or the Store does not keep links unique, and
// one wrapping ErrNotIndexed if articles were written without unique links
// and Reindex has not built the index of links since.
func (s *Store) ArticleByLink(ctx context.Context, url string) (a Article, err error) {
	defer func() {
		if err != nil {
			err = failed(err, fmt.Sprintf("article by link %q", url))
		}
	}()
	if !s.unique {
		return Article{}, invalid("the Store keeps no index of links: give New WithUniqueLinks()")
	}
	if err := checkLink(url); err != nil {
		return Article{}, err
	}
	l := listing{spec: &unordered, index: s.keys.linkIndex(), built: linksField}
	var id string
	err = s.session(ctx, func(c link) error {
		var err error
		id, err = redis.String(s.read(c, l, command{"HGET", []any{l.index, linkKey(url)}}))
		if err == redis.ErrNil {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return Article{}, err
	}
	// The holder's id; a field written before linkshares: held the ids of
	// all that share the link, the holder first.
	if first, _, _ := strings.Cut(id, " "); checkID(first) == nil {
		id = first
	} else {
		return Article{}, corrupt("%s holds %q for the link, not article ids", s.keys.linkIndex(), id)
	}
	return s.article(ctx, id)
}
