package convlog

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// readMethods are the exported methods of Store that change nothing.
var readMethods = []string{"Close", "ReadAttachment", "DataDir", "ReadOnly", "IsOwnWrite", "List", "Get", "Load", "LoadTail",
	"LoadSinceCompaction", "LoadBackTo", "SidecarPath", "Search", "Page", "PageBefore", "LogSize"}

// besideLogMethods write files beside a conversation's log (the recall index,
// tool outputs kept for reading back) and leave the conversation unchanged.
var besideLogMethods = []string{"AppendSidecar", "SaveToolOutput", "SaveAttachment"}

// Every method of Store that writes is published: a new one must be added to
// Publishing (or, when it only reads, to readMethods).
func TestPublishingCoversEveryWrite(t *testing.T) {
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	store, published := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() {
				continue
			}
			star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			switch star.X.(*ast.Ident).Name {
			case "Store":
				store[fd.Name.Name] = true
			case "Publishing":
				published[fd.Name.Name] = true
			}
		}
	}
	for name := range store {
		if !published[name] && !slices.Contains(readMethods, name) && !slices.Contains(besideLogMethods, name) {
			t.Errorf("Store.%s is neither published by Publishing nor listed as a read", name)
		}
	}
}

func TestPublishingAnnouncesChanges(t *testing.T) {
	st, err := Open(t.TempDir(), Options{IndexFlushDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	var got []string
	p := NewPublishing(st, func(c Change) {
		mu.Lock()
		got = append(got, c.Kind)
		mu.Unlock()
	})
	m, err := p.Create("", conversation.ActiveChat)
	if err != nil {
		t.Fatal(err)
	}
	e := &conversation.Entry{Type: conversation.TypeMsg, ID: "u1", Role: conversation.RoleUser, Content: conversation.Str("hi")}
	gone := m.ID
	steps := []func() error{
		func() error { return p.Append(m.ID, e) },
		func() error { return p.Rename(m.ID, "Hello") },
		func() error { _, err := p.Checkpoint(m.ID, "cp"); return err },
		func() error { _, err := p.Fork(m.ID, ForkOptions{}); return err },
		func() error { return p.Delete(m.ID) },
		func() error {
			_, err := p.CreateWith("", conversation.ActiveChat, &conversation.Entry{Type: conversation.TypeMsg, Role: conversation.RoleUser, Content: conversation.Str("first")})
			return err
		},
		func() error {
			c, err := p.CreateWith("", conversation.ActiveChat, &conversation.Entry{Type: conversation.TypeMsg, ID: "u2", Role: conversation.RoleUser, Content: conversation.Str("second")})
			if err != nil {
				return err
			}
			m = c
			return nil
		},
		func() error {
			out := &conversation.Entry{ID: "u2", Role: conversation.RoleUser, Content: conversation.Str("second"), IncludeInContext: conversation.Bool(false)}
			return p.UpdateAndAppend(m.ID, []*conversation.Entry{out}, &conversation.Entry{Type: conversation.TypeEvt, Event: "branch", Data: []byte(`{}`)})
		},
		func() error { _, err := p.Pin(m.ID, "u2"); return err },
		func() error { _, err := p.Unpin(m.ID, "u2"); return err },
		func() error {
			return p.Compact(m.ID, CompactionWrite{MessageIDs: []string{"u2"}, Event: &conversation.Entry{Data: []byte(`{}`)}})
		},
		func() error {
			return p.UpdateAndAppend(m.ID, []*conversation.Entry{{ID: "missing", Role: conversation.RoleUser, Content: conversation.Str("x")}})
		}, // fails: nothing announced
		func() error { return p.Rename(gone, "gone") }, // fails: nothing announced
	}
	for i, step := range steps {
		if err := step(); err != nil && i < len(steps)-2 {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := "created updated updated updated created deleted created created updated updated updated updated"
	if strings.Join(got, " ") != want {
		t.Fatalf("announced %v, want %s", got, want)
	}
}

// The lines a Publishing store announces are what the store reads back: each
// announced entry equals the effective entry of its id (the newest version),
// and the announcements together hold every line written, once.
func TestPublishedEntriesAreWhatTheStoreReadsBack(t *testing.T) {
	st, err := Open(t.TempDir(), Options{IndexFlushDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var changes []Change
	p := NewPublishing(st, func(c Change) { changes = append(changes, c) })
	m, err := p.Create("", conversation.ActiveChat)
	if err != nil {
		t.Fatal(err)
	}
	msg := func(id, role, text string) *conversation.Entry {
		return &conversation.Entry{Type: conversation.TypeMsg, ID: id, Role: role, Content: conversation.Str(text)}
	}
	call := msg("a1", conversation.RoleAssistant, "")
	call.ToolCalls = []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: "fs_read", Arguments: `{"path":"a"}`}}}
	result := msg("t1", conversation.RoleTool, "contents")
	result.ToolCallID, result.ToolName = "c1", "fs.read"
	tests := []struct {
		name  string
		write func() error
		ids   []string // the ids announced, in order
	}{
		{"user message", func() error { return p.Append(m.ID, msg("u1", conversation.RoleUser, "read a")) }, []string{"u1"}},
		{"assistant with a tool call", func() error { return p.Append(m.ID, call) }, []string{"a1"}},
		{"tool result", func() error { return p.Append(m.ID, result) }, []string{"t1"}},
		{"answer", func() error { return p.Append(m.ID, msg("a2", conversation.RoleAssistant, "done")) }, []string{"a2"}},
		{"edited result", func() error { return p.Update(m.ID, msg("t1", conversation.RoleTool, "contents, again")) }, []string{"t1"}},
		{"rename", func() error { return p.Rename(m.ID, "Reading") }, nil},
		{"pin", func() error { _, err := p.Pin(m.ID, "u1"); return err }, []string{""}},
		{"compaction", func() error {
			return p.Compact(m.ID, CompactionWrite{MessageIDs: []string{"u1", "a1"}, Event: &conversation.Entry{ID: "k1", Data: []byte(`{}`)},
				Summary: &conversation.Entry{ID: "s1", Role: conversation.RoleSystem, Content: conversation.Str("CONVERSATION_SUMMARY\nread a")}})
		}, []string{"u1", "a1", "k1", "s1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes = nil
			if err := tt.write(); err != nil {
				t.Fatal(err)
			}
			if len(changes) != 1 || changes[0].ConversationID != m.ID || changes[0].Kind != ChangeUpdated {
				t.Fatalf("announced %+v, want one update of %s", changes, m.ID)
			}
			all, err := p.Load(m.ID)
			if err != nil {
				t.Fatal(err)
			}
			stored := map[string]*conversation.Entry{}
			for _, e := range all {
				stored[e.ID] = e
			}
			got := changes[0].Entries
			if len(got) != len(tt.ids) {
				t.Fatalf("announced %d entries, want %d", len(got), len(tt.ids))
			}
			for i, e := range got {
				if tt.ids[i] != "" && e.ID != tt.ids[i] {
					t.Errorf("entry %d is %s, want %s", i, e.ID, tt.ids[i])
				}
				want, ok := stored[e.ID]
				if !ok {
					t.Fatalf("announced %s, which the store does not read back", e.ID)
				}
				a, _ := json.Marshal(e)
				b, _ := json.Marshal(want)
				if string(a) != string(b) {
					t.Errorf("announced %s\n read back %s", a, b)
				}
			}
		})
	}
	// Deleting announces no lines, and nothing written before is left over.
	changes = nil
	if err := p.Delete(m.ID); err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Kind != ChangeDeleted || changes[0].Entries != nil {
		t.Fatalf("delete announced %+v", changes)
	}
}

func TestLockedErrorCarriesThePID(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = Open(dir, Options{})
	if pid, ok := LockHolder(err); !ok || pid != os.Getpid() || !errors.Is(err, ErrProjectLocked) || errs.CodeOf(err) != ErrProjectLocked.Code {
		t.Fatalf("second Open = %#v", err)
	}
	if le := lockedError(dir, []byte("not a pid\n")); !strings.Contains(le.Error(), "pid unknown") {
		t.Fatalf("unreadable pid: %+v %v", le, le)
	} else if pid, ok := LockHolder(le); !ok || pid != 0 {
		t.Fatalf("unreadable pid: holder %d %v", pid, ok)
	}
}
