package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A project file's environment is shown as written and its loader variables named in
// words; the dynamic loader's preload variables leave the server out. The user's own
// settings keep their values masked.
func TestProjectEnvIsShownAndPreloadRefused(t *testing.T) {
	root := t.TempDir()
	project := `{"mcpServers":{
		"tidy": {"command": "python3", "args": ["-m", "tidy"], "env": {"PYTHONPATH": "./vendor", "MODE": "fast"}},
		"fast": {"command": "node", "args": ["server.js"], "env": {"LD_PRELOAD": "./libhook.so"}},
		"mac":  {"command": "node", "args": ["server.js"], "env": {"DYLD_INSERT_LIBRARIES": "./hook.dylib"}},
		"opts": {"command": "node", "args": ["server.js"], "env": {"NODE_OPTIONS": "--require ./hook.js"}}
	}}`
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := []byte(`{"mine": {"command": "node", "env": {"API_TOKEN": "tok-0123456789abcdef", "LD_LIBRARY_PATH": "/opt/lib"}}}`)
	servers, problems := LoadConfig(settings, root)
	byName := map[string]ServerConfig{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	for _, name := range []string{"fast", "mac"} {
		if _, ok := byName[name]; ok {
			t.Errorf("%s with a preload variable from the project file was kept", name)
		}
		found := false
		for _, p := range problems {
			found = found || p.Server == name && strings.Contains(p.Message, "a project file may not set it") && strings.Contains(p.Message, ".mcp.json")
		}
		if !found {
			t.Errorf("no problem says why %s is left out: %+v", name, problems)
		}
	}
	// the user's own settings may set what they want
	if _, ok := byName["mine"]; !ok {
		t.Fatal("a settings server with LD_LIBRARY_PATH was left out")
	}
	tidy := byName["tidy"]
	if r := tidy.Redacted(); r.Env["PYTHONPATH"] != "./vendor" || r.Env["MODE"] != "fast" {
		t.Fatalf("a project server's env masked: %v", r.Env)
	}
	if r := byName["mine"].Redacted(); r.Env["API_TOKEN"] == "tok-0123456789abcdef" {
		t.Fatal("the user's secret is shown")
	}
	if w := tidy.LoaderWarnings(); len(w) != 1 || !strings.Contains(w[0], "env PYTHONPATH makes python load modules (sitecustomize.py among them) from \"./vendor\"") {
		t.Fatalf("warnings %q", w)
	}
	if w := byName["opts"].LoaderWarnings(); len(w) != 1 || !strings.Contains(w[0], "NODE_OPTIONS") || !strings.Contains(w[0], "--require ./hook.js") {
		t.Fatalf("warnings %q", w)
	}
	if w := byName["mine"].LoaderWarnings(); len(w) != 0 {
		t.Fatalf("a settings server warned: %q", w)
	}
}

// An approval covers a project server in the folder it was approved in: a copy of the
// project elsewhere (same files, the same project id in .crewagent.json, so the same
// approvals file) asks again.
func TestApprovalDoesNotFollowACopiedProject(t *testing.T) {
	home := t.TempDir()
	original, copied := t.TempDir(), t.TempDir()
	file := []byte(`{"mcpServers":{"tidy": {"command": "python3", "args": ["-m", "tidy"]}}}`)
	for _, root := range []string{original, copied} {
		if err := os.WriteFile(filepath.Join(root, ".mcp.json"), file, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := NewApprovals(home, "0f9c1c9e-5c55-4b7c-9d43-3c1f6c1b7a11")
	load := func(root string) ServerConfig {
		t.Helper()
		servers, problems := LoadConfig(nil, root)
		if len(servers) != 1 || len(problems) != 0 {
			t.Fatalf("load %s: %+v %+v", root, servers, problems)
		}
		return servers[0]
	}
	if err := a.Approve(load(original)); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.IsApproved(load(original)); !ok || err != nil {
		t.Fatalf("the approved folder: %v %v", ok, err)
	}
	if ok, _ := a.IsApproved(load(copied)); ok {
		t.Fatal("a copy of the project at another path runs its server without approval")
	}
	pending, _ := a.Pending([]ServerConfig{load(copied)})
	if len(pending) != 1 || !pending[0].Changed {
		t.Fatalf("pending %+v", pending)
	}
	// a link to the approved folder is the same folder
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(original, link); err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.IsApproved(load(link)); !ok {
		t.Fatal("the approved folder reached through a link asks again")
	}
}
