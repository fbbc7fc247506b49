package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

func matchesOf(t *testing.T, m map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, x := range m["matches"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func TestFSSearch(t *testing.T) {
	hs := newHarness(t, nil)
	p := hs.f.roots.Project
	testkit.WriteFile(t, filepath.Join(p, "src", "a.go"), "package a\n// TODO: one\nfunc A() {}\n// todo two\r\nend\n")
	testkit.WriteFile(t, filepath.Join(p, ".git", "config"), "TODO in git\n")
	testkit.WriteFile(t, filepath.Join(p, "bin", "blob"), "TODO\x00binary\n")
	testkit.WriteFile(t, filepath.Join(hs.f.outside, "secret.txt"), "TODO outside\n")

	m := hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project", "pattern": "(?i)todo", "before": 1, "after": 1})
	ms := matchesOf(t, m)
	if len(ms) != 2 || m["matchCount"] != 2.0 || m["truncated"] != false {
		t.Fatalf("matches: %v", m)
	}
	if ms[0]["path"] != "@project/src/a.go" || ms[0]["line"] != 2.0 || ms[0]["text"] != "// TODO: one" {
		t.Fatalf("first match: %v", ms[0])
	}
	if fmt.Sprint(ms[0]["before"]) != "[package a]" || fmt.Sprint(ms[0]["after"]) != "[func A() {}]" {
		t.Fatalf("context: %v", ms[0])
	}
	if ms[1]["text"] != "// todo two" || fmt.Sprint(ms[1]["after"]) != "[end]" {
		t.Fatalf("second match (CRLF trimmed): %v", ms[1])
	}
	if m["skippedBinary"] != 1.0 {
		t.Fatalf("binary not skipped: %v", m)
	}
	if strings.Contains(fmt.Sprint(m), "outside") {
		t.Fatal("search followed a symlink out of the root")
	}

	// A single file, and a symlinked file inside the root.
	m = hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project/docs/readme.md", "pattern": "^line"})
	if ms := matchesOf(t, m); len(ms) != 2 || ms[0]["path"] != "@project/docs/readme.md" || ms[1]["line"] != 3.0 {
		t.Fatalf("file search: %v", m)
	}
	m = hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project", "pattern": "^# Readme"})
	var paths []string
	for _, x := range matchesOf(t, m) {
		paths = append(paths, x["path"].(string))
	}
	if got := strings.Join(paths, ","); got != "@project/docs/readme.md,@project/link-in-file" {
		t.Fatalf("paths: %s", got)
	}
	// Searching .git explicitly is allowed.
	if ms := matchesOf(t, hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project/.git", "pattern": "TODO"})); len(ms) != 1 {
		t.Fatalf(".git explicit: %v", ms)
	}

	e := hs.mustFail(conversation.ToolFSSearch, map[string]any{"path": "@project", "pattern": "(unclosed"}, CodeBadArguments)
	if !strings.Contains(e["message"].(string), "invalid pattern") {
		t.Fatalf("message: %v", e["message"])
	}
	hs.mustFail(conversation.ToolFSSearch, map[string]any{"path": "@project"}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSSearch, map[string]any{"path": "@project", "pattern": "x", "before": -1}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSSearch, map[string]any{"path": "@project", "pattern": "x", "maxMatches": 0}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSSearch, map[string]any{"path": "@project/nope", "pattern": "x"}, CodeNotFound)
	hs.mustFail(conversation.ToolFSSearch, map[string]any{"path": "@project/link-out", "pattern": "x"}, CodeSandboxViolation)
}

func TestFSSearchLimits(t *testing.T) {
	hs := newHarness(t, nil)
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, "hit %d\n", i)
	}
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "hits.txt"), b.String())
	m := hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project/hits.txt", "pattern": "hit"})
	if len(matchesOf(t, m)) != defaultMaxMatches || m["truncated"] != true || m["hint"] == nil {
		t.Fatalf("default cap: %d %v", len(matchesOf(t, m)), m["truncated"])
	}
	m = hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project/hits.txt", "pattern": "hit", "maxMatches": 7})
	if len(matchesOf(t, m)) != 7 || m["truncated"] != true {
		t.Fatalf("maxMatches 7: %v", m)
	}
	m = hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project/hits.txt", "pattern": "hit", "maxMatches": 500})
	if len(matchesOf(t, m)) != 120 || m["truncated"] != false {
		t.Fatalf("all: %v", m["matchCount"])
	}
	long := strings.Repeat("z", 5000)
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "long.txt"), long+"\n")
	m = hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project/long.txt", "pattern": "z"})
	if txt := matchesOf(t, m)[0]["text"].(string); len(txt) > maxMatchLineBytes+4 || !strings.HasSuffix(txt, "…") {
		t.Fatalf("long line not clipped: %d", len(txt))
	}
}
