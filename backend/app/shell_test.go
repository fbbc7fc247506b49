package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/sandbox"
	"crewagent/backend/tools"
)

// shell.run is offered in agent mode by default, in plain chat only when the settings say
// so, never when the settings or the agent turn it off.
func TestShellToolFollowsTheSettings(t *testing.T) {
	off := false
	noShellAgent := &engine.Agent{ID: "a", Tools: &tools.AgentTools{Shell: &tools.AgentShell{Enabled: &off}}}
	tests := []struct {
		name  string
		shell map[string]any // settings tools.shell (nil: the defaults)
		mode  string
		agent *engine.Agent
		want  bool
	}{
		{"plain chat, defaults", nil, conversation.ModeChat, nil, false},
		{"agent mode, defaults", nil, conversation.ModeAgent, &engine.Agent{ID: "a"}, true},
		{"agent without commands", nil, conversation.ModeAgent, noShellAgent, false},
		{"plain chat with inChat", map[string]any{"enabled": true, "inChat": true, "timeoutSeconds": 60}, conversation.ModeChat, nil, true},
		{"turned off", map[string]any{"enabled": false, "inChat": true, "timeoutSeconds": 60}, conversation.ModeAgent, &engine.Agent{ID: "a"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, root := t.TempDir(), t.TempDir()
			if tc.shell != nil {
				b, _ := json.Marshal(map[string]any{"tools": map[string]any{"shell": tc.shell}})
				must(t, os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600))
			}
			ws, err := Open(home, root, Options{}, OpenOptions{})
			must(t, err)
			defer ws.Close()
			h, err := ws.toolHost(engine.ToolScope{ConversationID: "c1", Mode: tc.mode, Agent: tc.agent})
			must(t, err)
			if got := slices.Contains(h.(*tools.Host).ToolNames(), conversation.ToolShellRun); got != tc.want {
				t.Fatalf("offered = %v, want %v", got, tc.want)
			}
		})
	}
}

// The project's choice to run without a sandbox is kept in its data folder, and the
// runtime's own files stay out of a command's sight.
func TestShellRunInAProject(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"llm":{"apiKey":"sk-home-secret"}}`), 0o600))
	ws, err := Open(home, root, Options{}, OpenOptions{})
	must(t, err)
	defer ws.Close()

	if c, err := ws.ShellChoice(); err != nil || c.RunWithoutSandbox {
		t.Fatalf("default choice %+v %v", c, err)
	}
	must(t, ws.SetRunWithoutSandbox(true))
	if c, err := ws.ShellChoice(); err != nil || !c.RunWithoutSandbox {
		t.Fatalf("choice %+v %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(ws.Project().DataDir, ShellChoiceFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ShellChoiceFile)); err == nil {
		t.Fatal("the choice was written in the project folder")
	}
	must(t, ws.SetRunWithoutSandbox(false))

	if err := sandbox.Check(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the command sandbox must work in CI: %v", err)
		}
		t.Skipf("bubblewrap cannot start here: %v", err)
	}
	if st := ws.ShellStatus(); !st.Sandboxed {
		t.Fatalf("status %+v", st)
	}
	h, err := ws.toolHost(engine.ToolScope{ConversationID: "c1", Mode: conversation.ModeAgent, Agent: &engine.Agent{ID: "a"}})
	must(t, err)
	args, _ := json.Marshal(map[string]string{"command": "echo made > made.txt; cat " + filepath.Join(home, "settings.json")})
	res := h.Call(context.Background(), conversation.ToolShellRun, string(args))
	if strings.Contains(res.Content, "sk-home-secret") || res.OK {
		t.Fatalf("result %s", res.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "made.txt")); string(b) != "made\n" {
		t.Fatalf("made.txt = %q", b)
	}
}
