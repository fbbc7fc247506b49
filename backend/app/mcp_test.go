//go:build linux

package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/cli"
	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/mcptest"
)

// mcpProject is a runtime home whose settings configure MCP servers, a project folder, a
// fake LLM the environment points at, and the events of the project.
type mcpProject struct {
	home, root string
	srv        *fakellm.Server
	npm        mcptest.NPM
	rec        *events.Recorder
}

func newMCPProject(t *testing.T, mcpTools map[string]any, servers map[string]any) *mcpProject {
	t.Helper()
	p := &mcpProject{home: t.TempDir(), root: t.TempDir(), srv: fakellm.New(), npm: mcptest.Servers(t), rec: &events.Recorder{}}
	t.Cleanup(p.srv.Close)
	t.Setenv("CREWAGENT_HOME", "")
	t.Setenv("CREWAGENT_LLM_BASE_URL", p.srv.URL())
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	t.Setenv("CREWAGENT_LLM_API_KEY", "")
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	p.writeSettings(t, mcpTools, servers)
	return p
}

func (p *mcpProject) writeSettings(t *testing.T, mcpTools map[string]any, servers map[string]any) {
	t.Helper()
	doc := map[string]any{"tools": map[string]any{"mcp": mcpTools}}
	if servers != nil {
		doc["mcpServers"] = servers
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(filepath.Join(p.home, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// open opens the project the way the window does (watching, starting servers when the
// settings say so), with short MCP timings.
func (p *mcpProject) open(t *testing.T) *app.Workspace {
	t.Helper()
	ws, err := app.Open(p.home, p.root, app.Options{Emitter: p.rec, MCP: mcp.Options{
		RestartBackoff: 100 * time.Millisecond, MaxRestartBackoff: 400 * time.Millisecond,
		PingTimeout: time.Second, StopGrace: 300 * time.Millisecond, MaxLogBytes: 256 << 10,
	}}, app.OpenOptions{Watch: true, StartMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func server(t *testing.T, ws *app.Workspace, name string) app.MCPServerView {
	t.Helper()
	for _, s := range ws.MCPView(context.Background(), false).Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q", name)
	return app.MCPServerView{}
}

// nodeOf returns the node process among a marker's processes (the server, not its
// supervisor).
func nodeOf(t *testing.T, marker string) int {
	t.Helper()
	var pid int
	testkit.Until(t, 10*time.Second, "the node process of "+marker, func() bool {
		for _, p := range mcptest.Marked(marker) {
			if mcptest.Comm(p) == "node" {
				pid = p
				return true
			}
		}
		return false
	})
	return pid
}

// lastTool returns the newest tool result of a conversation.
func lastTool(t *testing.T, ws *app.Workspace, convID string) *conversation.Entry {
	t.Helper()
	all, err := ws.Entries(convID)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].IsMessage() && all[i].Role == conversation.RoleTool {
			return all[i]
		}
	}
	t.Fatal("no tool result")
	return nil
}

// Faults the way real servers produce them reach the model as tool results it can react
// to, and the servers recover: a server killed in the middle of a call, one that stops
// answering (SIGSTOP) until the call times out, one that floods stderr and stdout before
// it starts; the tool's own error; a large output and an image. Closing the project
// leaves no process behind.
func TestMCPFaultsReachTheModel(t *testing.T) {
	npm := mcptest.Servers(t)
	box := t.TempDir()
	big := strings.Repeat("a line of the big file, long enough to count\n", 3000) // ~135 KB
	if err := os.WriteFile(filepath.Join(box, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	flood := fmt.Sprintf(`head -c 3000000 /dev/zero | tr '\000' x >&2; yes 'not a protocol message' | head -n 60000; exec node %q stdio`, npm.EverythingJS)
	p := newMCPProject(t, map[string]any{"enabled": true, "callTimeoutSeconds": 2}, map[string]any{
		"everything": npm.Everything("faults-ev", nil),
		"files":      npm.Files("faults-files", box),
		"flood":      map[string]any{"command": "sh", "args": []string{"-c", flood}, "env": map[string]string{mcptest.MarkerVar: "faults-flood"}},
	})
	ws := p.open(t)

	// The fake model: each message asks for one call; a tool result is answered with text.
	type step struct {
		call   fakellm.ToolCall
		before func() // runs when the request arrives, before the call is answered
	}
	var (
		mu    sync.Mutex
		steps = map[string]step{}
	)
	p.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			return fakellm.Text("I saw the result.")
		}
		mu.Lock()
		s, ok := steps[r.LastUserText()]
		mu.Unlock()
		if !ok {
			return fakellm.Text("nothing to do")
		}
		if s.before != nil {
			s.before()
		}
		return fakellm.Tools(s.call)
	})
	var conv string
	send := func(text string, s step) (*conversation.Entry, fakellm.RecordedRequest) {
		t.Helper()
		mu.Lock()
		steps[text] = s
		mu.Unlock()
		res, err := ws.Chat(context.Background(), engine.SendRequest{ConversationID: conv, Mode: "chat", Text: text})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		conv = res.ConversationID
		reqs := p.srv.ChatRequests()
		last := reqs[len(reqs)-1]
		if last.LastMessage().Role != "tool" || last.LastMessage().ToolCallID != s.call.ID {
			t.Fatalf("%s: the result did not reach the next request", text)
		}
		return lastTool(t, ws, conv), last
	}
	code := func(e *conversation.Entry) string {
		var v struct {
			OK    bool
			Error struct{ Code, Message string }
		}
		_ = json.Unmarshal([]byte(e.Text()), &v)
		if v.OK {
			return "ok"
		}
		return v.Error.Code
	}

	t.Run("a call", func(t *testing.T) {
		e, req := send("add", step{call: fakellm.ToolCall{ID: "c_add", Name: "mcp__everything__get-sum", Arguments: `{"a":20,"b":22}`}})
		if code(e) != "ok" || !strings.Contains(req.LastMessage().Text(), "42") {
			t.Fatalf("%s", e.Text())
		}
	})

	t.Run("the tool's own error", func(t *testing.T) {
		e, req := send("echo nothing", step{call: fakellm.ToolCall{ID: "c_bad", Name: "mcp__everything__echo", Arguments: `{}`}})
		if code(e) != mcp.CodeToolError || !e.IsError || !strings.Contains(req.LastMessage().Text(), `"ok":false`) {
			t.Fatalf("%s", e.Text())
		}
	})

	t.Run("a server killed in the middle of a call", func(t *testing.T) {
		old := nodeOf(t, "faults-ev")
		e, req := send("run long", step{
			call: fakellm.ToolCall{ID: "c_long", Name: "mcp__everything__trigger-long-running-operation", Arguments: `{"duration":30,"steps":30}`},
			before: func() {
				go func() {
					time.Sleep(700 * time.Millisecond) // the call is under way by then
					_ = syscall.Kill(old, syscall.SIGKILL)
				}()
			}})
		if code(e) != mcp.CodeServerFailed || !strings.Contains(req.LastMessage().Text(), mcp.CodeServerFailed) {
			t.Fatalf("%s", e.Text())
		}
		st := server(t, ws, "everything")
		if st.State != mcp.StateFailed || st.Error == "" || !strings.Contains(st.StderrTail, "signal 9") {
			t.Fatalf("status after the crash: %+v", st)
		}
		var failed bool
		for _, ev := range p.rec.Named(events.MCPStatus) {
			if s := ev.(events.MCPStatusEvent); s.Server == "everything" && s.State == string(mcp.StateFailed) {
				failed = true
			}
		}
		if !failed {
			t.Fatal("no mcp:status event reported the crash")
		}
		// The next call starts it again after its backoff.
		e, _ = send("echo again", step{call: fakellm.ToolCall{ID: "c_again", Name: "mcp__everything__echo", Arguments: `{"message":"back"}`}})
		if code(e) != "ok" || !strings.Contains(e.Text(), "Echo: back") {
			t.Fatalf("%s", e.Text())
		}
		if now := nodeOf(t, "faults-ev"); now == old {
			t.Fatal("the same process answered after it was killed")
		}
	})

	t.Run("a server that stops answering", func(t *testing.T) {
		stuck := nodeOf(t, "faults-ev")
		t0 := time.Now()
		e, req := send("echo frozen", step{
			call:   fakellm.ToolCall{ID: "c_frozen", Name: "mcp__everything__echo", Arguments: `{"message":"anyone?"}`},
			before: func() { _ = syscall.Kill(stuck, syscall.SIGSTOP) }})
		if code(e) != mcp.CodeTimeout || !strings.Contains(req.LastMessage().Text(), mcp.CodeTimeout) {
			t.Fatalf("%s", e.Text())
		}
		if d := time.Since(t0); d < 2*time.Second || d > 10*time.Second {
			t.Fatalf("the call timed out after %s (callTimeoutSeconds is 2)", d)
		}
		// It does not answer a ping either: it is killed, stopped as it is, and failed.
		mcptest.WaitGone(t, 10*time.Second, []int{stuck})
		testkit.Until(t, 5*time.Second, "the frozen server to be failed", func() bool { return server(t, ws, "everything").State == mcp.StateFailed })
		e, _ = send("echo thawed", step{call: fakellm.ToolCall{ID: "c_thawed", Name: "mcp__everything__echo", Arguments: `{"message":"fresh"}`}})
		if code(e) != "ok" {
			t.Fatalf("%s", e.Text())
		}
	})

	t.Run("a server that floods its output", func(t *testing.T) {
		e, _ := send("echo flood", step{call: fakellm.ToolCall{ID: "c_flood", Name: "mcp__flood__echo", Arguments: `{"message":"still here"}`}})
		if code(e) != "ok" || !strings.Contains(e.Text(), "Echo: still here") {
			t.Fatalf("%s", e.Text())
		}
		st := server(t, ws, "flood")
		info, err := os.Stat(st.LogPath)
		if err != nil || info.Size() > 256<<10 {
			t.Fatalf("log %s: %v, %d bytes (cap 256 KiB)", st.LogPath, err, info.Size())
		}
		if _, err := os.Stat(st.LogPath + ".1"); err != nil {
			t.Fatalf("the flooded log was not rotated: %v", err)
		}
		tail, err := ws.MCPLog("flood", 4096)
		if err != nil || !strings.Contains(tail, "not a protocol message") && !strings.Contains(tail, "xxxx") {
			t.Fatalf("log tail %q %v", tail, err)
		}
	})

	t.Run("a large output goes to its file with a preview", func(t *testing.T) {
		e, req := send("read big", step{call: fakellm.ToolCall{ID: "c_big", Name: "mcp__files__read_text_file", Arguments: fmt.Sprintf(`{"path":%q}`, filepath.Join(box, "big.txt"))}})
		if e.FullOutputPath == "" || !strings.HasPrefix(e.Text(), conversation.PreviewPrefix) {
			t.Fatalf("not externalised: %s…", e.Text()[:min(200, len(e.Text()))])
		}
		sent := req.LastMessage().Text()
		if len(sent) > 20000 || !strings.Contains(sent, e.FullOutputPath) {
			t.Fatalf("the next request carries %d bytes: %.300s", len(sent), sent)
		}
		full, err := ws.ReadToolResult(conv, e.ID)
		if err != nil || !strings.Contains(full.Content, "a line of the big file") || full.Size < len(big) {
			t.Fatalf("full output: %d bytes, %v", full.Size, err)
		}
	})

	t.Run("an image is saved beside the outputs", func(t *testing.T) {
		e, _ := send("image", step{call: fakellm.ToolCall{ID: "c_img", Name: "mcp__everything__get-tiny-image", Arguments: `{}`}})
		var v struct {
			OK          bool
			Attachments []struct{ Kind, Ref string }
		}
		if err := json.Unmarshal([]byte(e.Text()), &v); err != nil || !v.OK || len(v.Attachments) != 1 || v.Attachments[0].Kind != "image" {
			t.Fatalf("%s", e.Text())
		}
		ref := v.Attachments[0].Ref
		if !strings.HasPrefix(ref, "@state/logs/tool-results/"+conv+"/att-c_img-") || !strings.HasSuffix(ref, ".png") || strings.Contains(e.Text(), "iVBOR") {
			t.Fatalf("ref %q in %s", ref, e.Text())
		}
		host := filepath.Join(ws.Project().DataDir, "logs", "tool-results", conv, filepath.Base(ref))
		if b, err := os.ReadFile(host); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Fatalf("%s: %v", host, err)
		}
	})

	var pids []int
	for _, m := range []string{"faults-ev", "faults-files", "faults-flood"} {
		pids = append(pids, mcptest.Marked(m)...)
	}
	if len(pids) < 6 {
		t.Fatalf("want the three servers and their supervisors running, found %v", pids)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitGone(t, 2*time.Second, pids)
}

// The window follows the configuration: servers added to or removed from settings.json
// and .mcp.json by hand, and an approval given on the command line while the window is
// open. With startOnOpen the servers start at once.
func TestMCPConfigurationIsFollowed(t *testing.T) {
	p := newMCPProject(t, map[string]any{"enabled": true, "startOnOpen": true}, nil)
	ws := p.open(t)
	if v := ws.MCPView(context.Background(), false); len(v.Servers) != 0 {
		t.Fatalf("servers %+v", v.Servers)
	}
	seen := func(name string, state mcp.State) func() bool {
		return func() bool {
			for _, s := range ws.MCPView(context.Background(), false).Servers {
				if s.Name == name {
					return s.State == state
				}
			}
			return false
		}
	}
	p.writeSettings(t, map[string]any{"enabled": true, "startOnOpen": true}, map[string]any{"everything": p.npm.Everything("follow-ev", nil)})
	testkit.Until(t, 15*time.Second, "the added server to start", seen("everything", mcp.StateReady))
	evPIDs := mcptest.Marked("follow-ev")

	proj := func(args ...string) {
		cfg := p.npm.Everything("follow-proj", nil)
		cfg["args"] = append(cfg["args"].([]string), args...)
		b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": cfg}})
		if err := os.WriteFile(filepath.Join(p.root, ".mcp.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proj()
	testkit.Until(t, 5*time.Second, "the project server to wait for approval", seen("proj", mcp.StatePendingApproval))
	time.Sleep(300 * time.Millisecond)
	if pids := mcptest.Marked("follow-proj"); len(pids) > 0 {
		t.Fatalf("an unapproved server runs: %v", pids)
	}

	// Approved on the command line while the window holds the project.
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"mcp", "approve", "proj", "--home", p.home, "--project", p.root}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("mcp approve: %d %s", code, errb.String())
	}
	testkit.Until(t, 15*time.Second, "the approved server to start", seen("proj", mcp.StateReady))
	projPIDs := mcptest.Marked("follow-proj")

	// An edited entry needs a new approval: the running one stops.
	proj("--changed")
	testkit.Until(t, 5*time.Second, "the changed server to wait for approval", seen("proj", mcp.StatePendingApproval))
	if s := server(t, ws, "proj"); !s.ApprovalChanged {
		t.Fatalf("%+v", s)
	}
	mcptest.WaitGone(t, 5*time.Second, projPIDs)

	// Removed from the settings: stopped.
	p.writeSettings(t, map[string]any{"enabled": true, "startOnOpen": true}, map[string]any{})
	testkit.Until(t, 5*time.Second, "the removed server to go", func() bool {
		return !slices.ContainsFunc(ws.MCPView(context.Background(), false).Servers, func(s app.MCPServerView) bool { return s.Name == "everything" })
	})
	mcptest.WaitGone(t, 5*time.Second, evPIDs)
	var listChanged bool
	for _, ev := range p.rec.Named(events.MCPStatus) {
		listChanged = listChanged || ev.(events.MCPStatusEvent).Server == ""
	}
	if !listChanged {
		t.Fatal("no mcp:status event announced the new list")
	}
}

// A long call of a real server that reports progress runs past the call timeout, and
// its progress shows in the tool card as live output.
func TestMCPProgressKeepsALongCallGoing(t *testing.T) {
	npm := mcptest.Servers(t)
	p := newMCPProject(t, map[string]any{"enabled": true, "callTimeoutSeconds": 2}, map[string]any{
		"everything": npm.Everything("progress-ev", nil),
	})
	ws := p.open(t)
	p.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			return fakellm.Text("done")
		}
		// 8 steps over 4 s: twice the call timeout, a notification every half second.
		return fakellm.Tools(fakellm.ToolCall{ID: "c_long", Name: "mcp__everything__trigger-long-running-operation", Arguments: `{"duration":4,"steps":8}`})
	})
	res, err := ws.Chat(context.Background(), engine.SendRequest{Mode: "chat", Text: "run the long one"})
	if err != nil {
		t.Fatal(err)
	}
	e := lastTool(t, ws, res.ConversationID)
	if !strings.Contains(e.Text(), `"ok":true`) || !strings.Contains(e.Text(), "Long running operation completed") {
		t.Fatalf("result %s", e.Text())
	}
	var live strings.Builder
	done := false
	for _, ev := range p.rec.Named(events.ToolOutput) {
		o := ev.(events.ToolOutputEvent)
		if o.ToolCallID == "c_long" && o.ToolName == "mcp__everything__trigger-long-running-operation" {
			live.WriteString(o.Data)
			done = done || o.Done
		}
	}
	if !strings.Contains(live.String(), "progress 1/8") || !strings.Contains(live.String(), "progress 7/8") || !done {
		t.Fatalf("live output %q (done %v)", live.String(), done)
	}
}
