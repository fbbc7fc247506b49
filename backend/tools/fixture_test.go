package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"crewagent/backend/internal/testkit"
)

// fixture is a temp tree with the four roots, an outside folder and symlinks of every kind.
type fixture struct {
	base    string
	roots   Roots
	outside string
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

const stateDoc = "---\nschemaVersion: \"1.1\"\nworkflowType: demo\ncurrentNodeId: \"\"\nstepsCompleted: []\n---\n# Demo\n\nBody text.\n"

func newFixture(t testing.TB) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{base: base, outside: filepath.Join(base, "outside"), roots: Roots{
		Project:      filepath.Join(base, "project"),
		Package:      filepath.Join(base, "pkg"),
		State:        filepath.Join(base, "data", "runs", "r1", "state"),
		ToolResults:  filepath.Join(base, "data", "logs", "tool-results"),
		Conversation: "conv1",
	}}
	testkit.WriteFile(t, filepath.Join(f.outside, "secret.txt"), "top secret\n")
	testkit.WriteFile(t, filepath.Join(f.roots.Project, "docs", "readme.md"), "# Readme\nline two\nline three\n")
	testkit.WriteFile(t, filepath.Join(f.roots.Package, "workflows", "a.md"), "---\nnodeId: a\n---\n## Goal\n")
	testkit.WriteFile(t, filepath.Join(f.roots.State, StateFileName), stateDoc)
	testkit.WriteFile(t, filepath.Join(f.roots.State, "logs", "execution.jsonl"), "")
	testkit.WriteFile(t, filepath.Join(f.roots.ToolResults, "conv1", "msg1.json"), `{"output":"full"}`)

	p := f.roots.Project
	symlink(t, "docs", filepath.Join(p, "link-in"))
	symlink(t, "docs/readme.md", filepath.Join(p, "link-in-file"))
	symlink(t, ".", filepath.Join(p, "docs", "link-self"))
	symlink(t, filepath.Join(p, "docs"), filepath.Join(p, "link-abs-in"))
	symlink(t, "../outside", filepath.Join(p, "link-out"))
	symlink(t, "../outside/secret.txt", filepath.Join(p, "link-file-out"))
	symlink(t, f.outside, filepath.Join(p, "link-abs-out"))
	symlink(t, "/etc", filepath.Join(p, "link-etc"))
	symlink(t, "..", filepath.Join(p, "link-parent"))
	symlink(t, "../..", filepath.Join(p, "docs", "link-up"))
	symlink(t, "../pkg", filepath.Join(p, "link-pkg"))
	symlink(t, "../outside/missing", filepath.Join(p, "link-dangling"))
	symlink(t, "docs/missing.md", filepath.Join(p, "link-dangling-in"))
	symlink(t, "link-loop-b", filepath.Join(p, "link-loop-a"))
	symlink(t, "link-loop-a", filepath.Join(p, "link-loop-b"))
	symlink(t, "../outside", filepath.Join(f.roots.Package, "link-out"))
	symlink(t, "../../../../outside", filepath.Join(f.roots.State, "link-out"))
	symlink(t, "../../../../outside", filepath.Join(f.roots.ToolResults, "conv1", "link-out"))
	symlink(t, StateFileName, filepath.Join(f.roots.State, "alias.md"))
	return f
}

// syncBuffer is a concurrency-safe exec log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(t testing.TB) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("exec log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

type harness struct {
	t    *testing.T
	f    fixture
	h    *Host
	log  *syncBuffer
	made []string // OnArtifactWritten calls
	mu   sync.Mutex
}

func newHarness(t *testing.T, mutate func(*Config)) *harness {
	t.Helper()
	hs := &harness{t: t, f: newFixture(t), log: &syncBuffer{}}
	clock := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids atomic.Int64
	cfg := Config{
		Roots:  hs.f.roots,
		Policy: DefaultPolicy(),
		OnArtifactWritten: func(p string) error {
			hs.mu.Lock()
			hs.made = append(hs.made, p)
			hs.mu.Unlock()
			return nil
		},
		ExecLog: hs.log,
		Now:     func() time.Time { return clock },
		NewID:   func() string { return fmt.Sprintf("w%d", ids.Add(1)) },
	}
	if mutate != nil {
		mutate(&cfg)
	}
	hs.h = NewHost(cfg)
	return hs
}

// call runs a tool and checks the result is well-formed JSON that leaks no host path.
func (hs *harness) call(name string, args any) (Result, map[string]any) {
	hs.t.Helper()
	var raw string
	switch a := args.(type) {
	case string:
		raw = a
	default:
		b, err := json.Marshal(a)
		if err != nil {
			hs.t.Fatal(err)
		}
		raw = string(b)
	}
	res := hs.h.Call(context.Background(), name, raw)
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Content), &m); err != nil {
		hs.t.Fatalf("%s result is not JSON: %v\n%s", name, err, res.Content)
	}
	if m["ok"] != res.OK {
		hs.t.Fatalf("ok field %v != Result.OK %v", m["ok"], res.OK)
	}
	if strings.Contains(res.Content, hs.f.base) {
		hs.t.Fatalf("%s result leaks a host path: %s", name, res.Content)
	}
	if !res.OK {
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != res.Code() || e["message"] == "" {
			hs.t.Fatalf("malformed error result: %s", res.Content)
		}
	}
	return res, m
}

// mustOK fails unless the call succeeded.
func (hs *harness) mustOK(name string, args any) map[string]any {
	hs.t.Helper()
	res, m := hs.call(name, args)
	if !res.OK {
		hs.t.Fatalf("%s %v: %s", name, args, res.Content)
	}
	return m
}

// mustFail fails unless the call failed with code.
func (hs *harness) mustFail(name string, args any, code string) map[string]any {
	hs.t.Helper()
	res, m := hs.call(name, args)
	if res.OK || res.Code() != code {
		hs.t.Fatalf("%s %v: want %s, got %s", name, args, code, res.Content)
	}
	return m["error"].(map[string]any)
}

func (hs *harness) artifacts() []string {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return append([]string(nil), hs.made...)
}

func osReadFileMaybe(p string) ([]byte, error) { return os.ReadFile(p) }
