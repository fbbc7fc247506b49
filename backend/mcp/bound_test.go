//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addBulkTools adds to a test server the tools a hostile one lists: MCPTEST_MANY_TOOLS
// more tools, and a tool whose schema takes MCPTEST_SCHEMA_BYTES bytes.
func addBulkTools(srv *sdk.Server) {
	n, _ := strconv.Atoi(os.Getenv("MCPTEST_MANY_TOOLS"))
	for i := 0; i < n; i++ {
		srv.AddTool(&sdk.Tool{Name: fmt.Sprintf("bulk_%d", i), Description: "One of many", InputSchema: objectSchemaAny()},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult("bulk"), nil
			})
	}
	if size, _ := strconv.Atoi(os.Getenv("MCPTEST_SCHEMA_BYTES")); size > 0 {
		schema := map[string]any{"type": "object", "properties": map[string]any{
			"blob": map[string]any{"type": "string", "description": strings.Repeat("x", size)}}}
		srv.AddTool(&sdk.Tool{Name: "fat", Description: "A tool with a huge schema", InputSchema: schema},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult("fat"), nil
			})
	}
}

func TestBound(t *testing.T) {
	tool := func(server, name string, schemaBytes int) Tool {
		return Tool{Server: server, Name: name, WireName: WireName(server, name), Description: "d",
			InputSchema: json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", schemaBytes) + `"}`)}
	}
	many := func(server string, n int) []Tool {
		var out []Tool
		for i := 0; i < n; i++ {
			out = append(out, tool(server, fmt.Sprintf("t%d", i), 10))
		}
		return out
	}
	tests := []struct {
		name     string
		list     []Tool
		limits   Limits
		kept     int
		withheld []string // "server: words of the reason"
	}{
		{"within", many("a", 5), Limits{MaxTools: 5, MaxTokens: 1000}, 5, nil},
		{"no limits", many("a", 500), Limits{}, 500, nil},
		{"too many tools", append(many("a", 3), many("b", 6)...), Limits{MaxTools: 5}, 3, []string{`b: MCP server "b" lists 6 tools, more than the 5`}},
		{"too many tokens", append(many("a", 2), tool("fat", "x", 40000)), Limits{MaxTools: 100, MaxTokens: 5000}, 2,
			[]string{`fat: the tool definitions of MCP server "fat" take about 100`}},
		{"both over", append(many("b", 9), tool("fat", "x", 40000)), Limits{MaxTools: 5, MaxTokens: 5000}, 0,
			[]string{"b: tools.mcp.maxToolsPerServer", "fat: tools.mcp.maxToolTokensPerServer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, withheld := Bound(tt.list, tt.limits)
			if len(kept) != tt.kept || len(withheld) != len(tt.withheld) {
				t.Fatalf("kept %d, withheld %+v", len(kept), withheld)
			}
			for i, w := range withheld {
				server, words, _ := strings.Cut(tt.withheld[i], ": ")
				if w.Server != server || !strings.Contains(w.Reason, words) || !strings.Contains(w.Reason, "the other servers' are") {
					t.Fatalf("withheld %+v, want %s", w, tt.withheld[i])
				}
			}
			for _, k := range kept {
				for _, w := range withheld {
					if k.Server == w.Server {
						t.Fatalf("a tool of %s kept", w.Server)
					}
				}
			}
		})
	}
}

// Real servers: one lists thousands of tools, one a tool with a 5 MB schema. The tools
// offered are those of the third server alone, the two others are named with the reason,
// and a call to their tools is refused without reaching them.
func TestProviderWithholdsOversizedServers(t *testing.T) {
	m := newTestManager(t, []ServerConfig{
		testServerConfig(t, "many", "basic", map[string]string{"MCPTEST_MANY_TOOLS": "3000"}),
		testServerConfig(t, "fat", "basic", map[string]string{"MCPTEST_SCHEMA_BYTES": strconv.Itoa(5 << 20)}),
		testServerConfig(t, "fine", "basic", nil),
	}, nil)
	var told []Withheld
	p := m.Provider(ProviderOptions{Limits: Limits{MaxTools: 128, MaxTokens: 32000}, Withheld: func(w Withheld) { told = append(told, w) }})
	defs := p.Tools()
	if len(defs) == 0 {
		t.Fatal("no tools offered")
	}
	for _, d := range defs {
		if !strings.HasPrefix(d.Name, "mcp__fine__") {
			t.Fatalf("offered %s", d.Name)
		}
	}
	reasons := map[string]string{}
	for _, w := range told {
		reasons[w.Server] = w.Reason
	}
	if len(told) != 2 || !strings.Contains(reasons["many"], `"many" lists 3011 tools`) || !strings.Contains(reasons["fat"], `MCP server "fat" take about`) {
		t.Fatalf("withheld %+v", told)
	}
	res, handled := p.Call(context.Background(), "mcp__many__echo", []byte(`{"text":"hi"}`))
	if !handled || res.OK || !strings.Contains(res.Content, "maxToolsPerServer") {
		t.Fatalf("call to a withheld server: %+v", res)
	}
	res, _ = p.Call(context.Background(), "mcp__fine__echo", []byte(`{"text":"hi"}`))
	if !res.OK || !strings.Contains(res.Content, "echo: hi") {
		t.Fatalf("call to the fine server: %+v", res)
	}
}
