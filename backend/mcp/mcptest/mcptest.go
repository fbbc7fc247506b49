// Package mcptest helps the tests of the packages that run MCP servers: it finds the real
// servers from npm the tests run against and the processes a test started, by pid.
package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// NPM are the entry points of the real servers, written by others, that scripts/test.sh
// installs into testdata/mcp-servers: @modelcontextprotocol/server-everything and
// @modelcontextprotocol/server-filesystem.
type NPM struct{ EverythingJS, FilesystemJS string }

// Servers finds them (in $CREWAGENT_MCP_TEST_SERVERS, their node_modules, or else the
// repository's testdata/mcp-servers/node_modules) with node on the PATH. Without them the
// test is skipped, and fails under CI.
func Servers(t testing.TB) NPM {
	t.Helper()
	dir := os.Getenv("CREWAGENT_MCP_TEST_SERVERS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "mcp-servers", "node_modules")
	}
	s := NPM{
		EverythingJS: filepath.Join(dir, "@modelcontextprotocol", "server-everything", "dist", "index.js"),
		FilesystemJS: filepath.Join(dir, "@modelcontextprotocol", "server-filesystem", "dist", "index.js"),
	}
	var missing []string
	for _, p := range []string{s.EverythingJS, s.FilesystemJS} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing = append(missing, "node on the PATH")
	}
	if len(missing) > 0 {
		msg := "the npm MCP test servers are missing (" + strings.Join(missing, ", ") + "): run `npm install --no-audit --no-fund` in testdata/mcp-servers (scripts/test.sh does it), or set CREWAGENT_MCP_TEST_SERVERS to their node_modules"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return s
}

// MarkerVar, set in a server's configured env, marks its processes: the supervisor, the
// server and whatever it starts inherit it (see Marked).
const MarkerVar = "CREWAGENT_TEST_MARKER"

// Everything is the configuration entry of server-everything over stdio, marked, with
// more env.
func (n NPM) Everything(marker string, env map[string]string) map[string]any {
	e := map[string]string{MarkerVar: marker}
	for k, v := range env {
		e[k] = v
	}
	return map[string]any{"command": "node", "args": []string{n.EverythingJS, "stdio"}, "env": e}
}

// Files is the configuration entry of server-filesystem confined to dir, marked.
func (n NPM) Files(marker, dir string) map[string]any {
	return map[string]any{"command": "node", "args": []string{n.FilesystemJS, dir}, "env": map[string]string{MarkerVar: marker}}
}

// Marked returns the running processes whose environment holds MarkerVar=marker.
func Marked(marker string) []int {
	want := MarkerVar + "=" + marker + "\x00"
	dirs, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), want) || !running(pid) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// running reports whether pid is a process that has not exited (a zombie has).
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && !strings.HasPrefix(string(stat[i:]), ") Z")
}

// Comm returns the command name of a process ("" when it is gone).
func Comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// Alive returns those of pids that still run.
func Alive(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if running(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// WaitGone fails the test unless every pid has exited within d.
func WaitGone(t testing.TB, d time.Duration, pids []int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for len(Alive(pids)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v are still running", Alive(pids))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Watch records the processes of markers each time Record is called (for example at each
// request a fake LLM receives, while a command runs), so that a test can check afterwards
// that they are gone, or that some never ran.
type Watch struct {
	mu   sync.Mutex
	seen map[string][]int
}

// Record notes the processes of each marker now.
func (w *Watch) Record(markers ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string][]int{}
	}
	for _, m := range markers {
		for _, pid := range Marked(m) {
			if !slices.Contains(w.seen[m], pid) {
				w.seen[m] = append(w.seen[m], pid)
			}
		}
	}
}

// Of returns every process of marker recorded so far.
func (w *Watch) Of(marker string) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen[marker])
}
