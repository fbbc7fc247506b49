package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/sandbox"
)

// A chat whose settings offer commands in plain chat: the model's shell_run calls run in
// the project, cannot read the settings, and a long output is saved whole beside the
// conversation.
func TestChatRunsCommandsInTheSandbox(t *testing.T) {
	if err := sandbox.Check(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the command sandbox must work in CI: %v", err)
		}
		t.Skipf("bubblewrap cannot start here: %v", err)
	}
	c := newLLMEnv(t)
	writeSettings(t, c.home, `{"llm":{"apiKey":"sk-in-the-settings-0123456789"},"tools":{"shell":{"enabled":true,"inChat":true,"timeoutSeconds":60}}}`)
	cmd := func(s string) string { b, _ := json.Marshal(map[string]string{"command": s}); return string(b) }
	c.srv.Enqueue(fakellm.Tools(
		fakellm.ToolCall{ID: "s1", Name: "shell.run", Arguments: cmd("echo from-the-command > made.txt && cat made.txt")},
		fakellm.ToolCall{ID: "s2", Name: "shell.run", Arguments: cmd("cat " + filepath.Join(c.home, "settings.json"))},
		fakellm.ToolCall{ID: "s3", Name: "shell.run", Arguments: cmd("seq 1 100000")},
	), fakellm.Text("done"))
	r := c.runStdin(t, "", "chat", "run things")
	if r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	reqs := c.srv.ChatRequests()
	if len(reqs) == 0 || !slices.ContainsFunc(reqs[0].Tools, func(tl fakellm.RecordedTool) bool { return tl.Name == "shell_run" }) {
		t.Fatalf("shell_run was not offered: %+v", reqs)
	}
	convID := strings.TrimSpace(strings.TrimPrefix(r.stderr, "conversation "))
	results := map[string]map[string]any{}
	for _, m := range (&chatEnv{c}).messages(t, convID) {
		if m.Role == conversation.RoleTool {
			var v map[string]any
			if err := json.Unmarshal([]byte(m.Text()), &v); err != nil {
				t.Fatalf("%s: %v %s", m.ToolCallID, err, m.Text())
			}
			results[m.ToolCallID] = v
		}
	}
	if v := results["s1"]; v["ok"] != true || v["output"] != "from-the-command\n" {
		t.Fatalf("s1: %v", v)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "made.txt")); string(b) != "from-the-command\n" {
		t.Fatalf("made.txt = %q", b)
	}
	if v := results["s2"]; v["ok"] != false || strings.Contains(v["output"].(string), "sk-in-the-settings") {
		t.Fatalf("s2: %v", v)
	}
	v := results["s3"]
	alias, _ := v["outputFile"].(string)
	if v["ok"] != true || v["truncated"] != true || !strings.HasSuffix(v["output"].(string), "99999\n100000\n") || alias == "" {
		t.Fatalf("s3: %.300v", v)
	}
	// The saved output is read back like any large output.
	c.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "r1", Name: "fs.read", Arguments: `{"path":"` + alias + `","startLine":50000,"endLine":50000}`}), fakellm.Text("read"))
	r = c.runStdin(t, "", "chat", "--conversation", convID, "read it")
	if r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	for _, m := range (&chatEnv{c}).messages(t, convID) {
		if m.ToolCallID == "r1" && (m.IsError || !strings.Contains(m.Text(), "50000")) {
			t.Fatalf("fs.read of the saved output: %s", m.Text())
		}
	}
	// A fork has its own copy, which its tools read.
	r = c.runStdin(t, "", "conversations", "fork", convID)
	forkID := strings.TrimSpace(r.stdout)
	if r.code != ExitOK || forkID == "" {
		t.Fatalf("fork: %+v", r)
	}
	forkAlias := strings.Replace(alias, convID, forkID, 1)
	var found bool
	for _, m := range (&chatEnv{c}).messages(t, forkID) {
		found = found || (m.ToolCallID == "s3" && strings.Contains(m.Text(), forkAlias))
	}
	if !found {
		t.Fatalf("the fork's result does not name its copy %s", forkAlias)
	}
	c.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "r2", Name: "fs.read", Arguments: `{"path":"` + forkAlias + `","startLine":7,"endLine":7}`}), fakellm.Text("read"))
	if r = c.runStdin(t, "", "chat", "--conversation", forkID, "read it"); r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	read := false
	for _, m := range (&chatEnv{c}).messages(t, forkID) {
		if m.ToolCallID == "r2" {
			read = true
			if m.IsError || !strings.Contains(m.Text(), `"content":"7\n"`) {
				t.Fatalf("fs.read in the fork: %s", m.Text())
			}
		}
	}
	if !read {
		t.Fatal("no fs.read result in the fork")
	}
}

func TestCommandsRunWithoutSandboxChoice(t *testing.T) {
	c := newLLMEnv(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"commands", "run-without-sandbox", "on"}, ExitOK, "read and write every file you can"},
		{[]string{"commands", "status", "--json"}, ExitOK, `"runWithoutSandbox": true`},
		{[]string{"commands", "run-without-sandbox", "off"}, ExitOK, "only inside the sandbox"},
		{[]string{"commands", "status", "--json"}, ExitOK, `"runWithoutSandbox": false`},
		{[]string{"commands", "run-without-sandbox", "maybe"}, ExitError, "on|off"},
	}
	for _, tc := range tests {
		r := c.runStdin(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Fatalf("%v: %+v", tc.args, r)
		}
	}
}
