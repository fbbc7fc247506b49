//go:build linux

package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/mcptest"
	"crewagent/backend/tools"
)

// The servers a tool host is offered follow the same merge as the built-in tools: the
// settings turn MCP on and may name servers, an agent's list and a child conversation's
// allowlist only take servers away; a disabled or unapproved server is never offered.
func TestMCPProviderFollowsThePolicy(t *testing.T) {
	npm := mcptest.Servers(t)
	home, root := t.TempDir(), t.TempDir()
	settingsDoc := map[string]any{
		"tools": map[string]any{"mcp": map[string]any{"enabled": true}},
		"mcpServers": map[string]any{
			"alpha": npm.Everything("policy-a", nil),
			"beta":  npm.Everything("policy-b", nil),
			"off":   map[string]any{"command": "node", "args": []string{npm.EverythingJS, "stdio"}, "disabled": true},
		},
	}
	b, _ := json.Marshal(settingsDoc)
	must(t, os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600))
	b, _ = json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": npm.Everything("policy-p", nil)}})
	must(t, os.WriteFile(filepath.Join(root, ".mcp.json"), b, 0o644))
	ws, err := Open(home, root, Options{}, OpenOptions{})
	must(t, err)
	defer ws.Close()

	servers := func(s tools.Scope) []string {
		var out []string
		for _, p := range ws.provide(s) {
			for _, d := range p.Tools() {
				srv, _, ok := mcp.SplitWireName(d.Name)
				if !ok {
					// mcp__read_resource: offered for the same servers (its enum), checked in backend/mcp.
					continue
				}
				if !slices.Contains(out, srv) {
					out = append(out, srv)
				}
			}
		}
		return out
	}
	on := tools.Policy{MCP: tools.SettingsMCP(true, nil)}
	tests := []struct {
		name  string
		scope tools.Scope
		want  []string
	}{
		{"MCP off", tools.Scope{Policy: tools.Policy{MCP: tools.SettingsMCP(false, nil)}}, nil},
		{"every runnable server", tools.Scope{Policy: on}, []string{"alpha", "beta"}},
		{"the settings name one", tools.Scope{Policy: tools.Policy{MCP: tools.SettingsMCP(true, []string{"beta"})}}, []string{"beta"}},
		{"an agent narrows", tools.Scope{Policy: tools.Merge(tools.Policy{MCP: tools.SettingsMCP(true, nil)}, &tools.AgentTools{MCP: &tools.AgentMCP{Enabled: ptr(true), AllowedServers: []string{"alpha", "off", "proj"}}})}, []string{"alpha"}},
		{"a child's allowlist narrows", tools.Scope{Policy: on, MCPAllowlist: []string{"beta", "unknown"}}, []string{"beta"}},
		{"an empty allowlist allows none", tools.Scope{Policy: on, MCPAllowlist: []string{}}, nil},
		{"an agent cannot widen the settings", tools.Scope{Policy: tools.Merge(tools.Policy{MCP: tools.SettingsMCP(true, []string{"alpha"})}, &tools.AgentTools{MCP: &tools.AgentMCP{Enabled: ptr(true), AllowedServers: []string{"beta"}}})}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := servers(tc.scope); !slices.Equal(got, tc.want) {
				t.Fatalf("servers %v, want %v", got, tc.want)
			}
		})
	}
	if pids := mcptest.Marked("policy-p"); len(pids) > 0 {
		t.Fatalf("the unapproved project server ran: %v", pids)
	}
}

func ptr[T any](v T) *T { return &v }

// MCP tool definitions count in the context like the built-in ones: the preview names
// them and its tool tokens grow by what their schemas cost.
func TestMCPToolsCountInTheContext(t *testing.T) {
	npm := mcptest.Servers(t)
	home, root := t.TempDir(), t.TempDir()
	t.Setenv("CREWAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	write := func(enabled bool) {
		b, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{"enabled": enabled}},
			"mcpServers": map[string]any{"everything": npm.Everything("budget-ev", nil)}})
		must(t, os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600))
	}
	write(false)
	ws, err := Open(home, root, Options{}, OpenOptions{})
	must(t, err)
	defer ws.Close()
	conv, err := ws.CreateConversation("")
	must(t, err)
	off, err := ws.Preview(context.Background(), conv.ID, conversation.ModeChat, "")
	must(t, err)
	must(t, ws.rt.SetMCPOptions(MCPOptions{Enabled: true, CallTimeoutSeconds: 60}))
	on, err := ws.Preview(context.Background(), conv.ID, conversation.ModeChat, "")
	must(t, err)
	var mcpNames []string
	for _, n := range on.ToolNames {
		if strings.HasPrefix(n, "mcp__everything__") {
			mcpNames = append(mcpNames, n)
		}
	}
	if len(mcpNames) < 5 || slices.ContainsFunc(off.ToolNames, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Fatalf("tools off %v, on %v", off.ToolNames, on.ToolNames)
	}
	// Each schema costs tokens: the difference is in the hundreds, and in the usage.
	if d := on.ToolTokens - off.ToolTokens; d < 50*len(mcpNames)/2 {
		t.Fatalf("the MCP tools cost %d tokens for %d tools", d, len(mcpNames))
	}
	if on.Usage.UsedTokens-off.Usage.UsedTokens < on.ToolTokens-off.ToolTokens {
		t.Fatalf("the usage (%d → %d) does not count the tools (%d → %d)", off.Usage.UsedTokens, on.Usage.UsedTokens, off.ToolTokens, on.ToolTokens)
	}
	var sys string
	for _, m := range on.Messages {
		if m.Role == "system" && m.Content != nil {
			sys += *m.Content
		}
	}
	if !strings.Contains(sys, "programs the user added: everything") {
		t.Fatalf("the policy text does not name the server:\n%s", sys)
	}
	pids := mcptest.Marked("budget-ev")
	must(t, ws.Close())
	mcptest.WaitGone(t, 3*time.Second, pids)
}
