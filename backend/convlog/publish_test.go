package convlog

import (
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
	p := NewPublishing(st, func(id, kind string) {
		mu.Lock()
		got = append(got, kind)
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
