package tools

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

// noTempFiles fails if an atomic-write temp file is left anywhere under dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}

func TestFSWrite(t *testing.T) {
	hs := newHarness(t, nil)
	proj := hs.f.roots.Project
	m := hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/artifacts/deep/er/brief.md", "content": "hello\n"})
	if m["created"] != true || m["bytesWritten"] != 6.0 || m["sha256"] != shaOf("hello\n") || m["path"] != "@project/artifacts/deep/er/brief.md" {
		t.Fatalf("create: %v", m)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "artifacts/deep/er/brief.md")); string(b) != "hello\n" {
		t.Fatalf("on disk: %q", b)
	}
	// Overwrite: not created, no artifact callback.
	m = hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/artifacts/deep/er/brief.md", "content": ""})
	if m["created"] != false {
		t.Fatalf("overwrite: %v", m)
	}
	// Outside the artifacts folder: no callback.
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/notes.md", "content": "n"})
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/artifactsX/n.md", "content": "n"})
	// Through a symlinked folder inside the root.
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/link-in/new.md", "content": "via link"})
	if b, _ := os.ReadFile(filepath.Join(proj, "docs", "new.md")); string(b) != "via link" {
		t.Fatalf("symlinked write: %q", b)
	}
	if got := hs.artifacts(); !reflect.DeepEqual(got, []string{"artifacts/deep/er/brief.md"}) {
		t.Fatalf("artifacts: %v", got)
	}
	noTempFiles(t, hs.f.base)

	// Mode of an existing file is kept.
	if err := os.Chmod(filepath.Join(proj, "notes.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/notes.md", "content": "again"})
	if fi, _ := os.Stat(filepath.Join(proj, "notes.md")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v", fi.Mode())
	}

	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@pkg/workflows/a.md", "content": "x"}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@state/logs/tool-results/conv1/msg1.json", "content": "x"}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/link-out/x.md", "content": "x"}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/link-file-out", "content": "x"}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/docs", "content": "x"}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/docs/readme.md/x", "content": "x"}, CodeNotFound)
	if b, _ := os.ReadFile(filepath.Join(hs.f.outside, "secret.txt")); string(b) != "top secret\n" {
		t.Fatal("outside file changed")
	}
	if _, err := os.Stat(filepath.Join(hs.f.outside, "x.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("file created outside the root")
	}
	noTempFiles(t, hs.f.base)
}

func TestFSWriteLimit(t *testing.T) {
	hs := newHarness(t, func(c *Config) { c.Policy = Merge(DefaultPolicy(), &AgentTools{FS: &AgentFS{MaxWriteBytes: 10}}) })
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/ok.txt", "content": "0123456789"})
	e := hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/big.txt", "content": "01234567890"}, CodeWriteLimit)
	if e["details"].(map[string]any)["maxWriteBytes"] != 10.0 {
		t.Fatalf("details: %v", e)
	}
	if _, err := os.Stat(filepath.Join(hs.f.roots.Project, "big.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("over-limit file written")
	}
	noTempFiles(t, hs.f.base)
}

func TestFSWriteIfMatch(t *testing.T) {
	hs := newHarness(t, nil)
	read := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@project/docs/readme.md"})
	sha := read["sha256"].(string)
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/docs/readme.md", "content": "v2\n", "ifMatchSha256": sha})
	// The same (now stale) hash fails and leaves the file alone.
	e := hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/docs/readme.md", "content": "v3\n", "ifMatchSha256": sha}, CodePreconditionFailed)
	d := e["details"].(map[string]any)
	if d["expectedSha256"] != sha || d["actualSha256"] != shaOf("v2\n") {
		t.Fatalf("details: %v", d)
	}
	if b, _ := os.ReadFile(filepath.Join(hs.f.roots.Project, "docs/readme.md")); string(b) != "v2\n" {
		t.Fatalf("stale write happened: %q", b)
	}
	// Prefix and case are tolerated.
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/docs/readme.md", "content": "v3\n", "ifMatchSha256": "sha256:" + strings.ToUpper(shaOf("v2\n"))})
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/new.md", "content": "x", "ifMatchSha256": sha}, CodePreconditionFailed)
}

func TestFSWriteStateGuard(t *testing.T) {
	var calls [][2]string
	hs := newHarness(t, func(c *Config) {
		c.StateGuard = StateGuardFunc(func(old, new []byte) error {
			calls = append(calls, [2]string{string(old), string(new)})
			switch {
			case strings.Contains(string(new), "currentNodeId: nowhere"):
				return NewError(CodeInvalidTransition, "no edge from \"\" to nowhere", map[string]any{"allowedNext": []string{"step-1"}})
			case strings.Contains(string(new), "broken"):
				return errors.New("schemaVersion is required")
			}
			return nil
		})
	})
	bad := strings.Replace(stateDoc, `currentNodeId: ""`, "currentNodeId: nowhere", 1)
	e := hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@state/workflow.md", "content": bad}, CodeInvalidTransition)
	if d := e["details"].(map[string]any); len(d["allowedNext"].([]any)) != 1 {
		t.Fatalf("details: %v", e)
	}
	e = hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@state/workflow.md", "content": "broken"}, CodeSchemaValidation)
	if !strings.Contains(e["message"].(string), "schemaVersion is required") {
		t.Fatalf("message: %v", e)
	}
	// A symlink to the state file is guarded too.
	hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@state/alias.md", "content": bad}, CodeInvalidTransition)
	if b, _ := os.ReadFile(filepath.Join(hs.f.roots.State, StateFileName)); string(b) != stateDoc {
		t.Fatalf("state changed: %q", b)
	}
	good := strings.Replace(stateDoc, `currentNodeId: ""`, "currentNodeId: step-1", 1)
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@state/workflow.md", "content": good})
	if len(calls) != 4 || calls[3][0] != stateDoc || calls[3][1] != good {
		t.Fatalf("guard calls: %v", calls)
	}
	// Other state files are not guarded.
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@state/notes.md", "content": "broken"})
	if len(calls) != 4 {
		t.Fatalf("guard called for another file")
	}
}

func TestAtomicWriteFileCleansUpOnFailure(t *testing.T) {
	hs := newHarness(t, nil)
	dir := filepath.Join(hs.f.roots.Project, "sub") // rename onto a non-empty folder fails
	testkit.WriteFile(t, filepath.Join(dir, "x"), "")
	r, terr := hs.h.sandbox.Resolve("@project/sub", AccessWrite)
	if terr != nil {
		t.Fatal(terr)
	}
	if terr := hs.h.writeIn(r, []byte("data"), 0o644); terr == nil {
		t.Fatal("want an error")
	}
	noTempFiles(t, hs.f.roots.Project)
}

// A new artifact the callback cannot record fails the call with E_INTERNAL and the
// callback's message, and the execution log says so.
func TestFSWriteArtifactCallbackFailure(t *testing.T) {
	hs := newHarness(t, func(c *Config) {
		c.OnArtifactWritten = func(string) error { return errors.New("the run state could not record it") }
	})
	e := hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@project/artifacts/brief.md", "content": "x"}, CodeInternal)
	if !strings.Contains(e["message"].(string), "could not record it") {
		t.Fatalf("error: %v", e)
	}
	// outside the artifacts folder the callback is not asked
	hs.mustOK(conversation.ToolFSWrite, map[string]any{"path": "@project/notes.md", "content": "n"})
	lines := hs.log.lines(t)
	if len(lines) != 2 || lines[0]["ok"] != false || lines[0]["code"] != CodeInternal || lines[1]["ok"] != true {
		t.Fatalf("execution log: %v", lines)
	}
}
