package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
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
				testkit.WriteFile(t, filepath.Join(c.root, ".crewagent", "permissions.json"), tc.project)
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

// The project's rules file counts in full once approved, and only as long
// as it keeps the content approved; the project's default mode applies to
// new conversations.
func TestPermissionsCommands(t *testing.T) {
	t.Setenv("CREWAGENT_APPROVE", "")
	c := newChatEnv(t)
	write := func(id string) {
		c.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: id, Name: "fs.write", Arguments: `{"path":"@project/plan.md","content":"` + id + `"}`}),
			fakellm.Text("Done."))
		if r := c.run(t, "", "chat", "write"); r.code != ExitOK {
			t.Fatalf("chat: %+v", r)
		}
	}
	content := func() string { b, _ := os.ReadFile(filepath.Join(c.root, "plan.md")); return string(b) }

	r := c.run(t, "", "permissions", "show")
	if r.code != ExitOK || !strings.Contains(r.stdout, "approval mode of new conversations: ask (from the default)") || !strings.Contains(r.stdout, "none") {
		t.Fatalf("%+v", r)
	}
	if r := c.run(t, "", "permissions", "approve"); r.code != ExitError || !strings.Contains(r.stderr, "no .crewagent/permissions.json") {
		t.Fatalf("%+v", r)
	}
	testkit.WriteFile(t, filepath.Join(c.root, ".crewagent", "permissions.json"), `{"allow":["fs.write(@project/plan.md)"]}`)
	write("w1")
	if content() != "# Plan\n" {
		t.Fatal("an unapproved allow rule widened ask")
	}
	r = c.run(t, "", "permissions", "show")
	if !strings.Contains(r.stdout, "not approved") || !strings.Contains(r.stdout, "allow: fs.write(@project/plan.md)") {
		t.Fatalf("%+v", r)
	}
	if r := c.run(t, "", "permissions", "approve"); r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	write("w2")
	if content() != "w2" {
		t.Fatalf("the approved allow rule did not apply: %q", content())
	}
	// Changed: the approval is gone.
	testkit.WriteFile(t, filepath.Join(c.root, ".crewagent", "permissions.json"), `{"allow":["fs.write"]}`)
	write("w3")
	if content() != "w2" {
		t.Fatal("a changed rules file kept its approval")
	}

	if r := c.run(t, "", "permissions", "mode", "auto-edit"); r.code != ExitOK || !strings.Contains(r.stdout, "auto-edit (from the project)") {
		t.Fatalf("%+v", r)
	}
	write("w4")
	if content() != "w4" {
		t.Fatal("the project's default mode did not apply")
	}
	if r := c.run(t, "", "permissions", "mode", "sometimes"); r.code != ExitError {
		t.Fatalf("%+v", r)
	}
	if r := c.run(t, "", "permissions", "mode", "default"); r.code != ExitOK || !strings.Contains(r.stdout, "ask (from the default)") {
		t.Fatalf("%+v", r)
	}
}
