package convlog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLargeToolOutput(t *testing.T) {
	c := &lenCounter{}
	s, dir, _ := openTest(t, Options{Counter: c})
	id := mustCreate(t, s)
	full := strings.Repeat("é", 10) + strings.Repeat("line of output\n", 4000) // > 50 KiB
	big := &Entry{Role: RoleTool, ToolCallID: "call_1", ToolName: "fs.search", Content: Str(full)}
	small := &Entry{Role: RoleTool, ToolCallID: "call_2", Content: Str(strings.Repeat("s", DefaultLargeOutputThreshold))}
	long := msg(RoleAssistant, full)
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
	if !strings.HasPrefix(p, wantStart) || !strings.HasSuffix(p, "\n…\nFull output: "+alias) || utf8.RuneCountInString(p) > DefaultPreviewChars+200 {
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
	var rec ToolResultFile
	if err := json.Unmarshal([]byte(readFile(t, host)), &rec); err != nil {
		t.Fatal(err)
	}
	if rec != (ToolResultFile{ConversationID: id, MessageID: big.ID, ToolCallID: "call_1", ToolName: "fs.search", Content: full}) {
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
	upd := &Entry{ID: small.ID, Role: RoleTool, ToolCallID: "call_2", Content: Str(full + "x")}
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
	if len(entries) != 2 {
		t.Errorf("tool-result files = %d, want 2", len(entries))
	}
}

func TestLargeToolOutputOptions(t *testing.T) {
	s, dir, _ := openTest(t, Options{LargeOutputThreshold: -1})
	id := mustCreate(t, s)
	e := &Entry{Role: RoleTool, Content: Str(strings.Repeat("x", 200000))}
	s.Append(id, e)
	if e.FullOutputPath != "" || pathExists(toolResultsDir(dir, id)) {
		t.Error("negative threshold did not disable externalising")
	}
	s2, _, _ := openTest(t, Options{LargeOutputThreshold: 10, PreviewChars: 3})
	id2 := mustCreate(t, s2)
	e2 := &Entry{ID: "tool-1", Role: RoleTool, Content: Str("abcdefghijklmnop")}
	s2.Append(id2, e2)
	if want := "TOOL_RESULT_PREVIEW (16 bytes; truncated)\nabc\n…\nFull output: " + ToolResultAlias(id2, "tool-1"); e2.Text() != want {
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
