package settings

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	"crewagent/backend/errs"
)

func TestMCPServersAreEditedInPlace(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, `{"llm": {"model": "m1", "apiKey": "sk-key"}, "custom": {"kept": true}}`, 0o600)
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := st.MCPServers(); raw != nil || err != nil {
		t.Fatalf("no table yet: %s %v", raw, err)
	}
	if err := st.SetMCPServer("gh", json.RawMessage(`{"command":"npx","args":["-y","gh"],"env":{"GITHUB_TOKEN":"ghp_1"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMCPServer("remote", json.RawMessage(`{"url":"https://example.com/mcp","big":12345678901234567890}`)); err != nil {
		t.Fatal(err)
	}
	raw, err := ReadMCPServers(home)
	if err != nil {
		t.Fatal(err)
	}
	var table map[string]map[string]any
	if err := json.Unmarshal(raw, &table); err != nil || len(table) != 2 || table["gh"]["command"] != "npx" {
		t.Fatalf("table %s %v", raw, err)
	}
	data, _ := os.ReadFile(Path(home))
	for _, want := range []string{`"custom": {`, `"kept": true`, `"apiKey": "sk-key"`, `12345678901234567890`} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("the file lost %s:\n%s", want, data)
		}
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(Path(home)); fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v", fi.Mode().Perm())
		}
	}
	// Saving the other settings keeps the table (it is not part of Settings).
	s := st.File()
	s.LLM.Model = "m2"
	if err := st.Update(s); err != nil {
		t.Fatal(err)
	}
	if raw, _ := ReadMCPServers(home); !strings.Contains(string(raw), "ghp_1") {
		t.Fatalf("Update dropped the MCP servers: %s", raw)
	}
	if found, err := st.RemoveMCPServer("gh"); !found || err != nil {
		t.Fatalf("%v %v", found, err)
	}
	if found, err := st.RemoveMCPServer("gh"); found || err != nil {
		t.Fatalf("%v %v", found, err)
	}
	raw, _ = ReadMCPServers(home)
	if strings.Contains(string(raw), "gh") || !strings.Contains(string(raw), "remote") {
		t.Fatalf("after remove: %s", raw)
	}
	if err := st.SetMCPServer("", json.RawMessage(`{}`)); errs.CodeOf(err) != CodeInvalid {
		t.Fatalf("empty name: %v", err)
	}
	if err := st.SetMCPServer("x", json.RawMessage(`["no"]`)); errs.CodeOf(err) != CodeInvalid {
		t.Fatalf("not an object: %v", err)
	}
}

func TestMCPServersWithoutAFileStartFromTheSettings(t *testing.T) {
	home := t.TempDir()
	st, err := LoadWithEnv(home, envMap(map[string]string{"CREWAGENT_LLM_API_KEY": "from-env"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetMCPServer("a", json.RawMessage(`{"command":"x"}`)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(Path(home))
	if !strings.Contains(string(data), `"tokenBudget": 128000`) || strings.Contains(string(data), "from-env") {
		t.Fatalf("new file:\n%s", data)
	}
	st2, err := LoadWithEnv(home, noEnv)
	if err != nil || st2.File().Context.TokenBudget != 128000 {
		t.Fatalf("reload: %v", err)
	}
}

func TestMCPServersInADamagedFile(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, `{"mcpServers": ["not", "an", "object"]}`, 0o600)
	st, err := LoadWithEnv(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetMCPServer("a", json.RawMessage(`{"command":"x"}`)); errs.CodeOf(err) != CodeCorrupt {
		t.Fatalf("err %v", err)
	}
	writeFile(t, home, `{"mcpServers": {`, 0o600)
	if _, err := ReadMCPServers(home); errs.CodeOf(err) != CodeCorrupt {
		t.Fatalf("err %v", err)
	}
	if err := st.SetMCPServer("a", json.RawMessage(`{"command":"x"}`)); errs.CodeOf(err) != CodeCorrupt {
		t.Fatalf("err %v", err)
	}
	if data, _ := os.ReadFile(Path(home)); string(data) != `{"mcpServers": {` {
		t.Fatalf("a damaged file was overwritten: %s", data)
	}
}
