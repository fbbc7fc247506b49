package project

import (
	"os"
	"path/filepath"
	"testing"

	"crewagent/backend/errs"
)

func TestDefaultParent(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, home string) (xdg string)
		want  func(home string) string
	}{
		{"documents folder", func(t *testing.T, home string) string {
			mkdir(t, filepath.Join(home, "Documents"))
			return ""
		}, func(home string) string { return filepath.Join(home, "Documents", DefaultFolderName) }},
		{"no documents folder", func(t *testing.T, home string) string { return "" },
			func(home string) string { return filepath.Join(home, DefaultFolderName) }},
		{"documents is a file", func(t *testing.T, home string) string {
			if err := os.WriteFile(filepath.Join(home, "Documents"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return ""
		}, func(home string) string { return filepath.Join(home, DefaultFolderName) }},
		{"the desktop's documents folder", func(t *testing.T, home string) string {
			mkdir(t, filepath.Join(home, "Documents"))
			mkdir(t, filepath.Join(home, "Dokumente"))
			return filepath.Join(home, "Dokumente")
		}, func(home string) string { return filepath.Join(home, "Dokumente", DefaultFolderName) }},
		{"a documents folder that is missing", func(t *testing.T, home string) string {
			return filepath.Join(home, "Gone")
		}, func(home string) string { return filepath.Join(home, DefaultFolderName) }},
		{"a relative documents folder", func(t *testing.T, home string) string {
			return "Documents"
		}, func(home string) string { return filepath.Join(home, DefaultFolderName) }},
		{"documents set to the home folder", func(t *testing.T, home string) string {
			return home
		}, func(home string) string { return filepath.Join(home, DefaultFolderName) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := tempDir(t)
			t.Setenv("XDG_DOCUMENTS_DIR", tc.setup(t, home))
			if got, want := DefaultParent(home), tc.want(home); got != want {
				t.Errorf("DefaultParent = %q, want %q", got, want)
			}
		})
	}
	if got := DefaultParent(""); got != "" {
		t.Errorf("DefaultParent(\"\") = %q", got)
	}
}

func TestEnsureDefaultParentCreatesOnlyTheDefault(t *testing.T) {
	home := tempDir(t)
	t.Setenv("XDG_DOCUMENTS_DIR", "")
	other := filepath.Join(home, "typo", "projects")
	if err := EnsureDefaultParent(home, other); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Fatalf("a folder other than the default was created: %v", err)
	}
	def := DefaultParent(home)
	if err := EnsureDefaultParent(home, def+string(filepath.Separator)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(def); err != nil || !fi.IsDir() {
		t.Fatalf("the default location was not created: %v", err)
	}
	// a project is then created in it
	p, err := Create(tempDir(t), def, "first")
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != filepath.Join(def, "first") {
		t.Fatalf("root %s", p.Root)
	}
	// a file where the default folder should be is reported
	home2 := tempDir(t)
	if err := os.WriteFile(filepath.Join(home2, DefaultFolderName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDefaultParent(home2, DefaultParent(home2)); errs.CodeOf(err) != CodeIO {
		t.Fatalf("err = %v, want %s", err, CodeIO)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
