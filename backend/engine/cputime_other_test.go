//go:build !unix

package engine

import "time"

func processCPU() time.Duration { return 0 }
