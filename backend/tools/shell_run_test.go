package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/sandbox"
)

// requireBwrap skips a test where bubblewrap cannot start, except under CI=true where the
// sandbox must work.
func requireBwrap(t *testing.T) {
	t.Helper()
	if err := sandbox.Check(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the command sandbox must work in CI: %v", err)
		}
		t.Skipf("bubblewrap cannot start here (%v): the sandbox tests need it", err)
	}
}

// outsideTmp makes a folder outside /tmp (which the sandbox replaces by its own), so that
// what is hidden is hidden by the sandbox's rules and not by the private /tmp.
func outsideTmp(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	for _, parent := range []string{"/var/tmp", wd} {
		if parent == "" || strings.HasPrefix(parent, "/tmp/") {
			continue
		}
		dir, err := os.MkdirTemp(parent, "crewagent-shell-test-")
		if err == nil {
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
			return dir
		}
	}
	t.Skip("no writable folder outside /tmp")
	return ""
}

type shellEnvFixture struct {
	project, runtimeHome, userHome, skillDir string
	host                                     *Host
	chunks                                   *syncBuffer
}

func newShellFixture(t *testing.T, mutate func(*Config)) *shellEnvFixture {
	t.Helper()
	base := t.TempDir()
	out := outsideTmp(t)
	f := &shellEnvFixture{
		project:     filepath.Join(base, "project"),
		userHome:    filepath.Join(out, "home"),
		runtimeHome: filepath.Join(out, "home", "crewagent-home"),
		chunks:      &syncBuffer{},
	}
	f.skillDir = filepath.Join(f.runtimeHome, "skills", "demo")
	testkit.WriteFile(t, filepath.Join(f.project, "docs", "readme.md"), "project readme\n")
	testkit.WriteFile(t, filepath.Join(f.runtimeHome, "settings.json"), `{"llm":{"apiKey":"sk-runtime-secret"}}`)
	testkit.WriteFile(t, filepath.Join(f.userHome, ".ssh", "id_ed25519"), "PRIVATE-KEY-SECRET\n")
	testkit.WriteFile(t, filepath.Join(f.userHome, ".ssh", "id_rsa"), "PRIVATE-RSA-SECRET\n")
	testkit.WriteFile(t, filepath.Join(f.userHome, ".config", "gh", "hosts.yml"), "oauth_token: GH-SECRET\n")
	testkit.WriteFile(t, filepath.Join(f.userHome, ".netrc"), "machine x password NETRC-SECRET\n")
	testkit.WriteFile(t, filepath.Join(f.userHome, "notes.txt"), "visible home file\n")
	testkit.WriteFile(t, filepath.Join(f.skillDir, "scripts", "hello.sh"), "echo hello from the skill\n")
	cfg := Config{
		Roots: Roots{
			Project:      f.project,
			ToolResults:  filepath.Join(base, "data", "logs", "tool-results"),
			Conversation: "conv1",
			Deny:         []string{f.runtimeHome, filepath.Join(f.runtimeHome, "settings.json")},
			Skills: func(conv, name string) (string, bool) {
				return f.skillDir, conv == "conv1" && name == "demo"
			},
		},
		Policy: Policy{FS: FSPolicy{Enabled: true}, Shell: ShellPolicy{Enabled: true}},
		Shell:  ShellConfig{Home: f.userHome},
		OnToolOutput: func(o ToolOutput) {
			if f.chunks.Len() < 1<<20 {
				_, _ = f.chunks.Write(o.Data)
			}
		},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	f.host = NewHost(cfg)
	return f
}

func (f *shellEnvFixture) run(t *testing.T, ctx context.Context, args map[string]any) (Result, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(args)
	res := f.host.Call(ctx, conversation.ToolShellRun, string(b))
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Content), &m); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, res.Content)
	}
	return res, m
}

func TestShellRunIsOfferedOnlyWhereThePolicyAllows(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name   string
		policy Policy
		roots  Roots
		want   bool
	}{
		{"default policy (plain chat)", DefaultPolicy(), Roots{Project: dir}, false},
		{"shell enabled", Policy{FS: FSPolicy{Enabled: true}, Shell: ShellPolicy{Enabled: true}}, Roots{Project: dir}, true},
		{"shell enabled without a project", Policy{Shell: ShellPolicy{Enabled: true}}, Roots{}, false},
		{"agent turns it off", Merge(Policy{FS: FSPolicy{Enabled: true}, Shell: ShellPolicy{Enabled: true}}, &AgentTools{Shell: &AgentShell{Enabled: new(false)}}), Roots{Project: dir}, false},
		{"agent without a shell block", Merge(Policy{FS: FSPolicy{Enabled: true}, Shell: ShellPolicy{Enabled: true}}, &AgentTools{}), Roots{Project: dir}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHost(Config{Roots: tc.roots, Policy: tc.policy})
			got := false
			for _, n := range h.ToolNames() {
				got = got || n == conversation.ToolShellRun
			}
			if got != tc.want {
				t.Fatalf("offered = %v, want %v (%v)", got, tc.want, h.ToolNames())
			}
			if !tc.want {
				res := h.Call(context.Background(), conversation.ToolShellRun, `{"command":"true"}`)
				if res.Code() != CodeToolNotAvailable {
					t.Fatalf("calling it: %s", res.Content)
				}
			}
		})
	}
}

func TestShellRunCannotSeeSecrets(t *testing.T) {
	requireBwrap(t)
	f := newShellFixture(t, nil)
	cases := []struct {
		path     string
		readable bool
		content  string
	}{
		{filepath.Join(f.runtimeHome, "settings.json"), false, "sk-runtime-secret"},
		{filepath.Join(f.userHome, ".ssh", "id_ed25519"), false, "PRIVATE-KEY-SECRET"},
		{filepath.Join(f.userHome, ".ssh", "id_rsa"), false, "PRIVATE-RSA-SECRET"},
		{filepath.Join(f.userHome, ".config", "gh", "hosts.yml"), false, "GH-SECRET"},
		{filepath.Join(f.userHome, ".netrc"), false, "NETRC-SECRET"},
		// The control: the same home's other files stay readable.
		{filepath.Join(f.userHome, "notes.txt"), true, "visible home file"},
		{filepath.Join(f.project, "docs", "readme.md"), true, "project readme"},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			_, m := f.run(t, context.Background(), map[string]any{"command": "cat " + strconv.Quote(tc.path)})
			out, _ := m["output"].(string)
			if got := strings.Contains(out, tc.content); got != tc.readable {
				t.Fatalf("readable = %v, want %v: %v", got, tc.readable, m)
			}
		})
	}
	// Nor through a listing of the folders.
	_, m := f.run(t, context.Background(), map[string]any{"command": "ls -a " + strconv.Quote(f.runtimeHome) + " " + strconv.Quote(filepath.Join(f.userHome, ".ssh"))})
	if out := m["output"].(string); strings.Contains(out, "settings.json") || strings.Contains(out, "id_ed25519") {
		t.Fatalf("hidden folders are listed: %q", out)
	}
	// Nor the sockets of the session, which a read-only filesystem would not stop.
	runDir := filepath.Join(f.userHome, "run")
	agentDir := filepath.Join(f.userHome, "agent")
	for _, d := range []string{runDir, agentDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(runDir, "bus"), filepath.Join(agentDir, "ssh.sock")} {
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Skipf("unix sockets: %v", err)
		}
		defer ln.Close()
	}
	t.Setenv("XDG_RUNTIME_DIR", runDir)
	t.Setenv("SSH_AUTH_SOCK", filepath.Join(agentDir, "ssh.sock"))
	testkit.WriteFile(t, filepath.Join(agentDir, "visible.sock.txt"), "control\n")
	_, m = f.run(t, context.Background(), map[string]any{"command": "for s in " + strconv.Quote(filepath.Join(runDir, "bus")) + " " +
		strconv.Quote(filepath.Join(agentDir, "ssh.sock")) + "; do test -S \"$s\" && echo \"visible $s\"; done; cat " + strconv.Quote(filepath.Join(agentDir, "visible.sock.txt"))})
	if out := m["output"].(string); strings.Contains(out, "visible /") || out != "control\n" {
		t.Fatalf("session sockets: %q", out)
	}
	// The environment does not carry the app's secrets.
	t.Setenv("OPENAI_API_KEY", "sk-env-secret")
	_, m = f.run(t, context.Background(), map[string]any{"command": "env"})
	if strings.Contains(m["output"].(string), "sk-env-secret") {
		t.Fatalf("the environment leaks: %v", m["output"])
	}
}

func TestShellRunWritesOnlyInsideTheProject(t *testing.T) {
	requireBwrap(t)
	f := newShellFixture(t, nil)
	outsideDir := filepath.Join(f.userHome, "outside")
	testkit.WriteFile(t, filepath.Join(outsideDir, "keep.txt"), "original\n")
	symlink(t, outsideDir, filepath.Join(f.project, "link-dir"))
	symlink(t, filepath.Join(outsideDir, "keep.txt"), filepath.Join(f.project, "link-file"))
	hostTmp := filepath.Join(os.TempDir(), fmt.Sprintf("crewagent-shell-%d", time.Now().UnixNano()))
	t.Cleanup(func() { _ = os.Remove(hostTmp) })

	cases := []struct {
		name, command string
		wantOK        bool
		check         func(t *testing.T)
	}{
		{"a file in the project", "echo made > made.txt && mkdir -p sub && echo deep > sub/deep.txt", true, func(t *testing.T) {
			if b, _ := os.ReadFile(filepath.Join(f.project, "sub", "deep.txt")); string(b) != "deep\n" {
				t.Fatalf("deep.txt = %q", b)
			}
		}},
		{"a file in the home", "echo x > " + strconv.Quote(filepath.Join(f.userHome, "new.txt")), false, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(f.userHome, "new.txt")); err == nil {
				t.Fatal("a file was written in the home")
			}
		}},
		{"through a link to a folder outside", "echo x > link-dir/new.txt", false, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(outsideDir, "new.txt")); err == nil {
				t.Fatal("a file was written through the link")
			}
		}},
		{"through a link to a file outside", "echo changed > link-file", false, func(t *testing.T) {
			if b, _ := os.ReadFile(filepath.Join(outsideDir, "keep.txt")); string(b) != "original\n" {
				t.Fatalf("the file outside changed: %q", b)
			}
		}},
		{"the runtime home", "echo x > " + strconv.Quote(filepath.Join(f.runtimeHome, "settings.json")), false, func(t *testing.T) {
			if b, _ := os.ReadFile(filepath.Join(f.runtimeHome, "settings.json")); !strings.Contains(string(b), "sk-runtime-secret") {
				t.Fatalf("settings.json changed: %q", b)
			}
		}},
		{"the system", "touch /usr/crewagent-test", false, func(t *testing.T) {
			if _, err := os.Stat("/usr/crewagent-test"); err == nil {
				_ = os.Remove("/usr/crewagent-test")
				t.Fatal("a file was written in /usr")
			}
		}},
		{"/tmp is private", "echo x > " + strconv.Quote(hostTmp) + " && cat " + strconv.Quote(hostTmp), true, func(t *testing.T) {
			if _, err := os.Stat(hostTmp); err == nil {
				t.Fatal("the command's /tmp is the host's")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, m := f.run(t, context.Background(), map[string]any{"command": tc.command})
			if res.OK != tc.wantOK {
				t.Fatalf("ok = %v, want %v: %s", res.OK, tc.wantOK, res.Content)
			}
			if !tc.wantOK && res.Code() != CodeCommandFailed {
				t.Fatalf("code %s: %v", res.Code(), m)
			}
			tc.check(t)
		})
	}
}

func TestShellRunNetwork(t *testing.T) {
	requireBwrap(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_, _ = c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", port)
	allowAll := func(string) bool { return true }

	cases := []struct {
		name      string
		allow     func(string) bool
		ask       bool
		wantReach bool
		wantNet   string
	}{
		{"off by default", nil, false, false, "off"},
		{"asked for but not allowed", nil, true, false, "off"},
		{"allowed but not asked for", allowAll, false, false, "off"},
		{"asked for and allowed", allowAll, true, true, "on"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newShellFixture(t, func(c *Config) { c.Shell.Network = tc.allow })
			before := accepted.Load()
			res, m := f.run(t, context.Background(), map[string]any{"command": connect, "network": tc.ask, "timeout_seconds": 20})
			reached := accepted.Load() > before
			if reached != tc.wantReach || res.OK != tc.wantReach {
				t.Fatalf("reached = %v ok = %v, want %v: %s", reached, res.OK, tc.wantReach, res.Content)
			}
			if m["network"] != tc.wantNet {
				t.Fatalf("network = %v, want %s", m["network"], tc.wantNet)
			}
			if tc.wantReach && !strings.Contains(m["output"].(string), "hello from the host") {
				t.Fatalf("output %v", m["output"])
			}
			if tc.ask && !tc.wantReach && !strings.Contains(res.Content, "ran without network") {
				t.Fatalf("the result does not say the network was off: %s", res.Content)
			}
		})
	}
}

// markedPIDs lists the host processes whose command line contains marker.
func markedPIDs(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
				continue // a zombie is already dead
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

func TestShellRunKillsEveryProcess(t *testing.T) {
	requireBwrap(t)
	cases := []struct {
		name     string
		timeout  int
		cancel   bool
		wantCode string
		wantFlag string
	}{
		{"stopped", 0, true, CodeCommandStopped, "stopped"},
		{"timed out", 2, false, CodeCommandTimeout, "timedOut"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newShellFixture(t, nil)
			marker := fmt.Sprintf("1000.%d%d", os.Getpid(), i)
			// Children, a grandchild, one that leaves the session: all must go.
			cmd := fmt.Sprintf("sleep %s & (sleep %s &) ; setsid sleep %s & echo started; wait", marker, marker, marker)
			args := map[string]any{"command": cmd}
			if tc.timeout > 0 {
				args["timeout_seconds"] = tc.timeout
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type outcome struct {
				res Result
				m   map[string]any
			}
			done := make(chan outcome, 1)
			go func() {
				res, m := f.run(t, ctx, args)
				done <- outcome{res, m}
			}()
			testkit.Until(t, 10*time.Second, "the processes to start", func() bool {
				return len(markedPIDs(marker)) >= 3 && strings.Contains(f.chunks.String(), "started")
			})
			pids := markedPIDs(marker)
			if tc.cancel {
				cancel()
			}
			var o outcome
			select {
			case o = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("the call did not return")
			}
			if o.res.Code() != tc.wantCode || o.m[tc.wantFlag] != true {
				t.Fatalf("result %s", o.res.Content)
			}
			if !strings.Contains(f.chunks.String(), "started") {
				t.Fatalf("the live output did not come: %q", f.chunks.String())
			}
			testkit.Until(t, 5*time.Second, "every process to be gone", func() bool {
				for _, p := range pids {
					if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(p))); err == nil && len(markedPIDs(marker)) > 0 {
						return false
					}
				}
				return true
			})
		})
	}
}

func TestShellRunBoundsALargeOutput(t *testing.T) {
	requireBwrap(t)
	f := newShellFixture(t, nil)
	const size = 100 << 20
	cmd := fmt.Sprintf("echo FIRST-LINE; head -c %d /dev/zero | tr '\\0' 'x'; echo; echo LAST-LINE", size)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, m := f.run(t, context.Background(), map[string]any{"command": cmd})
	runtime.ReadMemStats(&after)
	if !res.OK {
		t.Fatalf("result %.500s", res.Content)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 16<<20 {
		t.Fatalf("100 MB of output cost %d MB of allocations", alloc>>20)
	}
	t.Logf("100 MB of output: %d KB allocated in %s", alloc>>10, time.Duration(m["durationMs"].(float64))*time.Millisecond)
	out := m["output"].(string)
	wantBytes := float64(len("FIRST-LINE\n") + size + 1 + len("LAST-LINE\n"))
	if m["truncated"] != true || m["bytes"] != wantBytes || len(out) > ShellHeadBytes+ShellTailBytes+200 {
		t.Fatalf("truncated=%v bytes=%v len(output)=%d", m["truncated"], m["bytes"], len(out))
	}
	if !strings.HasPrefix(out, "FIRST-LINE\n") || !strings.HasSuffix(out, "LAST-LINE\n") || !strings.Contains(out, "bytes left out") {
		t.Fatalf("output head/tail: %.100q … %.100q", out[:100], out[len(out)-100:])
	}
	alias, _ := m["outputFile"].(string)
	if !strings.HasPrefix(alias, ToolResultsAlias+"/conv1/cmd-") {
		t.Fatalf("outputFile = %q", alias)
	}
	// The whole output is in the file, which fs.read pages through.
	host := filepath.Join(f.host.sandbox.Roots().ToolResults, strings.TrimPrefix(alias, ToolResultsAlias+"/"))
	fi, err := os.Stat(host)
	if err != nil || float64(fi.Size()) != wantBytes {
		t.Fatalf("saved file: %v %v", fi, err)
	}
	r := f.host.Call(context.Background(), "fs.read", fmt.Sprintf(`{"path":%q,"startLine":1,"endLine":1}`, alias))
	if !r.OK || !strings.Contains(r.Content, "FIRST-LINE") {
		t.Fatalf("fs.read of the saved output: %.300s", r.Content)
	}
}

func TestShellRunBoundsAForkBomb(t *testing.T) {
	requireBwrap(t)
	const limit = 64
	f := newShellFixture(t, func(c *Config) { c.Shell.MaxProcs = limit })
	marker := fmt.Sprintf("3600.%d7", os.Getpid())
	var peak atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if n := int32(len(markedPIDs(marker))); n > peak.Load() {
				peak.Store(n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	start := time.Now()
	res, m := f.run(t, context.Background(), map[string]any{"command": "while :; do sleep " + marker + " & done", "timeout_seconds": 3})
	close(stop)
	wg.Wait()
	if res.Code() != CodeCommandTimeout || m["processLimitReached"] != true {
		t.Fatalf("result %.600s", res.Content)
	}
	if p := peak.Load(); p == 0 || p > limit {
		t.Fatalf("peak of %d processes, limit %d", p, limit)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("took %s", d)
	}
	testkit.Until(t, 5*time.Second, "the processes to be gone", func() bool { return len(markedPIDs(marker)) == 0 })
}

// The classic fork bomb: its shell returns at once, the bomb hits the limit and dies with
// the command.
func TestShellRunBoundsTheClassicForkBomb(t *testing.T) {
	requireBwrap(t)
	f := newShellFixture(t, func(c *Config) { c.Shell.MaxProcs = 64 })
	start := time.Now()
	res, m := f.run(t, context.Background(), map[string]any{"command": ":(){ :|:& };:; sleep 2; echo still-here", "timeout_seconds": 30})
	if !res.OK || m["processLimitReached"] != true || !strings.Contains(m["output"].(string), "still-here") {
		t.Fatalf("result %.600s", res.Content)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("took %s", d)
	}
}

func TestShellRunResults(t *testing.T) {
	requireBwrap(t)
	f := newShellFixture(t, nil)
	if err := os.MkdirAll(filepath.Join(f.project, "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     map[string]any
		wantCode string
		exit     float64
		output   string
	}{
		{"success", map[string]any{"command": "echo out; echo err >&2"}, "", 0, "out\nerr\n"},
		{"an exit code", map[string]any{"command": "echo failing; exit 3"}, CodeCommandFailed, 3, "failing\n"},
		{"a killed command", map[string]any{"command": "kill -KILL $$"}, CodeCommandFailed, 137, ""},
		{"in a folder of the project", map[string]any{"command": "pwd | sed 's#.*/##'", "cwd": "@project/web"}, "", 0, "web\n"},
		{"a relative folder", map[string]any{"command": "ls", "cwd": "docs"}, "", 0, "readme.md\n"},
		{"a skill's script", map[string]any{"command": "bash @skill/demo/scripts/hello.sh"}, "", 0, "hello from the skill\n"},
		{"a skill that is not active", map[string]any{"command": "cat @skill/other/x"}, CodeNotFound, 0, ""},
		{"a folder outside the project", map[string]any{"command": "ls", "cwd": "@project/../"}, CodeSandboxViolation, 0, ""},
		{"a folder of another root", map[string]any{"command": "ls", "cwd": "@state/logs/tool-results"}, CodeSandboxViolation, 0, ""},
		{"no command", map[string]any{"command": " "}, CodeBadArguments, 0, ""},
		{"a bad timeout", map[string]any{"command": "true", "timeout_seconds": 0}, CodeBadArguments, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, m := f.run(t, context.Background(), tc.args)
			if res.Code() != tc.wantCode {
				t.Fatalf("code %q, want %q: %s", res.Code(), tc.wantCode, res.Content)
			}
			if tc.wantCode != "" && tc.wantCode != CodeCommandFailed {
				return
			}
			if m["exitCode"] != tc.exit || m["output"] != tc.output || m["sandboxed"] != true || m["truncated"] != false {
				t.Fatalf("result %s", res.Content)
			}
			if _, ok := m["outputFile"]; ok {
				t.Fatalf("a short output has a file: %s", res.Content)
			}
		})
	}
	// The skill's folder is readable, not writable.
	res, _ := f.run(t, context.Background(), map[string]any{"command": "echo x > @skill/demo/scripts/new.sh"})
	if res.OK {
		t.Fatal("a skill's folder is writable")
	}
}

func TestShellRunWhereTheSandboxCannotStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-bwrap")
	cases := []struct {
		name      string
		without   bool
		wantCode  string
		wantFile  bool
		wantWords string
	}{
		{"refused", false, CodeSandboxUnavailable, false, "not installed"},
		{"run without the sandbox, as the project chose", true, "", true, "WITHOUT a sandbox"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newShellFixture(t, func(c *Config) { c.Shell.Bwrap = missing; c.Shell.RunWithoutSandbox = tc.without })
			res, m := f.run(t, context.Background(), map[string]any{"command": "echo ran > ran.txt"})
			if res.Code() != tc.wantCode || !strings.Contains(res.Content, tc.wantWords) {
				t.Fatalf("result %s", res.Content)
			}
			_, err := os.Stat(filepath.Join(f.project, "ran.txt"))
			if (err == nil) != tc.wantFile {
				t.Fatalf("ran = %v, want %v", err == nil, tc.wantFile)
			}
			if tc.without && (m["sandboxed"] != false || m["network"] != "on") {
				t.Fatalf("result %s", res.Content)
			}
		})
	}
}

func TestShellOutputKeepsHeadAndTail(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		want   string
		trunc  bool
	}{
		{"short", []string{"abc", "def"}, "abcdef", false},
		{"exactly full", []string{"0123", "4567", "89"}, "0123456789", false},
		{"one byte over", []string{"0123456789X"}, "0123\n… (1 bytes left out) …\n56789X", true},
		{"many small writes", strings.Split("abcdefghijklmnopqrstuvwxyz", ""), "abcd\n… (16 bytes left out) …\nuvwxyz", true},
		{"a write larger than the tail", []string{"ab", strings.Repeat("-", 50) + "tail!!"}, "ab--\n… (48 bytes left out) …\ntail!!", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &shellOutput{headLimit: 4, tailLimit: 6}
			for _, w := range tc.writes {
				if n, err := o.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatal(n, err)
				}
			}
			got, trunc, _ := o.text()
			if got != tc.want || trunc != tc.trunc {
				t.Fatalf("text = %q %v, want %q %v", got, trunc, tc.want, tc.trunc)
			}
		})
	}
}

func FuzzExpandAliases(f *testing.F) {
	for _, s := range []string{"ls @project/docs", "python3 @skill/demo/x.py @pkg/a", "echo a@project", "x=@project;y=@pkg", `"@skill/demo"`, "@skill/"} {
		f.Add(s)
	}
	dir := f.TempDir()
	h := NewHost(Config{Roots: Roots{Project: dir, Package: dir, Conversation: "c", Skills: func(_, name string) (string, bool) { return dir, name == "demo" }}})
	f.Fuzz(func(t *testing.T, cmd string) {
		out, ro, terr := h.expandAliases(cmd)
		if terr != nil {
			return
		}
		if aliasInCommand.MatchString(out) && !strings.Contains(dir, "@") {
			t.Fatalf("an alias is left in %q -> %q", cmd, out)
		}
		for _, r := range ro {
			if r != dir {
				t.Fatalf("read-only folder %q", r)
			}
		}
	})
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSocketPath(t *testing.T) {
	for in, want := range map[string]string{
		"unix:path=/run/user/1000/bus,guid=abc": "/run/user/1000/bus",
		"unix:///var/run/docker.sock":           "/var/run/docker.sock",
		"/tmp/ssh-XXXX/agent.123":               "/tmp/ssh-XXXX/agent.123",
		"/run/user/1000/gnupg/S.gpg-agent:0:1":  "/run/user/1000/gnupg/S.gpg-agent",
		"tcp://127.0.0.1:2375":                  "",
		"unix:abstract=/tmp/dbus-x":             "",
		"":                                      "",
		"/":                                     "",
	} {
		if got := socketPath(in); got != want {
			t.Errorf("socketPath(%q) = %q, want %q", in, got, want)
		}
	}
}
