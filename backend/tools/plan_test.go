package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Plan works out what a call would change without changing anything.
func TestPlan(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "doc.md"), []byte("---\ntitle: a\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewHost(Config{Roots: Roots{Project: root}, Policy: DefaultPolicy()})
	tests := []struct {
		name, tool, args string
		paths            []string
		existed          bool
		newContent       string
		command, cwd     string
		problem          string
	}{
		{name: "a new file", tool: "fs.write", args: `{"path":"@project/new.md","content":"hi"}`, paths: []string{"@project/new.md"}, newContent: "hi"},
		{name: "a path that climbs", tool: "fs.write", args: `{"path":"@project/docs/../new.md","content":"hi"}`, problem: ".."},
		{name: "a file replaced (wire name)", tool: "fs_write", args: `{"path":"@project/doc.md","content":"x"}`, paths: []string{"@project/doc.md"}, existed: true, newContent: "x"},
		{name: "a frontmatter patch", tool: "fs.apply_patch", args: `{"path":"@project/doc.md","operation":"updateFrontmatter","update":{"title":{"set":"b"}}}`,
			paths: []string{"@project/doc.md"}, existed: true, newContent: "---\ntitle: b\n---\nbody\n"},
		{name: "a path outside the project", tool: "fs.write", args: `{"path":"/etc/passwd","content":"x"}`, problem: "E"},
		{name: "bad arguments", tool: "fs.write", args: `{"content":"x"}`, problem: "path"},
		{name: "a command", tool: "shell.run", args: `{"command":"go test ./..."}`, command: "go test ./...", cwd: "@project"},
		{name: "a rename", tool: "fs.rename", args: `{"from":"@project/a","to":"@project/c"}`, paths: []string{"@project/a", "@project/c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := h.Plan(tc.tool, tc.args)
			if tc.problem != "" {
				if p.Problem == "" {
					t.Fatalf("no problem: %+v", p)
				}
				return
			}
			if p.Problem != "" || strings.Join(p.Paths, ",") != strings.Join(tc.paths, ",") || p.Command != tc.command || p.Cwd != tc.cwd {
				t.Fatalf("%+v", p)
			}
			if tc.newContent != "" {
				if len(p.Changes) != 1 || p.Changes[0].Existed != tc.existed || string(p.Changes[0].New) != tc.newContent {
					t.Fatalf("%+v", p.Changes)
				}
			}
		})
	}
	// Nothing was written.
	if _, err := os.Stat(filepath.Join(root, "new.md")); err == nil {
		t.Fatal("planning wrote a file")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "doc.md")); string(b) != "---\ntitle: a\n---\nbody\n" {
		t.Fatalf("planning changed a file: %q", b)
	}
}
