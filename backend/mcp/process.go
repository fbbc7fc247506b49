package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A local server runs as a child process that talks JSON-RPC on its stdin and stdout and
// writes diagnostics to stderr. The process is the leader of its own process group, so
// stopping it also stops whatever it started (npx starts node, a shell script starts its
// commands). On Linux the process is a small supervisor (this program started again, see
// supervisor_linux.go) that runs the server and takes the whole group down when this
// program dies, even by SIGKILL.

// procSpec is what to run.
type procSpec struct {
	path string   // the executable, resolved
	args []string // without argv[0]
	env  []string
	dir  string
}

// process is a running server process.
type process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File // our end of the server's stdin
	stdout *os.File // our end of the server's stdout
	stderr *os.File // our end of the server's stderr

	mu      sync.Mutex
	reaped  bool // the leader has been waited for: its pid may be reused, never signal it
	exited  chan struct{}
	waitErr error // set before exited is closed
}

// startProcess starts spec with fresh pipes for its standard streams.
func startProcess(spec procSpec) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := platformCommand(spec)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = platformStart(cmd)
	// The child has its copies; ours of its ends must go, or we would never see EOF.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, pid: cmd.Process.Pid, stdin: inW, stdout: outR, stderr: errR, exited: make(chan struct{})}
	go p.wait()
	return p, nil
}

// wait reaps the process; before that, it kills what is left of its group.
func (p *process) wait() {
	if platformAwaitExit(p.pid) {
		// The leader has exited but is not reaped yet, so its group id cannot have been
		// reused: kill the leftovers, then reap.
		p.mu.Lock()
		_ = killGroup(p.pid)
		p.waitErr = p.cmd.Wait()
		p.reaped = true
		p.mu.Unlock()
	} else {
		err := p.cmd.Wait()
		p.mu.Lock()
		_ = killGroup(p.pid) // best effort where exit cannot be observed before reaping
		p.waitErr = err
		p.reaped = true
		p.mu.Unlock()
	}
	close(p.exited)
}

// signal sends sig to the whole group unless the process has been reaped.
func (p *process) signal(sig os.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		_ = signalGroup(p.pid, sig)
	}
}

// kill kills the group at once.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		_ = killGroup(p.pid)
	}
}

// stop ends the process the way the protocol asks: stdin closed, then (after grace) a
// termination signal to the group, then (after another second) SIGKILL. It returns when
// the process has been reaped or, in the unlikely case that even SIGKILL does not end it,
// after a few seconds more.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	select {
	case <-p.exited:
		return
	case <-time.After(grace):
	}
	p.signal(terminateSignal)
	select {
	case <-p.exited:
		return
	case <-time.After(time.Second):
	}
	p.kill()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
}

// exitDescription says how the process ended ("" while it runs).
func (p *process) exitDescription() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return describeExit(ee.ProcessState)
	}
	if p.waitErr != nil {
		return "ended: " + p.waitErr.Error()
	}
	return "exited with status 0"
}

func describeExit(ps *os.ProcessState) string {
	if code := ps.ExitCode(); code >= 0 {
		if code > 128 && code < 160 && runtime.GOOS == "linux" {
			// The supervisor reports a server killed by a signal as 128+signal.
			return fmt.Sprintf("exited with status %d (killed by signal %d: %v)", code, code-128, syscall.Signal(code-128))
		}
		return fmt.Sprintf("exited with status %d", code)
	}
	return "was killed: " + ps.String()
}

// Environment. A server gets a small set of variables from this program's environment
// (what finds programs, the user, locale, temporary folders and proxies) plus its
// configured env; never the rest, which may hold the app's own secrets.
var inheritedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ", "TMPDIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	// Windows
	"APPDATA", "LOCALAPPDATA", "HOMEDRIVE", "HOMEPATH", "USERPROFILE", "USERNAME", "SYSTEMROOT", "SYSTEMDRIVE",
	"WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMDATA", "PROCESSOR_ARCHITECTURE",
}

// serverEnv builds a server's environment from environ (KEY=VALUE lines) and its env.
func serverEnv(environ []string, env map[string]string) []string {
	keep := map[string]bool{}
	for _, k := range inheritedEnv {
		keep[k] = true
	}
	vals := map[string]string{}
	var order []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !(keep[k] || strings.HasPrefix(k, "LC_") || strings.HasPrefix(k, "XDG_")) {
			continue
		}
		if _, dup := vals[k]; !dup {
			order = append(order, k)
		}
		vals[k] = v
	}
	for k, v := range env {
		if _, dup := vals[k]; !dup {
			order = append(order, k)
		}
		vals[k] = v
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vals[k])
	}
	return out
}

func envLookup(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// resolveCommand finds the executable of command the way a shell would, with the PATH of
// the server's environment; a command with a slash is taken relative to dir.
func resolveCommand(command, dir string, env []string) (string, error) {
	if strings.ContainsRune(command, '/') || (runtime.GOOS == "windows" && strings.ContainsAny(command, `\:`)) {
		p := command
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("cannot run %s: %v", command, err)
		}
		return p, nil
	}
	path := envLookup(env, "PATH")
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			continue // a relative PATH entry depends on the folder we happen to be in: skip it
		}
		for _, cand := range candidates(filepath.Join(d, command), env) {
			if checkExecutable(cand) == nil {
				return cand, nil
			}
		}
	}
	return "", fmt.Errorf("command %q was not found on the PATH; install it or give its full path", command)
}

func candidates(p string, env []string) []string {
	if runtime.GOOS != "windows" || filepath.Ext(p) != "" {
		return []string{p}
	}
	exts := envLookup(env, "PATHEXT")
	if exts == "" {
		exts = ".COM;.EXE;.BAT;.CMD"
	}
	var out []string
	for _, e := range strings.Split(exts, ";") {
		if e != "" {
			out = append(out, p+strings.ToLower(e))
		}
	}
	return out
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("no such file")
		}
		return err
	}
	if fi.IsDir() {
		return errors.New("it is a folder")
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return errors.New("it is not executable")
	}
	return nil
}
