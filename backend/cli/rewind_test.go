package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/sandbox"
)

// Two turns of a chat change the project through fs.write and a command;
// conversations rewind puts the files back as they were before either turn,
// forks the conversation before it, can be undone, keeps the user's own
// edits unless forced, and says what is wrong with a bad target.
func TestRewindCommand(t *testing.T) {
	if err := sandbox.Check(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the command sandbox must work in CI: %v", err)
		}
		t.Skipf("bubblewrap cannot start here: %v", err)
	}
	c := newChatEnv(t)
	writeSettings(t, c.home, `{"tools":{"shell":{"enabled":true,"inChat":true,"timeoutSeconds":60}}}`)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(c.root, name))
		if err != nil {
			return "<none>"
		}
		return string(b)
	}
	c.srv.Enqueue(fakellm.Tools(
		fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/notes.md","content":"one\n"}`},
		fakellm.ToolCall{ID: "w2", Name: "fs.write", Arguments: `{"path":"@project/plan.md","content":"# Plan\nstep 1\n"}`}),
		fakellm.Text("Done."))
	r := c.run(t, "", "chat", "start the notes")
	if r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	convID := strings.TrimSpace(r.stderr[strings.LastIndex(r.stderr, "conversation ")+len("conversation "):])
	c.srv.Enqueue(fakellm.Tools(
		fakellm.ToolCall{ID: "s1", Name: "shell.run", Arguments: `{"command":"rm plan.md && printf 'two\\n' >> notes.md && mkdir -p out && printf '\\000\\001' > out/b.bin"}`}),
		fakellm.Text("Changed."))
	if r := c.run(t, "", "chat", "--conversation", convID, "go on"); r.code != ExitOK {
		t.Fatalf("second chat: %+v", r)
	}
	if got := read("notes.md") + read("plan.md") + read("out/b.bin"); got != "one\ntwo\n<none>\x00\x01" {
		t.Fatalf("after the turns: %q", got)
	}
	var users, others []string
	for _, m := range c.messages(t, convID) {
		if m.Role == conversation.RoleUser {
			users = append(users, m.ID)
		} else {
			others = append(others, m.ID)
		}
	}
	if len(users) != 2 {
		t.Fatalf("user messages: %v", users)
	}

	// Before the second message: files and a fork that ends before it.
	r = c.run(t, "", "--json", "conversations", "rewind", convID, "--to", users[1])
	if r.code != ExitOK {
		t.Fatalf("rewind: %+v", r)
	}
	var out struct {
		Files struct {
			RewindID string   `json:"rewindId"`
			Restored []string `json:"restored"`
			Kept     []string `json:"kept"`
		} `json:"files"`
		NewConversationID string `json:"newConversationId"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if strings.Join(out.Files.Restored, ",") != "notes.md,out/b.bin,plan.md" || out.Files.RewindID == "" {
		t.Fatalf("restored: %s", r.stdout)
	}
	if got := read("notes.md") + read("plan.md") + read("out/b.bin"); got != "one\n# Plan\nstep 1\n<none>" {
		t.Fatalf("after rewinding to the second message: %q", got)
	}
	fork := c.messages(t, out.NewConversationID)
	if len(fork) == 0 || fork[len(fork)-1].Text() != "Done." {
		t.Fatalf("the fork does not end before the message: %d messages", len(fork))
	}

	// Undo that rewind: the later state is back.
	r = c.run(t, "", "conversations", "rewind", convID, "--to", out.Files.RewindID, "--files")
	if r.code != ExitOK || !strings.Contains(r.stdout, "restored 3 file(s)") {
		t.Fatalf("undo: %+v", r)
	}
	if got := read("notes.md") + read("plan.md") + read("out/b.bin"); got != "one\ntwo\n<none>\x00\x01" {
		t.Fatalf("after undoing: %q", got)
	}

	// Before the first message, files only, with a file the user edited since.
	if err := os.WriteFile(filepath.Join(c.root, "notes.md"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.run(t, "", "conversations", "rewind", convID, "--to", users[0], "--files")
	if r.code != ExitOK || !strings.Contains(r.stdout, "restored 2 file(s)") || !strings.Contains(r.stdout, "kept 1 file(s) changed since") ||
		strings.Contains(r.stdout, "new conversation") {
		t.Fatalf("rewind --files: %+v", r)
	}
	if got := read("notes.md") + read("plan.md") + read("out/b.bin"); got != "mine\n# Plan\n<none>" {
		t.Fatalf("after rewinding to the first message: %q", got)
	}
	r = c.run(t, "", "conversations", "rewind", convID, "--to", users[0], "--files", "--force")
	if r.code != ExitOK || read("notes.md") != "<none>" {
		t.Fatalf("rewind --force: %+v, notes.md %q", r, read("notes.md"))
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown message", []string{"--to", "no-such-message"}, "has no message no-such-message"},
		{"not a user message", []string{"--to", others[len(others)-1]}, "is not a message of the user"},
		{"nothing to restore", []string{"--to", users[0], "--files"}, "nothing to restore"},
		{"two targets", []string{"--to", users[0], "--files", "--conversation"}, "give one of --files, --conversation and --both"},
		{"no message", []string{"--files"}, "--to MESSAGE_ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.run(t, "", append([]string{"conversations", "rewind", convID}, tc.args...)...)
			if r.code != ExitError || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("%+v, want exit 1 and %q", r, tc.want)
			}
		})
	}
	// --conversation alone forks and touches no file.
	if err := os.WriteFile(filepath.Join(c.root, "plan.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.run(t, "", "conversations", "rewind", convID, "--to", users[1], "--conversation")
	if r.code != ExitOK || !strings.Contains(r.stdout, "new conversation: ") || read("plan.md") != "edited\n" {
		t.Fatalf("rewind --conversation: %+v", r)
	}
}
