//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/tools"
)

// The provider is what a tool host sees: the allowed servers' tools under their wire
// names, calls through the host (arguments checked, every outcome a result), attachments
// handed to the caller's store.
func TestProviderInAToolHost(t *testing.T) {
	a := testServerConfig(t, "alpha", "basic", nil)
	b := testServerConfig(t, "beta", "basic", nil)
	m := newTestManager(t, []ServerConfig{a, b}, nil)
	var log strings.Builder
	h := tools.NewHost(tools.Config{Roots: tools.Roots{Project: t.TempDir()}, Policy: tools.DefaultPolicy(), ExecLog: &log,
		Providers: []tools.Provider{m.Provider(ProviderOptions{Servers: []string{"alpha"}})}})
	names := h.ToolNames()
	if !slices.Contains(names, "mcp__alpha__echo") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp__beta__") }) {
		t.Fatalf("tools %v: want alpha's, not beta's", names)
	}
	if st := mustStatus(t, m, "beta"); st.State != StateStopped {
		t.Fatalf("a server the policy leaves out was started: %+v", st)
	}
	for _, d := range h.Tools() {
		if d.Name == "mcp__alpha__echo" && (d.Description != "Echoes its text" || !json.Valid(d.Parameters)) {
			t.Fatalf("definition %+v", d)
		}
	}
	ctx := tools.WithToolCallID(context.Background(), "call_7")
	tests := []struct {
		name, tool, args string
		ok               bool
		code, text       string
	}{
		{"a call", "mcp__alpha__echo", `{"text":"hi"}`, true, "", "echo: hi"},
		{"the tool's own error", "mcp__alpha__fail", `{}`, false, CodeToolError, "the disk is full"},
		{"arguments that are not an object", "mcp__alpha__echo", `[1]`, false, tools.CodeBadArguments, "JSON object"},
		{"a server the policy refuses", "mcp__beta__echo", `{}`, false, tools.CodeToolNotAvailable, "unknown tool"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.Call(ctx, tc.tool, tc.args)
			if r.OK != tc.ok || r.Code() != tc.code || !strings.Contains(r.Content, tc.text) {
				t.Fatalf("%+v", r)
			}
			if !tc.ok && (r.Error == nil || r.Error.Message == "") {
				t.Fatalf("a failure without its message: %+v", r)
			}
		})
	}
	if r := h.Call(ctx, "mcp__alpha__fail", `{}`); r.Error.Details["server"] != "alpha" {
		t.Fatalf("details %v", r.Error.Details)
	}
	// The provider refuses a server outside its list even when asked directly.
	p := m.Provider(ProviderOptions{Servers: []string{"alpha"}})
	if r, handled := p.Call(ctx, "mcp__beta__echo", []byte(`{}`)); !handled || r.OK || r.Code() != tools.CodeToolNotAvailable {
		t.Fatalf("%v %+v", handled, r)
	}
	if _, handled := p.Call(ctx, "fs.read", []byte(`{}`)); handled {
		t.Fatal("a built-in tool was handled by the provider")
	}
	if st := mustStatus(t, m, "beta"); st.State != StateStopped {
		t.Fatalf("a refused call started its server: %+v", st)
	}
	if !strings.Contains(log.String(), `"tool":"mcp__alpha__echo","toolCallId":"call_7"`) {
		t.Fatalf("the host's execution log lacks the MCP call: %s", log.String())
	}
}
