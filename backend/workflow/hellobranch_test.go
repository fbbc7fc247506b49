package workflow

import (
	"archive/zip"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/llm/fakellm"
)

// zipPackage zips a package folder of testdata into a .bmad file.
func zipPackage(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	out := filepath.Join(t.TempDir(), name+".bmad")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A package written for the original runtime (its workflow.md ships an empty updatedAt) imports
// and runs: its steps set the decision variables a few at a time, and each set keeps the
// variables set before it, so the decision step can branch on them.
func TestHelloBranchPackageRuns(t *testing.T) {
	e := newEnv(t)
	inst, err := e.mgr.Import(zipPackage(t, "hello-branch"))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	e.srv.Enqueue(
		tools1("fs.read", map[string]any{"path": "@state/workflow.md"}),
		patch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"ask"}},
			"currentNodeId":  map[string]any{"set": "route"},
			"variables":      map[string]any{"set": map[string]any{"name": "Ada"}},
			"updatedAt":      map[string]any{"set": ""},
		}),
		patch(map[string]any{"variables": map[string]any{"set": map[string]any{"mood": "happy"}}}),
		patch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"route"}},
			"currentNodeId":  map[string]any{"set": "cheer"},
			"decisionLog":    map[string]any{"append": []any{map[string]any{"from": "route", "to": "cheer", "label": "happy", "decidedAt": ""}}},
		}),
		tools1("fs.write", map[string]any{"path": "@project/artifacts/greeting.md", "content": "Hello, Ada! What a day.\n"}),
		patch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"cheer"}},
			"currentNodeId":  map[string]any{"set": "done"},
		}),
		patch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"done"}},
			"variables":      map[string]any{"set": map[string]any{"workflowStatus": "complete"}},
		}),
		fakellm.Text("Hello, Ada!"),
	)
	res, err := e.svc.Start(ctx(t), StartOptions{PackageID: inst.ID, WorkflowID: "hello-branch", Message: "I'm Ada and I'm happy"})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	for _, tr := range e.toolResults(res.Run.ConversationID) {
		if tr.IsError {
			t.Fatalf("a call failed: %s", tr.Text())
		}
	}
	st := e.state(res.Run.RunID)
	if want := map[string]any{"name": "Ada", "mood": "happy", "workflowStatus": "complete"}; !reflect.DeepEqual(st.Variables, want) {
		t.Fatalf("variables %v, want %v", st.Variables, want)
	}
	if res.Run.Phase != PhaseCompleted || !reflect.DeepEqual(st.StepsCompleted, []string{"ask", "route", "cheer", "done"}) ||
		!reflect.DeepEqual(res.Run.Artifacts, []string{"artifacts/greeting.md"}) {
		t.Fatalf("run %+v, steps %v", res.Run, st.StepsCompleted)
	}
	if b, _ := os.ReadFile(e.svc.StatePath(res.Run.RunID)); !strings.Contains(string(b), "# Hello, branch") {
		t.Fatalf("state body lost: %s", b)
	}
}
