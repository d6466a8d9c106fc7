package voting

// This file holds the errors every method's error wraps, for errors.Is: the
// part of the package's contract that every file shares.

import "errors"

// Errors a caller can test for with errors.Is.
var (
	// ErrNotFound is returned for a well-formed article id that has no article.
	ErrNotFound = errors.New("voting: article not found")
	// ErrVotingClosed is returned for a vote on an article past its cutoff.
	ErrVotingClosed = errors.New("voting: voting closed")
	// ErrInvalid is returned for bad input and bad option values. Nothing is
	// written when it is returned.
	ErrInvalid = errors.New("voting: invalid input")
	// ErrCorrupt is returned when stored data is not as this library or the
	// book's code writes it: a field that does not parse, such as a time of
	// "abc", or a key of the wrong type where an operation reads or writes.
	// The error names the key or field. Nothing is written when it is
	// returned; listings skip such articles instead.
	ErrCorrupt = errors.New("voting: corrupt data")
)
