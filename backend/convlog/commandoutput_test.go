package convlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

// A fork gets its own copy of the command outputs its tool messages refer to, and the
// messages point at the copies; the parent's stay as they are, also after the parent is
// deleted.
func TestForkCopiesCommandOutputs(t *testing.T) {
	s, dir, _ := openTest(t, Options{})
	id := mustCreate(t, s)
	out := filepath.Join(dir, "logs", "tool-results", id)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	full := strings.Repeat("line\n", 1000)
	if err := os.WriteFile(filepath.Join(out, "cmd-call_1.txt"), []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	alias := conversation.ToolResultAliasPrefix + id + "/cmd-call_1.txt"
	missing := conversation.ToolResultAliasPrefix + id + "/cmd-gone.txt"
	tool := &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "call_1", ToolName: "shell.run",
		Content: conversation.Str(`{"ok":true,"outputFile":"` + alias + `","notes":["see ` + missing + `"]}`)}
	if err := s.Append(id, msg(conversation.RoleUser, "run it"), tool, msg(conversation.RoleUser, "mentions "+alias)); err != nil {
		t.Fatal(err)
	}
	fork, err := s.Fork(id, ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	newAlias := conversation.ToolResultAliasPrefix + fork.ID + "/cmd-call_1.txt"
	var sawTool, sawUser bool
	for _, e := range got {
		switch {
		case e.Role == conversation.RoleTool:
			sawTool = true
			if !strings.Contains(e.Text(), newAlias) || strings.Contains(e.Text(), alias) || !strings.Contains(e.Text(), missing) {
				t.Fatalf("tool message in the fork: %s", e.Text())
			}
		case e.Role == conversation.RoleUser && strings.HasPrefix(e.Text(), "mentions"):
			sawUser = true
			if e.Text() != "mentions "+alias {
				t.Fatalf("a user's message was rewritten: %s", e.Text())
			}
		}
	}
	if !sawTool || !sawUser {
		t.Fatalf("fork entries: %v", ids(got))
	}
	if err := s.Delete(id); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "logs", "tool-results", fork.ID, "cmd-call_1.txt"))
	if err != nil || string(b) != full {
		t.Fatalf("the fork's copy: %d bytes, %v", len(b), err)
	}
}
