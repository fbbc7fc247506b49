//go:build windows

package mcp

import (
	"os"
	"os/exec"
)

// terminateSignal: Windows has no polite signal for a console-less child; stop kills.
var terminateSignal os.Signal = os.Kill

// platformCommand runs the server directly.
func platformCommand(spec procSpec) *exec.Cmd {
	return &exec.Cmd{Path: spec.path, Args: append([]string{spec.path}, spec.args...), Env: spec.env, Dir: spec.dir}
}

func platformStart(cmd *exec.Cmd) error { return cmd.Start() }

func platformAwaitExit(int) bool { return false }

func signalGroup(pid int, _ os.Signal) error { return killGroup(pid) }

// killGroup kills the process (Windows has no process groups of this kind).
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
