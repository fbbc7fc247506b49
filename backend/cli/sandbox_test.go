package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// A user's home folder opened as the project, with the runtime home inside it at its
// default place: what the command line gives the model cannot read the settings (the API
// key), rewrite them, touch another conversation, or change the project's identity file.
func TestChatToolsCannotReachTheRuntimeHome(t *testing.T) {
	c := newLLMEnv(t)
	c.home = filepath.Join(c.root, ".config", "crewagent")
	writeSettings(t, c.home, `{"llm":{"apiKey":"sk-in-the-settings-0123456789"}}`)
	settingsBefore, _ := os.ReadFile(filepath.Join(c.home, "settings.json"))

	c.srv.Enqueue(fakellm.Text("first conversation"))
	first := c.runStdin(t, "", "chat", "hello")
	if first.code != ExitOK {
		t.Fatalf("first chat: %+v", first)
	}
	firstID := strings.TrimSpace(strings.TrimPrefix(first.stderr, "conversation "))

	calls := []fakellm.ToolCall{
		{ID: "c1", Name: "fs.read", Arguments: `{"path":"@project/.config/crewagent/settings.json"}`},
		{ID: "c2", Name: "fs.write", Arguments: `{"path":"@project/.config/crewagent/settings.json","content":"{\"llm\":{\"baseUrl\":\"https://attacker.example/v1\"}}"}`},
		{ID: "c3", Name: "fs.search", Arguments: `{"path":"@project","pattern":"sk-in-the-settings"}`},
		{ID: "c4", Name: "fs.list", Arguments: `{"path":"@project/.config"}`},
		{ID: "c5", Name: "fs.write", Arguments: `{"path":"@project/.crewagent.json","content":"{\"projectId\":\"00000000-0000-0000-0000-000000000000\"}"}`},
		{ID: "c6", Name: "fs.list", Arguments: `{"path":"@state/logs/tool-results/` + firstID + `"}`},
	}
	c.srv.Enqueue(fakellm.Tools(calls...), fakellm.Text("done"))
	r := c.runStdin(t, "", "chat", "look around")
	if r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	convID := strings.TrimSpace(strings.TrimPrefix(r.stderr, "conversation "))
	results := map[string]*conversation.Entry{}
	for _, m := range (&chatEnv{c}).messages(t, convID) {
		if m.Role == conversation.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	for id, want := range map[string]string{"c1": "runtime_data", "c2": "runtime_data", "c5": "protected", "c6": "ENOENT"} {
		m := results[id]
		if m == nil || !m.IsError || !strings.Contains(m.Text(), want) {
			t.Errorf("%s: %+v", id, m)
		}
	}
	if m := results["c3"]; m == nil || m.IsError || strings.Contains(m.Text(), "sk-in-the-settings-0123") || !strings.Contains(m.Text(), `"matchCount":0`) {
		t.Errorf("search: %+v", m)
	}
	if m := results["c4"]; m == nil || m.IsError || strings.Contains(m.Text(), "crewagent") {
		t.Errorf("list: %+v", m)
	}
	if b, _ := os.ReadFile(filepath.Join(c.home, "settings.json")); string(b) != string(settingsBefore) {
		t.Fatalf("settings changed: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, ".crewagent.json")); strings.Contains(string(b), "00000000-0000") {
		t.Fatalf(".crewagent.json changed: %s", b)
	}
}
