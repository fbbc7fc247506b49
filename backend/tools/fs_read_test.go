package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

func shaOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestFSRead(t *testing.T) {
	hs := newHarness(t, nil)
	const readme = "# Readme\nline two\nline three\n"
	m := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md"})
	if m["content"] != readme || m["sha256"] != shaOf(readme) || m["totalLines"] != 3.0 || m["truncated"] != false ||
		m["path"] != "@project/docs/readme.md" || m["size"] != float64(len(readme)) {
		t.Fatalf("got %v", m)
	}
	// Through a symlink inside the root, and from the other roots.
	if m := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/link-in-file"}); m["content"] != readme {
		t.Fatalf("symlink read: %v", m)
	}
	hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@pkg/workflows/a.md"})
	hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@state/workflow.md"})
	if m := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@state/logs/tool-results/conv1/msg1.json"}); m["content"] != `{"output":"full"}` {
		t.Fatalf("tool result read: %v", m)
	}

	tests := []struct {
		start, end any
		content    string
		from, to   float64
	}{
		{2, 2, "line two\n", 2, 2},
		{2, nil, "line two\nline three\n", 2, 3},
		{nil, 1, "# Readme\n", 1, 1},
		{3, 99, "line three\n", 3, 3},
	}
	for _, tc := range tests {
		args := map[string]any{"path": "@project/docs/readme.md"}
		if tc.start != nil {
			args["startLine"] = tc.start
		}
		if tc.end != nil {
			args["endLine"] = tc.end
		}
		m := hs.mustOK(conversation.ToolFSRead, args)
		if m["content"] != tc.content || m["startLine"] != tc.from || m["endLine"] != tc.to || m["sha256"] != shaOf(readme) {
			t.Errorf("%v-%v: %v", tc.start, tc.end, m)
		}
	}
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md", "startLine": 4}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md", "startLine": 0}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md", "startLine": 3, "endLine": 2}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/docs/missing.md"}, CodeNotFound)
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md/x"}, CodeNotFound)
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/docs"}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/link-file-out"}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "/etc/passwd"}, CodeSandboxViolation)
}

func TestFSReadEdgeFiles(t *testing.T) {
	hs := newHarness(t, nil)
	p := hs.f.roots.Project
	testkit.WriteFile(t, filepath.Join(p, "empty.txt"), "")
	testkit.WriteFile(t, filepath.Join(p, "nolf.txt"), "a\nb")
	testkit.WriteFile(t, filepath.Join(p, "bin.dat"), "PK\x00\x01\x02")
	m := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/empty.txt"})
	if m["content"] != "" || m["totalLines"] != 0.0 {
		t.Fatalf("empty: %v", m)
	}
	hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/empty.txt", "startLine": 1})
	m = hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/nolf.txt", "startLine": 2})
	if m["content"] != "b" || m["totalLines"] != 2.0 {
		t.Fatalf("no final newline: %v", m)
	}
	m = hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/bin.dat"})
	if m["binary"] != true || m["content"] != "" || m["sha256"] != shaOf("PK\x00\x01\x02") {
		t.Fatalf("binary: %v", m)
	}
}

func TestFSReadLimits(t *testing.T) {
	const limit = 1000
	hs := newHarness(t, func(c *Config) { c.Policy.FS.MaxReadBytes = limit })
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "line %03d\n", i) // 9 bytes per line
	}
	big := b.String()
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "big.txt"), big)

	m := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/big.txt"})
	content := m["content"].(string)
	if m["truncated"] != true || len(content) > limit || !strings.HasSuffix(content, "\n") || !strings.HasPrefix(big, content) {
		t.Fatalf("preview: truncated=%v len=%d", m["truncated"], len(content))
	}
	if m["sha256"] != shaOf(big) || m["totalLines"] != 200.0 || m["endLine"] != float64(strings.Count(content, "\n")) {
		t.Fatalf("preview meta: %v", m)
	}
	hint := m["hint"].(string)
	if !strings.Contains(hint, "startLine/endLine") || !strings.Contains(hint, "@project/big.txt") {
		t.Fatalf("hint: %s", hint)
	}

	m = hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/big.txt", "startLine": 101, "endLine": 200})
	if m["content"] != big[900:] || m["truncated"] != false {
		t.Fatalf("range: %v", m)
	}
	e := hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/big.txt", "startLine": 1, "endLine": 150}, CodeReadLimit)
	if e["details"].(map[string]any)["maxReadBytes"] != float64(limit) {
		t.Fatalf("details: %v", e)
	}

	// One line longer than the limit: the preview is cut on a rune boundary.
	long := strings.Repeat("é", 2000)
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "long.txt"), long)
	m = hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/long.txt"})
	if c := m["content"].(string); m["truncated"] != true || len(c) == 0 || len(c) > limit || !strings.HasPrefix(long, c) {
		t.Fatalf("long line preview: %d bytes", len(c))
	}
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@project/long.txt", "startLine": 1, "endLine": 1}, CodeReadLimit)
}
