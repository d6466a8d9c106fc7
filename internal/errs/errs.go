// Package errs holds the errors of the voting package: the sentinels every
// method's error wraps, for errors.Is, and how an error of one of them is
// made, so that every layer words its errors the same way. The voting
// package exports the sentinels under its own names (ErrNotFound, ...).
package errs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// The sentinels; the voting package documents each.
var (
	ErrNotFound     = errors.New("voting: article not found")
	ErrVotingClosed = errors.New("voting: voting closed")
	ErrInvalid      = errors.New("voting: invalid input")
	ErrCorrupt      = errors.New("voting: corrupt data")
	ErrNotIndexed   = errors.New("voting: index not built")
	ErrDuplicate    = errors.New("voting: duplicate link")
	ErrNotSent      = errors.New("voting: not sent to Redis")
)

// Prefix starts the text of every error of the package, once.
const Prefix = "voting: "

// A kindError is one of the sentinels with what it is about: its text is
// the sentinel's and the detail, "voting: invalid input: title is empty".
type kindError struct {
	kind   error
	detail string
}

func (e *kindError) Error() string { return e.kind.Error() + ": " + e.detail }
func (e *kindError) Unwrap() error { return e.kind }

// Of is the sentinel kind with a detail.
func Of(kind error, detail string) error { return &kindError{kind, detail} }

// Invalidf is ErrInvalid with a detail.
func Invalidf(format string, args ...any) error {
	return &kindError{ErrInvalid, fmt.Sprintf(format, args...)}
}

// Corruptf is ErrCorrupt with a detail, which names the key or field.
func Corruptf(format string, args ...any) error {
	return &kindError{ErrCorrupt, fmt.Sprintf(format, args...)}
}

// WrongType words Redis's WRONGTYPE error for cmd on key as ErrCorrupt,
// naming the key; other errors pass as they are.
func WrongType(err error, key, cmd string) error {
	if IsWrongType(err) {
		return Corruptf("%s is of the wrong type for %s", key, cmd)
	}
	return err
}

// IsWrongType reports whether err is Redis's word that a key holds another
// type than the command takes.
func IsWrongType(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && strings.HasPrefix(string(rerr), "WRONGTYPE")
}

// A namedError is a sentinel in other words: errors.Is finds the
// sentinel, and its text is its own.
type namedError struct {
	kind error
	text string
}

func (e *namedError) Error() string { return e.text }
func (e *namedError) Unwrap() error { return e.kind }

// NotFound is ErrNotFound for a thing other than an article: "voting:
// comment not found".
func NotFound(what string) error { return &namedError{ErrNotFound, Prefix + what + " not found"} }

// A notSentError is a failure of a round trip that wrote nothing to Redis:
// errors.Is finds both ErrNotSent and the failure (a context's error,
// os.ErrDeadlineExceeded, a dial's).
type notSentError struct{ err error }

// Error is the failure's text, then that it was not sent: "voting:
// context deadline exceeded (not sent to Redis)".
func (e *notSentError) Error() string {
	return Prefix + strings.TrimPrefix(e.err.Error(), Prefix) + " (" + strings.TrimPrefix(ErrNotSent.Error(), Prefix) + ")"
}
func (e *notSentError) Unwrap() []error { return []error{ErrNotSent, e.err} }

// NotSent marks err, if not nil, as the failure of a round trip that wrote
// nothing to Redis (ErrNotSent).
func NotSent(err error) error {
	if err == nil || errors.Is(err, ErrNotSent) {
		return err
	}
	return &notSentError{err}
}
