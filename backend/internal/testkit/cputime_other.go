//go:build !unix

package testkit

import "time"

// ProcessCPU returns 0 where the process's CPU time is not known.
func ProcessCPU() time.Duration { return 0 }
