package convlog

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"crewagent/backend/conversation"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`)
)

// normalize replaces generated UUIDs (numbered by first appearance) and the
// times of the test run (anything not in 2001) with placeholders.
func normalize(s string) string {
	seen := map[string]string{}
	s = uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if seen[u] == "" {
			seen[u] = fmt.Sprintf("<uuid-%d>", len(seen)+1)
		}
		return seen[u]
	})
	return timeRE.ReplaceAllStringFunc(s, func(t string) string {
		if t[1:5] == "2001" {
			return t
		}
		return `"<now>"`
	})
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it)\n--- got\n%s\n--- want\n%s", name, t.Name(), got, want)
	}
}

// TestGoldenLog freezes the exact JSONL shape of a representative log: user
// input, an assistant tool call with null content, a large tool result moved
// to a file, an LLM error, a meta message, a mode switch, an edit, a
// checkpoint and a compaction — and the index record next to it.
func TestGoldenLog(t *testing.T) {
	s, dir, _ := openTest(t, Options{Counter: &lenCounter{}, LargeOutputThreshold: 64, PreviewChars: 20, IndexFlushDelay: -1})
	conv, _ := s.Create("", conversation.ActiveAgent)
	at := func(sec int) string { return fmt.Sprintf("2001-02-03T04:05:%02d.000Z", sec) }
	entries := []*conversation.Entry{
		{ID: "m001", CreatedAt: at(0), Role: conversation.RoleUser, Content: conversation.Str("Build the <Q3> deck & send it"), Mode: conversation.ModeAgent, AgentID: "pm"},
		{ID: "m002", CreatedAt: at(1), Role: conversation.RoleAssistant, Mode: conversation.ModeAgent, AgentID: "pm", ToolCalls: []conversation.ToolCall{{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/q3.csv"}`}}}},
		{ID: "m003", CreatedAt: at(2), Role: conversation.RoleTool, ToolCallID: "call_1", ToolName: "fs.read", Mode: conversation.ModeAgent, DurationMs: 12, PartType: conversation.PartToolResult,
			Content: conversation.Str(`{"ok":true,"content":"region,revenue\nEU,12\nUS,30\nAPAC,7\nLATAM,3\n"}`)},
		{ID: "e001", CreatedAt: at(3), Type: conversation.TypeEvt, Event: conversation.EventModeSwitch, Data: json.RawMessage(`{"from": "agent", "to": "run"}`), RefMsgID: "m003"},
		{ID: "m004", CreatedAt: at(4), Role: conversation.RoleUser, Content: conversation.Str("<skill-prompt>pptx</skill-prompt>"), IsMeta: true, Mode: conversation.ModeRun, RunID: "run-1", WorkflowID: "deck"},
		{ID: "m005", CreatedAt: at(5), Role: conversation.RoleAssistant, Mode: conversation.ModeRun, RunID: "run-1", PartType: conversation.PartError, IncludeInContext: conversation.Bool(true),
			Content: conversation.Str("Here is the first sli\n\nLLM_ERROR\n- code: LLM_TIMEOUT\n- message: no data for 60s")},
	}
	if err := s.Append(conv.ID, entries...); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(conv.ID, &conversation.Entry{ID: "m001", Role: conversation.RoleUser, Content: conversation.Str("Build the <Q3> deck"), Mode: conversation.ModeAgent, AgentID: "pm"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkpoint(conv.ID, "before compaction"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkCompacted(conv.ID, []string{"m002", "m003"}, map[string]string{"from": "m002", "to": "m003", "summary": "m006"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(conv.ID, &conversation.Entry{ID: "m006", CreatedAt: at(6), Role: conversation.RoleSystem, Content: conversation.Str("CONVERSATION_SUMMARY\nThe user wants a Q3 deck.")}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "messages.jsonl", normalize(readFile(t, logPath(dir, conv.ID))))
	checkGolden(t, "tool-result.json", normalize(readFile(t, toolResultPath(dir, conv.ID, "m003"))))
	checkGolden(t, "index.json", normalize(readFile(t, indexPath(dir))))

	// the golden log loads back to the same effective entries
	got, err := s.Load(conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range got {
		want = append(want, e.ID)
	}
	if fmt.Sprint(want[:6]) != "[m001 m002 m003 e001 m004 m005]" || len(got) != 9 {
		t.Errorf("effective ids = %v", want)
	}
}
