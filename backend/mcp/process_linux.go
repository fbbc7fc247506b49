package mcp

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// platformCommand runs the server under the supervisor (this executable started again with
// supervisorEnv set, see supervisor_linux.go), as the leader of a new process group. The
// kernel sends the supervisor SIGTERM when this program dies (Pdeathsig); the supervisor
// then kills the group.
func platformCommand(spec procSpec) *exec.Cmd {
	if _, err := os.Stat(selfExe); err != nil {
		// No /proc: run the server directly; it still dies with us, its children may not.
		cmd := &exec.Cmd{Path: spec.path, Args: append([]string{spec.path}, spec.args...), Env: spec.env, Dir: spec.dir}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	cmd := &exec.Cmd{
		Path: selfExe,
		Args: append([]string{supervisorArg0, spec.path}, spec.args...),
		Env:  append(append([]string(nil), spec.env...), supervisorEnv+"="+strconv.Itoa(os.Getpid())),
		Dir:  spec.dir,
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}

// selfExe is this executable, even if its file was replaced since it started.
const selfExe = "/proc/self/exe"

// The parent-death signal fires when the thread that started the child ends, not the
// process. Go may end a thread (a goroutine locked to it that returns), so every server is
// started from one goroutine locked to its thread for the life of the program.
var spawner struct {
	once sync.Once
	reqs chan spawnRequest
}

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func platformStart(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the program
			for r := range spawner.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- spawnRequest{cmd, done}
	return <-done
}

// platformAwaitExit waits until pid has exited without reaping it.
func platformAwaitExit(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil
	}
}
