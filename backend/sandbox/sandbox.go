// Package sandbox runs one command line in an operating-system sandbox: on Linux, bubblewrap
// (bwrap). The project folder is bound writable; the rest of the filesystem is read-only;
// the folders and files named in Spec.Hide (the runtime home, ~/.ssh, ~/.config…) are
// replaced by empty ones; /tmp is private; /proc and /dev are new; every namespace is new
// (no network unless Spec.Network); the processes die with the caller.
//
// Run kills the whole sandbox when its context ends (Stop, a timeout), bounds how many
// processes it may have (a pids cgroup where one can be made, and RLIMIT_NPROC inside the
// sandbox's user namespace), and streams stdout and stderr interleaved to one writer.
package sandbox

import (
	"errors"
	"io"
	"time"
)

// DefaultMaxProcs bounds the processes of one command when Spec.MaxProcs is 0.
const DefaultMaxProcs = 512

// ErrUnavailable is wrapped by Run and Check when bubblewrap cannot start here.
var ErrUnavailable = errors.New("the command sandbox (bubblewrap) cannot start")

// Spec is one command to run.
type Spec struct {
	// Command is the command line, run by bash -c (sh -c where bash is missing).
	Command string
	// Project is the folder bound read-write (an absolute host path).
	Project string
	// Dir is the working folder, Project or a folder inside it.
	Dir string
	// Hide lists host paths made invisible: a folder becomes an empty one, a file an empty
	// file. Paths that do not exist are skipped.
	Hide []string
	// ReadOnly lists host folders bound read-only after the hidden ones (so a skill's folder
	// inside the hidden runtime home stays readable).
	ReadOnly []string
	// Network keeps the host's network; otherwise the command has only its own loopback.
	Network bool
	// MaxProcs bounds the processes the command may have at once (0: DefaultMaxProcs).
	MaxProcs int
	// Env is the whole environment of the command ("KEY=value").
	Env []string
	// Output receives stdout and stderr, interleaved, as they come.
	Output io.Writer
	// Unsandboxed runs the command directly, without bubblewrap (the user's choice where
	// bubblewrap cannot start): the process group, the process limit and the timeout still
	// apply, nothing else does.
	Unsandboxed bool
	// Bwrap is the bubblewrap program (default: "bwrap" on PATH).
	Bwrap string
}

// Outcome is how a command ended.
type Outcome struct {
	// ExitCode is the command's exit status; -1 when it was killed by a signal.
	ExitCode int
	// Signal names the signal that killed it ("" when it exited).
	Signal string
	// ProcessLimitReached is true when the command tried to have more processes than the
	// limit allows (known where a pids cgroup could be made, or from the shell's own
	// "Resource temporarily unavailable" message otherwise).
	ProcessLimitReached bool
	// Sandboxed is false when the command ran without bubblewrap.
	Sandboxed bool
	// Duration is how long it ran.
	Duration time.Duration
}
