package convlog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"crewagent/backend/conversation"
)

func TestLargeToolOutput(t *testing.T) {
	c := &lenCounter{}
	s, dir, _ := openTest(t, Options{Counter: c})
	id := mustCreate(t, s)
	full := strings.Repeat("é", 10) + strings.Repeat("line of output\n", 4000) // > 50 KiB
	big := &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "call_1", ToolName: "fs.search", Content: conversation.Str(full)}
	small := &conversation.Entry{Role: conversation.RoleTool, ToolCallID: "call_2", Content: conversation.Str(strings.Repeat("s", DefaultLargeOutputThreshold))}
	long := msg(conversation.RoleAssistant, full)
	if err := s.Append(id, big, small, long); err != nil {
		t.Fatal(err)
	}
	alias := ToolResultAlias(id, big.ID)
	if alias != "@state/logs/tool-results/"+id+"/"+big.ID+".json" || big.FullOutputPath != alias {
		t.Errorf("alias = %q, FullOutputPath = %q", alias, big.FullOutputPath)
	}
	p := big.Text()
	head := full[:len(strings.Repeat("é", 10))+DefaultPreviewChars-10]
	wantStart := "TOOL_RESULT_PREVIEW (" + itoa(len(full)) + " bytes; truncated)\n" + head
	wantEnd := "\n…\nFull output: " + alias + "\nRead it in parts: fs.read " + ToolResultTextAlias(id, big.ID) +
		" with startLine/endLine (4000 lines; about 2183 lines per read), or fs.search it."
	if !strings.HasPrefix(p, wantStart) || !strings.HasSuffix(p, wantEnd) || utf8.RuneCountInString(p) > DefaultPreviewChars+400 {
		t.Errorf("preview = %q…%q", p[:80], p[len(p)-120:])
	}
	if big.Tokens != len(p)/4+4 {
		t.Errorf("tokens counted on %d, want the preview", big.Tokens)
	}
	host, err := ToolResultHostPath(dir, alias)
	if err != nil {
		t.Fatal(err)
	}
	if host != filepath.Join(dir, "logs", "tool-results", id, big.ID+".json") {
		t.Errorf("host path = %s", host)
	}
	var rec conversation.ToolResultFile
	if err := json.Unmarshal([]byte(readFile(t, host)), &rec); err != nil {
		t.Fatal(err)
	}
	if rec != (conversation.ToolResultFile{ConversationID: id, MessageID: big.ID, ToolCallID: "call_1", ToolName: "fs.search", Content: full}) {
		t.Errorf("file = %+v", rec)
	}
	if small.FullOutputPath != "" || small.Text() != strings.Repeat("s", DefaultLargeOutputThreshold) {
		t.Error("output at the threshold was moved")
	}
	if long.FullOutputPath != "" || long.Text() != full {
		t.Error("a non-tool message was moved")
	}
	got, _ := s.Load(id)
	if got[0].Text() != p || got[0].FullOutputPath != alias {
		t.Error("log does not hold the preview")
	}
	// an update with large content is moved too; an unchanged preview stays
	upd := &conversation.Entry{ID: small.ID, Role: conversation.RoleTool, ToolCallID: "call_2", Content: conversation.Str(full + "x")}
	if err := s.Update(id, upd); err != nil {
		t.Fatal(err)
	}
	if upd.FullOutputPath != ToolResultAlias(id, small.ID) {
		t.Errorf("update not externalised: %q", upd.FullOutputPath)
	}
	same := *got[0]
	if err := s.Update(id, &same); err != nil || same.Text() != p {
		t.Errorf("re-saving a preview changed it: %v", err)
	}
	entries, _ := os.ReadDir(toolResultsDir(dir, id))
	if len(entries) != 4 { // .json and .txt of each
		t.Errorf("tool-result files = %d, want 4", len(entries))
	}
	if got := readFile(t, filepath.Join(toolResultsDir(dir, id), big.ID+".txt")); got != full+"\n" && got != full {
		t.Errorf("readable copy of a text output differs (%d bytes)", len(got))
	}
}

func TestLargeToolOutputOptions(t *testing.T) {
	s, dir, _ := openTest(t, Options{LargeOutputThreshold: -1})
	id := mustCreate(t, s)
	e := &conversation.Entry{Role: conversation.RoleTool, Content: conversation.Str(strings.Repeat("x", 200000))}
	s.Append(id, e)
	if e.FullOutputPath != "" || pathExists(toolResultsDir(dir, id)) {
		t.Error("negative threshold did not disable externalising")
	}
	s2, _, _ := openTest(t, Options{LargeOutputThreshold: 10, PreviewChars: 3})
	id2 := mustCreate(t, s2)
	e2 := &conversation.Entry{ID: "tool-1", Role: conversation.RoleTool, Content: conversation.Str("abcdefghijklmnop")}
	s2.Append(id2, e2)
	if want := "TOOL_RESULT_PREVIEW (16 bytes; truncated)\nabc\n…\nFull output: " + ToolResultAlias(id2, "tool-1") +
		"\nRead it whole: fs.read " + ToolResultTextAlias(id2, "tool-1") + " (1 line), or fs.search it."; e2.Text() != want {
		t.Errorf("preview = %q, want %q", e2.Text(), want)
	}
}

func TestToolResultHostPath(t *testing.T) {
	const conv = "3f2b8c1e-5d4a-4b7e-9c2f-1a6e8d0b7c45"
	dir := filepath.FromSlash("/data/p")
	tests := []struct {
		alias string
		want  string
	}{
		{"@state/logs/tool-results/" + conv + "/m1.json", filepath.Join(dir, "logs", "tool-results", conv, "m1.json")},
		{"@state/logs/tool-results/" + conv + "/../x.json", ""},
		{"@state/logs/tool-results/" + conv + "/a/b.json", ""},
		{"@state/logs/tool-results/" + conv + "/.hidden.json", ""},
		{"@state/logs/tool-results/" + conv + "/m1.txt", ""},
		{"@state/logs/tool-results/../../" + conv + "/m1.json", ""},
		{"@state/logs/tool-results/" + strings.ToUpper(conv) + "/m1.json", ""},
		{"@state/logs/tool-results/" + conv + "/m1.json/", ""},
		{"@project/logs/tool-results/" + conv + "/m1.json", ""},
		{"/etc/passwd", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := ToolResultHostPath(dir, tt.alias)
		if tt.want == "" {
			if !errors.Is(err, ErrInvalidID) {
				t.Errorf("ToolResultHostPath(%q) = %q, %v; want ErrInvalidID", tt.alias, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ToolResultHostPath(%q) = %q, %v; want %q", tt.alias, got, err, tt.want)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestReadableOutput(t *testing.T) {
	body := strings.Repeat("a line of the file\n", 40)
	tests := []struct{ name, in, want string }{
		{"text stays", "line 1\nline 2", "line 1\nline 2\n"},
		{"short JSON is pretty-printed", `{"ok":true,"entries":[{"name":"a","size":1}]}`,
			"{\n  \"entries\": [\n    {\n      \"name\": \"a\",\n      \"size\": 1\n    }\n  ],\n  \"ok\": true\n}\n"},
		{"long multi-line strings are written out", `{"ok":true,"content":` + jsonString(body) + `,"path":"@project/a.md"}`,
			"{\n  \"content\": \"(760 bytes, written out below: --- /content)\",\n  \"ok\": true,\n  \"path\": \"@project/a.md\"\n}\n" +
				"\n--- /content (40 lines) ---\n" + body},
		{"nested, and numbers kept exact", `{"content":[{"type":"text","text":` + jsonString(body) + `}],"n":12345678901234567890}`,
			"{\n  \"content\": [\n    {\n      \"text\": \"(760 bytes, written out below: --- /content/0/text)\",\n      \"type\": \"text\"\n    }\n  ],\n  \"n\": 12345678901234567890\n}\n" +
				"\n--- /content/0/text (40 lines) ---\n" + body},
		{"not JSON after all", `{"ok":true} trailing`, "{\"ok\":true} trailing\n"},
	}
	for _, tt := range tests {
		if got := ReadableOutput(tt.in); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
