package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/conversation"
)

func TestCallArguments(t *testing.T) {
	hs := newHarness(t, nil)
	hs.mustFail("no.such_tool", `{}`, CodeToolNotAvailable)
	hs.mustFail(conversation.ToolFSRead, `{"path":`, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, `["@project"]`, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, `"@project"`, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, `{"path":"@project/docs/readme.md"} {}`, CodeBadArguments)
	e := hs.mustFail(conversation.ToolFSRead, `{"path":"@project/docs/readme.md","start_line":2}`, CodeBadArguments)
	if !strings.Contains(e["message"].(string), "start_line") {
		t.Errorf("unknown field message: %v", e["message"])
	}
	e = hs.mustFail(conversation.ToolFSRead, `{"path":"@project/docs/readme.md","startLine":"2"}`, CodeBadArguments)
	if !strings.Contains(e["message"].(string), `"startLine" must be an integer`) {
		t.Errorf("type message: %v", e["message"])
	}
	hs.mustFail(conversation.ToolFSRead, `{}`, CodeBadArguments)
	hs.mustFail(conversation.ToolFSRead, ``, CodeBadArguments) // empty arguments are {}: path missing
	hs.mustFail(conversation.ToolFSWrite, `{"path":"@project/a.md"}`, CodeBadArguments)
}

func TestCallCancelled(t *testing.T) {
	hs := newHarness(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := hs.h.Call(ctx, conversation.ToolFSRead, `{"path":"@project/docs/readme.md"}`)
	if res.OK || res.Code() != CodeInternal {
		t.Fatalf("cancelled call: %s", res.Content)
	}
}

func TestExecLog(t *testing.T) {
	hs := newHarness(t, nil)
	big := strings.Repeat("x", 5000)
	ctx := WithToolCallID(context.Background(), "call_1")
	hs.h.Call(ctx, conversation.ToolFSWrite, `{"path":"@project/artifacts/a.md","content":"`+big+`"}`)
	hs.call(conversation.ToolFSRead, map[string]any{"path": "../etc/passwd"})
	hs.call("nope", `{}`)
	hs.call(conversation.ToolFSRead, `not json at all`)
	hs.call(conversation.ToolFSWrite, map[string]any{"path": "@pkg/x.md", "content": "x"})

	lines := hs.log.lines(t)
	if len(lines) != 5 {
		t.Fatalf("want 5 lines, got %d: %v", len(lines), lines)
	}
	first := lines[0]
	if first["tool"] != conversation.ToolFSWrite || first["ok"] != true || first["toolCallId"] != "call_1" || first["type"] != ExecLineType {
		t.Errorf("first line: %v", first)
	}
	if first["ts"] != "2025-01-02T03:04:05.000Z" {
		t.Errorf("ts: %v", first["ts"])
	}
	if _, ok := first["durationMs"].(float64); !ok {
		t.Errorf("durationMs: %v", first["durationMs"])
	}
	content := first["args"].(map[string]any)["content"].(string)
	if len(content) > 300 || !strings.Contains(content, "truncated, 5000 bytes") {
		t.Errorf("content not truncated: %d bytes", len(content))
	}
	wantCodes := []string{"", CodeSandboxViolation, CodeToolNotAvailable, CodeBadArguments, CodeSandboxViolation}
	for i, l := range lines {
		code, _ := l["code"].(string)
		if code != wantCodes[i] {
			t.Errorf("line %d code %q, want %q", i, code, wantCodes[i])
		}
		if (code == "") != (l["ok"] == true) {
			t.Errorf("line %d: ok/code mismatch %v", i, l)
		}
	}
	if lines[3]["args"] != "not json at all" {
		t.Errorf("raw args: %v", lines[3]["args"])
	}
}

func TestExecLogPath(t *testing.T) {
	var logPath string
	hs := newHarness(t, func(c *Config) {
		c.ExecLog = nil
		logPath = filepath.Join(c.Roots.State, "logs", "sub", "execution.jsonl")
		c.ExecLogPath = logPath
	})
	hs.call(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md"})
	hs.call(conversation.ToolFSRead, map[string]any{"path": "@projectx/a"})
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Fatalf("want 2 lines, got %d:\n%s", n, b)
	}
	if hs.h.ExecLogErr() != nil {
		t.Fatal(hs.h.ExecLogErr())
	}
	// The log itself is not writable through the tools.
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@state/logs/sub/execution.jsonl", "content": "forged"}, CodeSandboxViolation)
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExecLogFailureDoesNotFailTheCall(t *testing.T) {
	hs := newHarness(t, func(c *Config) { c.ExecLog = failingWriter{} })
	hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md"})
	if hs.h.ExecLogErr() == nil {
		t.Fatal("want the log error recorded")
	}
}

func TestConcurrentCalls(t *testing.T) {
	hs := newHarness(t, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := "@project/artifacts/c" + string(rune('a'+i)) + ".md"
			hs.h.Call(context.Background(), conversation.ToolFSWrite, `{"path":"`+p+`","content":"x"}`)
			hs.h.Call(context.Background(), conversation.ToolFSRead, `{"path":"`+p+`"}`)
			hs.h.Call(context.Background(), conversation.ToolUIAskUser, `{"type":"confirmation","prompt":"ok?"}`)
		}()
	}
	wg.Wait()
	if n := len(hs.log.lines(t)); n != 24 {
		t.Fatalf("want 24 log lines, got %d", n)
	}
	if n := len(hs.artifacts()); n != 8 {
		t.Fatalf("want 8 artifacts, got %d", n)
	}
	if n := len(hs.h.PendingWidgets()); n != 8 {
		t.Fatalf("want 8 pending widgets, got %d", n)
	}
}

// The execution log and the questions write their timestamps in the one
// format of persisted data (fsx.TimeFormat: UTC, milliseconds).
func TestPersistedTimestampsUseTheOneFormat(t *testing.T) {
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	clock := time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC)
	hs := newHarness(t, func(c *Config) { c.Now = func() time.Time { return clock } })
	hs.call(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md"})
	res := hs.h.Call(context.Background(), conversation.ToolUIAskUser, `{"type":"confirmation","prompt":"Go on?"}`)
	if res.Pending == nil || res.Pending.CreatedAt != "2025-01-02T03:04:05.123Z" {
		t.Fatalf("question createdAt %+v", res.Pending)
	}
	lines := hs.log.lines(t)
	if len(lines) != 2 {
		t.Fatalf("want 2 exec log lines, got %d", len(lines))
	}
	for _, l := range lines {
		if ts, _ := l["ts"].(string); !stamp.MatchString(ts) {
			t.Errorf("exec log ts %q is not in fsx.TimeFormat", l["ts"])
		}
	}
}
