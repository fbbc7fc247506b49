//go:build !linux

package sandbox

import (
	"context"
	"fmt"
)

// Check reports that the command sandbox exists only on Linux.
func Check(string) error {
	return fmt.Errorf("%w: the command sandbox needs Linux (bubblewrap)", ErrUnavailable)
}

// Run runs nothing: the command sandbox exists only on Linux.
func Run(context.Context, Spec) (Outcome, error) { return Outcome{}, Check("") }
