package fsx

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func TestWriteFileReplacesContentAndMode(t *testing.T) {
	tests := []struct {
		name string
		old  string // "" means no file yet
		perm os.FileMode
	}{
		{"new file", "", 0o644},
		{"replace", "old content that is longer", 0o600},
		{"read-only mode", "old", 0o444},
		{"executable", "", 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tt.old != "" {
				if err := os.WriteFile(path, []byte(tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte("new"), tt.perm); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
				t.Fatalf("content %q, %v", b, err)
			}
			if got := names(t, dir); len(got) != 1 || got[0] != "f.json" {
				t.Fatalf("folder holds %v, want only f.json", got)
			}
			if runtime.GOOS == "windows" {
				return
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.perm {
				t.Fatalf("mode %v, want %v", fi.Mode().Perm(), tt.perm)
			}
		})
	}
}

func TestWriteFileFailureLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub") // a rename onto a non-empty folder fails
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileTemp(target, []byte("data"), 0o644, ".custom-*"); err == nil {
		t.Fatal("want an error")
	}
	if got := names(t, dir); len(got) != 1 || got[0] != "sub" {
		t.Fatalf("folder holds %v, want only sub", got)
	}
}

func TestWriteTempNamesAndSyncs(t *testing.T) {
	dir := t.TempDir()
	for _, pattern := range []string{".x.tmp-*", ".settings-*.tmp", ".crewagent-tmp-*"} {
		tmp, err := WriteTemp(dir, pattern, []byte("hello"), 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(tmp) != dir {
			t.Fatalf("%s is not in %s", tmp, dir)
		}
		prefix, suffix, _ := strings.Cut(pattern, "*")
		if base := filepath.Base(tmp); !strings.HasPrefix(base, prefix) || !strings.HasSuffix(base, suffix) || len(base) <= len(prefix)+len(suffix) {
			t.Fatalf("name %q does not follow %q", base, pattern)
		}
		if b, err := os.ReadFile(tmp); err != nil || string(b) != "hello" {
			t.Fatalf("content %q, %v", b, err)
		}
	}
	if _, err := WriteTemp(filepath.Join(dir, "missing"), ".x-*", []byte("x"), 0o600); err == nil {
		t.Fatal("want an error for a missing folder")
	}
}

func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := SyncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("want an error for a missing folder")
	}
}

func TestWriteFileInfoDescribesTheNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := WriteFileInfo(path, []byte("new content"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	now, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi, now) || fi.Size() != int64(len("new content")) || !fi.ModTime().Equal(now.ModTime()) {
		t.Fatalf("stat %v/%d does not describe the file at path (%d)", fi.Name(), fi.Size(), now.Size())
	}
	if got := names(t, dir); len(got) != 1 {
		t.Fatalf("folder holds %v", got)
	}
}

func TestStamp(t *testing.T) {
	at := time.Date(2024, 3, 1, 12, 30, 5, 123456789, time.FixedZone("x", 3600))
	if got := Stamp(at); got != "2024-03-01T11:30:05.123Z" {
		t.Fatalf("Stamp = %q", got)
	}
	if _, err := time.Parse(TimeFormat, Now()); err != nil {
		t.Fatal(err)
	}
}
