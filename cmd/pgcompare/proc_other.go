//go:build !unix

package main

import (
	"errors"
	"os/exec"
	"os/user"
	"time"
)

// cpuTime is not measured here: the table says n/a.
func cpuTime() (time.Duration, bool) { return 0, false }

// ownGroup leaves cmd in pgcompare's process group.
func ownGroup(*exec.Cmd) {}

// runAs cannot switch users here: run pgcompare as a user PostgreSQL
// accepts, or give -postgres.
func runAs(*exec.Cmd, *user.User) error {
	return errors.New("cannot run PostgreSQL as another user on this system: give -postgres")
}
