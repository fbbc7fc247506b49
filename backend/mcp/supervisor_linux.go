package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The supervisor. Every program that links this package can act as the supervisor of one
// local server: started with supervisorEnv=<pid of its parent>, it runs the command in its
// arguments (stdin, stdout and stderr passed straight through, same process group), exits
// with the server's status, and when its parent dies — the kernel's parent-death signal, or
// noticed by polling — kills its whole process group, so that nothing the server started
// survives a crash of the app. It never returns into the program's own main.
const (
	supervisorEnv  = "CREWAGENT_MCP_SUPERVISOR_PARENT"
	supervisorArg0 = "crewagent-mcp-supervisor"
)

func init() {
	parent, ok := os.LookupEnv(supervisorEnv)
	if !ok {
		return
	}
	os.Unsetenv(supervisorEnv)
	os.Exit(supervise(parent, os.Args[1:]))
}

// supervise runs argv (argv[0] is an executable path) and returns the exit status to use.
func supervise(parent string, argv []string) int {
	ppid, err := strconv.Atoi(parent)
	if err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "crewagent: the MCP server supervisor was started without a server")
		return 2
	}
	if os.Getppid() != ppid {
		return 1 // the app died before we were ready: start nothing
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Processes the server leaves behind when their parent exits (a double fork) come to
	// us instead of init, so that they stay our descendants.
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)

	cmd := &exec.Cmd{Path: argv[0], Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // the server dies with us
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "crewagent: cannot start %s: %v\n", argv[0], err)
		return 127
	}
	// Our copies of the streams are not needed: the server holds its own.
	os.Stdin.Close()
	os.Stdout.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	orphaned := func() bool { return os.Getppid() != ppid }
	killAll := func() int {
		// What the server started in a session or group of its own (a daemon) is not in
		// our group: every descendant goes first, then the group (the server, its
		// children, and us).
		killDescendants()
		_ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL)
		return 1
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return exitStatus(err)
		case sig := <-sigs:
			if orphaned() {
				return killAll()
			}
			// A stop from the app goes to the whole group: the server got it too. Wait for
			// it (the app escalates to SIGKILL if it does not stop). A signal sent to us
			// alone is passed on.
			_ = cmd.Process.Signal(sig)
		case <-tick.C:
			if orphaned() {
				return killAll()
			}
		}
	}
}

func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			fmt.Fprintf(os.Stderr, "crewagent: the MCP server was killed by signal %d (%v)\n", int(ws.Signal()), ws.Signal())
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 1
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// killDescendants kills every process below this one (by parent pid in /proc), deepest
// first, a few times over: a process killed may leave children that come to us.
func killDescendants() {
	self := os.Getpid()
	for round := 0; round < 3; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		children := map[int][]int{}
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if ppid, ok := parentOf(pid); ok {
				children[ppid] = append(children[ppid], pid)
			}
		}
		var order []int
		var walk func(int)
		walk = func(p int) {
			for _, c := range children[p] {
				walk(c)
				order = append(order, c)
			}
		}
		walk(self)
		if len(order) == 0 {
			return
		}
		for _, p := range order {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// parentOf reads the parent pid of pid from /proc/<pid>/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
