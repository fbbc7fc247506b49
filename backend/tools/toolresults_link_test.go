package tools

import (
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/internal/testkit"
)

// A conversation's folder of tool outputs is a folder of the tool-results
// root: replaced by a symbolic link (to the outside, or to another
// conversation's folder) it is refused, never followed.
func TestToolResultsFolderSwappedForALinkIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		target func(f fixture) string
	}{
		{"to the outside", func(f fixture) string { return f.outside }},
		{"to another conversation", func(f fixture) string { return filepath.Join(f.roots.ToolResults, "conv2") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			testkit.WriteFile(t, filepath.Join(f.outside, "msg1.json"), `{"output":"outside"}`)
			testkit.WriteFile(t, filepath.Join(f.roots.ToolResults, "conv2", "msg1.json"), `{"output":"other conversation"}`)
			conv := filepath.Join(f.roots.ToolResults, "conv1")
			if err := os.Rename(conv, conv+".real"); err != nil {
				t.Fatal(err)
			}
			symlink(t, tt.target(f), conv)
			s := NewSandbox(f.roots)
			for _, alias := range []string{ToolResultsAlias + "/conv1/msg1.json", ToolResultsAlias + "/conv1", ToolResultsAlias} {
				r, terr := s.Resolve(alias, AccessRead)
				if terr == nil || terr.Code != CodeSandboxViolation {
					t.Fatalf("Resolve(%s) = %+v, %v; want a sandbox violation", alias, r, terr)
				}
			}
		})
	}
	// The folder itself still resolves.
	f := newFixture(t)
	if _, terr := NewSandbox(f.roots).Resolve(ToolResultsAlias+"/conv1/msg1.json", AccessRead); terr != nil {
		t.Fatal(terr)
	}
}
