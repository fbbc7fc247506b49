package tools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

func TestFSList(t *testing.T) {
	hs := newHarness(t, nil)
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "docs", "b.txt"), "12345")
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "docs", "A.md"), "")
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "docs", "sub", "x"), "")
	m := hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@project/docs"})
	var got struct {
		Path    string      `json:"path"`
		Entries []ListEntry `json:"entries"`
		Total   int         `json:"total"`
	}
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := []ListEntry{
		{"A.md", "file", 0}, {"b.txt", "file", 5}, {"link-self", "symlink", 0},
		{"link-up", "symlink", 0}, {"readme.md", "file", 29}, {"sub", "dir", 0},
	}
	if got.Path != "@project/docs" || got.Total != len(want) || !reflect.DeepEqual(got.Entries, want) {
		t.Fatalf("got %+v", got)
	}

	// Aliases and symlinked folders inside the root.
	hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@project"})
	hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@project/link-in"})
	hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@pkg/workflows"})
	hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@state"})
	hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@state/logs/tool-results"})

	hs.mustFail(conversation.ToolFSList, map[string]any{"path": "@project/missing"}, CodeNotFound)
	hs.mustFail(conversation.ToolFSList, map[string]any{"path": "@project/docs/readme.md"}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSList, map[string]any{"path": "@project/link-out"}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSList, map[string]any{"path": "@project/.."}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSList, map[string]any{}, CodeBadArguments)
}

func TestFSListTruncates(t *testing.T) {
	hs := newHarness(t, nil)
	dir := filepath.Join(hs.f.roots.Project, "many")
	for i := range maxListEntries + 5 {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%05d", i)), "")
	}
	m := hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@project/many"})
	if m["truncated"] != true || int(m["total"].(float64)) != maxListEntries+5 || len(m["entries"].([]any)) != maxListEntries {
		t.Fatalf("truncated=%v total=%v n=%d", m["truncated"], m["total"], len(m["entries"].([]any)))
	}
}
