package projectmcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/errs"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/projectmcp"
	"crewagent/backend/settings"
)

// settingsWith writes a settings.json whose mcpServers are doc and loads it.
func settingsWith(t *testing.T, servers string) (*settings.Store, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"mcpServers":`+servers+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := settings.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	return st, home
}

type savedServer struct{ Type, URL, Command string }

func savedServers(t *testing.T, home string) map[string]savedServer {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MCPServers map[string]savedServer `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	return got.MCPServers
}

// Editing a url server in the window keeps the transport its entry names (the form does
// not show it); a command server has none.
func TestSaveServerKeepsTheTransport(t *testing.T) {
	tests := []struct {
		name  string
		entry string
		cfg   mcp.ServerConfig
		want  string
	}{
		{"legacy SSE", `{"type":"sse","url":"http://127.0.0.1:1/events"}`, mcp.ServerConfig{Name: "s", URL: "http://127.0.0.1:1/events2"}, "sse"},
		{"streamable named", `{"type":"http","url":"http://127.0.0.1:1/mcp"}`, mcp.ServerConfig{Name: "s", URL: "http://127.0.0.1:1/mcp"}, "http"},
		{"none named", `{"url":"http://127.0.0.1:1/mcp"}`, mcp.ServerConfig{Name: "s", URL: "http://127.0.0.1:1/mcp2"}, ""},
		{"now a command", `{"type":"sse","url":"http://127.0.0.1:1/sse"}`, mcp.ServerConfig{Name: "s", Command: "srv"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, home := settingsWith(t, `{"s":`+tt.entry+`}`)
			tt.cfg.Source = mcp.SourceSettings
			if err := projectmcp.SaveServer(st, "s", tt.cfg); err != nil {
				t.Fatal(err)
			}
			s := savedServers(t, home)["s"]
			if s.Type != tt.want || s.URL != tt.cfg.URL || s.Command != tt.cfg.Command {
				t.Fatalf("saved %+v", s)
			}
		})
	}
}

// The edits fail with the codes the window branches on, and change nothing then.
func TestServerEditsFailWithTheirCodes(t *testing.T) {
	cmd := func(name string) mcp.ServerConfig {
		return mcp.ServerConfig{Name: name, Source: mcp.SourceSettings, Command: "srv"}
	}
	tests := []struct {
		name string
		edit func(st *settings.Store) error
		want string
	}{
		{"rename onto another", func(st *settings.Store) error { return projectmcp.SaveServer(st, "a", cmd("b")) }, errs.MCPConfigInvalid},
		{"add a taken name", func(st *settings.Store) error { return projectmcp.SaveServer(st, "", cmd("a")) }, errs.MCPConfigInvalid},
		{"replace a missing one", func(st *settings.Store) error { return projectmcp.SaveServer(st, "zz", cmd("zz")) }, errs.MCPServerNotFound},
		{"an entry without command or url", func(st *settings.Store) error {
			return projectmcp.SaveServer(st, "", mcp.ServerConfig{Name: "c", Source: mcp.SourceSettings})
		}, errs.MCPConfigInvalid},
		{"remove a missing one", func(st *settings.Store) error { return projectmcp.RemoveServer(st, "zz") }, errs.MCPServerNotFound},
		{"enable a missing one", func(st *settings.Store) error { return projectmcp.SetEnabled(st, "zz", true) }, errs.MCPServerNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, home := settingsWith(t, `{"a":{"command":"x"},"b":{"command":"y"}}`)
			err := tt.edit(st)
			if got := errs.From(err).Code; got != tt.want {
				t.Fatalf("error %v: code %q, want %q", err, got, tt.want)
			}
			if s := savedServers(t, home); len(s) != 2 || s["a"].Command != "x" || s["b"].Command != "y" {
				t.Fatalf("the servers changed: %+v", s)
			}
		})
	}
}

// A pasted block adds new servers, replaces those of the same name and reports the
// entries left out; a block with no usable server fails before the settings are read.
func TestImportBlock(t *testing.T) {
	st, home := settingsWith(t, `{"a":{"command":"x"}}`)
	load := func() (*settings.Store, error) { return st, nil }
	res, err := projectmcp.ImportBlock(load, `{"mcpServers":{"a":{"command":"x2"},"n":{"url":"http://127.0.0.1:1/mcp"},"bad":{}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 1 || res.Added[0] != "n" || len(res.Replaced) != 1 || res.Replaced[0] != "a" || len(res.Problems) != 1 || res.Problems[0].Server != "bad" {
		t.Fatalf("imported %+v", res)
	}
	if s := savedServers(t, home); s["a"].Command != "x2" || s["n"].URL == "" {
		t.Fatalf("saved %+v", s)
	}
	unread := func() (*settings.Store, error) { t.Fatal("the settings were read"); return nil, nil }
	if _, err := projectmcp.ImportBlock(unread, `{"bad":{}}`); errs.From(err).Code != errs.MCPConfigInvalid {
		t.Fatalf("a block without a server: %v", err)
	}
}

// The window's spec is the settings entry with its name beside it: what the
// window sends reads back the same, and its configuration is the entry the
// settings file stores (trimmed, without the name, which is the key).
func TestServerSpecIsTheEntryWithItsName(t *testing.T) {
	tests := []struct {
		name, window, entry string
	}{
		{"command", `{"name":" gh ","command":" npx ","args":["-y","gh"],"env":{"TOKEN":"t"},"envFile":" .env ","cwd":" tools "}`,
			`{"command":"npx","args":["-y","gh"],"env":{"TOKEN":"t"},"envFile":".env","cwd":"tools"}`},
		{"url", `{"name":"r","url":" https://example.com/mcp ","headers":{"X-Key":"k"},"disabled":true}`,
			`{"url":"https://example.com/mcp","headers":{"X-Key":"k"},"disabled":true}`},
		{"url with its transport and sign-in", `{"name":"r","url":"https://example.com/sse","type":"sse","oauth":{"clientId":"app","scopes":["read"]}}`,
			`{"url":"https://example.com/sse","type":"sse","oauth":{"clientId":"app","scopes":["read"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec projectmcp.ServerSpec
			if err := json.Unmarshal([]byte(tt.window), &spec); err != nil {
				t.Fatal(err)
			}
			back, err := json.Marshal(spec)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, back, []byte(tt.window)) {
				t.Fatalf("the window's spec reads back as %s", back)
			}
			cfg := spec.Config(mcp.SourceSettings)
			if cfg.Name != strings.TrimSpace(spec.Name) || cfg.Source != mcp.SourceSettings {
				t.Fatalf("config %q from %q", cfg.Name, cfg.Source)
			}
			entry, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, entry, []byte(tt.entry)) {
				t.Fatalf("stored as %s, want %s", entry, tt.entry)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
