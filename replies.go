package voting

// This file holds how a script's reply is read: the status words the
// scripts answer with (lua/prelude.lua says why words and not errors),
// split into word and detail here and nowhere else, and the errors the
// words every caller shares stand for.

import (
	"fmt"
	"strings"

	"github.com/articlevote/voting/internal/errs"

	"github.com/gomodule/redigo/redis"
)

// Status words the scripts answer with.
const (
	replyOK         = "ok"        // detail: the new id (post), the voters left to clear (delete)
	replyUnchanged  = "unchanged" // the vote is the one the user has
	replyNotFound   = "notfound"
	replyClosed     = "closed"
	replyTaken      = "taken"      // detail: the key of the new id that exists
	replyFull       = "full"       // the counter is at the largest id
	replyCorrupt    = "corrupt"    // detail: what is wrong, naming the key
	replyMore       = "more"       // a trim has more to take out
	replyTooMany    = "toomany"    // detail: how many groups the article would be in
	replyNotIndexed = "notindexed" // the index a listing reads is not built
	replySuperseded = "superseded" // another run of Reindex took the place of this one
	replyDuplicate  = "duplicate"  // detail: the id of the article that has the link
)

// A status is a script's status reply: a word and, for some words, a
// detail after a space.
type status struct {
	word, detail string
}

// readStatus reads a script's status reply; err is the round trip's.
func readStatus(reply any, err error) (status, error) {
	text, err := redis.String(reply, err)
	if err != nil {
		return status{}, err
	}
	word, detail, _ := strings.Cut(text, " ")
	return status{word, detail}, nil
}

// err is the error of a status that its caller does not handle itself:
// ErrNotFound (the operation names the article), ErrCorrupt with the
// script's detail, or an unexpected reply.
func (st status) err() error {
	switch st.word {
	case replyNotFound:
		return ErrNotFound
	case replyCorrupt:
		return errs.Corruptf("%s", st.detail)
	case replyDuplicate:
		return errs.Of(errs.Duplicate, fmt.Sprintf("article %s has the link already", st.detail))
	}
	return fmt.Errorf("unexpected reply %q", strings.TrimSpace(st.word+" "+st.detail))
}

// readList reads the reply of a script that answers a list when it
// succeeds and a status when it does not.
func readList(reply any, err error) ([]any, error) {
	if err != nil {
		return nil, err
	}
	if list, ok := reply.([]any); ok {
		return list, nil
	}
	st, err := readStatus(reply, nil)
	if err != nil {
		return nil, fmt.Errorf("unexpected reply %v: %w", reply, err)
	}
	return nil, st.err()
}
