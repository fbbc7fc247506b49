package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	checkMu    sync.Mutex
	checkCache = map[string]checked{}
)

type checked struct {
	err error
	at  time.Time
}

// checkAgain is how long a failed check is remembered: bubblewrap installed meanwhile is
// found without a restart.
const checkAgain = 30 * time.Second

// Check reports whether bubblewrap can start here: it runs bwrap with a new namespace of
// each kind over a read-only root (`bwrap --ro-bind / / true` and more) and remembers the
// answer (a failure for 30 s). The error wraps ErrUnavailable and says why in words.
func Check(bwrap string) error {
	if bwrap == "" {
		bwrap = "bwrap"
	}
	checkMu.Lock()
	defer checkMu.Unlock()
	if c, ok := checkCache[bwrap]; ok && (c.err == nil || time.Since(c.at) < checkAgain) {
		return c.err
	}
	err := check(bwrap)
	checkCache[bwrap] = checked{err: err, at: time.Now()}
	return err
}

func check(bwrap string) error {
	path, err := exec.LookPath(bwrap)
	if err != nil {
		return fmt.Errorf("%w: bubblewrap (bwrap) is not installed", ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--unshare-all", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 300 {
			msg = msg[:300]
		}
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%w: bwrap fails here (%s); user namespaces may be turned off on this system", ErrUnavailable, msg)
	}
	return nil
}

// Run runs spec.Command and waits for it, its children and its sandbox to end. When ctx
// ends first, every process of the command is killed and Run returns ctx's error with the
// outcome. Without bubblewrap (and without spec.Unsandboxed) it runs nothing and returns an
// error wrapping ErrUnavailable.
func Run(ctx context.Context, spec Spec) (Outcome, error) {
	if spec.Project == "" || !filepath.IsAbs(spec.Project) {
		return Outcome{}, errors.New("sandbox: the project folder must be an absolute path")
	}
	if spec.Dir == "" {
		spec.Dir = spec.Project
	}
	if spec.MaxProcs <= 0 {
		spec.MaxProcs = DefaultMaxProcs
	}
	if spec.Output == nil {
		spec.Output = io.Discard
	}
	shell := "/bin/sh"
	if p, err := exec.LookPath("bash"); err == nil {
		shell = p
	}
	// The limit is set inside the sandbox's own user namespace, where it counts only the
	// sandbox's processes. Outside one (no sandbox, or a sandbox without a user namespace,
	// whose uid_map is the whole range) it would count every process of the user, so the
	// pids cgroup alone bounds the command there.
	script := "read -r _ _ n < /proc/self/uid_map; [ \"$n\" = 4294967295 ] || ulimit -u " + strconv.Itoa(spec.MaxProcs) +
		" 2>/dev/null; exec " + shell + " -c \"$1\""
	inner := []string{shell, "-c", script, "crewagent-shell", spec.Command}

	var argv []string
	out := Outcome{Sandboxed: !spec.Unsandboxed}
	info := ""
	if spec.Unsandboxed {
		argv = inner
	} else {
		if err := Check(spec.Bwrap); err != nil {
			return out, err
		}
		// bubblewrap writes the host pid of the sandbox's first process to the info
		// file before that process may start a session of its own (which takes it out
		// of the command's process group); the watchdog kills it by that pid.
		f, err := os.CreateTemp("", "crewagent-sandbox-*.json")
		if err != nil {
			return out, fmt.Errorf("sandbox: %w", err)
		}
		_ = f.Close()
		info = f.Name()
		defer os.Remove(info)
		bwrap, _ := exec.LookPath(orDefault(spec.Bwrap, "bwrap"))
		argv = append([]string{bwrap, "--info-fd", "3"}, bwrapArgs(spec)...)
		argv = append(argv, "--")
		argv = append(argv, inner...)
	}

	cg := newPidsCgroup(spec.MaxProcs)
	procs := ""
	if cg != nil {
		defer cg.remove()
		procs = cg.procsFile()
	}
	// The wrapper enters the cgroup (when there is one) before it becomes the command, so
	// every process the command makes is born in it, and leaves a watchdog behind: the
	// parent-death signal does not always reach the command when the app is killed (it
	// belongs to the thread that started it), so the watchdog also looks for the app
	// twice a second and kills the command's process group once the app is gone.
	argv = append([]string{"/bin/sh", "-c", watchdogScript, procs, info}, argv...)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdout = spec.Output
	cmd.Stderr = spec.Output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Output pipes held open by processes that escaped (unsandboxed) stop being read
	// shortly after the command ends.
	cmd.WaitDelay = 2 * time.Second

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return out, fmt.Errorf("sandbox: starting the command: %w", err)
	}
	pgid := cmd.Process.Pid
	killAll := func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if cg != nil {
			cg.killAll()
		}
	}
	done := make(chan struct{})
	var stopped atomic.Bool
	go func() {
		select {
		case <-ctx.Done():
			stopped.Store(true)
			killAll()
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	// Whatever is left of the command (processes sent to the background) goes with it.
	killAll()
	out.Duration = time.Since(start)

	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			out.ExitCode, out.Signal = -1, ws.Signal().String()
		} else {
			out.ExitCode = ps.ExitCode()
		}
	}
	if cg != nil && cg.limitReached() {
		out.ProcessLimitReached = true
	}
	if stopped.Load() && ctx.Err() != nil {
		return out, ctx.Err()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return out, fmt.Errorf("sandbox: %w", waitErr)
	}
	return out, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// watchdogScript runs as /bin/sh -c watchdogScript PROCS INFO COMMAND...: it writes its
// pid to PROCS (a cgroup's member list) when PROCS is set, starts the watchdog of the app
// (its parent) and becomes the command, with bubblewrap's info file open as fd 3 when
// INFO is set.
//
// Once the app is gone the watchdog kills the command first (so bubblewrap can no longer
// let its sandbox go on), then the sandbox's first process named in the info file: it
// leaves the process group when it starts its own session and arms its parent-death
// signal only after that, so a bubblewrap killed while it set up the sandbox would leave
// it running. Killing it ends the whole sandbox (its pid namespace). Last, the process
// group, the watchdog included (the info file is removed on the way).
const watchdogScript = `app=$PPID procs=$0 info=$1
shift
if [ -n "$procs" ]; then echo $$ > "$procs" || exit 126; fi
(while kill -0 "$app" 2>/dev/null; do sleep 0.5; done
kill -KILL $$
if [ -n "$info" ]; then
  while read -r key value; do
    if [ "$key" = '"child-pid":' ]; then kill -KILL "${value%,}"; fi
  done < "$info"
  rm -f "$info"
fi
kill -KILL -$$) </dev/null >/dev/null 2>&1 &
if [ -n "$info" ]; then exec "$@" 3>"$info"; fi
exec "$@"`

// bwrapArgs are bubblewrap's options for spec (the command follows "--").
func bwrapArgs(spec Spec) []string {
	args := []string{
		"--die-with-parent", "--new-session", "--unshare-all",
	}
	if spec.Network {
		args = append(args, "--share-net")
	}
	args = append(args,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--bind", spec.Project, spec.Project,
	)
	var hide []string
	for _, h := range spec.Hide {
		hide = append(hide, hidePaths(h)...)
	}
	var hiddenDirs []string
	for _, p := range hide {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			hiddenDirs = append(hiddenDirs, p)
		}
	}
	seen := map[string]bool{}
	var emptied []string
	for _, p := range hide {
		// What lies inside a hidden folder is gone with it.
		if seen[p] || p == "/" || slices.ContainsFunc(hiddenDirs, func(d string) bool { return d != p && within(d, p) }) {
			continue
		}
		seen[p] = true
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			args = append(args, "--tmpfs", p)
			emptied = append(emptied, p)
		default:
			args = append(args, "--ro-bind", "/dev/null", p)
		}
	}
	for _, p := range spec.ReadOnly {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			args = append(args, "--ro-bind", real, real)
		}
	}
	// A project inside a hidden folder is still the project.
	if slices.ContainsFunc(hiddenDirs, func(d string) bool { return within(d, spec.Project) }) {
		args = append(args, "--bind", spec.Project, spec.Project)
	}
	// The emptied folders are read-only too, once the read-only folders inside them are
	// mounted.
	for _, p := range emptied {
		args = append(args, "--remount-ro", p)
	}
	args = append(args, "--chdir", spec.Dir)
	return args
}

// hidePaths is p and, when it is or goes through a symbolic link, its real path too.
func hidePaths(p string) []string {
	if p == "" || !filepath.IsAbs(p) {
		return nil
	}
	p = filepath.Clean(p)
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	out := []string{p}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		out = append(out, real)
	}
	return slices.Compact(out)
}

// within reports whether p is dir or lies below it (both clean and absolute).
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
