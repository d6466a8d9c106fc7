package script

// This file holds how a script's reply is read: the status words the
// scripts answer with (the package doc says why words and not errors),
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
	ReplyOK         = "ok"        // detail: the new id (post), the voters left to clear (delete)
	ReplyUnchanged  = "unchanged" // the vote is the one the user has
	ReplyNotFound   = "notfound"
	ReplyClosed     = "closed"
	ReplyTaken      = "taken"      // detail: the key of the new id that exists
	ReplyFull       = "full"       // the counter is at the largest id
	ReplyCorrupt    = "corrupt"    // detail: what is wrong, naming the key
	ReplyMore       = "more"       // a trim has more to take out
	ReplyTooMany    = "toomany"    // detail: how many groups the article would be in
	ReplyNotIndexed = "notindexed" // the index a listing reads is not built
	ReplySuperseded = "superseded" // another run of Reindex took the place of this one
	ReplyDuplicate  = "duplicate"  // detail: the id of the article that has the link
	ReplySettings   = "settings"   // the namespace's settings are of another generation than the write's
	ReplyChanged    = "changed"    // the namespace's settings changed since they were read
)

// Wrote is the detail of a status of a script whose header says "WRITES:
// reply" (header.go) when the run wrote: "ok wrote", "more wrote".
const Wrote = "wrote"

// A Status is a script's status reply: a word and, for some words, a
// detail after a space.
type Status struct {
	Word, Detail string
}

// ReadStatus reads a script's status reply; err is the round trip's.
func ReadStatus(reply any, err error) (Status, error) {
	text, err := redis.String(reply, err)
	if err != nil {
		return Status{}, err
	}
	word, detail, _ := strings.Cut(text, " ")
	return Status{word, detail}, nil
}

// Err is the error of a status that its caller does not handle itself:
// errs.ErrNotFound (the operation names the article), errs.ErrCorrupt with the
// script's detail, or an unexpected reply.
func (st Status) Err() error {
	switch st.Word {
	case ReplyNotFound:
		return errs.ErrNotFound
	case ReplyCorrupt:
		return errs.Corruptf("%s", st.Detail)
	case ReplyDuplicate:
		return errs.Of(errs.ErrDuplicate, fmt.Sprintf("article %s has the link already", st.Detail))
	}
	return fmt.Errorf("unexpected reply %q", strings.TrimSpace(st.Word+" "+st.Detail))
}

// ReadList reads the reply of a script that answers a list when it
// succeeds and a status when it does not.
func ReadList(reply any, err error) ([]any, error) {
	if err != nil {
		return nil, err
	}
	if list, ok := reply.([]any); ok {
		return list, nil
	}
	st, err := ReadStatus(reply, nil)
	if err != nil {
		return nil, fmt.Errorf("unexpected reply %v: %w", reply, err)
	}
	return nil, st.Err()
}
