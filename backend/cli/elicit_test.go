//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"crewagent/backend/llm/fakellm"
	"crewagent/backend/mcp/mcptest"
)

// askingServer serves, over streamable HTTP, a tool that asks the user for a form.
func askingServer(t *testing.T) string {
	srv := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "ask", Description: "asks who you are"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Who are you?", RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":  map[string]any{"type": "string", "description": "your name"},
				"age":   map[string]any{"type": "integer", "default": 30},
				"color": map[string]any{"type": "string", "enum": []string{"red", "blue"}},
			},
			"required": []string{"name"},
		}})
		if err != nil {
			return nil, nil, err
		}
		b, _ := json.Marshal(res.Content)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%s %s", res.Action, b)}}}, nil, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// A server's form is asked on the terminal; without a terminal the server is refused.
func TestChatAnswersAServersFormOnTheTerminal(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		input    string
		result   string
		stderr   string
	}{
		{"accepted, with a retry and a default", true, "y\n\nAda\nabc\n\n2\n", `accept {\"age\":30,\"color\":\"blue\",\"name\":\"Ada\"}`, "a whole number, please"},
		{"declined", true, "n\n", `decline null`, `the MCP server \"asker\" asks`},
		{"no terminal", false, "", "does not support elicitation", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			was := stdinIsTerminal
			stdinIsTerminal = func(io.Reader) bool { return tt.terminal }
			t.Cleanup(func() { stdinIsTerminal = was })
			c := newMCPEnv(t)
			c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{"asker": map[string]any{"url": askingServer(t)}})
			var w mcptest.Watch
			script(c.srv, &w, nil, fakellm.Tools(call("call_ask", "mcp__asker__ask", `{}`)), fakellm.Text("Thanks."))
			r := c.runStdin(t, tt.input, "chat", "--approve", "full-auto", "who am I?")
			if r.code != ExitOK {
				t.Fatalf("chat: %+v", r)
			}
			if !strings.Contains(r.stderr, strings.ReplaceAll(tt.stderr, `\"`, `"`)) {
				t.Fatalf("stderr %q lacks %q", r.stderr, tt.stderr)
			}
			reqs := c.srv.ChatRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			if res := toolMessages(reqs[1])["call_ask"]; !strings.Contains(res, tt.result) {
				t.Fatalf("result %q lacks %q", res, tt.result)
			}
		})
	}
}
