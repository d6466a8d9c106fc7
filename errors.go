package voting

// This file holds the errors: the sentinels every method's error wraps, for
// errors.Is, and how an error is made and wrapped, so that each error a
// caller sees reads "voting: <operation>: <what went wrong>", with the
// package's name once.

import (
	"strconv"
	"strings"

	"github.com/articlevote/voting/internal/errs"
)

// Errors a caller can test for with errors.Is.
var (
	// ErrNotFound is returned for a well-formed article id that has no article.
	ErrNotFound = errs.ErrNotFound
	// ErrVotingClosed is returned for a vote on an article past its cutoff.
	ErrVotingClosed = errs.ErrVotingClosed
	// ErrInvalid is returned for bad input and bad option values. Nothing is
	// written when it is returned.
	ErrInvalid = errs.ErrInvalid
	// ErrCorrupt is returned when stored data is not as this library or the
	// book's code writes it: a field that does not parse, such as a time of
	// "abc", or a key of the wrong type where an operation reads or writes.
	// The error names the key or field. Nothing is written when it is
	// returned; listings skip such articles instead.
	ErrCorrupt = errs.ErrCorrupt
	// ErrNotIndexed is returned by a listing or a count of an index that
	// the namespace holds articles without: one of an order it keeps
	// (WithOrders), karma (WithKarma) or the index of links
	// (WithUniqueLinks), added to the namespace's settings after those
	// articles were posted, or lacking articles another writer (the
	// book's code, a script, an older release) posted, which a listing
	// notices by the namespace's count of the articles the library has
	// indexed (see Settings). The Store that added it builds it in the
	// background (WithAutoReindex), or Reindex does; from then on, as for an
	// index kept since the namespace's first article, listings never
	// return it until another writer posts again. A group's live listing
	// falls back to the book's listing instead.
	ErrNotIndexed = errs.ErrNotIndexed
	// ErrDuplicate is returned, with WithUniqueLinks, for a post or an
	// edit whose link another article has already; the error names that
	// article's id. Nothing is written when it is returned.
	ErrDuplicate = errs.ErrDuplicate
	// ErrNotSent is wrapped by the error of a call whose write the Store
	// knows it never sent to Redis, beside the error that stopped it
	// (context.Canceled, context.DeadlineExceeded, os.ErrDeadlineExceeded,
	// a dial's), so that errors.Is finds both. Such a write never lands:
	// a caller may retry it, or tell its user it failed, and no later
	// write can be overtaken by it. That is so when:
	//
	//   - the call's context had ended, or its deadline passed, before its
	//     round trip began: before a connection was taken, or before a
	//     byte was written on it;
	//   - no connection came from the pool in time (WithTimeout), or the
	//     dial of one failed;
	//   - on a connection shared by auto-pipelining (WithAutoPipelining),
	//     the call's context ended, or its wait ran out the timeout, while
	//     its command waited behind others, before the connection's writer
	//     took it: the writer then skips it.
	//
	// Every other failure of a write may have landed, and its error does
	// not wrap ErrNotSent: a deadline, a timeout or a broken connection
	// once a byte of the command may have been written, or while the
	// reply was awaited; a command a shared connection has written,
	// whatever became of its caller. Such a write may show later, or may
	// have shown already; reading the state (UserVotes, Article) tells.
	//
	// ErrNotSent speaks for the round trip that failed. A method of one
	// write (PostArticle, Vote, VoteComment, EditArticle and the others
	// that are one atomic script) then wrote nothing. A method that writes
	// in steps (Reindex, Rescore, StopKeeping, DeleteArticle as it clears
	// voters' histories and comments) may have written its earlier steps;
	// calling it again goes on from where it stopped.
	ErrNotSent = errs.ErrNotSent
)

// An opError is the error of one public method: "voting: vote on article
// 7: " and the error that stopped it, with that error's own "voting: " left
// out.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string {
	return errs.Prefix + e.op + ": " + strings.TrimPrefix(e.err.Error(), errs.Prefix)
}

func (e *opError) Unwrap() error { return e.err }

// within wraps err, if not nil, with what it happened within ("group
// news"): its text is what, then err's without the package's name, which
// the operation's error (failed) gives once.
func within(what string, err error) error {
	if err == nil {
		return nil
	}
	return &contextError{what: what, err: err}
}

// A contextError is an error and what it happened within (within).
type contextError struct {
	what string
	err  error
}

func (e *contextError) Error() string {
	return e.what + ": " + strings.TrimPrefix(e.err.Error(), errs.Prefix)
}

func (e *contextError) Unwrap() error { return e.err }

// idText is an article id as an operation's name gives it: as it is when
// it is well formed, quoted when not, so that an empty or odd id shows.
func idText(id string) string {
	if idOK(id) {
		return id
	}
	return strconv.Quote(id)
}

// failed wraps err, if not nil, as the error of the operation op; every
// public method's error goes through it once.
func failed(err error, op string) error {
	if err == nil {
		return nil
	}
	return &opError{op: op, err: err}
}
