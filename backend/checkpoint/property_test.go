package checkpoint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"crewagent/backend/checkpoint"
	"crewagent/backend/conversation"
	"crewagent/backend/tools"
)

// recorder is the tool host's side of the store, as the application wires it.
type recorder struct{ st *checkpoint.Store }

func (r recorder) BeginChange(ctx context.Context, tool string, paths []string) (func() error, error) {
	t, _ := tools.TurnOf(ctx)
	return r.st.Begin(checkpoint.Change{ConversationID: t.ConversationID, MessageID: t.MessageID, ToolCallID: tools.ToolCallID(ctx), Tool: tool}, paths)
}

type fileState struct {
	content []byte
	mode    fs.FileMode
}

// snapshot reads every file of the tree (what a user would compare).
func snapshot(t testing.TB, root string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = fileState{b, fi.Mode().Perm()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(want, got map[string]fileState) string {
	var d []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			d = append(d, "missing "+p)
		case !bytes.Equal(g.content, w.content):
			d = append(d, fmt.Sprintf("content of %s: got %q, want %q", p, trim(g.content), trim(w.content)))
		case g.mode != w.mode:
			d = append(d, fmt.Sprintf("mode of %s: got %v, want %v", p, g.mode, w.mode))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			d = append(d, "extra "+p)
		}
	}
	sort.Strings(d)
	return strings.Join(d, "\n")
}

func trim(b []byte) []byte {
	if len(b) > 60 {
		return b[:60]
	}
	return b
}

type world struct {
	t       *testing.T
	rng     *rand.Rand
	project string
	host    *tools.Host
	conv    string
	turn    string
	calls   int
}

func (w *world) call(name string, args map[string]any) tools.Result {
	w.t.Helper()
	b, _ := json.Marshal(args)
	w.calls++
	ctx := tools.WithTurn(context.Background(), tools.Turn{ConversationID: w.conv, MessageID: w.turn})
	ctx = tools.WithToolCallID(ctx, fmt.Sprintf("call-%d", w.calls))
	res := w.host.Call(ctx, name, string(b))
	if !res.OK {
		w.t.Fatalf("%s %s: %s", name, b, res.Content)
	}
	return res
}

func (w *world) files() []string {
	var out []string
	for p := range snapshot(w.t, w.project) {
		if strings.HasPrefix(p, ".git/") {
			continue // never recorded: the project's own history
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

var names = []string{"a.md", "b.txt", "docs/c.md", "docs/deep/d.md", "bin/e.dat", "f.md"}

// step makes one random change through the tools.
func (w *world) step() {
	existing := w.files()
	pick := func() string { return existing[w.rng.Intn(len(existing))] }
	switch op := w.rng.Intn(6); {
	case op == 0 || len(existing) == 0:
		w.call(conversation.ToolFSWrite, map[string]any{"path": "@project/" + names[w.rng.Intn(len(names))],
			"content": fmt.Sprintf("---\ntitle: t%d\n---\nbody %d\n", w.rng.Intn(1000), w.rng.Intn(1000))})
	case op == 1:
		var md []string
		for _, p := range existing {
			if strings.HasSuffix(p, ".md") {
				if b, _ := os.ReadFile(filepath.Join(w.project, p)); bytes.HasPrefix(b, []byte("---\n")) {
					md = append(md, p)
				}
			}
		}
		if len(md) == 0 {
			w.call(conversation.ToolFSWrite, map[string]any{"path": "@project/p.md", "content": "---\nk: 1\n---\ntext\n"})
			return
		}
		w.call(conversation.ToolFSApplyPatch, map[string]any{"path": "@project/" + md[w.rng.Intn(len(md))], "operation": "updateFrontmatter",
			"update": map[string]any{fmt.Sprintf("k%d", w.rng.Intn(4)): map[string]any{"set": w.rng.Intn(100)}}})
	case op == 2:
		w.call(conversation.ToolShellRun, map[string]any{"command": "rm -f -- " + shellQuote(pick())})
	case op == 3:
		src, dst := pick(), names[w.rng.Intn(len(names))]
		if src == dst {
			dst = "moved/" + dst
		}
		w.call(conversation.ToolShellRun, map[string]any{"command": fmt.Sprintf("mkdir -p %s && mv -f -- %s %s",
			shellQuote(filepath.Dir(dst)), shellQuote(src), shellQuote(dst))})
	case op == 4:
		var b strings.Builder
		for i := 0; i < 1+w.rng.Intn(64); i++ {
			fmt.Fprintf(&b, "\\%03o", w.rng.Intn(256))
		}
		n := w.rng.Intn(3)
		w.call(conversation.ToolShellRun, map[string]any{"command": fmt.Sprintf("mkdir -p bin && printf '%s' > bin/r%d.dat && chmod %o bin/r%d.dat",
			b.String(), n, 0o600+w.rng.Intn(2)*0o44, n)})
	default:
		w.call(conversation.ToolFSWrite, map[string]any{"path": "@project/" + pick(), "content": fmt.Sprintf("rewritten %d\n", w.rng.Intn(1e6))})
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestRewindProperty makes random changes through the tools over the turns of
// a conversation, then rewinds to random user messages: the tree is each
// time byte-identical to what it was before that message, and undoing the
// rewinds brings back the later states.
func TestRewindProperty(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { rewindProperty(t, seed) })
	}
}

func rewindProperty(t *testing.T, seed int64) {
	base := t.TempDir()
	project := filepath.Join(base, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "a.md"), []byte("---\ntitle: start\n---\nthe user's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := checkpoint.Open(filepath.Join(base, "home", "checkpoints"), project, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	host := tools.NewHost(tools.Config{Roots: tools.Roots{Project: project},
		Policy:  tools.Policy{FS: tools.FSPolicy{Enabled: true}, Shell: tools.ShellPolicy{Enabled: true}},
		Shell:   tools.ShellConfig{Home: filepath.Join(base, "userhome")},
		Changes: recorder{st}})
	w := &world{t: t, rng: rand.New(rand.NewSource(seed)), project: project, host: host, conv: "conv-1"}

	turns := 8 + w.rng.Intn(5)
	var msgs []string
	before := map[string]map[string]fileState{}
	for i := 0; i < turns; i++ {
		w.turn = fmt.Sprintf("msg-%02d", i)
		msgs = append(msgs, w.turn)
		before[w.turn] = snapshot(t, project)
		for n := 1 + w.rng.Intn(5); n > 0; n-- {
			w.step()
		}
	}
	final := snapshot(t, project)
	gitHead := final[".git/HEAD"]
	after := func(i int) map[string]bool {
		m := map[string]bool{}
		for _, id := range msgs[i:] {
			m[id] = true
		}
		return m
	}
	check := func(what string, want map[string]fileState) {
		t.Helper()
		if d := diffTrees(want, snapshot(t, project)); d != "" {
			t.Fatalf("seed %d, %s: the tree differs:\n%s", seed, what, d)
		}
	}
	rewind := func(i int) string {
		t.Helper()
		res, err := st.Rewind(w.conv, msgs[i], after(i), false)
		if err != nil {
			if err == checkpoint.ErrNothingToRestore {
				return ""
			}
			t.Fatalf("rewind to %s: %v", msgs[i], err)
		}
		if len(res.Kept)+len(res.Unrestorable) > 0 {
			t.Fatalf("rewind to %s kept %v, could not restore %v", msgs[i], res.Kept, res.Unrestorable)
		}
		return res.RewindID
	}
	undo := func(id string) {
		t.Helper()
		if id == "" {
			return
		}
		if _, err := st.UndoRewind(id, false); err != nil {
			t.Fatalf("undo %s: %v", id, err)
		}
	}
	for round := 0; round < 6; round++ {
		i := w.rng.Intn(len(msgs))
		r1 := rewind(i)
		check("rewound to "+msgs[i], before[msgs[i]])
		j := w.rng.Intn(i + 1)
		r2 := rewind(j)
		check("rewound again to "+msgs[j], before[msgs[j]])
		undo(r2)
		check("undid the rewind to "+msgs[j], before[msgs[i]])
		undo(r1)
		check("undid the rewind to "+msgs[i], final)
	}
	if g := snapshot(t, project)[".git/HEAD"]; !bytes.Equal(g.content, gitHead.content) {
		t.Fatal("the project's .git changed")
	}
	if _, err := os.Stat(filepath.Join(base, "home", "checkpoints", "journal.jsonl")); err != nil {
		t.Fatal(err)
	}
}
