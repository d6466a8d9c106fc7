//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package replay

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time, user and system, that this process has used
// so far, the Go runtime's own work (the garbage collector) included; ok is
// false where the system does not tell.
func ProcessCPU() (cpu time.Duration, ok bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
