package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

// activeResolver discovers the fixture tree, activates pptx and returns a
// resolver for it, the pptx folder and a folder outside every skill.
func activeResolver(t *testing.T) (*Resolver, string, string) {
	t.Helper()
	root := copyTree(t)
	pptx := filepath.Join(root, "project", ".crewagent", "skills", "pptx")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(pptx, "escape.txt"))
	os.Symlink(outside, filepath.Join(pptx, "escape-dir"))
	os.Symlink("reference/ooxml.md", filepath.Join(pptx, "inside-link.md"))
	os.Symlink("loop-b", filepath.Join(pptx, "loop-a"))
	os.Symlink("loop-a", filepath.Join(pptx, "loop-b"))
	cat := Discover(DefaultLocations(treePlaces(root)))
	act, err := cat.Activate(NewState(), Request{Name: "pptx", By: ByModel})
	if err != nil {
		t.Fatal(err)
	}
	st := NewState()
	for i := range act.Entries {
		st.Apply(&act.Entries[i])
	}
	return cat.Resolver(st), pptx, outside
}

func TestResolve(t *testing.T) {
	r, pptx, outside := activeResolver(t)
	realPptx, _ := filepath.EvalSymlinks(pptx)
	ok := []struct{ in, rel, host string }{
		{"@skill/pptx/reference/ooxml.md", "reference/ooxml.md", filepath.Join(realPptx, "reference", "ooxml.md")},
		{"@skill/pptx", "", realPptx},
		{"@skill/pptx/", "", realPptx},
		{"@skill/pptx/./scripts//thumbnail.py", "scripts/thumbnail.py", filepath.Join(realPptx, "scripts", "thumbnail.py")},
		{"@skill/pptx/inside-link.md", "inside-link.md", filepath.Join(realPptx, "reference", "ooxml.md")},
	}
	for _, tt := range ok {
		res, err := r.Resolve(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if res.Rel != tt.rel || res.Host != tt.host || res.Name != "pptx" {
			t.Errorf("%s: %+v", tt.in, res)
		}
	}
	attacks := []struct{ in, code, reason string }{
		{"@skill/pptx/../commit-message/SKILL.md", CodeSandboxViolation, "dotdot"},
		{"@skill/pptx/scripts/../../pdf-processing/SKILL.md", CodeSandboxViolation, "dotdot"},
		{"@skill/pptx/%2e%2e/commit-message/SKILL.md", CodeSandboxViolation, "dotdot"},
		{"@skill/pptx/%252e%252e/x", CodeSandboxViolation, "dotdot"},
		{"@skill/pptx/.../x", CodeSandboxViolation, "dotdot"},
		{"@skill/pptx/. ./x", CodeSandboxViolation, "dotdot"},
		{"@skill/pptx/escape.txt", CodeSandboxViolation, "symlink_escape"},
		{"@skill/pptx/escape-dir/secret.txt", CodeSandboxViolation, "symlink_escape"},
		{"@skill/pptx/loop-a", CodeSandboxViolation, "symlink_unresolvable"},
		{"@skill/pptx/a\\..\\..\\x", CodeSandboxViolation, "backslash"},
		{"@skill/pptx/C:/x", CodeSandboxViolation, "colon"},
		{"@skill/pptx/a\x00b", CodeSandboxViolation, "nul"},
		{"@skill/pptx/a\nb", CodeSandboxViolation, "control_char"},
		{"@skill/pptx/\u2215etc", CodeSandboxViolation, "lookalike"},
		{"@skill/pptx/\uFF0E\uFF0E/x", CodeSandboxViolation, "lookalike"},
		{"@skill/pptx/a\u200Bb", CodeSandboxViolation, "format_char"},
		{"@skill/pptx/\xff", CodeSandboxViolation, "invalid_utf8"},
		{"@skill/pptx/" + strings.Repeat("a", 1100), CodeSandboxViolation, "too_long"},
		{"@skill", CodeSandboxViolation, "no_skill"},
		{"@skill/", CodeSandboxViolation, "no_skill"},
		{"/etc/passwd", CodeSandboxViolation, "no_alias"},
		{"@project/x", CodeSandboxViolation, "no_alias"},
		{"@skillpptx/x", CodeSandboxViolation, "no_alias"},
		{"@skill/commit-message/SKILL.md", CodeNotFound, "alias_unavailable"},
		{"@skill/PPTX/SKILL.md", CodeNotFound, "alias_unavailable"},
		{"@skill/pptx/missing.md", CodeNotFound, "not_found"},
		{"@skill/pptx/SKILL.md/x", CodeNotFound, "not_found"},
	}
	for _, tt := range attacks {
		_, err := r.Resolve(tt.in)
		var pe *PathError
		if !errors.As(err, &pe) || pe.Code != tt.code || ReasonOf(err) != tt.reason {
			t.Errorf("%q: got %v (%+v), want %s/%s", tt.in, err, pe, tt.code, tt.reason)
			continue
		}
		if strings.Contains(pe.Message, outside) || strings.Contains(pe.Message, pptx) {
			t.Errorf("%q: the message shows a host path: %s", tt.in, pe.Message)
		}
	}
	if !IsAlias("@skill/x") || !IsAlias("@skill") || IsAlias("@skills/x") || IsAlias("@project/x") {
		t.Errorf("IsAlias")
	}
}

func TestResolverReadFile(t *testing.T) {
	r, pptx, outside := activeResolver(t)
	data, res, err := r.ReadFile("@skill/pptx/reference/ooxml.md", 0)
	if err != nil || !strings.HasPrefix(string(data), "# OOXML notes") || res.Display() != "@skill/pptx/reference/ooxml.md" {
		t.Fatalf("%q %+v %v", data, res, err)
	}
	if _, _, err := r.ReadFile("@skill/pptx/reference/ooxml.md", 10); err == nil || err.(*PathError).Code != CodeReadLimit {
		t.Errorf("limit: %v", err)
	}
	if _, _, err := r.ReadFile("@skill/pptx/scripts", 0); err == nil || ReasonOf(err) != "is_folder" {
		t.Errorf("folder: %v", err)
	}
	// a file swapped for a link leaving the folder between the check and the
	// open: the os.Root refuses it
	target := filepath.Join(pptx, "reference", "ooxml.md")
	res, err = r.Resolve("@skill/pptx/reference/ooxml.md")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(target)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), target); err != nil {
		t.Fatal(err)
	}
	if data, err := readResolved(res, 0); err == nil || err.(*PathError).Code != CodeSandboxViolation {
		t.Errorf("read %q through a swapped link (%v)", data, err)
	}
	if _, _, err := r.ReadFile("@skill/pptx/reference/ooxml.md", 0); err == nil || ReasonOf(err) != "symlink_escape" {
		t.Errorf("ReadFile after the swap: %v", err)
	}
}

func TestResolverNotActive(t *testing.T) {
	root := copyTree(t)
	cat := Discover(DefaultLocations(treePlaces(root)))
	r := cat.Resolver(NewState())
	if _, err := r.Resolve("@skill/pptx/SKILL.md"); err == nil || !strings.Contains(err.Error(), `the skill "pptx" is not active`) {
		t.Errorf("got %v", err)
	}
	// an active skill recorded with another path (a shadowed skill now wins)
	st := Derive(ptrs([]conversation.Entry{evt("e1", EventActivated, `{"skill":"pptx","path":"/elsewhere/pptx/SKILL.md"}`, "")}))
	if _, err := cat.Resolver(st).Resolve("@skill/pptx/SKILL.md"); err == nil || !strings.Contains(err.Error(), "no longer available") {
		t.Errorf("got %v", err)
	}
	// NewResolver over explicit folders
	r = NewResolver(map[string]string{"pdf-processing": filepath.Join(root, "package", "skills", "pdf-processing")})
	if _, err := r.Resolve("@skill/pdf-processing/forms.md"); err != nil {
		t.Errorf("got %v", err)
	}
}
