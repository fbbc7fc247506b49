//go:build linux

package desktop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/mcptest"
)

func viewServer(t *testing.T, v app.MCPView, name string) app.MCPServerView {
	t.Helper()
	for _, s := range v.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %+v", name, v.Servers)
	return app.MCPServerView{}
}

func settingsFile(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Settings → MCP without a project: a pasted Claude Desktop block is read (secrets
// masked) and saved (secrets kept in settings.json only); a server is edited with its
// secrets still masked, renamed, disabled and removed; the MCP switches are saved; bad
// input fails with every problem.
func TestMCPPageEditsTheSettingsServers(t *testing.T) {
	ta, home := newTestApp(t)
	const secret = "ghp_0123456789abcdefghij"
	block := `{
	  "mcpServers": {
	    "github": { "command": "github-mcp-server", "args": ["stdio"], "env": { "GITHUB_TOKEN": "` + secret + `" } },
	    "search": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ` + secret + `" } },
	    "broken": { "args": ["x"] }
	  }
	}`
	parsed, err := ta.MCP.ParseBlock(block)
	must(t, err)
	if len(parsed.Servers) != 2 || len(parsed.Problems) != 1 || parsed.Problems[0].Server != "broken" {
		t.Fatalf("parsed %+v", parsed)
	}
	if b, _ := json.Marshal(parsed); strings.Contains(string(b), secret) {
		t.Fatalf("the parsed block shows the secret: %s", b)
	}
	if _, err := os.Stat(filepath.Join(home, "settings.json")); !os.IsNotExist(err) {
		t.Fatal("parsing saved something")
	}
	imp, err := ta.MCP.ImportBlock(block)
	must(t, err)
	if len(imp.Added) != 2 || len(imp.Problems) != 1 {
		t.Fatalf("import %+v", imp)
	}
	if !strings.Contains(settingsFile(t, home), secret) {
		t.Fatal("the secret was not saved")
	}
	v, err := ta.MCP.List()
	must(t, err)
	gh := viewServer(t, v, "github")
	if gh.State != mcp.StateStopped || gh.Config.Env["GITHUB_TOKEN"] != "••••ghij" || gh.Command != "github-mcp-server stdio" || v.Project != "" {
		t.Fatalf("github %+v", gh)
	}
	if b, _ := json.Marshal(v); strings.Contains(string(b), secret) {
		t.Fatalf("the page shows the secret: %s", b)
	}

	// Edited as shown (masked), renamed: the secret is kept.
	spec := gh.Config
	spec.Name, spec.Args = "gh", []string{"stdio", "--read-only"}
	v, err = ta.MCP.Save("github", spec)
	must(t, err)
	if viewServer(t, v, "gh").Command != "github-mcp-server stdio --read-only" {
		t.Fatalf("%+v", v.Servers)
	}
	var file struct {
		MCPServers map[string]struct {
			Env      map[string]string
			Disabled bool
		}
	}
	must(t, json.Unmarshal([]byte(settingsFile(t, home)), &file))
	if _, old := file.MCPServers["github"]; old || file.MCPServers["gh"].Env["GITHUB_TOKEN"] != secret {
		t.Fatalf("after the rename: %+v", file.MCPServers)
	}

	// Adding a server under a taken name, or one with problems, fails with each problem.
	_, err = ta.MCP.Save("", app.MCPServerSpec{Name: "search", ServerConfig: mcp.ServerConfig{Command: "x"}})
	if codeOfErr(t, err) != errs.MCPConfigInvalid || !strings.Contains(err.Error(), "exists already") {
		t.Fatalf("%v", err)
	}
	_, err = ta.MCP.Save("", app.MCPServerSpec{Name: "new", ServerConfig: mcp.ServerConfig{URL: "ftp://x", Args: []string{"a"}}})
	if codeOfErr(t, err) != errs.MCPConfigInvalid || !strings.Contains(err.Error(), "url") || !strings.Contains(err.Error(), "args") {
		t.Fatalf("%v", err)
	}
	if _, err := ta.MCP.ImportBlock("not json at all"); codeOfErr(t, err) != errs.MCPConfigInvalid {
		t.Fatalf("%v", err)
	}

	v, err = ta.MCP.SetEnabled("gh", false)
	must(t, err)
	if viewServer(t, v, "gh").State != mcp.StateDisabled {
		t.Fatal("not disabled")
	}
	must(t, json.Unmarshal([]byte(settingsFile(t, home)), &file))
	if !file.MCPServers["gh"].Disabled || file.MCPServers["gh"].Env["GITHUB_TOKEN"] != secret {
		t.Fatalf("%+v", file.MCPServers["gh"])
	}
	v, err = ta.MCP.Remove("search")
	must(t, err)
	if len(v.Servers) != 1 {
		t.Fatalf("%+v", v.Servers)
	}
	if _, err := ta.MCP.Remove("search"); codeOfErr(t, err) != errs.MCPServerNotFound {
		t.Fatalf("%v", err)
	}

	v, err = ta.MCP.SetOptions(app.MCPOptions{Enabled: true, StartOnOpen: true, CallTimeoutSeconds: 30})
	must(t, err)
	if !v.Enabled || !v.StartOnOpen || v.CallTimeoutSeconds != 30 {
		t.Fatalf("%+v", v)
	}
	if s, _ := ta.Settings.Get(); !s.Settings.Tools.MCP.Enabled || s.Settings.Tools.MCP.CallTimeoutSeconds != 30 {
		t.Fatalf("settings %+v", s.Settings.Tools.MCP)
	}
	if _, err := ta.MCP.SetOptions(app.MCPOptions{Enabled: true, CallTimeoutSeconds: 0}); codeOfErr(t, err) != errs.SettingsInvalid {
		t.Fatalf("%v", err)
	}
	if _, err := ta.MCP.Approve("gh"); codeOfErr(t, err) != errs.NoProject {
		t.Fatalf("%v", err)
	}
	if _, err := ta.MCP.Log("gh"); codeOfErr(t, err) != errs.NoProject {
		t.Fatalf("%v", err)
	}
}

// With a project open: statuses, a server started on demand with its tools, a failing one
// with its stderr and log, a project server approved and revoked, status events, and
// every server process gone when the project closes and when the app shuts down.
func TestMCPPageWithAProject(t *testing.T) {
	npm := mcptest.Servers(t)
	rec := &events.Recorder{}
	home := t.TempDir()
	root := t.TempDir()
	settings := map[string]any{
		"tools": map[string]any{"mcp": map[string]any{"enabled": true, "startOnOpen": true}},
		"mcpServers": map[string]any{
			"everything": npm.Everything("page-ev", nil),
			"broken":     map[string]any{"command": "node", "args": []string{"-e", "console.error('cannot reach the database at db:5432'); process.exit(3)"}},
		},
	}
	b, _ := json.Marshal(settings)
	must(t, os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600))
	b, _ = json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": npm.Everything("page-proj", nil)}})
	must(t, os.WriteFile(filepath.Join(root, ".mcp.json"), b, 0o644))

	ta := NewApp(home, fakeDialogs{}, rec)
	_, err := ta.Projects.Open(root)
	must(t, err)
	testkit.Wait(t, "the servers to start at open", func() bool {
		v, _ := ta.MCP.List()
		return viewServer(t, v, "everything").State == mcp.StateReady && viewServer(t, v, "broken").State == mcp.StateFailed
	})
	v, _ := ta.MCP.List()
	ev, br, pr := viewServer(t, v, "everything"), viewServer(t, v, "broken"), viewServer(t, v, "proj")
	if ev.ToolCount == 0 || len(ev.Tools) != ev.ToolCount || ev.PID == 0 || !ev.Offered || v.Project == "" {
		t.Fatalf("everything %+v", ev)
	}
	if !strings.Contains(br.StderrTail, "cannot reach the database") || br.LogPath == "" {
		t.Fatalf("broken %+v", br)
	}
	if pr.State != mcp.StatePendingApproval || pr.Source != mcp.SourceProject || len(mcptest.Marked("page-proj")) > 0 {
		t.Fatalf("proj %+v", pr)
	}
	log, err := ta.MCP.Log("broken")
	if err != nil || !strings.Contains(log, "cannot reach the database") {
		t.Fatalf("log %q %v", log, err)
	}
	if _, err := ta.MCP.Restart("proj"); codeOfErr(t, err) != errs.MCPNotApproved {
		t.Fatalf("%v", err)
	}
	if _, err := ta.MCP.Approve("everything"); codeOfErr(t, err) != errs.InvalidArgument {
		t.Fatalf("%v", err)
	}

	_, err = ta.MCP.Approve("proj")
	must(t, err)
	testkit.Wait(t, "the approved server to start", func() bool {
		v, _ := ta.MCP.List()
		return viewServer(t, v, "proj").State == mcp.StateReady
	})
	projPIDs := mcptest.Marked("page-proj")
	v, err = ta.MCP.Revoke("proj")
	must(t, err)
	if viewServer(t, v, "proj").State != mcp.StatePendingApproval {
		t.Fatal("revoked but not pending")
	}
	mcptest.WaitGone(t, 5*time.Second, projPIDs)

	// Restart gives a ready server a new process.
	oldPID := ev.PID
	v, err = ta.MCP.Restart("everything")
	must(t, err)
	if ev := viewServer(t, v, "everything"); ev.State != mcp.StateReady || ev.PID == oldPID {
		t.Fatalf("after restart %+v (old pid %d)", ev, oldPID)
	}
	var states []string
	for _, p := range rec.Named(events.MCPStatus) {
		if s := p.(events.MCPStatusEvent); s.Server == "everything" {
			states = append(states, s.State)
		}
	}
	if !strings.Contains(strings.Join(states, ","), "starting,ready") {
		t.Fatalf("status events of everything: %v", states)
	}

	// Closing the project stops every server; so does shutting the app down.
	pids := mcptest.Marked("page-ev")
	if len(pids) < 2 {
		t.Fatalf("pids %v", pids)
	}
	must(t, ta.Projects.Close())
	mcptest.WaitGone(t, 2*time.Second, pids)
	v, _ = ta.MCP.List()
	if v.Project != "" || viewServer(t, v, "everything").State != mcp.StateStopped {
		t.Fatalf("without a project: %+v", v)
	}

	_, err = ta.Projects.Open(root)
	must(t, err)
	testkit.Wait(t, "the servers to start again", func() bool { return len(mcptest.Marked("page-ev")) >= 2 })
	pids = mcptest.Marked("page-ev")
	ta.shutdown(context.Background())
	mcptest.WaitGone(t, 2*time.Second, pids)
}
