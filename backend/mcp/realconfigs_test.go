//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealServersFromProjectFiles: the npm servers configured the way Cursor and VS Code
// users write them, in the project's .cursor/mcp.json and .vscode/mcp.json, with variables
// and an envFile, read through LoadConfig, approved and run.
func TestRealServersFromProjectFiles(t *testing.T) {
	srv := findNPMServers(t)
	root := t.TempDir()
	files := map[string]string{
		".cursor/mcp.json": `{"mcpServers": {"everything": {
			"command": "node", "args": ["${env:EVERYTHING_JS}", "stdio"],
			"envFile": ".env", "env": {"FROM_ENTRY": "${ENTRY_VALUE:-entry-default}", "SHARED": "entry-wins"}}}}`,
		".vscode/mcp.json": `{"inputs": [], "servers": {"files": {
			"type": "stdio", "command": "node", "args": ["${env:FILESYSTEM_JS}", "${workspaceFolder}/data"]}}}`,
		".env":          "FROM_ENV_FILE=value-from-env-file\nSHARED=file-loses\n",
		"data/note.txt": "a note in the project\n",
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	servers, problems := LoadConfig(nil, root)
	if len(servers) != 2 || len(problems) != 0 {
		t.Fatalf("servers %+v, problems %v", servers, problems)
	}
	env := map[string]string{"EVERYTHING_JS": srv.everything, "FILESYSTEM_JS": srv.filesystem}
	m := newTestManager(t, servers, func(o *Options) {
		o.ProjectRoot = root
		o.LookupEnv = func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	})
	for _, s := range servers {
		if err := m.Approve(s.Name); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	tools := m.Tools(ctx, nil)
	findTool(t, tools, "mcp__everything__get-env")
	findTool(t, tools, "mcp__files__read_text_file")

	r := m.Call(ctx, "mcp__everything__get-env", nil, nil)
	if !r.OK {
		t.Fatal(r.Content)
	}
	for _, want := range []string{"value-from-env-file", "entry-default", "entry-wins"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the server's environment lacks %q: %s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "file-loses") || strings.Contains(r.Text, "${") {
		t.Errorf("environment %s", r.Text)
	}

	args, _ := json.Marshal(map[string]string{"path": filepath.Join(root, "data", "note.txt")})
	r = m.Call(ctx, "mcp__files__read_text_file", args, nil)
	if !r.OK || r.Text != "a note in the project\n" {
		t.Fatalf("read through ${workspaceFolder}: %+v", r)
	}
	args, _ = json.Marshal(map[string]string{"path": filepath.Join(root, ".env")})
	if r = m.Call(ctx, "mcp__files__read_text_file", args, nil); r.OK {
		t.Fatalf("the server reached outside ${workspaceFolder}/data: %s", r.Text)
	}
}
