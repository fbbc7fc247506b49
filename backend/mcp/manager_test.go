//go:build linux

package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/errs"
	"crewagent/backend/internal/testkit"
)

// newTestManager opens a manager with short timeouts on servers; mod adjusts the options.
func newTestManager(t *testing.T, servers []ServerConfig, mod func(*Options)) *Manager {
	t.Helper()
	home := t.TempDir()
	opts := Options{
		Home: home, ProjectID: "proj", ProjectRoot: t.TempDir(), Servers: servers,
		Approvals:        NewApprovals(home, "proj"),
		HandshakeTimeout: 15 * time.Second, CallTimeout: 15 * time.Second, PingTimeout: time.Second,
		RestartBackoff: 50 * time.Millisecond, MaxRestartBackoff: 400 * time.Millisecond,
		StopGrace: 300 * time.Millisecond,
	}
	if mod != nil {
		mod(&opts)
	}
	m := NewManager(opts)
	t.Cleanup(func() { m.Close() })
	return m
}

func toolNames(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.WireName)
	}
	return out
}

func mustStatus(t *testing.T, m *Manager, name string) Status {
	t.Helper()
	st, ok := m.Status(name)
	if !ok {
		t.Fatalf("no status for %s", name)
	}
	return st
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func wantCode(t *testing.T, r Result, code string) {
	t.Helper()
	if r.OK || r.Code != code {
		t.Fatalf("got ok=%v code=%q (%s), want code %s", r.OK, r.Code, r.Content, code)
	}
	var v struct {
		OK    bool `json:"ok"`
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(r.Content), &v); err != nil || v.OK || v.Error.Code != code || v.Error.Message == "" {
		t.Fatalf("content %s is not an ok:false result with code %s", r.Content, code)
	}
}

func TestManagerStartsLazilyListsAndCalls(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg := testServerConfig(t, "t.one", "basic", map[string]string{"MCPTEST_STARTS": starts})
	var changes atomic.Int32
	m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.OnChange = func(Status) { changes.Add(1) } })

	if st := mustStatus(t, m, "t.one"); st.State != StateStopped || st.Transport != TransportStdio {
		t.Fatalf("before use: %+v", st)
	}
	if got := lines(t, starts); len(got) != 0 {
		t.Fatalf("a server started before it was needed: %v", got)
	}
	ctx := context.Background()
	tools := m.Tools(ctx, nil)
	names := toolNames(tools)
	for _, want := range []string{"mcp__t_one__echo", "mcp__t_one__fail", "mcp__t_one__crash"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}
	var echo Tool
	for _, tl := range tools {
		if tl.Name == "echo" {
			echo = tl
		}
	}
	if echo.Server != "t.one" || echo.Description != "Echoes its text" || !strings.Contains(string(echo.InputSchema), `"type":"object"`) {
		t.Fatalf("echo tool: %+v", echo)
	}
	st := mustStatus(t, m, "t.one")
	if st.State != StateReady || st.ToolCount != len(tools) || st.PID == 0 || st.ServerName != "testserver" || st.Summary() != fmt.Sprintf("ready (%d tools)", len(tools)) {
		t.Fatalf("after start: %+v", st)
	}
	if changes.Load() < 2 {
		t.Fatalf("OnChange called %d times, want starting and ready", changes.Load())
	}

	r := m.Call(ctx, "mcp__t_one__echo", []byte(`{"text":"hi"}`), nil)
	if !r.OK || r.Text != "echo: hi" || r.Content != `{"ok":true,"text":"echo: hi"}` {
		t.Fatalf("echo: %+v", r)
	}
	r = m.Call(ctx, "mcp__t_one__fail", nil, nil)
	wantCode(t, r, CodeToolError)
	if r.Message != "the disk is full" {
		t.Fatalf("tool error message %q", r.Message)
	}
	wantCode(t, m.Call(ctx, "mcp__t_one__nope", nil, nil), CodeToolNotAvailable)
	wantCode(t, m.Call(ctx, "mcp__other__echo", nil, nil), CodeToolNotAvailable)
	wantCode(t, m.Call(ctx, "fs.read", nil, nil), CodeToolNotAvailable)
	wantCode(t, m.Call(ctx, "mcp__t_one__echo", []byte(`[1]`), nil), CodeBadArguments)
	wantCode(t, m.Call(ctx, "mcp__t_one__echo", []byte(`{"text":`), nil), CodeBadArguments)
	// The policy of the caller narrows: a server it does not allow is refused.
	wantCode(t, m.Call(ctx, "mcp__t_one__echo", []byte(`{}`), &CallOptions{Servers: []string{"other"}}), CodeToolNotAvailable)
	if r := m.Call(ctx, "mcp__t_one__echo", []byte(`{}`), &CallOptions{Servers: []string{"t.one"}}); !r.OK {
		t.Fatalf("allowed call: %s", r.Content)
	}
	if got := lines(t, starts); len(got) != 1 {
		t.Fatalf("server started %d times, want once", len(got))
	}
	pid := st.PID
	m.Close()
	waitGone(t, 5*time.Second, pid, pid)
	if st := mustStatus(t, m, "t.one"); st.State != StateStopped {
		t.Fatalf("after Close: %+v", st)
	}
	wantCode(t, m.Call(ctx, "mcp__t_one__echo", nil, nil), CodeServerFailed)
}

func TestCrashMidCallIsReportedAndRestartedWithBackoff(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	secret := "sk-crash-secret-0123456789"
	cfg := testServerConfig(t, "crashy", "basic", map[string]string{"MCPTEST_STARTS": starts, "SECRET_TOKEN": secret})
	m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.RestartBackoff = 200 * time.Millisecond })
	ctx := context.Background()
	if len(m.Tools(ctx, nil)) == 0 {
		t.Fatalf("no tools: %+v", mustStatus(t, m, "crashy"))
	}
	pid := mustStatus(t, m, "crashy").PID

	r := m.Call(ctx, "mcp__crashy__crash", nil, nil)
	wantCode(t, r, CodeServerFailed)
	if !strings.Contains(r.Message, "exited with status 3") || !strings.Contains(r.Message, "panic: boom") {
		t.Fatalf("crash message: %q", r.Message)
	}
	st := mustStatus(t, m, "crashy")
	if st.State != StateFailed || !strings.Contains(st.Error, "exited with status 3") || !strings.Contains(st.StderrTail, "panic: boom") || st.Failures != 1 || st.RetryAt == nil {
		t.Fatalf("status after crash: %+v", st)
	}
	// The window says the failure from its template, whose values are scrubbed too.
	detail, _ := st.ErrorParams["detail"].(string)
	if st.ErrorKey != "mcp.stoppedUnexpectedly" || !strings.Contains(detail, "exited with status 3") || st.Error != errs.Text(st.ErrorKey, st.ErrorParams) {
		t.Fatalf("the failure's template: %q %v for %q", st.ErrorKey, st.ErrorParams, st.Error)
	}
	for _, s := range []string{r.Content, st.Error, st.StderrTail, detail} {
		if strings.Contains(s, secret) {
			t.Fatalf("the secret leaked: %q", s)
		}
	}
	if !strings.Contains(st.StderrTail, "••••") {
		t.Fatalf("stderr tail %q does not show the redaction", st.StderrTail)
	}
	log, err := m.LogTail("crashy", 0)
	if err != nil || !strings.Contains(log, "panic: boom") {
		t.Fatalf("log tail %q, %v", log, err)
	}
	waitGone(t, 5*time.Second, pid, pid)
	// A failed server keeps offering its tools: the next call restarts it.
	if names := toolNames(m.Tools(ctx, nil)); !slices.Contains(names, "mcp__crashy__echo") {
		t.Fatalf("tools of the crashed server: %v", names)
	}
	if got := st.RetryAt.Sub(*st.FailedAt); got != 200*time.Millisecond {
		t.Fatalf("backoff %s, want 200ms", got)
	}
	r = m.Call(ctx, "mcp__crashy__echo", []byte(`{"text":"again"}`), nil)
	if !r.OK || r.Text != "echo: again" {
		t.Fatalf("call after the crash: %s", r.Content)
	}
	if time.Now().Before(*st.RetryAt) {
		t.Fatal("restarted before the backoff was over")
	}
	st = mustStatus(t, m, "crashy")
	if st.State != StateReady || st.Failures != 0 || st.PID == pid || st.Error != "" {
		t.Fatalf("status after restart: %+v", st)
	}
	if n := len(lines(t, starts)); n != 2 {
		t.Fatalf("started %d times, want 2", n)
	}
}

func TestFailingServerBacksOffExponentiallyAndGivesUp(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg := testServerConfig(t, "broken", "exit", map[string]string{"MCPTEST_STARTS": starts, "SECRET_TOKEN": "tok-should-not-show"})
	m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) {
		o.MaxRestarts = 2
		o.RestartBackoff = 300 * time.Millisecond
		o.MaxRestartBackoff = 2 * time.Second
	})
	ctx := context.Background()
	var gaps []time.Duration
	for i := 1; i <= 3; i++ {
		if tools := m.Tools(ctx, nil); len(tools) != 0 {
			t.Fatalf("tools of a broken server: %v", tools)
		}
		st := mustStatus(t, m, "broken")
		if st.State != StateFailed || st.Failures != i || !strings.Contains(st.Error, "exited with status 1") || !strings.Contains(st.StderrTail, "cannot open the database") {
			t.Fatalf("attempt %d: %+v", i, st)
		}
		if strings.Contains(st.StderrTail, "tok-should-not-show") {
			t.Fatal("secret in the stderr tail")
		}
		if i <= 2 {
			gaps = append(gaps, st.RetryAt.Sub(*st.FailedAt))
			// Not yet due: Tools does not wait for it and starts nothing.
			m.Tools(ctx, nil)
			if n := len(lines(t, starts)); n != i {
				t.Fatalf("started %d times during the backoff, want %d", n, i)
			}
			time.Sleep(time.Until(*st.RetryAt) + 10*time.Millisecond)
		} else if !st.GaveUp || st.RetryAt != nil {
			t.Fatalf("after %d failures: %+v", i, st)
		}
	}
	if !slices.Equal(gaps, []time.Duration{300 * time.Millisecond, 600 * time.Millisecond}) {
		t.Fatalf("backoffs %v, want 300ms then 600ms", gaps)
	}
	r := m.Call(ctx, "mcp__broken__anything", nil, nil)
	wantCode(t, r, CodeServerFailed)
	if !strings.Contains(r.Message, "not restarted any more") {
		t.Fatalf("message %q", r.Message)
	}
	if n := len(lines(t, starts)); n != 3 {
		t.Fatalf("started %d times, want 3 (then given up)", n)
	}
	if err := m.Restart(ctx, "broken"); err == nil || !strings.Contains(err.Error(), "exited with status 1") {
		t.Fatalf("Restart: %v", err)
	}
	if n := len(lines(t, starts)); n != 4 {
		t.Fatalf("Restart did not try again: %d starts", n)
	}
	if got := []time.Duration{m.backoff(1), m.backoff(2), m.backoff(3), m.backoff(4), m.backoff(5)}; !slices.Equal(got, []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond, 2 * time.Second, 2 * time.Second}) {
		t.Fatalf("backoff sequence %v", got)
	}
}

func TestHungCallTimesOutAndIsCancelledOnTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testServerConfig(t, "hang", "basic", nil)
	m := newTestManager(t, []ServerConfig{cfg}, nil)
	ctx := context.Background()
	marker := filepath.Join(dir, "timeout")
	args, _ := json.Marshal(map[string]string{"marker": marker})
	t0 := time.Now()
	r := m.Call(ctx, "mcp__hang__sleep", args, &CallOptions{Timeout: 300 * time.Millisecond})
	wantCode(t, r, CodeTimeout)
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("the timed-out call took %s", d)
	}
	testkit.Until(t, 5*time.Second, "the server to see the cancellation", func() bool { return len(lines(t, marker)) == 1 })

	// The caller cancelling works the same way.
	marker2 := filepath.Join(dir, "cancel")
	args2, _ := json.Marshal(map[string]string{"marker": marker2})
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(200*time.Millisecond, cancel)
	wantCode(t, m.Call(cctx, "mcp__hang__sleep", args2, nil), CodeCancelled)
	testkit.Until(t, 5*time.Second, "the server to see the caller's cancellation", func() bool { return len(lines(t, marker2)) == 1 })

	// Neither wedged the connection: the server still answers, pings included.
	for i := range 3 {
		if r := m.Call(ctx, "mcp__hang__echo", []byte(`{"text":"still here"}`), &CallOptions{Timeout: 2 * time.Second}); !r.OK {
			t.Fatalf("call %d after the timeout: %s", i, r.Content)
		}
	}
	time.Sleep(1500 * time.Millisecond) // past the health check's ping timeout
	if st := mustStatus(t, m, "hang"); st.State != StateReady || st.Failures != 0 {
		t.Fatalf("a server that answered its ping was marked: %+v", st)
	}
}

func TestFrozenServerIsKilledAndRestarted(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, []ServerConfig{testServerConfig(t, "frozen", "basic", nil)}, func(o *Options) { o.PingTimeout = 300 * time.Millisecond })
	ctx := context.Background()
	m.Tools(ctx, nil)
	pid := mustStatus(t, m, "frozen").PID
	wantCode(t, m.Call(ctx, "mcp__frozen__freeze", nil, &CallOptions{Timeout: 300 * time.Millisecond}), CodeTimeout)
	testkit.Until(t, 5*time.Second, "the frozen server to be marked failed", func() bool { return mustStatus(t, m, "frozen").State == StateFailed })
	if st := mustStatus(t, m, "frozen"); !strings.Contains(st.Error, "stopped answering") {
		t.Fatalf("status: %+v", st)
	}
	waitGone(t, 5*time.Second, pid, pid)
	if r := m.Call(ctx, "mcp__frozen__echo", []byte(`{"text":"back"}`), nil); !r.OK {
		t.Fatalf("after restart: %s", r.Content)
	}
}

func TestSlowHandshakeTimesOut(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg := testServerConfig(t, "slow", "slow", map[string]string{"MCPTEST_DELAY": "1h", "MCPTEST_STARTS": starts})
	m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.HandshakeTimeout = 400 * time.Millisecond })
	t0 := time.Now()
	if tools := m.Tools(context.Background(), nil); len(tools) != 0 {
		t.Fatal("tools from a server that never answered")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("Tools took %s", d)
	}
	st := mustStatus(t, m, "slow")
	if st.State != StateFailed || st.Error != "did not complete the handshake within 400ms" {
		t.Fatalf("status: %+v", st)
	}
	pids := lines(t, starts)
	if len(pids) != 1 {
		t.Fatalf("starts %v", pids)
	}
	pid, _ := strconv.Atoi(pids[0])
	waitGone(t, 5*time.Second, pid, pid)

	// A server that is only slow starts with a longer timeout.
	cfg2 := testServerConfig(t, "slowish", "slow", map[string]string{"MCPTEST_DELAY": "300ms"})
	m2 := newTestManager(t, []ServerConfig{cfg2}, func(o *Options) { o.HandshakeTimeout = 10 * time.Second })
	if len(m2.Tools(context.Background(), nil)) == 0 {
		t.Fatalf("slow server: %+v", mustStatus(t, m2, "slowish"))
	}
}

// A server writing without end to stderr and then one endless line to stdout: memory stays
// bounded, its log stays under the cap, and the server is stopped as failed.
func TestFloodingServerIsBounded(t *testing.T) {
	const logCap = 256 << 10
	m := newTestManager(t, []ServerConfig{testServerConfig(t, "flood", "basic", nil)}, func(o *Options) {
		o.MaxLogBytes = logCap
		o.MaxMessageBytes = 1 << 20
	})
	ctx := context.Background()
	m.Tools(ctx, nil)
	pid := mustStatus(t, m, "flood").PID
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := m.Call(ctx, "mcp__flood__flood", []byte(`{"stderrMB":48,"stdoutMB":32}`), nil)
	runtime.ReadMemStats(&after)
	wantCode(t, r, CodeServerFailed)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 24<<20 {
		t.Fatalf("reading 80 MiB of output allocated %d MiB", alloc>>20)
	}
	st := mustStatus(t, m, "flood")
	if st.State != StateFailed || !strings.Contains(st.Error, "exceeded") {
		t.Fatalf("status: %+v", st)
	}
	t.Logf("error: %s; allocated %d KiB", st.Error, (after.TotalAlloc-before.TotalAlloc)>>10)
	if len(st.StderrTail) > tailBytes {
		t.Fatalf("stderr tail of %d bytes", len(st.StderrTail))
	}
	waitGone(t, 5*time.Second, pid, pid)
	for _, p := range []string{st.LogPath, st.LogPath + ".1"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > logCap {
			t.Fatalf("%s has %d bytes, over the cap", p, fi.Size())
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s has mode %v", p, fi.Mode().Perm())
		}
	}
}

func TestServerPrintingABannerOnStdoutWorks(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, []ServerConfig{testServerConfig(t, "chatty", "banner", nil)}, nil)
	if len(m.Tools(context.Background(), nil)) == 0 {
		t.Fatalf("status: %+v", mustStatus(t, m, "chatty"))
	}
	if r := m.Call(context.Background(), "mcp__chatty__echo", []byte(`{"text":"x"}`), nil); !r.OK {
		t.Fatal(r.Content)
	}
	log, _ := m.LogTail("chatty", 0)
	if !strings.Contains(log, "[stdout] Example server v1 starting on stdio...\n") || !strings.Contains(log, "testserver ready") {
		t.Fatalf("log: %q", log)
	}
}

func TestToolListIsRefreshedWhenTheServerSaysItChanged(t *testing.T) {
	t.Parallel()
	changed := make(chan Status, 64)
	m := newTestManager(t, []ServerConfig{testServerConfig(t, "grow", "basic", nil)}, func(o *Options) {
		o.OnChange = func(s Status) { changed <- s }
	})
	ctx := context.Background()
	n := len(m.Tools(ctx, nil))
	if r := m.Call(ctx, "mcp__grow__add_tool", nil, nil); !r.OK {
		t.Fatal(r.Content)
	}
	testkit.Until(t, 5*time.Second, "the new tool", func() bool { return len(m.ServerTools("grow")) == n+1 })
	if r := m.Call(ctx, "mcp__grow__extra", nil, nil); !r.OK || r.Text != "extra" {
		t.Fatalf("the new tool: %s", r.Content)
	}
	if st := mustStatus(t, m, "grow"); st.ToolCount != n+1 {
		t.Fatalf("status: %+v", st)
	}
	found := false
	for len(changed) > 0 {
		if s := <-changed; s.ToolCount == n+1 {
			found = true
		}
	}
	if !found {
		t.Fatal("no status change announced the new tool")
	}
}

func TestProjectServerStartsOnlyOnceApproved(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg := testServerConfig(t, "proj", "basic", map[string]string{"MCPTEST_STARTS": starts})
	cfg.Source = SourceProject
	var m *Manager
	m = newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.StartOnOpen = true })
	ctx := context.Background()
	time.Sleep(300 * time.Millisecond) // StartOnOpen would have started it by now
	if tools := m.Tools(ctx, nil); len(tools) != 0 {
		t.Fatalf("tools of an unapproved server: %v", toolNames(tools))
	}
	if tools := m.Tools(ctx, []string{"proj"}); len(tools) != 0 {
		t.Fatal("tools of an unapproved server, asked by name")
	}
	r := m.Call(ctx, "mcp__proj__echo", nil, nil)
	wantCode(t, r, CodeNotApproved)
	if !strings.Contains(r.Message, "crewagent mcp approve proj") {
		t.Fatalf("message %q", r.Message)
	}
	if err := m.Restart(ctx, "proj"); err == nil {
		t.Fatal("Restart started an unapproved server")
	}
	if st := mustStatus(t, m, "proj"); st.State != StatePendingApproval || st.ApprovalChanged || st.Summary() != "pending approval" {
		t.Fatalf("status: %+v", st)
	}
	if m.Runnable() != nil {
		t.Fatalf("runnable: %v", m.Runnable())
	}
	if got := lines(t, starts); len(got) != 0 {
		t.Fatalf("an unapproved server was started: %v", got)
	}

	if err := m.Approve("proj"); err != nil {
		t.Fatal(err)
	}
	if r := m.Call(ctx, "mcp__proj__echo", []byte(`{"text":"ok"}`), nil); !r.OK {
		t.Fatal(r.Content)
	}
	if got := lines(t, starts); len(got) != 1 {
		t.Fatalf("starts after approval: %v", got)
	}

	// The project edits the server: it stops and needs a new approval.
	edited := cfg.Clone()
	edited.Args = []string{"--changed"}
	m.Reload([]ServerConfig{edited})
	st := mustStatus(t, m, "proj")
	if st.State != StatePendingApproval || !st.ApprovalChanged {
		t.Fatalf("after the edit: %+v", st)
	}
	wantCode(t, m.Call(ctx, "mcp__proj__echo", nil, nil), CodeNotApproved)
	pid, _ := strconv.Atoi(lines(t, starts)[0])
	waitGone(t, 5*time.Second, pid, pid)
	if err := m.Approve("proj"); err != nil {
		t.Fatal(err)
	}
	testkit.Until(t, 10*time.Second, "the start at approval", func() bool { return mustStatus(t, m, "proj").State == StateReady })
	if err := m.Revoke("proj"); err != nil {
		t.Fatal(err)
	}
	if st := mustStatus(t, m, "proj"); st.State != StatePendingApproval {
		t.Fatalf("after Revoke: %+v", st)
	}
	if err := m.Approve("nope"); err == nil {
		t.Fatal("approved a server that does not exist")
	}
}

func TestStartOnOpenStartsEnabledServers(t *testing.T) {
	t.Parallel()
	on := testServerConfig(t, "on", "basic", nil)
	off := testServerConfig(t, "off", "basic", nil)
	off.Disabled = true
	m := newTestManager(t, []ServerConfig{on, off}, func(o *Options) { o.StartOnOpen = true })
	testkit.Until(t, 10*time.Second, "the server to start at open", func() bool { return mustStatus(t, m, "on").State == StateReady })
	if st := mustStatus(t, m, "off"); st.State != StateDisabled || st.Summary() != "disabled" {
		t.Fatalf("disabled server: %+v", st)
	}
	wantCode(t, m.Call(context.Background(), "mcp__off__echo", nil, nil), CodeDisabled)
	if got := m.Runnable(); !slices.Equal(got, []string{"on"}) {
		t.Fatalf("runnable %v", got)
	}
}

func TestReloadKeepsUnchangedServersRunning(t *testing.T) {
	t.Parallel()
	a := testServerConfig(t, "a", "basic", nil)
	b := testServerConfig(t, "b", "basic", nil)
	m := newTestManager(t, []ServerConfig{a, b}, nil)
	ctx := context.Background()
	m.Tools(ctx, nil)
	pidA, pidB := mustStatus(t, m, "a").PID, mustStatus(t, m, "b").PID
	b2 := b.Clone()
	b2.Env["X"] = "1"
	c := testServerConfig(t, "c", "basic", nil)
	m.Reload([]ServerConfig{a, b2, c})
	if st := mustStatus(t, m, "a"); st.State != StateReady || st.PID != pidA {
		t.Fatalf("unchanged server: %+v", st)
	}
	if st := mustStatus(t, m, "b"); st.State != StateStopped {
		t.Fatalf("changed server: %+v", st)
	}
	waitGone(t, 5*time.Second, pidB, pidB)
	m.Reload([]ServerConfig{c})
	if _, ok := m.Status("a"); ok {
		t.Fatal("a removed server is still there")
	}
	waitGone(t, 5*time.Second, pidA, pidA)
	if len(m.Tools(ctx, nil)) == 0 {
		t.Fatal("the new server has no tools")
	}
}

func TestConcurrentCallsShareOneServer(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	m := newTestManager(t, []ServerConfig{testServerConfig(t, "busy", "basic", map[string]string{"MCPTEST_STARTS": starts})}, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := fmt.Sprintf("echo: %d", i)
			r := m.Call(context.Background(), "mcp__busy__echo", []byte(fmt.Sprintf(`{"text":%d}`, i)), nil)
			if !r.OK || r.Text != want {
				errs <- r.Content
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := len(lines(t, starts)); n != 1 {
		t.Fatalf("40 concurrent first calls started the server %d times", n)
	}
}

func TestCloseLeavesNoProcessBehind(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, []ServerConfig{testServerConfig(t, "stubborn", "immortal", nil)}, nil)
	ctx := context.Background()
	m.Tools(ctx, nil)
	leader := mustStatus(t, m, "stubborn").PID
	server := m.Call(ctx, "mcp__stubborn__pid", nil, nil)
	child := m.Call(ctx, "mcp__stubborn__spawn", nil, nil)
	if !server.OK || !child.OK {
		t.Fatal(server.Content, child.Content)
	}
	serverPID, _ := strconv.Atoi(server.Text)
	childPID, _ := strconv.Atoi(child.Text)
	if !alive(serverPID) || !alive(childPID) {
		t.Fatal("the processes to watch are not running")
	}
	if _, g, _ := procStat(childPID); g != leader {
		t.Fatalf("the grandchild is in group %d, not the server's %d", g, leader)
	}
	pending := make(chan Result, 1)
	go func() { pending <- m.Call(ctx, "mcp__stubborn__sleep", []byte(`{}`), nil) }()
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	m.Close()
	// The server ignores the end of stdin and SIGTERM; Close still ends it (SIGKILL).
	waitGone(t, time.Second, leader, leader, serverPID, childPID)
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("Close took %s", d)
	}
	select {
	case r := <-pending:
		wantCode(t, r, CodeServerFailed)
		if !strings.Contains(r.Message, "the project was closed") {
			t.Fatalf("the call under way ended with %q", r.Message)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call under way did not end with Close")
	}
}

// A crewagent stand-in (this test binary in parent mode) opens a manager, starts a server
// that ignores stdin EOF and SIGTERM and has it start a child; then the stand-in is killed
// with SIGKILL. The server, its child and its group must be gone.
func TestNoOrphansAfterParentDeath(t *testing.T) {
	for _, session := range []bool{false, true} {
		t.Run(fmt.Sprintf("grandchild in a session of its own %v", session), func(t *testing.T) {
			t.Parallel()
			for i := 0; i < 3; i++ {
				noOrphansAfterParentDeath(t, session)
			}
		})
	}
}

func noOrphansAfterParentDeath(t *testing.T, session bool) {
	exe, _ := os.Executable()
	child, _ := json.Marshal(testServerConfig(t, "x", "immortal", nil))
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), testServerEnv+"=parent", "MCPTEST_HOME="+t.TempDir(), "MCPTEST_CHILD="+string(child))
	if session {
		cmd.Env = append(cmd.Env, "MCPTEST_SESSION=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group: killing it touches nothing of ours
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the stand-in did not report its server: %v; stderr: %s", err, stderr.String())
	}
	var leader, server, grandchild int
	if _, err := fmt.Sscan(line, &leader, &server, &grandchild); err != nil {
		t.Fatalf("bad report %q: %v", line, err)
	}
	for _, p := range []int{leader, server, grandchild} {
		if !alive(p) {
			t.Fatalf("process %d is not running before the stand-in dies", p)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, 5*time.Second, leader, leader, server, grandchild)
}

func TestStartProblemsAreReportedWithoutAProcess(t *testing.T) {
	t.Parallel()
	missing := ServerConfig{Name: "missing", Source: SourceSettings, Command: "no-such-mcp-server-xyz"}
	badCwd := testServerConfig(t, "badcwd", "basic", nil)
	badCwd.Cwd = "does/not/exist"
	relCwd := testServerConfig(t, "relcwd", "basic", nil)
	relCwd.Cwd = "sub"
	defCwd := testServerConfig(t, "defcwd", "basic", nil)
	refused := ServerConfig{Name: "refused", Source: SourceSettings, URL: "http://127.0.0.1:1/mcp?key=url-secret-0123456789"}
	var root string
	m := newTestManager(t, []ServerConfig{missing, badCwd, relCwd, defCwd, refused}, func(o *Options) {
		root = o.ProjectRoot
		os.Mkdir(filepath.Join(root, "sub"), 0o755)
	})
	ctx := context.Background()
	m.Tools(ctx, nil)
	for name, want := range map[string]string{
		"missing": `command "no-such-mcp-server-xyz" was not found on the PATH`,
		"badcwd":  "the working folder " + filepath.Join(root, "does/not/exist") + " does not exist",
		"refused": "connection refused",
	} {
		st := mustStatus(t, m, name)
		if st.State != StateFailed || !strings.Contains(st.Error, want) {
			t.Errorf("%s: %+v", name, st)
		}
		if strings.Contains(st.Error, "url-secret-0123456789") || strings.Contains(st.Config.URL, "url-secret") {
			t.Errorf("%s shows the URL's secret: %q %q", name, st.Error, st.Config.URL)
		}
	}
	for name, want := range map[string]string{"relcwd": filepath.Join(root, "sub"), "defcwd": root} {
		r := m.Call(ctx, "mcp__"+name+"__cwd", nil, nil)
		if !r.OK || r.Text != want {
			t.Errorf("%s runs in %q, want %q", name, r.Text, want)
		}
	}
	r := m.Call(ctx, "mcp__missing__x", nil, &CallOptions{})
	wantCode(t, r, CodeServerFailed)
	if !strings.Contains(r.Message, "was not found on the PATH") {
		t.Fatalf("message %q", r.Message)
	}
}

// Calls, tool listings, stops and restarts of one server at the same time: no panic, no
// deadlock, every call ends, and Close leaves no process behind.
func TestConcurrentStopsRestartsAndCalls(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	m := newTestManager(t, []ServerConfig{testServerConfig(t, "churn", "basic", map[string]string{"MCPTEST_STARTS": starts})},
		func(o *Options) { o.StopGrace = 50 * time.Millisecond })
	ctx := context.Background()
	deadline := time.Now().Add(1500 * time.Millisecond)
	var wg sync.WaitGroup
	var ok, failed atomic.Int32
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				switch g % 3 {
				case 0, 1:
					if r := m.Call(ctx, "mcp__churn__echo", []byte(`{"text":"x"}`), &CallOptions{Timeout: 5 * time.Second}); r.OK {
						ok.Add(1)
					} else {
						failed.Add(1)
						if r.Code != CodeServerFailed {
							t.Errorf("unexpected failure: %s", r.Content)
						}
					}
				case 2:
					if g == 2 {
						m.Stop("churn")
					} else {
						m.Tools(ctx, nil)
					}
					time.Sleep(30 * time.Millisecond)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			_ = m.Restart(ctx, "churn")
			time.Sleep(70 * time.Millisecond)
		}
	}()
	wg.Wait()
	if ok.Load() == 0 {
		t.Fatalf("no call succeeded (%d failed)", failed.Load())
	}
	m.Close()
	var pids []int
	for _, l := range lines(t, starts) {
		p, _ := strconv.Atoi(l)
		pids = append(pids, p)
	}
	waitGone(t, 5*time.Second, -1, pids...)
	t.Logf("%d calls succeeded, %d failed, %d starts", ok.Load(), failed.Load(), len(pids))
}

func TestStatusAndToolsEncodeForTheUI(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "ui", "basic", map[string]string{"API_TOKEN": "tok-ui-0123456789"})
	m := newTestManager(t, []ServerConfig{cfg}, nil)
	tools := m.Tools(context.Background(), nil)
	b, err := json.Marshal(struct {
		Statuses []Status `json:"statuses"`
		Tools    []Tool   `json:"tools"`
	}{m.Statuses(), tools})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"name":"ui"`, `"state":"ready"`, `"transport":"stdio"`, `"config":{"command":`, `"API_TOKEN":"••••6789"`,
		`"wireName":"mcp__ui__echo"`, `"inputSchema":{"type":"object"}`} {
		if !strings.Contains(s, want) {
			t.Fatalf("%s lacks %s", s, want)
		}
	}
	if strings.Contains(s, "tok-ui-0123456789") {
		t.Fatal("the secret is in the JSON")
	}
}
