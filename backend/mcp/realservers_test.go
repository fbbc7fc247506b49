//go:build linux

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"crewagent/backend/internal/testkit"
)

// Real servers from npm, written by others: @modelcontextprotocol/server-everything and
// @modelcontextprotocol/server-filesystem, installed by scripts/test.sh into
// testdata/mcp-servers (or wherever CREWAGENT_MCP_TEST_SERVERS points: their node_modules).

const testServersEnv = "CREWAGENT_MCP_TEST_SERVERS"

type npmServers struct{ everything, filesystem string }

func findNPMServers(t *testing.T) npmServers {
	t.Helper()
	dir := os.Getenv(testServersEnv)
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "mcp-servers", "node_modules"))
	}
	s := npmServers{
		everything: filepath.Join(dir, "@modelcontextprotocol", "server-everything", "dist", "index.js"),
		filesystem: filepath.Join(dir, "@modelcontextprotocol", "server-filesystem", "dist", "index.js"),
	}
	var missing []string
	for _, p := range []string{s.everything, s.filesystem} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing = append(missing, "node (Node.js) on the PATH")
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("the npm MCP test servers are missing (%s): run `npm install --no-audit --no-fund` in testdata/mcp-servers (scripts/test.sh does it), or set %s to their node_modules folder",
			strings.Join(missing, ", "), testServersEnv)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return s
}

func findTool(t *testing.T, tools []Tool, wire string) Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.WireName == wire {
			return tl
		}
	}
	t.Fatalf("no tool %s among %v", wire, toolNames(tools))
	return Tool{}
}

func TestEverythingServerOverStdio(t *testing.T) {
	srv := findNPMServers(t)
	t.Setenv("CREWAGENT_LLM_API_KEY", "parent-secret-never-shared") // the app's own secret
	cfg := ServerConfig{Name: "everything", Source: SourceSettings, Command: "node", Args: []string{srv.everything, "stdio"},
		Env: map[string]string{"GREETING_TOKEN": "configured-value-123"}}
	m := newTestManager(t, []ServerConfig{cfg}, nil)
	ctx := context.Background()

	tools := m.Tools(ctx, nil)
	echo := findTool(t, tools, "mcp__everything__echo")
	if echo.Description == "" || !strings.Contains(string(echo.InputSchema), `"message"`) {
		t.Fatalf("echo: %+v", echo)
	}
	findTool(t, tools, "mcp__everything__get-sum")
	st := mustStatus(t, m, "everything")
	if st.State != StateReady || st.ServerName == "" {
		t.Fatalf("status %+v", st)
	}

	t.Run("echo", func(t *testing.T) {
		r := m.Call(ctx, "mcp__everything__echo", []byte(`{"message":"hi"}`), nil)
		if !r.OK || r.Text != "Echo: hi" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("add", func(t *testing.T) {
		r := m.Call(ctx, "mcp__everything__get-sum", []byte(`{"a":2,"b":3}`), nil)
		if !r.OK || !strings.Contains(r.Text, "5") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("image becomes an attachment", func(t *testing.T) {
		var saved []Attachment
		save := func(a Attachment) (string, error) {
			saved = append(saved, a)
			return "@state/logs/tool-results/c1/" + a.Name, nil
		}
		r := m.Call(ctx, "mcp__everything__get-tiny-image", nil, &CallOptions{Save: save})
		if !r.OK || len(r.Attachments) != 1 || len(saved) != 1 {
			t.Fatalf("%+v", r)
		}
		a := saved[0]
		if a.Kind != "image" || a.MIMEType != "image/png" || !bytes.HasPrefix(a.Data, []byte("\x89PNG\r\n\x1a\n")) || a.Name != "get-tiny-image-1.png" {
			t.Fatalf("attachment %s %s %s %d bytes", a.Kind, a.MIMEType, a.Name, len(a.Data))
		}
		var content struct {
			Text        string
			Attachments []struct {
				Kind, MimeType, Ref string
				Bytes               int
			}
		}
		if err := json.Unmarshal([]byte(r.Content), &content); err != nil {
			t.Fatal(err)
		}
		if len(content.Attachments) != 1 || content.Attachments[0].Ref != "@state/logs/tool-results/c1/get-tiny-image-1.png" || content.Attachments[0].Bytes != len(a.Data) {
			t.Fatalf("content %s", r.Content)
		}
		if !strings.Contains(content.Text, "Here's the image you requested") || len(r.Content) > 1000 {
			t.Fatalf("the image was inlined, or the text lost: %s", r.Content)
		}
	})
	t.Run("embedded resource becomes an attachment", func(t *testing.T) {
		r := m.Call(ctx, "mcp__everything__get-resource-reference", []byte(`{"resourceType":"Text","resourceId":1}`), nil)
		if !r.OK || len(r.Attachments) != 1 || r.Attachments[0].Kind != "resource" || r.Attachments[0].URI == "" || len(r.Attachments[0].Data) == 0 {
			t.Fatalf("%+v", r)
		}
		if !strings.Contains(r.Content, `"error":"not saved"`) {
			t.Fatalf("an attachment without a Save callback is not marked: %s", r.Content)
		}
	})
	t.Run("bad arguments are a tool error the model sees", func(t *testing.T) {
		r := m.Call(ctx, "mcp__everything__echo", []byte(`{}`), nil)
		wantCode(t, r, CodeToolError)
		if !strings.Contains(r.Message, "message") {
			t.Fatalf("message %q", r.Message)
		}
	})
	t.Run("structured content is kept as JSON, and sent once", func(t *testing.T) {
		r := m.Call(ctx, "mcp__everything__get-structured-content", []byte(`{"location":"New York"}`), nil)
		var v map[string]any
		if !r.OK || json.Unmarshal(r.Structured, &v) != nil || v["temperature"] == nil {
			t.Fatalf("%+v", r)
		}
		// The server sends the same object as text: the model gets it once.
		if strings.Contains(r.Content, `"structuredContent"`) || !strings.Contains(r.Content, `temperature`) {
			t.Fatalf("content %s", r.Content)
		}
	})
	t.Run("environment: configured values, not the app's secrets", func(t *testing.T) {
		r := m.Call(ctx, "mcp__everything__get-env", nil, nil)
		if !r.OK || !strings.Contains(r.Text, "configured-value-123") || !strings.Contains(r.Text, "PATH") {
			t.Fatalf("%s", r.Text)
		}
		if strings.Contains(r.Text, "parent-secret-never-shared") || strings.Contains(r.Text, "CREWAGENT_LLM_API_KEY") {
			t.Fatal("the server received the app's environment")
		}
	})
	t.Run("a long call times out and the server goes on", func(t *testing.T) {
		t0 := time.Now()
		r := m.Call(ctx, "mcp__everything__trigger-long-running-operation", []byte(`{"duration":30,"steps":30}`), &CallOptions{Timeout: 500 * time.Millisecond})
		wantCode(t, r, CodeTimeout)
		if d := time.Since(t0); d > 3*time.Second {
			t.Fatalf("took %s", d)
		}
		if r := m.Call(ctx, "mcp__everything__echo", []byte(`{"message":"after"}`), nil); !r.OK {
			t.Fatal(r.Content)
		}
	})
	pid := mustStatus(t, m, "everything").PID
	m.Close()
	waitGone(t, 5*time.Second, pid, pid)
}

func TestEverythingServerOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	srv := findNPMServers(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	node := exec.Command("node", srv.everything, "streamableHttp")
	node.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	node.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	nodeErr, _ := node.StderrPipe()
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-node.Process.Pid, syscall.SIGKILL)
		_ = node.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(nodeErr)
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

	// A gateway in front of it that wants credentials, as hosted servers do.
	const token = "tok-remote-0123456789abcdef"
	target, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", port))
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	var sawHeaders atomic.Bool
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("X-Team") != "crew" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		sawHeaders.Store(true)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(gw.Close)

	good := ServerConfig{Name: "remote", Source: SourceSettings, URL: gw.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer " + token, "X-Team": "crew"}}
	bad := ServerConfig{Name: "nokey", Source: SourceSettings, URL: gw.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer wrong-token-abcdefgh"}}
	m := newTestManager(t, []ServerConfig{good, bad}, nil)
	ctx := context.Background()
	tools := m.Tools(ctx, nil)
	findTool(t, tools, "mcp__remote__echo")
	if slices.ContainsFunc(tools, func(tl Tool) bool { return tl.Server == "nokey" }) {
		t.Fatal("tools from a server that refused us")
	}
	if !sawHeaders.Load() {
		t.Fatal("the headers did not reach the server")
	}
	if r := m.Call(ctx, "mcp__remote__echo", []byte(`{"message":"over http"}`), nil); !r.OK || r.Text != "Echo: over http" {
		t.Fatalf("%+v", r)
	}
	if r := m.Call(ctx, "mcp__remote__get-sum", []byte(`{"a":20,"b":22}`), nil); !r.OK || !strings.Contains(r.Text, "42") {
		t.Fatalf("%+v", r)
	}
	st := mustStatus(t, m, "remote")
	// Its log holds the logging notifications it sends.
	if st.State != StateReady || st.Transport != TransportHTTP || st.PID != 0 || filepath.Base(st.LogPath) != "remote.log" {
		t.Fatalf("status %+v", st)
	}
	if h := st.Config.Headers["Authorization"]; strings.Contains(h, token) || h != "••••cdef" {
		t.Fatalf("header shown as %q", h)
	}
	nb := mustStatus(t, m, "nokey")
	if nb.State != StateFailed || !strings.Contains(nb.Error, "401") && !strings.Contains(strings.ToLower(nb.Error), "unauthorized") {
		t.Fatalf("refused server: %+v", nb)
	}
	if strings.Contains(nb.Error, "wrong-token-abcdefgh") {
		t.Fatal("the token is in the error")
	}

	// The server goes away: the next call fails and the server is reported failed.
	_ = syscall.Kill(-node.Process.Pid, syscall.SIGKILL)
	_ = node.Wait()
	r := m.Call(ctx, "mcp__remote__echo", []byte(`{"message":"anyone?"}`), &CallOptions{Timeout: 5 * time.Second})
	wantCode(t, r, CodeServerFailed)
	testkit.Until(t, 10*time.Second, "the HTTP server to be marked failed", func() bool { return mustStatus(t, m, "remote").State == StateFailed })
	if st := mustStatus(t, m, "remote"); strings.Contains(st.Error, token) || !strings.Contains(r.Message, st.Error) {
		t.Fatalf("call %q, status %q", r.Message, st.Error)
	}
}

func TestFilesystemServerIsConfinedToItsFolder(t *testing.T) {
	t.Parallel()
	srv := findNPMServers(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello from the sandbox\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "private.txt")
	if err := os.WriteFile(outside, []byte("not for the server"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := ServerConfig{Name: "files", Source: SourceSettings, Command: "node", Args: []string{srv.filesystem, root}}
	m := newTestManager(t, []ServerConfig{cfg}, nil)
	ctx := context.Background()
	tools := m.Tools(ctx, nil)
	findTool(t, tools, "mcp__files__read_text_file")
	findTool(t, tools, "mcp__files__write_file")

	args := func(v any) []byte { b, _ := json.Marshal(v); return b }
	r := m.Call(ctx, "mcp__files__read_text_file", args(map[string]string{"path": filepath.Join(root, "notes.txt")}), nil)
	if !r.OK || r.Text != "hello from the sandbox\n" {
		t.Fatalf("read inside: %+v", r)
	}
	r = m.Call(ctx, "mcp__files__read_text_file", args(map[string]string{"path": outside}), nil)
	wantCode(t, r, CodeToolError)
	if !strings.Contains(r.Message, "Access denied") || strings.Contains(r.Content, "not for the server") {
		t.Fatalf("read outside: %s", r.Content)
	}
	r = m.Call(ctx, "mcp__files__write_file", args(map[string]string{"path": filepath.Join(root, "new.txt"), "content": "written by the server"}), nil)
	if !r.OK {
		t.Fatal(r.Content)
	}
	if b, err := os.ReadFile(filepath.Join(root, "new.txt")); err != nil || string(b) != "written by the server" {
		t.Fatalf("written file: %q %v", b, err)
	}
	r = m.Call(ctx, "mcp__files__list_directory", args(map[string]string{"path": root}), nil)
	if !r.OK || !strings.Contains(r.Text, "notes.txt") || !strings.Contains(r.Text, "new.txt") {
		t.Fatalf("list: %+v", r)
	}
}

// The everything server in its legacy SSE mode: tools, progress, resources and prompts
// through the SSE transport, chosen by "type": "sse" or by the /sse URL alone.
func TestEverythingServerOverLegacySSE(t *testing.T) {
	t.Parallel()
	srv := findNPMServers(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	node := exec.Command("node", srv.everything, "sse")
	node.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	node.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	node.Stdout, node.Stderr = pw, pw
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() {
		_ = syscall.Kill(-node.Process.Pid, syscall.SIGKILL)
		_ = node.Wait()
		pr.Close()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "running on port") {
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
		t.Fatal("the SSE server did not start")
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/sse", port)
	for _, cfg := range []ServerConfig{
		{Name: "named", Source: SourceSettings, URL: url, Type: TransportSSE},
		{Name: "byurl", Source: SourceSettings, URL: url},
	} {
		t.Run(cfg.Name, func(t *testing.T) {
			m := newTestManager(t, []ServerConfig{cfg}, func(o *Options) { o.CallTimeout = 1500 * time.Millisecond })
			ctx := context.Background()
			w := "mcp__" + cfg.Name + "__"
			if r := m.Call(ctx, w+"echo", []byte(`{"message":"over sse"}`), nil); !r.OK || r.Text != "Echo: over sse" {
				t.Fatalf("%+v", r)
			}
			if st, _ := m.Status(cfg.Name); st.Transport != TransportSSE {
				t.Fatalf("transport %q", st.Transport)
			}
			// 3 s of work, twice the call timeout, with progress every 0.5 s.
			var n atomic.Int32
			r := m.Call(ctx, w+"trigger-long-running-operation", []byte(`{"duration":3,"steps":6}`), &CallOptions{Progress: func(Progress) { n.Add(1) }})
			if !r.OK || n.Load() < 4 {
				t.Fatalf("long call: %d notifications, %s", n.Load(), r.Content)
			}
			prompts, err := m.Prompts(ctx, cfg.Name)
			if err != nil || !slices.ContainsFunc(prompts, func(p Prompt) bool { return p.Name == "args-prompt" }) {
				t.Fatalf("prompts %+v %v", prompts, err)
			}
			list, _, err := m.Resources(ctx, cfg.Name)
			if err != nil || len(list) == 0 {
				t.Fatalf("resources %+v %v", list, err)
			}
			contents, err := m.ReadResource(ctx, cfg.Name, list[0].URI)
			if err != nil || len(contents) == 0 || contents[0].Text == "" {
				t.Fatalf("read %s: %+v %v", list[0].URI, contents, err)
			}
		})
	}
}
