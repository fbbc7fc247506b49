package workflow

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

func TestLogLineWords(t *testing.T) {
	info := &conversation.RunInfo{Nodes: map[string]conversation.RunNode{"draft-brief": {Title: "Draft the brief", Type: "step"}}}
	tests := []struct{ line, want string }{
		{`{"ts":"t","type":"run_created","runId":"4e67","workflowId":"write-brief"}`, "The run was created"},
		{`{"ts":"t","type":"turn_start","intent":"start","input":true}`, "The run started"},
		{`{"ts":"t","type":"turn_start","intent":"continue","input":true}`, "A turn started with your message"},
		{`{"ts":"t","type":"turn_start","intent":"resume","input":false}`, "A turn started"},
		{`{"ts":"t","type":"tool_call","tool":"fs.read","args":{"path":"@state/workflow.md"},"ok":true}`, "Read the run's state"},
		{`{"ts":"t","type":"tool_call","tool":"fs.write","args":{"path":"@project/artifacts/brief.md","content":"…"},"ok":false,"code":"E_SANDBOX_VIOLATION"}`, "Tried: wrote brief.md (failed)"},
		{`{"ts":"t","type":"tool_call","tool":"fs.apply_patch","args":{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"currentNodeId":{"set":"draft-brief"}}},"ok":true}`, "Moved to “Draft the brief”"},
		{`{"ts":"t","type":"turn_end","phase":"waiting-user","requests":3}`, "The turn ended: waiting for you (3 model requests)"},
		{`{"ts":"t","type":"turn_end","phase":"completed","requests":1}`, "The turn ended: the run is complete (1 model request)"},
		{`{"ts":"t","type":"artifact_recorded","path":"artifacts/idea-notes.md"}`, "Recorded the file idea-notes.md among the run's artifacts"},
		{`{"ts":"t","type":"artifact_rollback","path":"artifacts/x.md","removed":true}`, "Removed x.md: the run could not record it"},
		{`{"ts":"t","type":"something_new"}`, "Something new"},
		{`garbage`, "A line the app cannot read"},
	}
	for _, tt := range tests {
		l := parseExecLine(tt.line)
		w := logLineWords(l, info)
		got := capitalize(w.String())
		if !strings.HasPrefix(w.Key, "run.") {
			t.Errorf("logLineWords(%s) has the key %q, not a template of a run's words", tt.line, w.Key)
		}
		if got != tt.want {
			t.Errorf("logLineWords(%s) = %q, want %q", tt.line, got, tt.want)
		}
		for _, leak := range []string{"@state", "@project", "draft-brief", "E_", "_"} {
			if strings.Contains(got, leak) {
				t.Errorf("logLineWords(%s) names %q: %q", tt.line, leak, got)
			}
		}
	}
}

func TestTailLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	many := ""
	for i := range 5000 {
		many += strings.Repeat("x", i%50) + "-" + itoa3(i) + "\n"
	}
	tests := []struct {
		name     string
		content  string
		n        int
		maxBytes int64
		want     []string // nil: only check the count and last line
		more     bool
	}{
		{"empty", "", 10, 1 << 20, []string{}, false},
		{"fewer than n", "a\nb\n", 10, 1 << 20, []string{"a", "b"}, false},
		{"exactly n", "a\nb\nc\n", 3, 1 << 20, []string{"a", "b", "c"}, false},
		{"more than n", "a\nb\nc\nd\n", 2, 1 << 20, []string{"c", "d"}, true},
		{"no final newline", "a\nb\nc", 2, 1 << 20, []string{"b", "c"}, true},
		{"blank lines skipped", "a\n\n\nb\n\n", 5, 1 << 20, []string{"a", "b"}, false},
		{"crlf", "a\r\nb\r\n", 5, 1 << 20, []string{"a", "b"}, false},
		{"byte cap cuts the oldest", "aaaa\nbbbb\ncccc\n", 10, 8, []string{"cccc"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more, err := tailLines(write(tt.name, tt.content), tt.n, tt.maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, tt.want) || more != tt.more {
				t.Fatalf("tailLines = %q more=%v, want %q more=%v", got, more, tt.want, tt.more)
			}
		})
	}
	p := write("many", many)
	got, more, err := tailLines(p, 1000, 1<<20)
	if err != nil || len(got) != 1000 || !more || !strings.HasSuffix(got[999], "-4999") || !strings.HasSuffix(got[0], "-4000") {
		t.Fatalf("tail of a long file: %d lines, first %q, last %q, more %v, %v", len(got), got[0], got[len(got)-1], more, err)
	}
	if _, _, err := tailLines(filepath.Join(dir, "missing"), 1, 1); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
}

func itoa3(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestParseExecLine(t *testing.T) {
	tests := []struct {
		line string
		want ExecLogLine
	}{
		{`{"ts":"t1","type":"tool_call","tool":"fs.read","toolCallId":"c1","args":{ "path" : "@project/a" },"ok":false,"code":"ENOENT","durationMs":3}`,
			ExecLogLine{TS: "t1", Type: "tool_call", Tool: "fs.read", ToolCallID: "c1", Args: `{"path":"@project/a"}`, Code: "ENOENT", DurationMs: 3}},
		{`{"ts":"t2","type":"turn_end","phase":"completed"}`, ExecLogLine{TS: "t2", Type: "turn_end"}},
		{`not json`, ExecLogLine{}},
	}
	for _, tt := range tests {
		got := parseExecLine(tt.line)
		tt.want.Raw = tt.line
		if got.OK != nil {
			if *got.OK {
				t.Fatalf("ok=true for %q", tt.line)
			}
			got.OK = nil
		} else if strings.Contains(tt.line, `"ok":false`) {
			t.Fatalf("ok not read from %q", tt.line)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("parseExecLine(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
