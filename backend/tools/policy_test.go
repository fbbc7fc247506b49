package tools

import (
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

func boolp(b bool) *bool { return &b }

func TestMerge(t *testing.T) {
	sys := Policy{FS: FSPolicy{Enabled: true, MaxReadBytes: 1000, MaxWriteBytes: 5000},
		MCP: MCPPolicy{Enabled: true, AllowedServers: []string{"git", "web"}}}
	tests := []struct {
		name   string
		system Policy
		agent  *AgentTools
		want   Policy
	}{
		{"nil agent: fs kept, mcp off by default", sys, nil,
			Policy{FS: FSPolicy{true, 1000, 5000}, MCP: MCPPolicy{false, []string{"git", "web"}}}},
		{"zero system takes defaults", Policy{FS: FSPolicy{Enabled: true}}, nil,
			Policy{FS: FSPolicy{true, DefaultMaxReadBytes, DefaultMaxWriteBytes}}},
		{"agent tightens limits", sys, &AgentTools{FS: &AgentFS{MaxReadBytes: 10, MaxWriteBytes: 20}},
			Policy{FS: FSPolicy{true, 10, 20}, MCP: MCPPolicy{false, []string{"git", "web"}}}},
		{"agent cannot loosen limits", sys, &AgentTools{FS: &AgentFS{MaxReadBytes: 1 << 30, MaxWriteBytes: 1 << 30}},
			Policy{FS: FSPolicy{true, 1000, 5000}, MCP: MCPPolicy{false, []string{"git", "web"}}}},
		{"zero agent limit is no override", sys, &AgentTools{FS: &AgentFS{MaxReadBytes: 0, MaxWriteBytes: 7}},
			Policy{FS: FSPolicy{true, 1000, 7}, MCP: MCPPolicy{false, []string{"git", "web"}}}},
		{"agent disables fs", sys, &AgentTools{FS: &AgentFS{Enabled: boolp(false)}},
			Policy{FS: FSPolicy{false, 1000, 5000}, MCP: MCPPolicy{false, []string{"git", "web"}}}},
		{"agent cannot enable fs", Policy{FS: FSPolicy{Enabled: false}}, &AgentTools{FS: &AgentFS{Enabled: boolp(true)}},
			Policy{FS: FSPolicy{false, DefaultMaxReadBytes, DefaultMaxWriteBytes}}},
		{"mcp needs both", sys, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true)}},
			Policy{FS: FSPolicy{true, 1000, 5000}, MCP: MCPPolicy{true, []string{"git", "web"}}}},
		{"agent cannot enable mcp", Policy{}, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true)}},
			Policy{FS: FSPolicy{false, DefaultMaxReadBytes, DefaultMaxWriteBytes}}},
		{"agent narrows servers", sys, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true), AllowedServers: []string{"web", "other"}}},
			Policy{FS: FSPolicy{true, 1000, 5000}, MCP: MCPPolicy{true, []string{"web"}}}},
		{"agent empty server list allows none", sys, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true), AllowedServers: []string{}}},
			Policy{FS: FSPolicy{true, 1000, 5000}, MCP: MCPPolicy{true, []string{}}}},
		{"no common server allows none", sys, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true), AllowedServers: []string{"other"}}},
			Policy{FS: FSPolicy{true, 1000, 5000}, MCP: MCPPolicy{true, []string{}}}},
		{"every server narrowed by the agent", Policy{FS: FSPolicy{Enabled: true}, MCP: SettingsMCP(true, []string{})}, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true), AllowedServers: []string{"web"}}},
			Policy{FS: FSPolicy{true, DefaultMaxReadBytes, DefaultMaxWriteBytes}, MCP: MCPPolicy{true, []string{"web"}}}},
		{"every server, no agent list", Policy{MCP: SettingsMCP(true, nil)}, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true)}},
			Policy{FS: FSPolicy{false, DefaultMaxReadBytes, DefaultMaxWriteBytes}, MCP: MCPPolicy{true, nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Merge(tc.system, tc.agent)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestMergeDoesNotAliasSystemSlice(t *testing.T) {
	sys := Policy{MCP: MCPPolicy{Enabled: true, AllowedServers: []string{"a"}}}
	p := Merge(sys, &AgentTools{MCP: &AgentMCP{Enabled: boolp(true)}})
	p.MCP.AllowedServers[0] = "changed"
	if sys.MCP.AllowedServers[0] != "a" {
		t.Fatal("Merge shares the system's server list")
	}
}

func TestPolicyDrivesToolsAndEnforcement(t *testing.T) {
	on := newHarness(t, nil)
	if got := on.h.ToolNames(); !reflect.DeepEqual(got, []string{conversation.ToolFSList, conversation.ToolFSRead, conversation.ToolFSSearch, conversation.ToolFSWrite, conversation.ToolFSApplyPatch, conversation.ToolUIAskUser}) {
		t.Fatalf("tools: %v", got)
	}
	for _, d := range on.h.Tools() {
		if d.Description == "" || len(d.Parameters) == 0 {
			t.Errorf("%s has no description or parameters", d.Name)
		}
	}
	txt := on.h.PolicyText()
	for _, want := range []string{"fs: enabled", "maxReadBytes=524288", "maxWriteBytes=2097152", "mcp: disabled", "@pkg/ : the active package (read-only)", "fs.apply_patch"} {
		if !strings.Contains(txt, want) {
			t.Errorf("policy text lacks %q:\n%s", want, txt)
		}
	}

	off := newHarness(t, func(c *Config) {
		c.Policy = Merge(DefaultPolicy(), &AgentTools{FS: &AgentFS{Enabled: boolp(false)}})
	})
	if got := off.h.ToolNames(); !reflect.DeepEqual(got, []string{conversation.ToolUIAskUser}) {
		t.Fatalf("tools with fs off: %v", got)
	}
	for _, name := range []string{conversation.ToolFSList, conversation.ToolFSRead, conversation.ToolFSSearch, conversation.ToolFSWrite, conversation.ToolFSApplyPatch} {
		e := off.mustFail(name, map[string]any{"path": "@project/docs/readme.md", "content": "x", "pattern": "x"}, CodeToolNotAvailable)
		if !strings.Contains(e["message"].(string), "disabled") {
			t.Errorf("%s: %v", name, e["message"])
		}
	}
	if !strings.Contains(off.h.PolicyText(), "fs: disabled") {
		t.Errorf("policy text: %s", off.h.PolicyText())
	}
	if b, err := osReadFileMaybe(off.f.roots.Project + "/docs/readme.md"); err != nil || string(b) == "x" {
		t.Fatalf("a refused write reached the disk: %q %v", b, err)
	}

	chat := newHarness(t, func(c *Config) { c.Roots.Package, c.Roots.State = "", "" })
	txt = chat.h.PolicyText()
	if !strings.Contains(txt, "@pkg is not available") || !strings.Contains(txt, "@state is not available") {
		t.Errorf("chat policy text:\n%s", txt)
	}
}
