package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/mcp/oauth"
)

func problemStrings(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func TestParseServers(t *testing.T) {
	tests := []struct {
		name     string
		table    string
		want     []ServerConfig
		problems []string // substrings, one per problem, in order
	}{
		{name: "empty", table: ``},
		{name: "null", table: `null`},
		{name: "stdio and http", table: `{
			"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "ghp_x"}},
			"remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}, "disabled": true},
			"local": {"type": "stdio", "command": "./server", "cwd": "tools"}
		}`, want: []ServerConfig{
			{Name: "github", Source: SourceSettings, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_TOKEN": "ghp_x"}},
			{Name: "local", Source: SourceSettings, Command: "./server", Cwd: "tools"},
			{Name: "remote", Source: SourceSettings, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer t"}, Disabled: true},
		}},
		{name: "type http is accepted", table: `{"r": {"type": "http", "url": "http://127.0.0.1:3000/mcp"}, "s": {"type": "streamable-http", "url": "http://h/mcp"}}`,
			want: []ServerConfig{{Name: "r", Source: SourceSettings, URL: "http://127.0.0.1:3000/mcp", Type: "http"}, {Name: "s", Source: SourceSettings, URL: "http://h/mcp", Type: "http"}}},
		{name: "unknown fields are ignored", table: `{"a": {"command": "x", "timeout": 5, "alwaysAllow": []}}`,
			want: []ServerConfig{{Name: "a", Source: SourceSettings, Command: "x"}}},
		{name: "one bad entry does not sink the others", table: `{
			"good": {"command": "ok"},
			"both": {"command": "x", "url": "http://h"},
			"none": {"args": ["a"]},
			"badargs": {"command": "x", "args": "a b"},
			"badenv": {"command": "x", "env": {"K": 1}},
			"badurl": {"url": "ftp://h"},
			"badtype": {"type": "websocket", "url": "http://h/ws"},
			"notobj": "npx server",
			"a..b": {"command": "x"},
			"emptycmd": {"command": " "},
			"hdr": {"command": "x", "headers": {"A": "b"}},
			"urlargs": {"url": "http://h", "args": ["x"]},
			"baddisabled": {"command": "x", "disabled": "yes"}
		}`, want: []ServerConfig{{Name: "good", Source: SourceSettings, Command: "ok"}},
			problems: []string{
				`"both": gives both command and url`,
				`"none": needs a command`,
				`"badargs" args: must be an array of strings`,
				`"badenv" env.K: must be a string, found a number`,
				`"badurl" url: must be an http:// or https:// URL`,
				`"badtype" type: must be "stdio", "http" or "sse", got "websocket"`,
				`"notobj": must be an object`,
				`"a..b": the name becomes "a__b"`,
				`"emptycmd" command: must not be empty`,
				`"hdr" headers: only apply to url servers`,
				`"urlargs" args: only apply to command servers`,
				`"baddisabled" disabled: must be true or false`,
			}},
		{name: "oauth objects", table: `{
			"signin": {"url": "https://h/mcp", "oauth": {"clientId": "desk", "clientSecret": "${env:NOTES_SECRET}", "scopes": ["read"]}},
			"machine": {"url": "https://h/mcp", "oauth": {"grant": "client_credentials"}},
			"typo": {"url": "https://h/mcp", "oauth": {"client_id": "c"}},
			"cimd": {"url": "https://h/mcp", "oauth": {"clientMetadataUrl": "http://h/client.json"}},
			"local": {"command": "x", "oauth": {}}
		}`, want: []ServerConfig{
			{Name: "signin", Source: SourceSettings, URL: "https://h/mcp", OAuth: &oauth.Config{ClientID: "desk", ClientSecret: "${env:NOTES_SECRET}", Scopes: []string{"read"}}},
		}, problems: []string{
			`"machine" oauth: the client_credentials grant needs clientId and either clientSecret or privateKey`,
			`"typo" oauth: must be an object such as`,
			`"cimd" oauth: clientMetadataUrl must be an https URL with a path`,
			`"local" oauth: only applies to url servers`,
		}},
		{name: "transports named or read from the url", table: `{
			"legacy": {"type": "sse", "url": "http://h/events"},
			"auto": {"url": "http://h/sse"},
			"named": {"type": "streamable-http", "url": "http://h/sse"},
			"local": {"type": "stdio", "command": "x"}
		}`, want: []ServerConfig{
			{Name: "auto", Source: SourceSettings, URL: "http://h/sse"},
			{Name: "legacy", Source: SourceSettings, URL: "http://h/events", Type: "sse"},
			{Name: "local", Source: SourceSettings, Command: "x"},
			{Name: "named", Source: SourceSettings, URL: "http://h/sse", Type: "http"},
		}},
		{name: "duplicates and name collisions", table: `{"a.b": {"command": "x"}, "a_b": {"command": "y"}, "a.b": {"command": "z"}}`,
			want:     []ServerConfig{{Name: "a.b", Source: SourceSettings, Command: "x"}},
			problems: []string{`"a_b": has the same tool-name form "a_b" as server "a.b"`, `"a.b": is defined more than once`}},
		{name: "not an object", table: `["a"]`, problems: []string{"mcpServers must be a JSON object"}},
		{name: "broken JSON", table: `{"a": {"command": "x"`, problems: []string{"mcpServers must be a JSON object of name → server: the JSON ends too early"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ps := ParseServers([]byte(tt.table), SourceSettings)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("servers:\n got %+v\nwant %+v", got, tt.want)
			}
			strs := problemStrings(ps)
			if len(strs) != len(tt.problems) {
				t.Fatalf("problems:\n got %q\nwant %q", strs, tt.problems)
			}
			for i, want := range tt.problems {
				if !strings.Contains(strs[i], want) {
					t.Errorf("problem %d: %q does not contain %q", i, strs[i], want)
				}
			}
		})
	}
}

// Problems never repeat the values of env or headers, which may be secrets.
func TestParseProblemsDoNotShowSecrets(t *testing.T) {
	_, ps := ParseServers([]byte(`{
		"a": {"url": "http://h", "env": {"K": "sk-secret-aaaa"}, "headers": {"Bad Name": "sk-secret-bbbb", "X": "line\nbreak-sk-secret-cccc"}},
		"b": {"url": "ftp://sk-secret-dddd@h"}
	}`), SourceSettings)
	if len(ps) < 4 {
		t.Fatalf("problems %v", problemStrings(ps))
	}
	for _, p := range problemStrings(ps) {
		if strings.Contains(p, "sk-secret") {
			t.Errorf("problem shows a secret: %s", p)
		}
	}
}

func TestParseBlockAcceptsWhatPeoplePaste(t *testing.T) {
	want := []ServerConfig{{Name: "everything", Source: SourceSettings, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}}
	for name, text := range map[string]string{
		"claude desktop file": `{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}`,
		"the table":           `{"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}`,
		"one member":          `"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}`,
		"member with comma":   "\n  \"everything\": {\n    \"command\": \"npx\",\n    \"args\": [\"-y\", \"@modelcontextprotocol/server-everything\"]\n  },\n",
	} {
		t.Run(name, func(t *testing.T) {
			got, ps := ParseBlock(text, SourceSettings)
			if len(ps) != 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, problems %v", got, problemStrings(ps))
			}
		})
	}
	if _, ps := ParseBlock("  ", SourceSettings); len(ps) != 1 {
		t.Fatalf("empty paste: %v", ps)
	}
	if _, ps := ParseBlock(`{"a": `, SourceSettings); len(ps) != 1 || !strings.Contains(ps[0].Message, "not a JSON object") {
		t.Fatalf("broken paste: %v", problemStrings(ps))
	}
}

func TestReadProjectFileAndLoadConfig(t *testing.T) {
	root := t.TempDir()
	if s, ps := ReadProjectFile(root); s != nil || ps != nil {
		t.Fatalf("missing file: %v %v", s, ps)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(root, ProjectFileName), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mcpServers": {"lint": {"command": "./lint-server"}, "github": {"command": "evil"}, "bad": {}}}`)
	settingsTable := []byte(`{"github": {"command": "npx", "args": ["gh"]}}`)
	servers, ps := LoadConfig(settingsTable, root)
	if len(servers) != 2 || servers[0].Name != "github" || servers[0].Source != SourceSettings || servers[0].Command != "npx" ||
		servers[1].Name != "lint" || servers[1].Source != SourceProject {
		t.Fatalf("servers %+v", servers)
	}
	strs := problemStrings(ps)
	if len(strs) != 2 || !strings.Contains(strs[0], `"bad": needs a command`) || !strings.Contains(strs[1], `"github": is defined in .mcp.json and also`) {
		t.Fatalf("problems %q", strs)
	}
	write(`{"servers": {}}`) // VS Code's form, with no server
	if s, ps := ReadProjectFile(root); len(s) != 0 || len(ps) != 0 {
		t.Fatalf("%v %v", s, ps)
	}
	write(`{"tools": {}}`)
	if _, ps := ReadProjectFile(root); len(ps) != 1 || !strings.Contains(ps[0].Message, `no "mcpServers"`) {
		t.Fatalf("%v", ps)
	}
	write(`{"mcpServers": `)
	if _, ps := LoadConfig(nil, root); len(ps) != 1 || !strings.Contains(ps[0].Message, ".mcp.json is not a JSON object") {
		t.Fatalf("%v", problemStrings(ps))
	}
	write(strings.Repeat(" ", maxProjectFileBytes+1))
	if _, ps := ReadProjectFile(root); len(ps) != 1 || !strings.Contains(ps[0].Message, "larger than") {
		t.Fatalf("%v", ps)
	}
	if s, ps := LoadConfig(nil, ""); s != nil || ps != nil {
		t.Fatal("no settings and no project gave something")
	}
}

func TestConfigHashCoversWhatRuns(t *testing.T) {
	base := ServerConfig{Name: "a", Command: "npx", Args: []string{"x"}, Env: map[string]string{"K": "v"}, Cwd: "d"}
	h := base.Hash()
	if !strings.HasPrefix(h, "sha256:") || len(h) != 7+64 {
		t.Fatalf("hash %q", h)
	}
	same := base.Clone()
	same.Name, same.Source, same.Disabled = "b", SourceProject, true
	if same.Hash() != h {
		t.Fatal("name, source or disabled changed the hash")
	}
	for name, change := range map[string]func(*ServerConfig){
		"command": func(c *ServerConfig) { c.Command = "node" },
		"args":    func(c *ServerConfig) { c.Args = []string{"y"} },
		"env":     func(c *ServerConfig) { c.Env["K"] = "w" },
		"cwd":     func(c *ServerConfig) { c.Cwd = "e" },
		"envFile": func(c *ServerConfig) { c.EnvFile = ".env" },
		"url":     func(c *ServerConfig) { c.Command = ""; c.URL = "http://h" },
		"headers": func(c *ServerConfig) { c.Headers = map[string]string{"A": "b"} },
	} {
		c := base.Clone()
		change(&c)
		if c.Hash() == h {
			t.Errorf("changing %s kept the hash", name)
		}
	}
}

func TestServerConfigJSONRoundTrip(t *testing.T) {
	in := ServerConfig{Name: "x", Source: SourceProject, Command: "npx", Args: []string{"-y", "pkg"}, Env: map[string]string{"K": "v"}, Disabled: true}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"command":"npx","args":["-y","pkg"],"env":{"K":"v"},"disabled":true}` {
		t.Fatalf("json %s", b)
	}
	got, ps := ParseServers([]byte(`{"x":`+string(b)+`}`), SourceProject)
	if len(ps) != 0 || !reflect.DeepEqual(got, []ServerConfig{in}) {
		t.Fatalf("round trip: %+v %v", got, ps)
	}
	if ps := in.Validate(); len(ps) != 0 {
		t.Fatalf("Validate: %v", ps)
	}
	bad := ServerConfig{Name: "y", Command: "x", URL: "http://h"}
	if ps := bad.Validate(); len(ps) != 1 {
		t.Fatalf("Validate of a bad config: %v", ps)
	}
}

func FuzzParseBlock(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"K": "v"}}}}`,
		`"b": {"url": "https://h/mcp", "headers": {"A": "b"}},`,
		`{"a.b": {"command": "x"}, "a_b": {"url": "http://h"}}`,
		`{"x": {"type": "sse", "url": 1}}`,
		`{"n": {"url": "https://h/mcp", "oauth": {"clientId": "c", "clientSecret": "s", "scopes": ["a"]}}}`,
		`{"n": {"url": "https://h/mcp", "oauth": {"grant": "client_credentials"}}}`,
		`{`, `[]`, `"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		servers, problems := ParseBlock(text, SourceSettings)
		wires := map[string]bool{}
		for _, s := range servers {
			if err := CheckServerName(s.Name); err != nil {
				t.Fatalf("accepted bad name %q: %v", s.Name, err)
			}
			w := ServerWireName(s.Name)
			if wires[w] {
				t.Fatalf("two servers with the tool-name form %q", w)
			}
			wires[w] = true
			if (s.Command == "") == (s.URL == "") {
				t.Fatalf("server %q has neither or both of command and url", s.Name)
			}
			if s.OAuth != nil && (s.URL == "" || s.OAuth.Validate() != nil) {
				t.Fatalf("server %q has an oauth object it cannot use: %+v", s.Name, s.OAuth)
			}
			if ps := s.Validate(); len(ps) != 0 {
				t.Fatalf("accepted server %q does not validate: %v", s.Name, ps)
			}
			again, ps := ParseServers(mustJSON(t, map[string]ServerConfig{s.Name: s}), SourceSettings)
			if len(ps) != 0 || len(again) != 1 || again[0].Hash() != s.Hash() {
				t.Fatalf("server %q does not survive a round trip: %v", s.Name, ps)
			}
		}
		for _, p := range problems {
			if p.Message == "" {
				t.Fatal("a problem without a message")
			}
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
