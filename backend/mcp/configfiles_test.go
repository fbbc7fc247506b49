package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"crewagent/backend/settings"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/configs and testdata/paste")

// goldenEnv is the environment the configuration files of testdata/configs are resolved in.
var goldenEnv = map[string]string{
	"GITHUB_TOKEN": "ghp_golden_token",
	"NOTES_TOKEN":  "notes-golden-token",
	"MY_API_KEY":   "key-from-environment",
	"DOCS_PORT":    "4100",
}

func goldenLookup(name string) (string, bool) { v, ok := goldenEnv[name]; return v, ok }

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestConfigFilesGolden reads the configuration files users bring (Claude Desktop and Claude
// Code, Cursor, VS Code) through the real load path: settings.json of a runtime home and the
// project's .mcp.json, .cursor/mcp.json and .vscode/mcp.json, each server resolved as it
// would start. testdata/configs/<case>/want.txt holds the outcome.
func TestConfigFilesGolden(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "configs", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			home := t.TempDir()
			if b, err := os.ReadFile(filepath.Join(dir, "settings.json")); err == nil {
				if err := os.WriteFile(settings.Path(home), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			root, err := filepath.Abs(filepath.Join(dir, "project"))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := settings.ReadMCPServers(home)
			if err != nil {
				t.Fatal(err)
			}
			servers, problems := LoadConfig(raw, root)
			vars := Vars{WorkspaceFolder: root, Lookup: goldenLookup, UserHome: "/home/user"}
			var b strings.Builder
			for _, s := range servers {
				from := string(s.Source)
				if s.File != "" {
					from += ", " + s.File
				}
				fmt.Fprintf(&b, "server %q (%s, %s)\n", s.Name, from, s.Transport())
				r, err := s.Resolve(vars)
				if err != nil {
					fmt.Fprintf(&b, "  cannot start: %v\n", err)
					continue
				}
				if r.URL != "" {
					fmt.Fprintf(&b, "  url: %s\n", r.URL)
				} else {
					fmt.Fprintf(&b, "  runs: %s\n", strings.Join(append([]string{r.Command}, r.Args...), " "))
					if r.Cwd != "" {
						fmt.Fprintf(&b, "  cwd: %s\n", r.Cwd)
					}
				}
				for _, m := range []struct {
					name string
					vals map[string]string
				}{{"env", r.Env}, {"header", r.Headers}} {
					for _, k := range sortedKeys(m.vals) {
						fmt.Fprintf(&b, "  %s %s=%s\n", m.name, k, m.vals[k])
					}
				}
			}
			for _, p := range problems {
				fmt.Fprintf(&b, "problem: %s\n", p)
			}
			got := strings.ReplaceAll(b.String(), root, "<project>")
			for k, v := range goldenEnv {
				if strings.Contains(v, "token") && strings.Contains(got, "${") && strings.Contains(got, k) {
					t.Errorf("a reference to %s was left unexpanded", k)
				}
			}
			checkGolden(t, filepath.Join(dir, "want.txt"), got)
		})
	}
}

// TestPastedBlocksGolden: what the settings page makes of a pasted configuration, in each
// shape users copy from a README or from another client's file.
func TestPastedBlocksGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "paste", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sort.Strings(files)
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		servers, problems := ParseBlock(string(text), SourceSettings)
		fmt.Fprintf(&b, "== %s\n", filepath.Base(f))
		for _, s := range servers {
			entry, _ := json.Marshal(s)
			fmt.Fprintf(&b, "server %q: %s\n", s.Name, entry)
		}
		for _, p := range problems {
			fmt.Fprintf(&b, "problem: %s\n", p)
		}
	}
	checkGolden(t, filepath.Join("testdata", "paste", "want.golden"), b.String())
}

// TestProjectFilesNeedApproval: the servers of .cursor/mcp.json and .vscode/mcp.json wait for
// an approval exactly like those of .mcp.json, and the refusal names their file and the
// command that approves them (quoted when the name has a space).
func TestProjectFilesNeedApproval(t *testing.T) {
	root := t.TempDir()
	for rel, content := range map[string]string{
		".cursor/mcp.json": `{"mcpServers": {"my server": {"command": "definitely-not-installed-xyz"}}}`,
		".vscode/mcp.json": `{"servers": {"vs": {"type": "stdio", "command": "definitely-not-installed-xyz"}}, "inputs": []}`,
	} {
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
		t.Fatalf("servers %+v problems %v", servers, problems)
	}
	home := t.TempDir()
	approvals := NewApprovals(home, "p1")
	m := NewManager(Options{Home: home, ProjectID: "p1", ProjectRoot: root, Servers: servers, Approvals: approvals, HandshakeTimeout: 5 * time.Second})
	defer m.Close()
	pending, err := approvals.Pending(servers)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending %v %v", pending, err)
	}
	for _, c := range []struct{ name, file, approve string }{
		{"my server", ".cursor/mcp.json", "crewagent mcp approve 'my server'"},
		{"vs", ".vscode/mcp.json", "crewagent mcp approve vs"},
	} {
		st, _ := m.Status(c.name)
		if st.State != StatePendingApproval {
			t.Fatalf("%s: state %s", c.name, st.State)
		}
		res := m.Call(context.Background(), WireName(c.name, "t"), []byte(`{}`), nil)
		if res.OK || !strings.Contains(res.Message, c.file) || !strings.Contains(res.Message, c.approve) {
			t.Errorf("%s: call result %+v", c.name, res)
		}
	}
	if err := m.Approve("my server"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("my server"); st.State == StatePendingApproval {
		t.Fatal("still pending after the approval")
	}
}

// TestUndefinedVariableFailsTheServer: a server whose configuration names an unset variable
// does not start; its status names the variable and the field, never the literal reference
// sent anywhere.
func TestUndefinedVariableFailsTheServer(t *testing.T) {
	home := t.TempDir()
	cfg := ServerConfig{Name: "needs-key", Source: SourceSettings, Command: os.Args[0], Args: []string{"--key", "${MCPTEST_UNSET_KEY_9C1}"}}
	m := NewManager(Options{Home: home, ProjectID: "p1", ProjectRoot: t.TempDir(), Servers: []ServerConfig{cfg}, HandshakeTimeout: 5 * time.Second,
		LookupEnv: func(string) (string, bool) { return "", false }})
	defer m.Close()
	m.Tools(context.Background(), nil)
	st, _ := m.Status("needs-key")
	if st.State != StateFailed || !strings.Contains(st.Error, "MCPTEST_UNSET_KEY_9C1 is not set") || !strings.Contains(st.Error, "args[1]") {
		t.Fatalf("status %+v", st)
	}
	if st.PID != 0 {
		t.Fatal("a process was started")
	}
}

// TestEnvFileIsPartOfTheApproval: a project server's approval covers its envFile's content,
// so a project that changes the file needs a new approval (and the file changed after the
// configuration was read is not used).
func TestEnvFileIsPartOfTheApproval(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".cursor/mcp.json", `{"mcpServers": {"tools": {"command": "node", "args": ["server.js"], "envFile": "${workspaceFolder}/.env"}}}`)
	write(".env", "MODE=safe\n")
	approvals := NewApprovals(t.TempDir(), "p1")
	servers, _ := LoadConfig(nil, root)
	if err := approvals.Approve(servers[0]); err != nil {
		t.Fatal(err)
	}
	if ok, _ := approvals.IsApproved(servers[0]); !ok {
		t.Fatal("not approved")
	}
	vars := Vars{WorkspaceFolder: root, Lookup: func(string) (string, bool) { return "", false }}
	if r, err := servers[0].Resolve(vars); err != nil || r.Env["MODE"] != "safe" {
		t.Fatalf("resolve: %+v %v", r, err)
	}

	write(".env", "MODE=safe\nNODE_OPTIONS=--require ./other.js\n")
	if _, err := servers[0].Resolve(vars); err == nil || !strings.Contains(err.Error(), "changed after the project's configuration was read") {
		t.Fatalf("a changed envFile was used: %v", err)
	}
	again, _ := LoadConfig(nil, root)
	pending, err := approvals.Pending(again)
	if err != nil || len(pending) != 1 || !pending[0].Changed {
		t.Fatalf("pending after the change: %+v %v", pending, err)
	}
	// A settings server's envFile is the user's own: no approval, and read as it is.
	settingsSrv, _ := ParseServers([]byte(`{"own": {"command": "x", "envFile": "`+filepath.Join(root, ".env")+`"}}`), SourceSettings)
	if r, err := settingsSrv[0].Resolve(vars); err != nil || r.Env["NODE_OPTIONS"] == "" {
		t.Fatalf("settings server: %+v %v", r, err)
	}
}
