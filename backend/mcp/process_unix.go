//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// terminateSignal asks a server to stop.
var terminateSignal os.Signal = syscall.SIGTERM

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		s = syscall.SIGKILL
	}
	return syscall.Kill(-pid, s)
}

// killGroup kills the process group led by pid.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
