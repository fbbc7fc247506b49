package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFilesFollowTheProjectFolder(t *testing.T) {
	root := t.TempDir()
	r := New(root)
	if got := r.Files(); got != nil {
		t.Fatalf("no file: %+v", got)
	}
	write(t, filepath.Join(root, "CLAUDE.md"), "use tabs\n")
	if got := r.Files(); len(got) != 1 || got[0].Path != "@project/CLAUDE.md" || got[0].Text != "use tabs\n" {
		t.Fatalf("CLAUDE.md alone: %+v", got)
	}
	write(t, filepath.Join(root, "AGENTS.md"), "run go test\n")
	if got := r.Files(); len(got) != 1 || got[0].Path != "@project/AGENTS.md" || got[0].Text != "run go test\n" {
		t.Fatalf("AGENTS.md wins: %+v", got)
	}
	// a change on disk is read for the next request
	write(t, filepath.Join(root, "AGENTS.md"), "run go test -race\n")
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(root, "AGENTS.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if got := r.Files(); got[0].Text != "run go test -race\n" {
		t.Fatalf("changed file: %+v", got)
	}
	if err := os.Remove(filepath.Join(root, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if got := r.Files(); len(got) != 1 || got[0].Path != "@project/CLAUDE.md" {
		t.Fatalf("after removing AGENTS.md: %+v", got)
	}
}

func TestLongAndForeignFiles(t *testing.T) {
	root := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	write(t, filepath.Join(root, "AGENTS.md"), strings.Repeat(line, 1000)) // 100 KB
	got := New(root).Files()
	if len(got) != 1 || !got[0].Truncated || len(got[0].Text) > MaxBytes || !strings.HasSuffix(got[0].Text, "\n") || got[0].Size != 100000 {
		t.Fatalf("long file: truncated %v, %d bytes", got[0].Truncated, len(got[0].Text))
	}
	// a link out of the project folder is not followed
	outside := filepath.Join(t.TempDir(), "secret.md")
	write(t, outside, "the secret\n")
	other := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(other, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if got := New(other).Files(); got != nil {
		t.Fatalf("link out of the project read: %+v", got)
	}
	if _, err := New(other).Save("x"); !errors.Is(err, ErrNotAFile) {
		t.Fatalf("save through a link: %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "the secret\n" {
		t.Fatal("the file outside changed")
	}
	// binary content is no instruction file
	bin := t.TempDir()
	write(t, filepath.Join(bin, "AGENTS.md"), "a\x00b")
	if got := New(bin).Files(); got != nil {
		t.Fatalf("binary file read: %+v", got)
	}
}

func TestSave(t *testing.T) {
	root := t.TempDir()
	r := New(root)
	f, err := r.File()
	if err != nil || f.Exists || f.Name != "AGENTS.md" {
		t.Fatalf("none yet: %+v %v", f, err)
	}
	if f, err = r.Save("# Rules\nno force pushes\n"); err != nil || !f.Exists || f.Text != "# Rules\nno force pushes\n" {
		t.Fatalf("save: %+v %v", f, err)
	}
	if got := r.Files(); len(got) != 1 || got[0].Text != "# Rules\nno force pushes\n" {
		t.Fatalf("requests after save: %+v", got)
	}
	// a project with only CLAUDE.md edits that one
	other := t.TempDir()
	write(t, filepath.Join(other, "CLAUDE.md"), "old\n")
	if f, err = New(other).Save("new\n"); err != nil || f.Name != "CLAUDE.md" {
		t.Fatalf("CLAUDE.md: %+v %v", f, err)
	}
	if _, err := os.Stat(filepath.Join(other, "AGENTS.md")); !os.IsNotExist(err) {
		t.Fatal("AGENTS.md created beside CLAUDE.md")
	}
	if _, err := r.Save(strings.Repeat("y", MaxBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}
