package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/project"
)

type runResult struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, stdin string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return runResult{code, out.String(), errb.String()}
}

// fixture makes a runtime home and a project with one conversation holding a
// user message, a tool-call group and an answer.
func fixture(t *testing.T) (home, root, convID string, ids []string) {
	t.Helper()
	home, root = t.TempDir(), t.TempDir()
	t.Setenv("CREWAGENT_HOME", "")
	p, err := project.Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := convlog.Open(p.DataDir, convlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	meta, err := st.Create("", "chat")
	if err != nil {
		t.Fatal(err)
	}
	entries := []*conversation.Entry{
		{Role: conversation.RoleUser, Content: conversation.Str("list the files"), Mode: conversation.ModeChat},
		{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.list", Arguments: `{"path":"@project"}`}}}},
		{Role: conversation.RoleTool, ToolCallID: "call_1", ToolName: "fs.list", Content: conversation.Str(`{"ok":true,"entries":[]}`), PartType: conversation.PartToolResult},
		{Role: conversation.RoleAssistant, Content: conversation.Str("The folder is empty."), PartType: conversation.PartContent},
	}
	if err := st.Append(meta.ID, entries...); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	return home, root, meta.ID, ids
}

func TestConversationsCommands(t *testing.T) {
	home, root, id, ids := fixture(t)
	g := []string{"--home", home, "--project", root}

	r := run(t, "", append([]string{"conversations", "list"}, g...)...)
	if r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "list the files") {
		t.Fatalf("list: %+v", r)
	}
	// global flags before the command words, --json
	r = run(t, "", append(g, "--json", "conversations", "list")...)
	var metas []conversation.ConversationMeta
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &metas) != nil || len(metas) != 1 || metas[0].ID != id {
		t.Fatalf("list --json: %+v", r)
	}

	r = run(t, "", append([]string{"conversations", "show", id}, g...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "fs.list") || !strings.Contains(r.stdout, "The folder is empty.") {
		t.Fatalf("show: %+v", r)
	}
	r = run(t, "", append([]string{"conversations", "show", id, "--json"}, g...)...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 4 {
		t.Fatalf("show --json: %+v", r)
	}
	var first conversation.Entry
	if err := json.Unmarshal([]byte(lines[1]), &first); err != nil || len(first.ToolCalls) != 1 {
		t.Fatalf("show --json line: %v %q", err, lines[1])
	}

	r = run(t, "", append([]string{"conversations", "checkpoint", id, "before-answer"}, g...)...)
	if r.code != 0 {
		t.Fatalf("checkpoint: %+v", r)
	}
	r = run(t, "", append([]string{"conversations", "checkpoint", id, "before-answer"}, g...)...)
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("duplicate checkpoint should fail with one line: %+v", r)
	}

	r = run(t, "", append([]string{"conversations", "fork", id, "--at", ids[0]}, g...)...)
	forkID := strings.TrimSpace(r.stdout)
	if r.code != 0 || !convlog.IsValidID(forkID) {
		t.Fatalf("fork --at: %+v", r)
	}
	r = run(t, "", append([]string{"conversations", "show", forkID, "--json"}, g...)...)
	if strings.Contains(r.stdout, "The folder is empty.") || !strings.Contains(r.stdout, "list the files") {
		t.Fatalf("fork at first message copied too much or too little: %s", r.stdout)
	}
	r = run(t, "", append([]string{"conversations", "fork", id, "--checkpoint", "before-answer"}, g...)...)
	if r.code != 0 {
		t.Fatalf("fork --checkpoint: %+v", r)
	}
	r = run(t, "", append([]string{"conversations", "fork", id, "--checkpoint", "x", "--at", ids[0]}, g...)...)
	if r.code != 1 {
		t.Fatalf("fork with both flags should fail: %+v", r)
	}

	r = run(t, "", append([]string{"conversations", "delete", id}, g...)...)
	if r.code != 0 {
		t.Fatalf("delete: %+v", r)
	}
	p, _ := project.Open(home, root)
	if _, err := os.Stat(filepath.Join(p.DataDir, "conversations", id)); !os.IsNotExist(err) {
		t.Fatalf("conversation folder still there: %v", err)
	}
	r = run(t, "", append([]string{"conversations", "list", "--json"}, g...)...)
	metas = nil
	if err := json.Unmarshal([]byte(r.stdout), &metas); err != nil {
		t.Fatal(err)
	}
	for _, m := range metas {
		if m.ID == id {
			t.Fatalf("deleted conversation still listed: %s", r.stdout)
		}
	}
	if len(metas) != 2 {
		t.Fatalf("want the two forks listed, got %d", len(metas))
	}
}

func TestCommandErrors(t *testing.T) {
	home, root, convID, _ := fixture(t)
	g := []string{"--home", home, "--project", root}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"frobnicate"}, "unknown command \"frobnicate\"; run 'crewagent help'"},
		{"group without subcommand", []string{"conversations"}, `"conversations" needs a subcommand: list, show, delete, fork, checkpoint`},
		{"unknown subcommand", []string{"run", "stop"}, `unknown command "run stop"; run has: start, continue, status, list`},
		{"unknown flag", []string{"conversations", "list", "--bogus"}, "unknown flag"},
		{"missing id", []string{"conversations", "show"}, "usage: crewagent conversations show ID"},
		{"bad id", []string{"conversations", "show", "../../etc"}, `crewagent: invalid id: conversation id "../../etc" is not a canonical UUID (see "conversations list")`},
		{"unknown id", []string{"conversations", "delete", "1b4e28ba-2fa1-11d2-883f-0016d3cca427"}, `crewagent: conversation 1b4e28ba-2fa1-11d2-883f-0016d3cca427: not found (see "conversations list")`},
		{"unknown message", []string{"conversations", "fork", convID, "--at", "nope"}, `: entry nope: not found (see "conversations show ID")`},
		{"unknown checkpoint", []string{"conversations", "fork", convID, "--checkpoint", "nope"}, `: checkpoint "nope": not found (see "conversations show ID")`},
		{"flag needs value", []string{"conversations", "list", "--home"}, "needs a value"},
		{"flag for other command", []string{"conversations", "list", "--at", "x"}, "does not apply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.name != "flag needs value" {
				args = append(append([]string{}, c.args...), g...)
			}
			r := run(t, "", args...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1: %+v", r.code, r)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "crewagent: ") {
				t.Fatalf("want one error line, got %q", r.stderr)
			}
			if !strings.Contains(r.stderr, c.want) {
				t.Fatalf("stderr %q lacks %q", r.stderr, c.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	r := run(t, "", "help")
	if r.code != 0 || !strings.Contains(r.stdout, "conversations list") {
		t.Fatalf("help: %+v", r)
	}
}

func TestConversationsExport(t *testing.T) {
	home, root, id, ids := fixture(t)
	g := []string{"--home", home, "--project", root}

	r := run(t, "", append([]string{"conversations", "export", id}, g...)...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "# list the files\n") || !strings.Contains(r.stdout, "<summary>Tool call: fs.list (done)</summary>") ||
		!strings.Contains(r.stdout, "The folder is empty.") || r.stderr != "" {
		t.Fatalf("export: %+v", r)
	}
	for _, args := range [][]string{{"--format", "json"}, {"--json"}} {
		r = run(t, "", append(append([]string{"conversations", "export", id}, args...), g...)...)
		var doc struct {
			Conversation conversation.ConversationMeta `json:"conversation"`
			Entries      []conversation.Entry          `json:"entries"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil || doc.Conversation.ID != id || len(doc.Entries) != len(ids) || doc.Entries[3].ID != ids[3] {
			t.Fatalf("export %v: %+v", args, r)
		}
	}
	r = run(t, "", append([]string{"conversations", "export", id, "--format", "pdf"}, g...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "md or json") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("unknown format: %+v", r)
	}
	r = run(t, "", append([]string{"conversations", "export", "0d9f0c5e-0000-4000-8000-000000000000"}, g...)...)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("unknown conversation: %+v", r)
	}
}

// An export printed to a terminal cannot drive it, in either format, and a
// JSON export keeps every value exact.
func TestConversationsExportIsTerminalSafe(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	t.Setenv("CREWAGENT_HOME", "")
	p, err := project.Open(home, root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := convlog.Open(p.DataDir, convlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := st.Create("Hostile"+titleSet, "chat")
	if err != nil {
		t.Fatal(err)
	}
	hostile := "look" + osc52 + clear + c1CSI + crOverride + backspaces
	if err := st.Append(meta.ID, &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("hi"), Mode: conversation.ModeChat},
		&conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(hostile), Mode: conversation.ModeChat}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	g := []string{"--home", home, "--project", root}
	for _, args := range [][]string{{}, {"--format", "md"}, {"--format", "md", "--json"}, {"--format", "json"}, {"--json"}} {
		r := run(t, "", append(append([]string{"conversations", "export", meta.ID}, args...), g...)...)
		if r.code != 0 || terminalActive(r.stdout) {
			t.Fatalf("export %v: %+v", args, r)
		}
		if slices.Contains(args, "json") || (len(args) == 1 && args[0] == "--json") {
			var doc struct {
				Conversation conversation.ConversationMeta `json:"conversation"`
				Entries      []conversation.Entry          `json:"entries"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Entries) != 2 || doc.Entries[1].Text() != hostile ||
				doc.Conversation.Title != "Hostile"+titleSet {
				t.Fatalf("export %v does not keep the values: %v\n%s", args, err, r.stdout)
			}
		} else if !strings.Contains(r.stdout, "look␛]52;") {
			t.Fatalf("export %v: %s", args, r.stdout)
		}
	}
}
