//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package replay

import "time"

// ProcessCPU is the CPU time this process has used so far; ok is false
// where the system does not tell, as here.
func ProcessCPU() (cpu time.Duration, ok bool) { return 0, false }
