package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/app"
)

// Editing a url server in the window keeps the transport its entry names (the form does
// not show it); a command server has none.
func TestSaveMCPServerKeepsTheTransport(t *testing.T) {
	tests := []struct {
		name  string
		entry string
		spec  app.MCPServerSpec
		want  string
	}{
		{"legacy SSE", `{"type":"sse","url":"http://127.0.0.1:1/events"}`, app.MCPServerSpec{Name: "s", URL: "http://127.0.0.1:1/events2"}, "sse"},
		{"streamable named", `{"type":"http","url":"http://127.0.0.1:1/mcp"}`, app.MCPServerSpec{Name: "s", URL: "http://127.0.0.1:1/mcp"}, "http"},
		{"none named", `{"url":"http://127.0.0.1:1/mcp"}`, app.MCPServerSpec{Name: "s", URL: "http://127.0.0.1:1/mcp2"}, ""},
		{"now a command", `{"type":"sse","url":"http://127.0.0.1:1/sse"}`, app.MCPServerSpec{Name: "s", Command: "srv"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			doc := `{"mcpServers":{"s":` + tt.entry + `}}`
			if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			rt := app.New(home, app.Options{})
			if err := rt.SaveMCPServer("s", tt.spec); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(home, "settings.json"))
			var got struct {
				MCPServers map[string]struct {
					Type, URL, Command string
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			s := got.MCPServers["s"]
			if s.Type != tt.want || s.URL != tt.spec.URL || s.Command != tt.spec.Command {
				t.Fatalf("saved %s", b)
			}
		})
	}
}
