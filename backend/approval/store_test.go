package approval

import (
	"os"
	"path/filepath"
	"testing"
)

// The approval of a project's rules file is for its content in the folder it was
// approved in: the same file in a copy of the project (even one sharing the approvals,
// as a clone with the same project id did) is not approved; the folder reached through
// a link is the same folder; an approval that names no folder counts for none.
func TestRulesApprovalIsForTheFolder(t *testing.T) {
	home := t.TempDir()
	original, copied := t.TempDir(), t.TempDir()
	file := []byte(`{"allow":["shell.run(make)"]}`)
	for _, root := range []string{original, copied} {
		p := filepath.Join(root, filepath.FromSlash(ProjectRulesFile))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(original, link); err != nil {
		t.Fatal(err)
	}
	load := func(root string) ProjectRules {
		t.Helper()
		pr, err := LoadProjectRules(root)
		if err != nil || pr.Hash == "" {
			t.Fatalf("%s: %+v %v", root, pr, err)
		}
		return pr
	}
	s := NewStore(home, "0f9c1c9e-5c55-4b7c-9d43-3c1f6c1b7a11")
	if err := s.ApproveRules(load(original)); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		st   State
		root string
		want bool
	}{
		{"the approved folder", st, original, true},
		{"through a link", st, link, true},
		{"a copy", st, copied, false},
		{"an approval naming no folder", State{RulesApproved: st.RulesApproved}, original, false},
	} {
		if got := tc.st.Approves(load(tc.root)); got != tc.want {
			t.Errorf("%s: approved %v, want %v", tc.name, got, tc.want)
		}
	}
	if err := s.ApproveRules(ProjectRules{Root: original}); err == nil {
		t.Error("a missing rules file was approved")
	}
}
