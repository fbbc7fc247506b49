//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as the servers the manager tests run: started with
// MCPTEST_SERVER=<mode> it serves MCP on stdin/stdout (or plays another part) instead of
// running the tests.
const testServerEnv = "MCPTEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(testServerEnv); mode != "" {
		os.Exit(runTestServer(mode))
	}
	os.Exit(m.Run())
}

// testServerConfig is a server config that runs this test binary in mode.
func testServerConfig(t testing.TB, name, mode string, env map[string]string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{testServerEnv: mode}
	for k, v := range env {
		e[k] = v
	}
	return ServerConfig{Name: name, Source: SourceSettings, Command: exe, Env: e}
}

func objectSchemaAny() map[string]any { return map[string]any{"type": "object"} }

func textResult(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func appendLine(path, line string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(f, line)
	f.Close()
}

// runTestServer plays mode:
//
//	basic      tools echo, fail, crash, sleep, freeze, flood, add_tool, spawn, cwd, pid
//	immortal   basic, but ignores SIGTERM and keeps running after stdin closes
//	slow       basic after sleeping MCPTEST_DELAY (a slow handshake)
//	banner     basic after printing a line that is not JSON on stdout
//	exit       writes to stderr and exits 1 at once (a server that cannot start)
//	sleeper    no MCP: ignores SIGTERM and sleeps (a grandchild)
//	parent     a crewagent stand-in: opens a Manager (see TestNoOrphansAfterParentDeath)
func runTestServer(mode string) int {
	appendLine(os.Getenv("MCPTEST_STARTS"), strconv.Itoa(os.Getpid()))
	switch mode {
	case "sleeper":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: cannot open the database (token "+os.Getenv("SECRET_TOKEN")+")")
		return 1
	case "parent":
		return runParent()
	case "slow":
		d, _ := time.ParseDuration(os.Getenv("MCPTEST_DELAY"))
		time.Sleep(d)
	case "banner":
		fmt.Println("Example server v1 starting on stdio...")
	case "immortal":
		signal.Ignore(syscall.SIGTERM)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "testserver", Version: "0.1"}, nil)
	addTestTools(srv)
	addBulkTools(srv)
	fmt.Fprintln(os.Stderr, "testserver ready")
	err := srv.Run(context.Background(), &sdk.StdioTransport{})
	if mode == "immortal" {
		time.Sleep(time.Hour)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
	}
	return 0
}

func addTestTools(srv *sdk.Server) {
	add := func(name, desc string, h sdk.ToolHandler) {
		srv.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: objectSchemaAny()}, h)
	}
	args := func(req *sdk.CallToolRequest) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	add("echo", "Echoes its text", func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return textResult("echo: %v", args(req)["text"]), nil
	})
	add("fail", "Reports an error", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the disk is full"}}}, nil
	})
	add("crash", "Exits in the middle of the call", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "panic: boom (token "+os.Getenv("SECRET_TOKEN")+")")
		os.Exit(3)
		return nil, nil
	})
	add("sleep", "Sleeps until cancelled", func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		select {
		case <-ctx.Done():
			appendLine(fmt.Sprint(args(req)["marker"]), "cancelled")
			return nil, ctx.Err()
		case <-time.After(time.Hour):
			return textResult("woke up"), nil
		}
	})
	add("freeze", "Stops the whole process (SIGSTOP)", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		// The stop may reach the other threads a moment after kill returns: never answer.
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		time.Sleep(time.Hour)
		return nil, nil
	})
	add("flood", "Floods stderr, then stdout with one endless line", func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		a := args(req)
		mb, _ := a["stderrMB"].(float64)
		chunk := []byte(strings.Repeat("x", 64<<10-1) + "\n")
		for i := 0; i < int(mb)*16; i++ {
			if _, err := os.Stderr.Write(chunk); err != nil {
				break
			}
		}
		out, _ := a["stdoutMB"].(float64)
		os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`)
		big := []byte(strings.Repeat("y", 64<<10))
		for i := 0; i < int(out)*16; i++ {
			if _, err := os.Stdout.Write(big); err != nil {
				break
			}
		}
		time.Sleep(time.Hour)
		return nil, nil
	})
	add("add_tool", "Adds the tool extra", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		srv.AddTool(&sdk.Tool{Name: "extra", Description: "Added later", InputSchema: objectSchemaAny()},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult("extra"), nil
			})
		return textResult("added"), nil
	})
	add("spawn", "Starts a child process and returns its pid", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), testServerEnv+"=sleeper")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		go cmd.Wait()
		return textResult("%d", cmd.Process.Pid), nil
	})
	add("spawn_session", "Starts a child process in a session of its own and returns its pid", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), testServerEnv+"=sleeper")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		go cmd.Wait()
		return textResult("%d", cmd.Process.Pid), nil
	})
	add("cwd", "Returns the server's working folder", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		wd, _ := os.Getwd()
		return textResult("%s", wd), nil
	})
	add("pid", "Returns the server's pid", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return textResult("%d", os.Getpid()), nil
	})
}

// runParent opens a Manager on the server described by MCPTEST_CHILD (a JSON ServerConfig
// entry), starts it, has it spawn a grandchild, prints the pids and waits to be killed.
func runParent() int {
	var cfg ServerConfig
	if err := json.Unmarshal([]byte(os.Getenv("MCPTEST_CHILD")), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.Name, cfg.Source = "child", SourceSettings
	m := NewManager(Options{Home: os.Getenv("MCPTEST_HOME"), ProjectID: "p", Servers: []ServerConfig{cfg}})
	ctx := context.Background()
	if tools := m.Tools(ctx, nil); len(tools) == 0 {
		st, _ := m.Status("child")
		fmt.Fprintln(os.Stderr, "no tools:", st.Error, st.StderrTail)
		return 2
	}
	st, _ := m.Status("child")
	pid := m.Call(ctx, "mcp__child__pid", nil, nil)
	tool := "mcp__child__spawn"
	if os.Getenv("MCPTEST_SESSION") != "" {
		tool = "mcp__child__spawn_session" // a grandchild in a session of its own
	}
	spawn := m.Call(ctx, tool, nil, nil)
	if !pid.OK || !spawn.OK {
		fmt.Fprintln(os.Stderr, "calls failed:", pid.Content, spawn.Content)
		return 2
	}
	fmt.Printf("%d %s %s\n", st.PID, pid.Text, spawn.Text)
	time.Sleep(time.Hour)
	return 0
}
