//go:build !unix

package contextbuilder

import "time"

func processCPU() time.Duration { return 0 }
