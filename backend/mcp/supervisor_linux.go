package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
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
		_ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL) // the server, its children, and us
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
