package approval

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestDiffGolden(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		existed  bool
	}{
		{"change", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n", "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\n", true},
		{"new-file", "", "# Notes\n\nfirst line\n", false},
		{"no-final-newline", "a\nb", "a\nc", true},
		{"emptied", "a\nb\n", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, binary := Diff("@project/notes.md", []byte(tc.old), []byte(tc.new), tc.existed)
			if binary {
				t.Fatal("text read as binary")
			}
			golden := filepath.Join("testdata", tc.name+".diff")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestDiffBinaryAndBounded(t *testing.T) {
	if d, binary := Diff("@project/a.png", []byte("x"), []byte{0x89, 'P', 'N', 'G', 0}, true); !binary || d != "" {
		t.Fatalf("binary: %q %v", d, binary)
	}
	if _, binary := Diff("@project/a.txt", []byte{0xff, 0xfe}, []byte("x"), true); !binary {
		t.Fatal("invalid UTF-8 not read as binary")
	}
	big := strings.Repeat("a line of text\n", MaxDiffBytes/8)
	d, _ := Diff("@project/big.txt", nil, []byte(big), false)
	if len(d) > MaxDiffBytes+100 || !strings.Contains(d, "more bytes of diff not shown") {
		t.Fatalf("a large diff is %d bytes, ends %q", len(d), d[len(d)-60:])
	}
}

func TestBroker(t *testing.T) {
	var b Broker
	// An answer given while ready runs (the request is shown) is not lost.
	got, err := b.Wait(context.Background(), "c1", "call_1", func() error {
		if !b.Waiting("c1", "call_1") {
			t.Error("not registered before ready")
		}
		if !b.Answer("c1", "call_1", Answer{Decision: AnswerDeny, Reason: "no"}) {
			t.Error("answer not delivered")
		}
		return nil
	})
	if err != nil || got.Decision != AnswerDeny || got.Reason != "no" {
		t.Fatalf("%+v %v", got, err)
	}
	if b.Answer("c1", "call_1", Answer{Decision: AnswerAllow}) {
		t.Fatal("a second answer was delivered")
	}
	// ready failing ends the wait.
	boom := errors.New("disk full")
	if _, err := b.Wait(context.Background(), "c1", "call_2", func() error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("%v", err)
	}
	if b.Waiting("c1", "call_2") {
		t.Fatal("left registered")
	}
	// A cancelled wait returns the context's error.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Wait(ctx, "c1", "call_3", func() error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
	if CheckAnswer(Answer{Decision: "sure"}) == nil || CheckAnswer(Answer{Decision: AnswerProject}) != nil {
		t.Fatal("CheckAnswer")
	}
}

func TestStoreAndProjectRules(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	s := NewStore(home, "p1")
	if st, err := s.Load(); err != nil || st.Mode != "" {
		t.Fatalf("%+v %v", st, err)
	}
	if err := s.SetMode(AutoEdit); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant("shell.run(go test)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant("shell.run(go test)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant("fs.write("); err == nil {
		t.Fatal("a bad rule was granted")
	}
	st, err := s.Load()
	if err != nil || st.Mode != AutoEdit || len(st.Allow) != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", fi, err)
	}

	if pr, err := LoadProjectRules(root); err != nil || pr.Hash != "" {
		t.Fatalf("no file: %+v %v", pr, err)
	}
	p := filepath.Join(root, ".crewagent", "permissions.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"allow":["shell.run(make)","fs.write("],"deny":["shell.run(git push)"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pr, err := LoadProjectRules(root)
	if err != nil || pr.Hash == "" || len(pr.Deny) != 1 || len(pr.Problems) != 1 {
		t.Fatalf("%+v %v", pr, err)
	}
	if err := os.WriteFile(p, []byte(`{"allow":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProjectRules(root); err == nil {
		t.Fatal("a damaged rules file read without an error")
	}
	if err := os.WriteFile(s.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(); err == nil {
		t.Fatal("a damaged state read without an error")
	}
}
