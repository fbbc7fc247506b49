//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user+system CPU time of the process so far.
// Benchmarks report it per op because wall time is unreliable on a shared,
// loaded machine.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
