package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeCall changes files the way one tool call does.
func (f *fixture) writeCall(conv, msg, call string, files map[string]string) {
	f.t.Helper()
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	done, err := f.st.Begin(Change{ConversationID: conv, MessageID: msg, ToolCallID: call, Tool: "fs.write"}, paths)
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

// One call's change is undone alone; a file a later call or the user
// changed since is kept unless forced (by path or all); a dry run only
// says what it would do; the undo can itself be undone.
func TestUndoCall(t *testing.T) {
	for _, tc := range []struct {
		name         string
		call         string
		userEdit     bool
		opts         RestoreOptions
		wantA, wantB string
		restored     []string
		kept         []string
	}{
		{"the later call alone", "w2", false, RestoreOptions{}, "a1\n", "b0\n", []string{"b.txt"}, nil},
		{"the first call: a file a later call changed is kept", "w1", false, RestoreOptions{}, "a1\n", "b2\n", nil, []string{"a.txt"}},
		{"forced by path", "w1", false, RestoreOptions{ForcePaths: []string{"a.txt"}}, "<none>", "b2\n", []string{"a.txt"}, nil},
		{"a user edit is kept", "w2", true, RestoreOptions{}, "a1\n", "mine\n", nil, []string{"b.txt"}},
		{"a user edit forced", "w2", true, RestoreOptions{Force: true}, "a1\n", "b0\n", []string{"b.txt"}, nil},
		{"dry run", "w2", false, RestoreOptions{DryRun: true}, "a1\n", "b2\n", []string{"b.txt"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.put("b.txt", "b0\n")
			f.writeCall("c1", "m1", "w1", map[string]string{"a.txt": "a0\n"})
			f.writeCall("c1", "m1", "w3", map[string]string{"a.txt": "a1\n"})
			f.writeCall("c1", "m2", "w2", map[string]string{"b.txt": "b2\n"})
			if tc.userEdit {
				f.put("b.txt", "mine\n")
			}
			res, err := f.st.UndoCall([]string{"c1"}, tc.call, tc.opts)
			if len(tc.restored) == 0 && len(tc.kept) == 0 {
				if !errors.Is(err, ErrNothingToRestore) {
					t.Fatalf("err %v, want nothing to restore", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.read("a.txt"); got != tc.wantA {
				t.Errorf("a.txt = %q, want %q", got, tc.wantA)
			}
			if got := f.read("b.txt"); got != tc.wantB && !(tc.userEdit && !tc.opts.Force) {
				t.Errorf("b.txt = %q, want %q", got, tc.wantB)
			}
			if fmt.Sprint(res.Restored, res.Kept) != fmt.Sprint(nonNil(tc.restored), nonNil(tc.kept)) {
				t.Errorf("restored %v kept %v, want %v %v", res.Restored, res.Kept, tc.restored, tc.kept)
			}
			if tc.opts.DryRun {
				if res.RewindID != "" {
					t.Errorf("a dry run has rewind id %q", res.RewindID)
				}
				return
			}
			if len(res.Restored) > 0 {
				if _, err := f.st.UndoRewind(res.RewindID, false); err != nil {
					t.Fatal(err)
				}
				if f.read("a.txt") != "a1\n" || (f.read("b.txt") != "b2\n" && !tc.userEdit) || (tc.userEdit && f.read("b.txt") != "mine\n") {
					t.Errorf("after redo a=%q b=%q", f.read("a.txt"), f.read("b.txt"))
				}
			}
		})
	}
}

// A call id is looked for only in the given conversations, and an unknown
// one has nothing to restore.
func TestUndoCallConversations(t *testing.T) {
	f := newFixture(t)
	f.writeCall("root", "m1", "call_1", map[string]string{"a.txt": "root\n"})
	f.writeCall("other", "m9", "call_1", map[string]string{"b.txt": "other\n"})
	if _, err := f.st.UndoCall([]string{"child", "nope"}, "call_1", RestoreOptions{}); !errors.Is(err, ErrNothingToRestore) {
		t.Fatalf("err %v, want nothing to restore", err)
	}
	res, err := f.st.UndoCall([]string{"child", "root"}, "call_1", RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Restored) != "[a.txt]" || f.read("a.txt") != "<none>" || f.read("b.txt") != "other\n" {
		t.Fatalf("restored %v, a=%q b=%q", res.Restored, f.read("a.txt"), f.read("b.txt"))
	}
}

// A planned rewind writes nothing; ForcePaths restores only the files named.
func TestRewindWithPlanAndForcePaths(t *testing.T) {
	f := newFixture(t)
	f.write("c1", "m1", map[string]string{"a.txt": "agent a\n", "b.txt": "agent b\n", "c.txt": "agent c\n"})
	f.put("a.txt", "user a\n")
	f.put("b.txt", "user b\n")
	turns := map[string]bool{"m1": true}
	plan, err := f.st.RewindWith("c1", "m1", turns, RestoreOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(plan.Restored, plan.Kept) != "[c.txt] [a.txt b.txt]" || f.read("c.txt") != "agent c\n" {
		t.Fatalf("plan %v %v, c=%q", plan.Restored, plan.Kept, f.read("c.txt"))
	}
	res, err := f.st.RewindWith("c1", "m1", turns, RestoreOptions{ForcePaths: []string{"b.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Restored, res.Kept) != "[b.txt c.txt] [a.txt]" || f.read("a.txt") != "user a\n" || f.read("b.txt") != "<none>" {
		t.Fatalf("got %v %v, a=%q b=%q", res.Restored, res.Kept, f.read("a.txt"), f.read("b.txt"))
	}
}

// The journal is read once and then only what was appended since: records
// appended by another store of the same project (another process) and a
// journal rewritten by pruning are seen.
func TestRecordsFollowTheJournal(t *testing.T) {
	f := newFixture(t)
	f.writeCall("c1", "m1", "w1", map[string]string{"a.txt": "a\n"})
	if recs, err := f.st.Records(); err != nil || len(recs) != 1 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	other, err := Open(f.dir, f.project, Options{Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	done, err := other.Begin(Change{ConversationID: "c2", MessageID: "m2", ToolCallID: "w2", Tool: "fs.write"}, []string{"b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	f.put("b.txt", "b\n")
	if err := done(); err != nil {
		t.Fatal(err)
	}
	f.writeCall("c1", "m3", "w3", map[string]string{"c.txt": "c\n"})
	recs, err := f.st.Records()
	if err != nil || len(recs) != 3 || recs[1].ConversationID != "c2" || recs[2].ToolCallID != "w3" {
		t.Fatalf("after another store appended: %+v, %v", recs, err)
	}
	if err := other.DeleteConversation("c2"); err != nil {
		t.Fatal(err)
	}
	recs, err = f.st.Records()
	if err != nil || len(recs) != 2 || recs[1].ToolCallID != "w3" {
		t.Fatalf("after another store pruned: %+v, %v", recs, err)
	}
}
