package compression

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"crewagent/backend/convlog"
)

func TestPreviewTool(t *testing.T) {
	long := `{"ok":true,"content":"` + strings.Repeat("abcdefghij", 300) + `"}`
	tests := []struct {
		name, tool, content string
		ok                  bool
		want                []string
	}{
		{"short stays", "fs.read", `{"ok":true}`, false, nil},
		{"ok result", "fs.read", long, true, []string{"TOOL_RESULT_PREVIEW\n- tool: fs.read\n- status: ok\n- original: 3024 chars\n{\"ok\":true,\"content\":\"abc", "[… 2424 chars omitted …]", "abcdefghij\"}"}},
		{"error result", "fs.write", `{"ok":false,"error":{"code":"E_WRITE_LIMIT"}}` + strings.Repeat(" detail", 400), true, []string{"- status: error"}},
		{"interrupted", "", "TOOL_RESULT_INTERRUPTED: " + strings.Repeat("x", 2000), true, []string{"- tool: unknown\n- status: interrupted"}},
		{"keeps alias path", "fs.read", "preview " + strings.Repeat("y", 2000) + "\nFull output: @state/logs/tool-results/c/m1.json" + strings.Repeat(" z", 300), true, []string{"\nFull output: @state/logs/tool-results/c/m1.json"}},
		{"already a preview", "fs.read", ToolPreviewPrefix + strings.Repeat("p", 3000), false, nil},
		{"multibyte", "fs.read", strings.Repeat("数据", 1500), true, []string{"- original: 3000 chars", "[… 2400 chars omitted …]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := previewTool(tt.tool, tt.content, 400, 200, 1000)
			if ok != tt.ok {
				t.Fatalf("ok = %v", ok)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			if !utf8.ValidString(got) {
				t.Error("invalid UTF-8")
			}
		})
	}
}

func TestTruncateText(t *testing.T) {
	text := "Intro paragraph about the plan.\n\n" + strings.Repeat("Detail sentence that goes on. ", 60) +
		"\n1. first step\n2) second step\n* starred\nnot a bullet line\n" + strings.Repeat("More detail. ", 40) +
		"\nConclusion: ship on Friday.\nThanks!"
	got, ok := truncateText(text, 1200)
	if !ok {
		t.Fatal("not truncated")
	}
	want := "Intro paragraph about the plan.\n\n1. first step\n2) second step\n* starred\n\nConclusion: ship on Friday.\n[truncated: kept 100 of " + fmt.Sprint(utf8.RuneCountInString(text)) + " chars]"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	// Without a conclusion word the last line is kept; short texts stay.
	got, _ = truncateText(strings.Repeat("word ", 400)+"\n\nmiddle\n\nthe last line", 1200)
	if !strings.Contains(got, "\n\nthe last line\n[truncated") {
		t.Fatalf("last line not kept: %q", got)
	}
	if _, ok := truncateText("short", 1200); ok {
		t.Fatal("short text truncated")
	}
	// One endless paragraph is cut on a rune boundary.
	got, ok = truncateText(strings.Repeat("长", 3000), 1200)
	if !ok || !utf8.ValidString(got) || utf8.RuneCountInString(got) > 600 {
		t.Fatalf("long paragraph: %d runes", utf8.RuneCountInString(got))
	}
}

func TestFeatureDetection(t *testing.T) {
	sc := newScorer([]string{"must", "should", "need", "必须", "需要"}, 2048)
	tests := []struct {
		text             string
		keywords         string
		path, code, nums bool
	}{
		{"You MUST read @project/a.md", "must", true, false, false},
		{"Needs docs/plan.md and ./x", "need", true, false, false},
		{"kneed the dough; mustard on the shoulder", "", false, false, false},
		{"it mustn't fail; shouldn’t we; needed", "must,should,need", false, false, false},
		{"我们必须在3天内完成，需要预算", "必须,需要", false, false, true},
		{"```go\nfmt.Println()\n```", "", false, true, false},
		{"version 2 of a/b", "", false, false, true},
		{"see src/main.go", "", true, false, false},
		{"and/or is not a path", "", false, false, false},
		{strings.Repeat("x", 3000) + " must", "", false, false, false}, // beyond the scanned bytes
	}
	for _, tt := range tests {
		var matched uint64
		path, code, nums := sc.features(tt.text, &matched)
		var kws []string
		for i, k := range sc.keywords {
			if matched&(1<<i) != 0 {
				kws = append(kws, k)
			}
		}
		if strings.Join(kws, ",") != tt.keywords || path != tt.path || code != tt.code || nums != tt.nums {
			t.Errorf("%.40q: keywords %v path %v code %v nums %v", tt.text, kws, path, code, nums)
		}
	}
	if recency(0) != weightRecency || recency(20) != weightRecency/2 || largeToolPenalty(400) != 0 || largeToolPenalty(1600) != -2 || largeToolPenalty(90000) != -5 {
		t.Error("recency or penalty scale")
	}
}

func TestSummaryRequestAndTranscript(t *testing.T) {
	msgs := []Message{
		{Role: convlog.RoleSystem, Content: convlog.Str("CONVERSATION_SUMMARY\nold")},
		{Role: convlog.RoleUser, Content: convlog.Str("plan the launch")},
		{Role: convlog.RoleAssistant, ToolCalls: []convlog.ToolCall{{ID: "c", Type: "function", Function: convlog.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/a.md"}`}}}},
		{Role: convlog.RoleTool, Name: "fs.read", ToolCallID: "c", Content: convlog.Str(strings.Repeat("r", 5000))},
	}
	req := SummaryRequest(msgs, 0)
	if len(req) != 2 || req[0].Text() != SummaryPrompt || req[1].Role != convlog.RoleUser {
		t.Fatalf("request %+v", req)
	}
	tr := req[1].Text()
	for _, want := range []string{"[earlier summary] CONVERSATION_SUMMARY\nold", "[user] plan the launch", `[assistant calls fs.read] {"path":"@project/a.md"}`, "[tool fs.read result] rrr", "chars…]"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript misses %q", want)
		}
	}
	// Over the limit the middle is left out, the start and end kept.
	var many []Message
	for i := 0; i < 200; i++ {
		many = append(many, Message{Role: convlog.RoleUser, Content: convlog.Str(fmt.Sprintf("message %03d %s", i, strings.Repeat("w", 80)))})
	}
	tr = Transcript(many, 3000)
	if utf8.RuneCountInString(tr) > 3000 || !strings.Contains(tr, "message 000") || !strings.Contains(tr, "message 199") || !strings.Contains(tr, "messages left out") || strings.Contains(tr, "message 100") {
		t.Fatalf("transcript over limit:\n%s", tr)
	}
}
