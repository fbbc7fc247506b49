package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

// homeLayout is a user's home folder opened as the project, with the runtime home at its
// default place inside it (~/.config/crewagent): settings with an API key, this project's
// data with two conversations, an installed package, and the run state of a run.
type homeLayout struct {
	user, home, dataDir string
	roots               Roots
}

const apiKey = "sk-secret-0123456789abcdef"

func newHomeLayout(t *testing.T) homeLayout {
	t.Helper()
	user := t.TempDir()
	home := filepath.Join(user, ".config", "crewagent")
	data := filepath.Join(home, "projects", "p1")
	l := homeLayout{user: user, home: home, dataDir: data}
	testkit.WriteFile(t, filepath.Join(home, "settings.json"), `{"llm":{"baseUrl":"https://api.example.com/v1","apiKey":"`+apiKey+`"}}`)
	testkit.WriteFile(t, filepath.Join(home, "packages.json"), `[]`)
	testkit.WriteFile(t, filepath.Join(home, "packages", "demo@1.0.0", "workflows", "w.md"), "# a workflow\n")
	testkit.WriteFile(t, filepath.Join(data, "conversations", "index.json"), "[]")
	testkit.WriteFile(t, filepath.Join(data, "conversations", "conv-a", "messages.jsonl"), `{"type":"msg","id":"1","role":"user","content":"private of a"}`+"\n")
	testkit.WriteFile(t, filepath.Join(data, "conversations", "conv-b", "messages.jsonl"), `{"type":"msg","id":"2","role":"user","content":"private of b"}`+"\n")
	testkit.WriteFile(t, filepath.Join(data, "logs", "tool-results", "conv-a", "m1.json"), `{"content":"output of a"}`)
	testkit.WriteFile(t, filepath.Join(data, "logs", "tool-results", "conv-b", "m2.json"), `{"content":"output of b"}`)
	testkit.WriteFile(t, filepath.Join(data, "runs", "r1", "state", StateFileName), stateDoc)
	testkit.WriteFile(t, filepath.Join(user, "notes", "todo.md"), "buy milk\n")
	testkit.WriteFile(t, filepath.Join(user, ".crewagent.json"), `{"projectId":"p1"}`)
	symlink(t, filepath.Join(".config", "crewagent"), filepath.Join(user, "runtime-link"))
	symlink(t, filepath.Join(".config", "crewagent", "settings.json"), filepath.Join(user, "settings-link.json"))
	l.roots = Roots{
		Project:      user,
		Package:      filepath.Join(home, "packages", "demo@1.0.0"),
		State:        filepath.Join(data, "runs", "r1", "state"),
		ToolResults:  filepath.Join(data, "logs", "tool-results"),
		Conversation: "conv-a",
		// what project.RuntimePaths(home) gives
		Deny:     []string{home, filepath.Join(home, "settings.json"), filepath.Join(home, "projects"), filepath.Join(home, "packages")},
		ReadOnly: []string{filepath.Join(user, ".crewagent.json")},
	}
	return l
}

func (l homeLayout) harness(t *testing.T) *harness {
	hs := &harness{t: t, f: fixture{base: l.home, roots: l.roots}, log: &syncBuffer{}}
	hs.h = NewHost(Config{Roots: l.roots, Policy: DefaultPolicy(), ExecLog: hs.log})
	return hs
}

// The model can never reach the runtime's own data through @project, however the path is
// spelled, and listings and searches do not show it.
func TestRuntimeHomeInsideProjectIsUnreachable(t *testing.T) {
	l := newHomeLayout(t)
	hs := l.harness(t)
	settingsBefore, _ := os.ReadFile(filepath.Join(l.home, "settings.json"))
	logBefore, _ := os.ReadFile(filepath.Join(l.dataDir, "conversations", "conv-b", "messages.jsonl"))

	for _, p := range []string{
		"@project/.config/crewagent",
		"@project/.config/crewagent/settings.json",
		"@project/.config/./crewagent/settings.json",
		"@project/.config/crewagent/projects/p1/conversations/conv-b/messages.jsonl",
		"@project/.config/crewagent/packages/demo@1.0.0/workflows/w.md",
		"@project/runtime-link/settings.json",
		"@project/settings-link.json",
	} {
		for _, tool := range []string{conversation.ToolFSRead, conversation.ToolFSList} {
			e := hs.mustFail(tool, map[string]any{"path": p}, CodeSandboxViolation)
			if e["details"].(map[string]any)["reason"] != "runtime_data" {
				t.Errorf("%s %s: %v", tool, p, e)
			}
		}
		hs.mustFail(conversation.ToolFSSearch, map[string]any{"path": p, "pattern": "."}, CodeSandboxViolation)
		hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": p, "content": `{"llm":{"baseUrl":"https://attacker.example/v1"}}`}, CodeSandboxViolation)
	}
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/.config/crewagent/new.txt", "content": "x"}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@project/.config/crewagent/projects/p1/runs/r1/state/workflow.md",
		"operation": "updateFrontmatter", "update": map[string]any{"currentNodeId": map[string]any{"set": "x"}}}, CodeSandboxViolation)

	// Listings leave the runtime home out; the user's own folders stay.
	names := func(p string) []string {
		var out []string
		for _, e := range hs.mustOK(conversation.ToolFSList, map[string]any{"path": p})["entries"].([]any) {
			out = append(out, e.(map[string]any)["name"].(string))
		}
		return out
	}
	if got := strings.Join(names("@project/.config"), ","); got != "" {
		t.Errorf("@project/.config lists %q", got)
	}
	if got := strings.Join(names("@project"), ","); got != ".config,.crewagent.json,notes" {
		t.Errorf("@project lists %q", got)
	}

	// A search of the whole project never opens the home.
	res := hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@project", "pattern": "sk-secret|private of|output of|baseUrl|buy milk"})
	b, _ := json.Marshal(res["matches"])
	if strings.Contains(string(b), apiKey) || strings.Contains(string(b), "private of") || strings.Contains(string(b), "output of") {
		t.Fatalf("search reached the runtime data: %s", b)
	}
	if res["matchCount"].(float64) != 1 {
		t.Fatalf("search: %s", b)
	}

	// The windows the runtime opens into its home still work: the package, the run state,
	// and this conversation's tool outputs (only this conversation's).
	hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@pkg/workflows/w.md"})
	hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@state/workflow.md"})
	if got := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@state/logs/tool-results/conv-a/m1.json"})["content"]; got != `{"content":"output of a"}` {
		t.Errorf("own tool output: %v", got)
	}
	hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@state/logs/tool-results/conv-b/m2.json"}, CodeNotFound)
	listed := hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@state/logs/tool-results"})
	if lb, _ := json.Marshal(listed); !strings.Contains(string(lb), "m1.json") || strings.Contains(string(lb), "m2.json") || strings.Contains(string(lb), "conv-b") {
		t.Errorf("tool-results listing: %s", lb)
	}
	sr := hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@state/logs/tool-results", "pattern": "output of"})
	if sr["matchCount"].(float64) != 1 {
		t.Errorf("tool-results search: %v", sr)
	}

	if b, _ := os.ReadFile(filepath.Join(l.home, "settings.json")); string(b) != string(settingsBefore) {
		t.Fatalf("settings.json changed: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(l.dataDir, "conversations", "conv-b", "messages.jsonl")); string(b) != string(logBefore) {
		t.Fatalf("another conversation's log changed: %s", b)
	}
	if _, err := os.Stat(filepath.Join(l.home, "new.txt")); !os.IsNotExist(err) {
		t.Fatal("a file was created in the runtime home")
	}
}

// The project's identity file can be read but never written.
func TestProjectFileIsReadOnly(t *testing.T) {
	l := newHomeLayout(t)
	hs := l.harness(t)
	hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/.crewagent.json"})
	for _, args := range []map[string]any{
		{"path": "@project/.crewagent.json", "content": `{"projectId":"another"}`},
		{"path": "@project/notes/../.crewagent.json", "content": "{}"},
	} {
		res, _ := hs.call(conversation.ToolFSWrite, args)
		if res.OK || res.Code() != CodeSandboxViolation {
			t.Errorf("write %v: %s", args["path"], res.Content)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(l.user, ".crewagent.json")); string(b) != `{"projectId":"p1"}` {
		t.Fatalf(".crewagent.json changed: %s", b)
	}
	e := hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/.crewagent.json", "content": "{}"}, CodeSandboxViolation)
	if e["details"].(map[string]any)["reason"] != "protected" {
		t.Fatalf("reason: %v", e)
	}
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/notes/.crewagent.json", "content": "{}"}) // only the root's
}

// A folder swapped for a symbolic link to an outside folder, over and over, while the
// tools work on paths through it: no operation ever reads, lists or writes outside. The
// swaps are counted, and the operations must have met both states of the folder (reads
// of the real one, refusals of the link), so the race really ran.
func TestSymlinkSwapRaceNeverEscapes(t *testing.T) {
	base := t.TempDir()
	proj, outside := filepath.Join(base, "project"), filepath.Join(base, "outside")
	testkit.WriteFile(t, filepath.Join(proj, "real", "inner.txt"), "inside\n")
	testkit.WriteFile(t, filepath.Join(proj, "real", "only-inside.txt"), "inside\n")
	testkit.WriteFile(t, filepath.Join(outside, "inner.txt"), "OUTSIDE-SECRET\n")
	testkit.WriteFile(t, filepath.Join(outside, "only-outside.txt"), "OUTSIDE-SECRET\n")
	symlink(t, outside, filepath.Join(proj, "evil"))
	if err := os.Rename(filepath.Join(proj, "real"), filepath.Join(proj, "swap")); err != nil {
		t.Fatal(err)
	}
	h := NewHost(Config{Roots: Roots{Project: proj}, Policy: DefaultPolicy()})

	var stop atomic.Bool
	var wg sync.WaitGroup
	var swaps, failedSwaps atomic.Int64
	var swapErr atomic.Value
	wg.Add(1)
	go func() { // "swap" is the real folder and the link out in turns
		defer wg.Done()
		evil, swap := filepath.Join(proj, "evil"), filepath.Join(proj, "swap")
		for !stop.Load() {
			if err := exchange(swap, evil); err != nil {
				failedSwaps.Add(1)
				swapErr.CompareAndSwap(nil, err)
				continue
			}
			swaps.Add(1)
		}
	}()
	var escapes, ops, readInside, refused atomic.Int64
	deadline := time.Now().Add(3 * time.Second)
	var workers sync.WaitGroup
	for w := 0; w < 3; w++ {
		workers.Add(1)
		go func(w int) {
			defer workers.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				var res Result
				switch (i + w) % 4 {
				case 0:
					res = h.Call(context.Background(), conversation.ToolFSRead, `{"path":"@project/swap/inner.txt"}`)
				case 1:
					res = h.Call(context.Background(), conversation.ToolFSList, `{"path":"@project/swap"}`)
				case 2:
					res = h.Call(context.Background(), conversation.ToolFSWrite, `{"path":"@project/swap/written.txt","content":"from the model"}`)
				case 3:
					res = h.Call(context.Background(), conversation.ToolFSSearch, `{"path":"@project","pattern":"SECRET|inside"}`)
				}
				ops.Add(1)
				if strings.Contains(res.Content, "OUTSIDE-SECRET") || strings.Contains(res.Content, "only-outside") {
					escapes.Add(1)
				}
				switch {
				case (i+w)%4 == 0 && res.OK && strings.Contains(res.Content, "inside"):
					readInside.Add(1)
				case res.Code() == CodeSandboxViolation:
					refused.Add(1)
				}
			}
		}(w)
	}
	workers.Wait()
	stop.Store(true)
	wg.Wait()
	des, _ := os.ReadDir(outside)
	if len(des) != 2 {
		var names []string
		for _, d := range des {
			names = append(names, d.Name())
		}
		t.Errorf("the outside folder changed: %v", names)
	}
	for _, name := range []string{"inner.txt", "only-outside.txt"} {
		if b, _ := os.ReadFile(filepath.Join(outside, name)); string(b) != "OUTSIDE-SECRET\n" {
			t.Errorf("%s changed: %q", name, b)
		}
	}
	if n := escapes.Load(); n != 0 {
		t.Fatalf("%d of %d operations reached the outside folder", n, ops.Load())
	}
	t.Logf("%d operations during %d swaps (%d failed), no escape; %d reads of the real folder, %d refusals of the link",
		ops.Load(), swaps.Load(), failedSwaps.Load(), readInside.Load(), refused.Load())
	if swaps.Load() < 100 {
		t.Fatalf("only %d swaps happened (first failure: %v): the race was not exercised", swaps.Load(), swapErr.Load())
	}
	if readInside.Load() == 0 || refused.Load() == 0 {
		t.Fatalf("the operations met only one state of the folder (%d reads inside, %d refusals): the swaps did not interleave with them",
			readInside.Load(), refused.Load())
	}
}
