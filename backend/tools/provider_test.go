package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

type echoProvider struct{ names []string }

func (p echoProvider) Tools() []ToolDef {
	var defs []ToolDef
	for _, n := range p.names {
		defs = append(defs, ToolDef{Name: n, Description: "echo " + n, Parameters: json.RawMessage(`{"type":"object"}`)})
	}
	return defs
}

func (p echoProvider) Call(_ context.Context, name string, args []byte) (Result, bool) {
	if !slices.Contains(p.names, name) {
		return Result{}, false
	}
	return Result{OK: true, Content: `{"ok":true,"tool":"` + name + `","args":` + string(args) + `}`, Effect: name}, true
}

func TestProvidersAddToolsAfterTheBuiltInOnes(t *testing.T) {
	var log bytes.Buffer
	h := NewHost(Config{Roots: Roots{Project: t.TempDir()}, Policy: DefaultPolicy(), ExecLog: &log,
		Providers: []Provider{echoProvider{[]string{"mcp__srv__echo", "fs.read"}}, echoProvider{[]string{"mcp__srv__echo", "skill.activate"}}}})
	names := h.ToolNames()
	if got := names[len(names)-2:]; !slices.Equal(got, []string{"mcp__srv__echo", "skill.activate"}) {
		t.Fatalf("tools %v: the providers' tools come last, a name already taken is left out", names)
	}
	if n := strings.Count(strings.Join(names, ","), "fs.read"); n != 1 {
		t.Fatalf("fs.read listed %d times", n)
	}
	res := h.Call(context.Background(), "skill.activate", `{"name":"pdf"}`)
	if !res.OK || res.Effect != "skill.activate" || !strings.Contains(res.Content, `"args":{"name":"pdf"}`) {
		t.Fatalf("%+v", res)
	}
	if res := h.Call(context.Background(), "mcp__srv__echo", `[1]`); res.OK || res.Code() != CodeBadArguments {
		t.Fatalf("arguments are checked before a provider sees them: %+v", res)
	}
	if !strings.Contains(log.String(), `"tool":"skill.activate"`) {
		t.Fatalf("provider calls are logged: %s", log.String())
	}
}
