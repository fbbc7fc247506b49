package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/errs"
)

// copyMeta copies a project folder's identity file to another folder, the way a
// copy or a clone of the folder carries it.
func copyMeta(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(MetaPath(from))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(MetaPath(to), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// someData puts a file in a project's data folder, as a conversation would.
func someData(t *testing.T, p *Project) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.DataDir, "marker"), []byte(p.Root), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestIdentityFollowsTheFolder(t *testing.T) {
	tests := []struct {
		name string
		// prepare makes, from the opened original, the folder to open next
		prepare func(t *testing.T, original string) string
		moved   Moved
		// wantSame: the folder opens the original's data; wantCode: it fails
		wantSame bool
		wantCode string
		notice   string
	}{
		{name: "the same folder again", prepare: func(t *testing.T, o string) string { return o }, wantSame: true},
		{name: "the same folder through a link", prepare: func(t *testing.T, o string) string {
			link := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(o, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, wantSame: true},
		{name: "a copy is a new project", prepare: func(t *testing.T, o string) string {
			c := filepath.Join(t.TempDir(), "copy")
			copyMeta(t, o, c)
			return c
		}, notice: "is a copy of project"},
		{name: "a copy is a new project even when asked to keep a moved one", prepare: func(t *testing.T, o string) string {
			c := filepath.Join(t.TempDir(), "copy")
			copyMeta(t, o, c)
			return c
		}, moved: MovedKeep, notice: "is a copy of project"},
		{name: "a moved project asks", prepare: moveAway, wantCode: CodeMoved},
		{name: "a moved project keeps its data when told", prepare: moveAway, moved: MovedKeep, wantSame: true, notice: "its conversations came along"},
		{name: "a moved project starts afresh when told", prepare: moveAway, moved: MovedNew, notice: "is a new project"},
		{name: "a folder whose original now holds another id is a move", prepare: func(t *testing.T, o string) string {
			c := filepath.Join(t.TempDir(), "elsewhere")
			copyMeta(t, o, c)
			if err := os.WriteFile(MetaPath(o), []byte(`{"projectId":"0b5c2a7e-6f3b-4a1e-9d43-5a7c1f0e9b21"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return c
		}, wantCode: CodeMoved},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			original := filepath.Join(t.TempDir(), "book")
			if err := os.Mkdir(original, 0o755); err != nil {
				t.Fatal(err)
			}
			p, err := Open(home, original)
			if err != nil {
				t.Fatal(err)
			}
			someData(t, p)
			if p.Notice != "" {
				t.Fatalf("a new project has a notice: %q", p.Notice)
			}
			next := tc.prepare(t, p.Root)
			q, err := OpenWith(home, next, OpenOptions{Moved: tc.moved})
			if tc.wantCode != "" {
				if errs.CodeOf(err) != tc.wantCode {
					t.Fatalf("err %v, want code %s", err, tc.wantCode)
				}
				if !strings.Contains(err.Error(), "moved from "+p.Root) || !strings.Contains(err.Error(), "use its conversations?") {
					t.Fatalf("the question does not say it in words: %v", err)
				}
				if errs.Detail(err, DetailMovedFrom) != p.Root {
					t.Fatalf("details %v", errs.Detail(err, DetailMovedFrom))
				}
				if m := readJSON(t, MetaPath(next)); m["projectId"] != p.ID {
					t.Fatalf("asking changed the folder's id: %v", m["projectId"])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(q.Notice, tc.notice) || (tc.notice == "") != (q.Notice == "") {
				t.Fatalf("notice %q, want %q", q.Notice, tc.notice)
			}
			if wantFrom := tc.moved == MovedKeep && tc.wantSame && p.Root != q.Root; (q.MovedFrom == p.Root) != wantFrom || (!wantFrom && q.MovedFrom != "") {
				t.Fatalf("movedFrom %q", q.MovedFrom)
			}
			if m := readJSON(t, MetaPath(next)); m["projectId"] != q.ID {
				t.Fatalf("the folder holds %v, opened as %s", m["projectId"], q.ID)
			}
			_, err = os.Stat(filepath.Join(q.DataDir, "marker"))
			if got := err == nil; got != tc.wantSame || (q.ID == p.ID) != tc.wantSame {
				t.Fatalf("same data %v (id %s, was %s), want %v", got, q.ID, p.ID, tc.wantSame)
			}
			if bound, _ := BoundRoot(home, q.ID); !sameFolder(bound, q.Root) {
				t.Fatalf("the data of %s belongs to %s", q.Root, bound)
			}
			// once settled, the folder opens plainly
			again, err := Open(home, next)
			if err != nil || again.ID != q.ID || again.Notice != "" {
				t.Fatalf("reopened: %+v %v", again, err)
			}
			if !tc.wantSame && p.Root != q.Root {
				if bound, _ := BoundRoot(home, p.ID); bound != p.Root {
					t.Fatalf("the original's data now belongs to %s", bound)
				}
			}
		})
	}
}

// moveAway renames the project folder and returns its new path.
func moveAway(t *testing.T, original string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "book-renamed")
	if err := os.Rename(original, to); err != nil {
		t.Fatal(err)
	}
	return to
}

// Data kept before the folder was recorded with it belongs to the folder the
// recent-projects list last opened with that id.
func TestIdentityOfDataKeptBeforeTheRecord(t *testing.T) {
	home := t.TempDir()
	original := t.TempDir()
	p, err := Open(home, original)
	if err != nil {
		t.Fatal(err)
	}
	someData(t, p)
	if err := Touch(home, p); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(identityPath(home, p.ID)); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(t.TempDir(), "clone")
	copyMeta(t, original, c)
	q, err := Open(home, c)
	if err != nil {
		t.Fatal(err)
	}
	if q.ID == p.ID || !strings.Contains(q.Notice, "copy") {
		t.Fatalf("a clone of a listed project opened its data: %+v", q)
	}
	again, err := Open(home, original)
	if err != nil || again.ID != p.ID || again.Notice != "" {
		t.Fatalf("the listed folder: %+v %v", again, err)
	}
	if bound, _ := BoundRoot(home, p.ID); bound != p.Root {
		t.Fatalf("bound to %q", bound)
	}
}

// BoundRoot returns (for the tests) the canonical path of the folder whose data DataDir(home, id)
// is ("" when none is recorded).
func BoundRoot(home, id string) (string, error) {
	b, err := readIdentity(identityPath(home, id))
	if err != nil || b == nil {
		return "", err
	}
	return b.Root, nil
}
