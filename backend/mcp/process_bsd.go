//go:build unix && !linux

package mcp

import (
	"os/exec"
	"syscall"
)

// platformCommand runs the server directly, as the leader of a new process group.
func platformCommand(spec procSpec) *exec.Cmd {
	cmd := &exec.Cmd{Path: spec.path, Args: append([]string{spec.path}, spec.args...), Env: spec.env, Dir: spec.dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func platformStart(cmd *exec.Cmd) error { return cmd.Start() }

// platformAwaitExit cannot wait without reaping here: the caller reaps first.
func platformAwaitExit(int) bool { return false }
