package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
)

type fixture struct {
	t       testing.TB
	project string
	dir     string
	st      *Store
	now     time.Time
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{t: t, project: filepath.Join(base, "project"), dir: filepath.Join(base, "checkpoints"), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := os.MkdirAll(f.project, 0o755); err != nil {
		t.Fatal(err)
	}
	f.open()
	return f
}

func (f *fixture) open() {
	f.t.Helper()
	st, err := Open(f.dir, f.project, Options{Now: func() time.Time { return f.now }})
	if err != nil {
		f.t.Fatal(err)
	}
	f.st = st
}

func (f *fixture) read(rel string) string {
	b, err := os.ReadFile(filepath.Join(f.project, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) put(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.project, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// write changes files the way a tool does: recorded in the turn of msg.
func (f *fixture) write(conv, msg string, files map[string]string) {
	f.t.Helper()
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	done, err := f.st.Begin(Change{ConversationID: conv, MessageID: msg, Tool: "fs.write"}, paths)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, p := range paths {
		if files[p] == "<none>" {
			_ = os.Remove(filepath.Join(f.project, p))
			continue
		}
		f.put(p, files[p])
	}
	if err := done(); err != nil {
		f.t.Fatal(err)
	}
}

func TestRewindKeepsFilesChangedSince(t *testing.T) {
	for _, tc := range []struct {
		name     string
		force    bool
		wantA    string
		wantKept []string
	}{
		{"kept without force", false, "user edit\n", []string{"a.txt"}},
		{"restored with force", true, "<none>", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("c1", "m1", map[string]string{"a.txt": "agent\n", "b.txt": "agent b\n"})
			f.put("a.txt", "user edit\n")
			res, err := f.st.Rewind("c1", "m1", map[string]bool{"m1": true}, tc.force)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.read("a.txt"); got != tc.wantA {
				t.Errorf("a.txt = %q, want %q", got, tc.wantA)
			}
			if got := f.read("b.txt"); got != "<none>" {
				t.Errorf("b.txt = %q, want it removed", got)
			}
			if fmt.Sprint(res.Kept) != fmt.Sprint(nonNil(tc.wantKept)) {
				t.Errorf("kept %v, want %v", res.Kept, tc.wantKept)
			}
		})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestRewindNothingToRestore(t *testing.T) {
	f := newFixture(t)
	f.write("c1", "m1", map[string]string{"a.txt": "one\n"})
	for _, tc := range []struct {
		name  string
		conv  string
		turns map[string]bool
	}{
		{"another conversation", "c2", map[string]bool{"m1": true}},
		{"a later message", "c1", map[string]bool{"m2": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := f.st.Rewind(tc.conv, "x", tc.turns, false); !errors.Is(err, ErrNothingToRestore) {
				t.Fatalf("err = %v, want ErrNothingToRestore", err)
			}
		})
	}
	if _, err := f.st.Rewind("c1", "m1", map[string]bool{"m1": true}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Rewind("c1", "m1", map[string]bool{"m1": true}, false); !errors.Is(err, ErrNothingToRestore) {
		t.Fatalf("a second rewind to the same message: err = %v, want ErrNothingToRestore", err)
	}
}

// A rewind killed between two files is finished by the next Open: every file
// is whole, and the rewind is journaled and can be undone.
func TestRewindInterruptedIsFinishedOnOpen(t *testing.T) {
	f := newFixture(t)
	f.put("a.txt", "a0\n")
	f.put("b.txt", "b0\n")
	f.write("c1", "m1", map[string]string{"a.txt": "a1\n", "b.txt": "b1\n", "c.txt": "c1\n"})
	killed := errors.New("killed")
	afterPut = func(i int) error {
		if i == 0 {
			return killed
		}
		return nil
	}
	_, err := f.st.Rewind("c1", "m1", map[string]bool{"m1": true}, false)
	afterPut = nil
	if !errors.Is(err, killed) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "rewind.json")); err != nil {
		t.Fatalf("the intent is not on disk: %v", err)
	}
	// A temporary copy a kill left behind.
	if err := os.WriteFile(filepath.Join(f.project, ".b.txt.rw-123"), []byte("b0"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := f.read("a.txt") + f.read("b.txt"); got != "a0\nb1\n" {
		t.Fatalf("half way: %q", got)
	}
	// The file being written when the process was killed: written in place,
	// it holds a part.
	f.put("b.txt", "b")
	f.open()
	if got := f.read("a.txt") + f.read("b.txt") + f.read("c.txt"); got != "a0\nb0\n<none>" {
		t.Fatalf("after reopening: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "rewind.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the intent is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.project, ".b.txt.rw-123")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the temporary copy is still there: %v", err)
	}
	recs, err := f.st.Records()
	if err != nil {
		t.Fatal(err)
	}
	id := recs[len(recs)-1].RewindID
	if id == "" || !f.st.IsRewind(id) {
		t.Fatalf("the rewind is not journaled: %+v", recs[len(recs)-1])
	}
	if _, err := f.st.UndoRewind(id, false); err != nil {
		t.Fatal(err)
	}
	if got := f.read("a.txt") + f.read("b.txt") + f.read("c.txt"); got != "a1\nb1\nc1\n" {
		t.Fatalf("after undoing: %q", got)
	}
	// An intent that does not parse was never written by a rewind.
	if err := os.WriteFile(filepath.Join(f.dir, "rewind.json"), []byte("{tor"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.open()
	if _, err := os.Stat(filepath.Join(f.dir, "rewind.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a torn intent was left")
	}
}

func blobCount(t *testing.T, dir string) int {
	n := 0
	_ = filepath.Walk(filepath.Join(dir, "blobs"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func TestPruneAndDelete(t *testing.T) {
	f := newFixture(t)
	f.write("c1", "m1", map[string]string{"old.txt": "old content\n"})
	f.now = f.now.Add(40 * 24 * time.Hour)
	f.write("c1", "m2", map[string]string{"new.txt": "new content\n"})
	f.write("c2", "m3", map[string]string{"other.txt": "other content, larger than the rest\n"})
	if n, err := f.st.Prune(Bounds{MaxAge: 30 * 24 * time.Hour}); err != nil || n != 1 {
		t.Fatalf("prune by age: %d, %v", n, err)
	}
	if got := blobCount(t, f.dir); got != 2 {
		t.Fatalf("%d blobs after pruning by age, want 2", got)
	}
	if n, err := f.st.Prune(Bounds{MaxBytes: 40}); err != nil || n != 1 {
		t.Fatalf("prune by size: %d, %v", n, err)
	}
	recs, _ := f.st.Records()
	if len(recs) != 1 || recs[0].Path != "other.txt" {
		t.Fatalf("records after pruning by size: %+v", recs)
	}
	if err := f.st.DeleteConversation("c2"); err != nil {
		t.Fatal(err)
	}
	if recs, _ := f.st.Records(); len(recs) != 0 {
		t.Fatalf("records after deleting: %+v", recs)
	}
	if got := blobCount(t, f.dir); got != 0 {
		t.Fatalf("%d blobs after deleting, want 0", got)
	}
}

// BenchmarkRestore10000 rewinds a turn that changed 10,000 files.
func BenchmarkRestore10000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFixture(b)
		files := map[string]string{}
		for j := 0; j < 10000; j++ {
			rel := fmt.Sprintf("d%02d/f%05d.txt", j%50, j)
			f.put(rel, fmt.Sprintf("before %d\n", j))
			files[rel] = fmt.Sprintf("after %d\n", j)
		}
		f.write("c1", "m1", files)
		syscall.Sync() // the set-up's writes are not the rewind's
		b.StartTimer()
		res, err := f.st.Rewind("c1", "m1", map[string]bool{"m1": true}, false)
		if err != nil || len(res.Restored) != 10000 {
			b.Fatalf("%v, %d restored", err, len(res.Restored))
		}
	}
}

// A command's changes are found by comparing the tree; files over the limits
// are recorded without their content and listed as not restorable; the
// skipped folders are not looked at.
func TestTreeWalkLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits Limits
		want   string
	}{
		{"file limit", Limits{MaxFileBytes: 10}, "restored [small.txt], kept [], unrestorable [big.txt]"},
		// small.txt fits before the command, not after: what the command
		// left cannot be told from a later edit, so it is kept.
		{"walk limit", Limits{MaxWalkBytes: 5}, "restored [], kept [small.txt], unrestorable [big.txt]"},
		{"no limit", Limits{}, "restored [big.txt small.txt], kept [], unrestorable []"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			st, err := Open(f.dir, f.project, Options{Limits: tc.limits})
			if err != nil {
				t.Fatal(err)
			}
			f.put("big.txt", "twenty bytes of text")
			f.put("small.txt", "small")
			f.put("node_modules/x.js", "x")
			done, err := st.Begin(Change{ConversationID: "c1", MessageID: "m1", Tool: "shell.run"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			f.put("big.txt", "changed")
			f.put("small.txt", "changed")
			f.put("node_modules/x.js", "changed")
			if err := done(); err != nil {
				t.Fatal(err)
			}
			res, err := st.Rewind("c1", "m1", map[string]bool{"m1": true}, false)
			if err != nil && !errors.Is(err, ErrNothingToRestore) {
				t.Fatal(err)
			}
			if res == nil {
				res = &Result{}
			}
			if got := fmt.Sprintf("restored %v, kept %v, unrestorable %v", res.Restored, res.Kept, res.Unrestorable); got != tc.want {
				t.Fatalf("%s, want %s", got, tc.want)
			}
			if f.read("node_modules/x.js") != "changed" {
				t.Fatal("a skipped folder was restored")
			}
		})
	}
}

// The journal reader takes whatever is on disk (a torn line, foreign bytes)
// without failing, and keeps every line that is a record.
func FuzzJournal(f *testing.F) {
	f.Add([]byte(`{"kind":"change","conversationId":"c","messageId":"m","path":"a","before":{"exists":false},"after":{"exists":true,"sha256":"x","mode":420},"time":"t"}` + "\n{\"kind\":\"cha"))
	f.Add([]byte("\n\n{}\nnot json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		project := filepath.Join(dir, "p")
		if err := os.MkdirAll(project, 0o755); err != nil {
			t.Fatal(err)
		}
		st, err := Open(filepath.Join(dir, "c"), project, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(st.journalPath(), data, 0o600); err != nil {
			t.Fatal(err)
		}
		recs, err := st.Records()
		if err != nil {
			t.Fatal(err)
		}
		if err := st.writeRecords(recs); err != nil {
			t.Fatal(err)
		}
		again, err := st.Records()
		if err != nil || len(again) != len(recs) {
			t.Fatalf("rewritten journal: %d records, then %d (%v)", len(recs), len(again), err)
		}
	})
}
