package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// The approval mode of chat: the fake server calls fs.write; what happens to
// the file and what the model receives depend on the mode, the rules and
// whether stdin is a terminal.
func TestChatApprovals(t *testing.T) {
	const target = "notes.md"
	tests := []struct {
		name     string
		args     []string
		settings string // settings.json ("" none)
		project  string // .crewagent/permissions.json ("" none)
		written  bool
		inResult string
	}{
		{name: "ask without a terminal refuses", args: []string{"--approve", "ask"},
			inResult: "the user was not asked because the command line's input is not a terminal"},
		{name: "the default is ask", inResult: "--approve auto-edit"},
		{name: "auto-edit writes", args: []string{"--approve", "auto-edit"}, written: true},
		{name: "full-auto writes", args: []string{"--approve", "full-auto"}, written: true},
		{name: "read-only refuses", args: []string{"--approve", "read-only"}, inResult: "read-only mode"},
		{name: "a deny rule wins over full-auto", args: []string{"--approve", "full-auto"},
			settings: `{"approvals":{"deny":["fs.write(@project/*.md)"]}}`, inResult: "deny rule"},
		{name: "settings choose the mode", settings: `{"approvals":{"mode":"auto-edit"}}`, written: true},
		{name: "a user allow rule lifts ask", settings: `{"approvals":{"allow":["fs.write(@project/notes.md)"]}}`, written: true},
		{name: "project deny narrows full-auto", args: []string{"--approve", "full-auto"},
			project: `{"deny":["fs.write"]}`, inResult: "project's (.crewagent/permissions.json)"},
		{name: "project allow does not widen until approved", project: `{"allow":["fs.write"]}`,
			inResult: "not a terminal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CREWAGENT_APPROVE", "")
			c := newChatEnv(t)
			if tc.settings != "" {
				writeSettings(t, c.home, tc.settings)
			}
			if tc.project != "" {
				writeFile(t, filepath.Join(c.root, ".crewagent", "permissions.json"), tc.project)
			}
			c.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/` + target + `","content":"hello\n"}`}),
				fakellm.Text("Done."))
			r := c.run(t, "", append([]string{"--json", "chat"}, append(tc.args, "write a note")...)...)
			if r.code != ExitOK {
				t.Fatalf("chat: %+v", r)
			}
			var out chatOutput
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(filepath.Join(c.root, target))
			if written := err == nil; written != tc.written {
				t.Fatalf("written = %v", written)
			}
			var result *conversation.Entry
			for _, m := range c.messages(t, out.ConversationID) {
				if m.ToolCallID == "w1" {
					result = m
				}
			}
			if result == nil || result.IsError == tc.written || !strings.Contains(result.Text(), tc.inResult) {
				t.Fatalf("result: %+v", result)
			}
			// The model received the same result.
			reqs := c.srv.ChatRequests()
			msgs := reqs[len(reqs)-1].Messages
			if last := msgs[len(msgs)-1]; last.ToolCallID != "w1" || last.Text() != result.Text() {
				t.Fatalf("the model got %q", last.Text())
			}
		})
	}
	t.Run("a bad mode", func(t *testing.T) {
		c := newChatEnv(t)
		r := c.run(t, "", "chat", "--approve", "yolo", "hi")
		if r.code != ExitError || !strings.Contains(r.stderr, "--approve") || !strings.Contains(r.stderr, "auto-edit") {
			t.Fatalf("%+v", r)
		}
	})
}

// On a terminal the request is shown with its diff and answered there.
func TestChatApprovalPromptOnATerminal(t *testing.T) {
	t.Setenv("CREWAGENT_APPROVE", "")
	was := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { stdinIsTerminal = was })
	tests := []struct {
		name, input string
		written     bool
		inResult    string
	}{
		{"yes", "y\n", true, `"ok":true`},
		{"no with a reason", "n\nnot now\n", false, "the user denied this call; their reason: not now"},
		{"always, then a second write asks nothing", "a\n", true, `"ok":true`},
		{"no answer", "", false, "the user gave no answer"},
		{"unknown words ask again", "maybe\nyes\n", true, `"ok":true`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newChatEnv(t)
			c.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/plan.md","content":"# Plan\nship\n"}`}),
				fakellm.Text("Done."))
			r := c.run(t, tc.input, "chat", "update the plan")
			if r.code != ExitOK {
				t.Fatalf("chat: %+v", r)
			}
			for _, want := range []string{"approval needed: change @project/plan.md", "+ship\n", "Allow? [y]es / [a]lways in this conversation / [n]o"} {
				if !strings.Contains(r.stderr, want) {
					t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			b, _ := os.ReadFile(filepath.Join(c.root, "plan.md"))
			if written := string(b) == "# Plan\nship\n"; written != tc.written {
				t.Fatalf("written = %v", written)
			}
			convID := strings.TrimSpace(r.stderr[strings.LastIndex(r.stderr, "conversation ")+len("conversation "):])
			var result *conversation.Entry
			for _, m := range c.messages(t, convID) {
				if m.ToolCallID == "w1" {
					result = m
				}
			}
			if result == nil || !strings.Contains(result.Text(), tc.inResult) || result.Approval == nil {
				t.Fatalf("result: %+v", result)
			}
			if tc.input == "a\n" {
				c.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "w2", Name: "fs.write", Arguments: `{"path":"@project/plan.md","content":"again\n"}`}),
					fakellm.Text("Done."))
				r := c.run(t, "", "chat", "--conversation", convID, "again")
				if r.code != ExitOK || strings.Contains(r.stderr, "approval needed") {
					t.Fatalf("second: %+v", r)
				}
				if b, _ := os.ReadFile(filepath.Join(c.root, "plan.md")); string(b) != "again\n" {
					t.Fatalf("second write: %q", b)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
