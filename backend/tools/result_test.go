package tools

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"crewagent/backend/conversation"
)

func TestResultJSON(t *testing.T) {
	r := success(struct {
		A int `json:"a"`
	}{1})
	if r.Content != `{"ok":true,"a":1}` || r.Code() != "" {
		t.Fatalf("success: %s", r.Content)
	}
	if success(nil).Content != `{"ok":true}` || success(struct{}{}).Content != `{"ok":true}` {
		t.Fatal("empty success")
	}
	if r := success([]int{1}); r.OK || r.Code() != CodeInternal {
		t.Fatalf("non-object payload: %s", r.Content)
	}
	f := failure(NewError(CodePreconditionFailed, "changed", map[string]any{"actualSha256": "ab"}))
	var m map[string]any
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"ok": false, "error": map[string]any{"code": CodePreconditionFailed, "message": "changed",
		"details": map[string]any{"actualSha256": "ab"}}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("failure: %s", b)
	}
	// Details that cannot be encoded are dropped, the error is kept.
	f = failure(NewError(CodeInternal, "x", map[string]any{"f": func() {}}))
	if f.Content != `{"error":{"code":"E_INTERNAL","message":"x"},"ok":false}` {
		t.Fatalf("unencodable details: %s", f.Content)
	}
	if te, ok := AsToolError(NewError(CodeReadLimit, "m", nil)); !ok || te.Error() != "E_READ_LIMIT: m" {
		t.Fatal("AsToolError")
	}
}

func TestTruncateString(t *testing.T) {
	s := "aé" + "日本語"
	for max := 0; max <= len(s); max++ {
		n := runeBoundary(s, max)
		if n > max || !utf8.ValidString(s[:n]) {
			t.Fatalf("runeBoundary(%d)=%d", max, n)
		}
	}
	if got := truncateString("hello", 10); got != "hello" {
		t.Fatal(got)
	}
	if got := truncateString("日本語", 4); got != "日…(truncated, 9 bytes)" {
		t.Fatal(got)
	}
}

func TestCustomArtifactsDir(t *testing.T) {
	hs := newHarness(t, func(c *Config) { c.ArtifactsDir = "out/docs/" })
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/artifacts/a.md", "content": "x"})
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/out/docs/b.md", "content": "x"})
	if got := hs.artifacts(); !reflect.DeepEqual(got, []string{"out/docs/b.md"}) {
		t.Fatalf("artifacts: %v", got)
	}
}
