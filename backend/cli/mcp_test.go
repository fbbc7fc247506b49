//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/mcptest"
	"crewagent/backend/mcp/oauth"
	"crewagent/backend/project"
)

// mcpEnv is an llmEnv whose settings turn MCP on, with servers.
type mcpEnv struct {
	*llmEnv
	npm mcptest.NPM
}

func newMCPEnv(t *testing.T) *mcpEnv {
	t.Helper()
	npm := mcptest.Servers(t)
	return &mcpEnv{newLLMEnv(t), npm}
}

func (c *mcpEnv) everything(marker string, env map[string]string) map[string]any {
	return c.npm.Everything(marker, env)
}

func (c *mcpEnv) files(marker, dir string) map[string]any { return c.npm.Files(marker, dir) }

func (c *mcpEnv) writeSettings(t *testing.T, mcpTools map[string]any, servers map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"tools": map[string]any{"mcp": mcpTools}, "mcpServers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.home, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func (c *mcpEnv) writeProjectServers(t *testing.T, servers map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(c.root, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// script answers requests in order, recording the marked processes at each one.
func script(srv *fakellm.Server, w *mcptest.Watch, markers []string, responses ...fakellm.Response) {
	var mu sync.Mutex
	srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		w.Record(markers...)
		mu.Lock()
		defer mu.Unlock()
		if len(responses) == 0 {
			return fakellm.Text("(no more answers scripted)")
		}
		next := responses[0]
		responses = responses[1:]
		return next
	})
}

func call(id, name, args string) fakellm.ToolCall {
	return fakellm.ToolCall{ID: id, Name: name, Arguments: args}
}

func findTool(r fakellm.RecordedRequest, name string) *fakellm.RecordedTool {
	for i := range r.Tools {
		if r.Tools[i].Name == name {
			return &r.Tools[i]
		}
	}
	return nil
}

// toolMessages returns the tool messages of a request by call id.
func toolMessages(r fakellm.RecordedRequest) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

func systemText(r fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "system" {
			b.WriteString(m.Text() + "\n")
		}
	}
	return b.String()
}

// In chat mode the model is offered the tools of the configured servers with their
// schemas, its call runs on the real server, the result reaches the next request, the
// log records it like any tool call, and the server is gone once the command has exited.
func TestChatCommandCallsAnMCPTool(t *testing.T) {
	c := newMCPEnv(t)
	c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{"everything": c.everything("chat-1", nil)})
	var w mcptest.Watch
	script(c.srv, &w, []string{"chat-1"},
		fakellm.Tools(call("call_sum", "mcp__everything__get-sum", `{"a":2,"b":3}`)),
		fakellm.Text("The sum is 5."))

	r := c.runStdin(t, "", "chat", "--json", "what is 2 + 3?")
	if r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	var out chatOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Text != "The sum is 5." {
		t.Fatalf("output %q: %v", r.stdout, err)
	}
	reqs := c.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	sum := findTool(reqs[0], "mcp__everything__get-sum")
	if sum == nil || !strings.Contains(string(sum.Parameters), `"a"`) || !strings.Contains(string(sum.Parameters), `"b"`) || sum.Description == "" {
		t.Fatalf("the first request does not offer get-sum with its schema: %v", reqs[0].ToolNames())
	}
	if !slices.Contains(reqs[0].ToolNames(), "fs.read") && !slices.Contains(reqs[0].ToolNames(), "fs_read") {
		t.Fatalf("the built-in tools are gone: %v", reqs[0].ToolNames())
	}
	if sys := systemText(reqs[0]); !strings.Contains(sys, "MCP servers, programs the user added: everything") || !strings.Contains(sys, "mcp__everything__get-sum") {
		t.Fatalf("the tool policy does not name the MCP tools:\n%s", sys)
	}
	res := toolMessages(reqs[1])["call_sum"]
	if !strings.Contains(res, `"ok":true`) || !strings.Contains(res, "The sum of 2 and 3 is 5") {
		t.Fatalf("the next request carries %q", res)
	}
	msgs := c.chatMessages(t, out.ConversationID)
	var tool *conversation.Entry
	for _, m := range msgs {
		if m.Role == conversation.RoleTool {
			tool = m
		}
	}
	if tool == nil || tool.ToolName != "mcp__everything__get-sum" || tool.IsError || tool.ToolCallID != "call_sum" {
		t.Fatalf("the tool result in the log: %+v", tool)
	}
	pids := w.Of("chat-1")
	if len(pids) < 2 {
		t.Fatalf("the server was not running while the model was asked (pids %v)", pids)
	}
	mcptest.WaitGone(t, 5*time.Second, pids)
}

func (c *mcpEnv) chatMessages(t *testing.T, convID string) []*conversation.Entry {
	t.Helper()
	return (&chatEnv{c.llmEnv}).messages(t, convID)
}

// installAgentPackage installs a copy of the demo package in which the analyst may use the
// MCP server "everything" only; the writer keeps MCP off.
func (c *mcpEnv) installAgentPackage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "packages", "demo"))); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, fn func(map[string]any)) {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		fn(doc)
		b, _ = json.Marshal(doc)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("bmad.json", func(d map[string]any) { d["name"] = "mcp-brief" })
	edit("agents.json", func(d map[string]any) {
		for _, a := range d["agents"].([]any) {
			ag := a.(map[string]any)
			if ag["id"] == "analyst" {
				ag["tools"].(map[string]any)["mcp"] = map[string]any{"enabled": true, "allowedServers": []string{"everything"}}
			}
		}
	})
	r := c.runStdin(t, "", "package", "import", dir, "--json")
	var inst struct{ ID string }
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &inst) != nil || inst.ID == "" {
		t.Fatalf("package import: %+v", r)
	}
	return inst.ID
}

// In agent mode an agent's tools.mcp only narrows: the analyst sees the one server its
// allowedServers names, a call to another configured server is refused without starting
// it, and an agent with MCP off sees none.
func TestAgentModeNarrowsTheMCPServers(t *testing.T) {
	c := newMCPEnv(t)
	box := t.TempDir()
	if err := os.WriteFile(filepath.Join(box, "secret.txt"), []byte("not for the analyst"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{
		"everything": c.everything("agent-ev", nil),
		"files":      c.files("agent-files", box),
	})
	c.installAgentPackage(t)
	var w mcptest.Watch
	markers := []string{"agent-ev", "agent-files"}
	script(c.srv, &w, markers,
		fakellm.Tools(call("call_files", "mcp__files__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(box, "secret.txt"))),
			call("call_echo", "mcp__everything__echo", `{"message":"from the analyst"}`)),
		fakellm.Text("Done."))
	r := c.runStdin(t, "", "chat", "--mode", "agent", "--agent", "analyst", "--json", "look around")
	if r.code != ExitOK {
		t.Fatalf("agent chat: %+v", r)
	}
	reqs := c.srv.ChatRequests()
	names := reqs[0].ToolNames()
	if !slices.Contains(names, "mcp__everything__echo") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp__files__") }) {
		t.Fatalf("the analyst is offered %v", names)
	}
	res := toolMessages(reqs[1])
	if !strings.Contains(res["call_files"], `"ok":false`) || !strings.Contains(res["call_files"], "TOOL_NOT_AVAILABLE") || strings.Contains(res["call_files"], "not for the analyst") {
		t.Fatalf("the refused call: %s", res["call_files"])
	}
	if !strings.Contains(res["call_echo"], "Echo: from the analyst") {
		t.Fatalf("the allowed call: %s", res["call_echo"])
	}
	if pids := w.Of("agent-files"); len(pids) > 0 {
		t.Fatalf("the refused server was started: %v", pids)
	}
	mcptest.WaitGone(t, 5*time.Second, w.Of("agent-ev"))

	// The writer has MCP off: no MCP tool at all, and no server starts.
	var w2 mcptest.Watch
	script(c.srv, &w2, markers, fakellm.Text("Nothing to call."))
	if r := c.runStdin(t, "", "chat", "--mode", "agent", "--agent", "writer", "write"); r.code != ExitOK {
		t.Fatalf("writer: %+v", r)
	}
	reqs = c.srv.ChatRequests()
	if n := reqs[len(reqs)-1].ToolNames(); slices.ContainsFunc(n, func(s string) bool { return strings.HasPrefix(s, "mcp__") }) {
		t.Fatalf("the writer is offered MCP tools: %v", n)
	}
	if p := append(w2.Of("agent-ev"), w2.Of("agent-files")...); len(p) > 0 {
		t.Fatalf("servers started for an agent without MCP: %v", p)
	}
}

// A run's step agent that allows the server calls it like any tool of the run: the call is
// in the run's execution.jsonl and its result reaches the next request.
func TestRunTurnCallsAnMCPTool(t *testing.T) {
	c := newMCPEnv(t)
	c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{"everything": c.everything("run-ev", nil)})
	pkg := c.installAgentPackage(t)
	var w mcptest.Watch
	script(c.srv, &w, []string{"run-ev"},
		fakellm.Tools(call("call_run_echo", "mcp__everything__echo", `{"message":"inside the run"}`)),
		fakellm.Text("What is your idea about?"))
	r := c.runStdin(t, "", "run", "start", "--workflow", "write-brief", "--package", pkg, "--json", "A shared grocery list.")
	var out runOutput
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &out) != nil || out.RunID == "" {
		t.Fatalf("run start: %+v", r)
	}
	reqs := c.srv.ChatRequests()
	if len(reqs) != 2 || findTool(reqs[0], "mcp__everything__echo") == nil {
		t.Fatalf("%d requests; the run's first offers %v", len(reqs), reqs[0].ToolNames())
	}
	if res := toolMessages(reqs[1])["call_run_echo"]; !strings.Contains(res, "Echo: inside the run") {
		t.Fatalf("the run's next request carries %q", res)
	}
	p, err := project.Open(c.home, c.root)
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(p.DataDir, "runs", out.RunID, "state", "logs", "execution.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		var line struct {
			Type, Tool, ToolCallID string
			OK                     bool
		}
		if json.Unmarshal([]byte(l), &line) == nil && line.Tool == "mcp__everything__echo" {
			found = found || line.OK && line.Type == "tool_call" && line.ToolCallID == "call_run_echo"
		}
	}
	if !found {
		t.Fatalf("execution.jsonl lacks the MCP call:\n%s", log)
	}
	mcptest.WaitGone(t, 5*time.Second, w.Of("run-ev"))
}

type listedServer struct {
	Name, Source, Transport, State, Summary, Command, Error, StderrTail string
	ToolCount                                                           int
	Tools                                                               []struct {
		Name, WireName, Description string
		InputSchema                 json.RawMessage
	}
	Config struct {
		Env map[string]string
	}
}

type listed struct {
	Enabled  bool
	Servers  []listedServer
	Problems []mcp.Problem
}

func (l listed) server(t *testing.T, name string) listedServer {
	t.Helper()
	for _, s := range l.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %+v", name, l.Servers)
	return listedServer{}
}

// mcp list shows every server with its status and tools (starting the runnable ones for
// the time of the command); a project's .mcp.json server waits for its approval and does
// not start, not even when a chat would offer its tools; mcp approve lets it run, mcp
// revoke takes that back. Secrets stay masked, errors are one line.
func TestMCPListApproveAndRevoke(t *testing.T) {
	c := newMCPEnv(t)
	const secret = "tok-0123456789abcdef"
	c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{
		"everything": c.everything("list-ev", map[string]string{"API_TOKEN": secret}),
		"broken":     map[string]any{"command": "node", "args": []string{"-e", "console.error('cannot reach the database at db:5432'); process.exit(3)"}},
		"bad name__": map[string]any{"command": "x"},
	})
	c.writeProjectServers(t, map[string]any{"proj": c.everything("list-proj", nil)})

	var w mcptest.Watch
	w.Record("list-ev", "list-proj")
	r := c.runStdin(t, "", "mcp", "list", "--json")
	if r.code != ExitOK || r.stderr != "" {
		t.Fatalf("mcp list: %+v", r)
	}
	if strings.Contains(r.stdout, secret) {
		t.Fatalf("the secret is in the output: %s", r.stdout)
	}
	var l listed
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
		t.Fatal(err)
	}
	ev := l.server(t, "everything")
	if !l.Enabled || ev.State != "ready" || ev.ToolCount != len(ev.Tools) || ev.ToolCount < 5 || ev.Source != "settings" || ev.Transport != "stdio" {
		t.Fatalf("everything: %+v", ev)
	}
	if ev.Config.Env["API_TOKEN"] != "••••cdef" {
		t.Fatalf("env shown as %v", ev.Config.Env)
	}
	var echo bool
	for _, tl := range ev.Tools {
		echo = echo || tl.WireName == "mcp__everything__echo" && tl.Name == "echo" && strings.Contains(string(tl.InputSchema), "message")
	}
	if !echo {
		t.Fatalf("tools: %+v", ev.Tools)
	}
	br := l.server(t, "broken")
	if br.State != "failed" || !strings.Contains(br.StderrTail, "cannot reach the database") || br.Error == "" {
		t.Fatalf("broken: %+v", br)
	}
	pr := l.server(t, "proj")
	if pr.State != "pending-approval" || pr.Source != "project" || len(pr.Tools) != 0 || !strings.Contains(pr.Command, c.npm.EverythingJS) {
		t.Fatalf("proj: %+v", pr)
	}
	if len(l.Problems) != 1 || l.Problems[0].Server != "bad name__" {
		t.Fatalf("problems %+v", l.Problems)
	}

	// The text form says the same in lines.
	r = c.runStdin(t, "", "mcp", "list")
	for _, want := range []string{"everything\tsettings\tstdio\tready (", "mcp__everything__echo", "proj\t.mcp.json\tstdio\tpending approval", "crewagent mcp approve proj", "stderr: cannot reach the database at db:5432", `problem: server "bad name__"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, r.stdout)
		}
	}

	// A chat offers no tool of the pending server and does not start it.
	script(c.srv, &w, []string{"list-ev", "list-proj"}, fakellm.Text("ok"))
	if r := c.runStdin(t, "", "chat", "hello"); r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	if n := c.srv.ChatRequests()[0].ToolNames(); slices.ContainsFunc(n, func(s string) bool { return strings.HasPrefix(s, "mcp__proj__") }) || !slices.Contains(n, "mcp__everything__echo") {
		t.Fatalf("tools offered: %v", n)
	}
	if pids := w.Of("list-proj"); len(pids) > 0 {
		t.Fatalf("the unapproved server ran: %v", pids)
	}
	mcptest.WaitGone(t, 5*time.Second, append(w.Of("list-ev"), mcptest.Marked("list-ev")...))

	// Errors: one line each.
	for _, args := range [][]string{{"mcp", "approve", "nope"}, {"mcp", "approve", "everything"}, {"mcp", "approve"}} {
		r := c.runStdin(t, "", args...)
		if r.code != ExitError || strings.Count(r.stderr, "\n") != 1 {
			t.Fatalf("%v: %+v", args, r)
		}
	}

	r = c.runStdin(t, "", "mcp", "approve", "proj", "--json")
	var ap struct {
		Server   string
		Approved bool
		Command  string
	}
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &ap) != nil || ap.Server != "proj" || !ap.Approved || !strings.Contains(ap.Command, "node ") {
		t.Fatalf("approve: %+v", r)
	}
	p, _ := project.Open(c.home, c.root)
	if b, err := os.ReadFile(filepath.Join(p.DataDir, "mcp-approvals.json")); err != nil || !strings.Contains(string(b), `"proj"`) {
		t.Fatalf("approvals: %s %v", b, err)
	}
	r = c.runStdin(t, "", "mcp", "list", "--json")
	l = listed{}
	_ = json.Unmarshal([]byte(r.stdout), &l)
	if pr := l.server(t, "proj"); pr.State != "ready" || pr.ToolCount == 0 {
		t.Fatalf("proj after approval: %+v", pr)
	}
	mcptest.WaitGone(t, 5*time.Second, mcptest.Marked("list-proj"))

	if r := c.runStdin(t, "", "mcp", "revoke", "proj"); r.code != ExitOK || !strings.Contains(r.stdout, "revoked") {
		t.Fatalf("revoke: %+v", r)
	}
	r = c.runStdin(t, "", "mcp", "list", "--json")
	l = listed{}
	_ = json.Unmarshal([]byte(r.stdout), &l)
	if pr := l.server(t, "proj"); pr.State != "pending-approval" {
		t.Fatalf("proj after revoke: %+v", pr)
	}
	if len(mcptest.Marked("list-proj")) > 0 || len(mcptest.Marked("list-ev")) > 0 {
		t.Fatalf("servers outlived mcp list: %v %v", mcptest.Marked("list-proj"), mcptest.Marked("list-ev"))
	}
}

// A remote server over streamable HTTP (server-everything in its HTTP mode, behind a URL
// with a header) is called in a chat like a local one.
func TestChatCommandCallsAStreamableHTTPServer(t *testing.T) {
	c := newMCPEnv(t)
	url := startHTTPEverything(t, c.npm)
	c.writeSettings(t, map[string]any{"enabled": true}, map[string]any{
		"remote": map[string]any{"url": url, "headers": map[string]string{"X-Client": "crewagent-tests"}},
	})
	var w mcptest.Watch
	script(c.srv, &w, nil,
		fakellm.Tools(call("call_remote", "mcp__remote__get-sum", `{"a":40,"b":2}`)),
		fakellm.Text("42."))
	if r := c.runStdin(t, "", "chat", "add over http"); r.code != ExitOK {
		t.Fatalf("chat: %+v", r)
	}
	reqs := c.srv.ChatRequests()
	if findTool(reqs[0], "mcp__remote__echo") == nil {
		t.Fatalf("tools %v", reqs[0].ToolNames())
	}
	if res := toolMessages(reqs[1])["call_remote"]; !strings.Contains(res, "The sum of 40 and 2 is 42") {
		t.Fatalf("the next request carries %q", res)
	}
	r := c.runStdin(t, "", "mcp", "list", "--json")
	var l listed
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &l) != nil {
		t.Fatalf("mcp list: %+v", r)
	}
	if s := l.server(t, "remote"); s.State != "ready" || s.Transport != "http" || s.Command != url {
		t.Fatalf("remote: %+v", s)
	}
}

// startHTTPEverything runs server-everything in its streamable HTTP mode on a free port
// and returns its endpoint; it is killed (with its process group) when the test ends.
func startHTTPEverything(t *testing.T, npm mcptest.NPM) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", npm.EverythingJS, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the HTTP server did not start")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// The servers the user configured are offered without any tools.mcp block, and a chat says
// on stderr which configured servers offer no tools and why: one that failed to start (a
// crash, an unset variable), a project server of .vscode/mcp.json waiting for its approval
// (the approve command quoted for its space), MCP tools switched off.
func TestChatReportsServersThatOfferNoTools(t *testing.T) {
	c := newMCPEnv(t)
	servers := map[string]any{
		"everything": c.everything("rep-ev", nil),
		"broken":     map[string]any{"command": "node", "args": []string{"-e", "process.exit(3)"}},
		"needs key":  map[string]any{"command": "node", "args": []string{"${env:MCPTEST_UNSET_KEY_7F3A}"}},
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(c.home, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	vs, _ := json.Marshal(map[string]any{"inputs": []any{}, "servers": map[string]any{"my tools": c.everything("rep-proj", nil)}})
	if err := os.MkdirAll(filepath.Join(c.root, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.root, ".vscode", "mcp.json"), vs, 0o644); err != nil {
		t.Fatal(err)
	}
	var w mcptest.Watch
	script(c.srv, &w, nil, fakellm.Text("ok"))
	r := c.runStdin(t, "", "chat", "hello")
	if r.code != ExitOK || r.stdout != "ok\n" {
		t.Fatalf("chat: %+v", r)
	}
	if n := c.srv.ChatRequests()[0].ToolNames(); !slices.Contains(n, "mcp__everything__echo") {
		t.Fatalf("the configured server is not offered by default: %v", n)
	}
	for _, want := range []string{
		`warning: the MCP server "broken" failed to start, so its tools are not offered:`,
		`warning: the MCP server "needs key" failed to start, so its tools are not offered:`,
		"the environment variable MCPTEST_UNSET_KEY_7F3A is not set",
		`warning: the MCP server "my tools" of the project's .vscode/mcp.json is not approved`,
		"crewagent mcp approve 'my tools'",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, `"everything"`) {
		t.Errorf("the working server is reported:\n%s", r.stderr)
	}
	r = c.runStdin(t, "", "mcp", "list")
	for _, want := range []string{"my tools\t.vscode/mcp.json\tstdio\tpending approval", "approve it with: crewagent mcp approve 'my tools'"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, r.stdout)
		}
	}

	// Switched off: said once, no server started.
	c.writeSettings(t, map[string]any{"enabled": false}, servers)
	script(c.srv, &w, []string{"rep-ev"}, fakellm.Text("ok"))
	r = c.runStdin(t, "", "chat", "hello")
	if r.code != ExitOK || !strings.Contains(r.stderr, "4 MCP servers are configured but MCP tools are off in the settings (tools.mcp.enabled)") ||
		strings.Contains(r.stderr, "failed to start") {
		t.Fatalf("chat with MCP off: %+v", r)
	}
	if pids := w.Of("rep-ev"); len(pids) > 0 {
		t.Fatalf("a server started with MCP off: %v", pids)
	}
	mcptest.WaitGone(t, 5*time.Second, mcptest.Marked("rep-ev"))
}

// A project server waiting for approval shows the env it would run with, as written,
// and what its loader variables do; approving says it again.
func TestMCPApprovalShowsTheProjectEnv(t *testing.T) {
	c := newLLMEnv(t)
	project := `{"mcpServers":{"tidy": {"command": "python3", "args": ["-m", "tidy"], "env": {"PYTHONPATH": "./vendor"}},
		"hook": {"command": "node", "env": {"LD_PRELOAD": "./libhook.so"}}}}`
	if err := os.WriteFile(filepath.Join(c.root, ".mcp.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.runStdin(t, "", "mcp", "list")
	for _, want := range []string{"would run: python3 -m tidy", "with env: PYTHONPATH=./vendor", "warning: env PYTHONPATH makes python load modules", `problem: server "hook": env LD_PRELOAD: a project file may not set it`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, r.stdout)
		}
	}
	r = c.runStdin(t, "", "mcp", "approve", "tidy")
	if r.code != ExitOK || !strings.Contains(r.stdout, "with env: PYTHONPATH=./vendor") || !strings.Contains(r.stdout, "warning: env PYTHONPATH") {
		t.Fatalf("approve: %+v", r)
	}
	if r := c.runStdin(t, "", "mcp", "approve", "hook"); r.code == ExitOK {
		t.Fatalf("a refused server was approved: %+v", r)
	}
}

func TestMCPLogout(t *testing.T) {
	c := newChatEnv(t)
	store := oauth.NewStore(c.home)
	if err := store.Put("notes", oauth.Entry{URL: "http://127.0.0.1:9/mcp", ClientID: "c1", TokenURL: "http://127.0.0.1:9/token", Token: &oauth2.Token{AccessToken: "kept-token-1"}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
		left []string
	}{
		{[]string{"mcp", "logout", "other"}, "no sign-in is kept for other\n", []string{"notes"}},
		// Nothing answers at the server: the token is forgotten, not revoked.
		{[]string{"mcp", "logout", "notes"}, "signed out of notes: its token is forgotten (not revoked: ", nil},
		{[]string{"mcp", "logout", "notes", "--json"}, `"signedIn": false`, nil},
	}
	for _, tc := range cases {
		r := c.runStdin(t, "", tc.args...)
		if r.code != ExitOK || !strings.Contains(r.stdout, tc.want) {
			t.Fatalf("%v: %+v", tc.args, r)
		}
		if got := store.Names(); !slices.Equal(got, tc.left) && !(len(got) == 0 && len(tc.left) == 0) {
			t.Fatalf("%v: tokens left for %v, want %v", tc.args, got, tc.left)
		}
	}
}
