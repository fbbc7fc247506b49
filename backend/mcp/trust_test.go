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
