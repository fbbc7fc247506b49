package workflow

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/packages"
	"crewagent/backend/tools"
)

// demoGraph loads the demo package's write-brief graph from the embedded files.
func demoGraph(t testing.TB) *packages.Graph {
	t.Helper()
	b, err := fs.ReadFile(packages.DemoFS(), "workflows/write-brief/workflow.graph.json")
	if err != nil {
		t.Fatal(err)
	}
	var g packages.Graph
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func mustSchema(t testing.TB) *StateSchema {
	t.Helper()
	s, err := CompileStateSchema()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stateDoc renders a state file; extra lines are added to the frontmatter as they are.
func stateDoc(cur string, steps []string, extra ...string) []byte {
	q := make([]string, len(steps))
	for i, s := range steps {
		q[i] = fmt.Sprintf("%q", s)
	}
	fm := fmt.Sprintf("schemaVersion: \"1.1\"\nworkflowType: write-brief\ncurrentNodeId: %q\nstepsCompleted: [%s]\n", cur, strings.Join(q, ", "))
	for _, x := range extra {
		fm += x + "\n"
	}
	return []byte("---\n" + fm + "---\n# State\n")
}

func TestGuard(t *testing.T) {
	g := demoGraph(t)
	schema := mustSchema(t)
	tests := []struct {
		name     string
		old, new []byte
		code     string // "" accepted
		contains string
	}{
		{"start at the entry node", stateDoc("", nil), stateDoc("capture-idea", nil), "", ""},
		{"complete the entry step from not started", stateDoc("", nil), stateDoc("check-clarity", []string{"capture-idea"}), "", ""},
		{"follow an edge", stateDoc("check-clarity", []string{"capture-idea"}), stateDoc("clarify-idea", []string{"capture-idea", "check-clarity"}), "", ""},
		{"stay on the node", stateDoc("check-clarity", []string{"capture-idea"}), stateDoc("check-clarity", []string{"capture-idea"}, "variables: {ideaClear: true}"), "", ""},
		{"new file", nil, stateDoc("", nil), "", ""},
		{"unreachable node", stateDoc("check-clarity", []string{"capture-idea"}), stateDoc("end", []string{"capture-idea"}), tools.CodeInvalidTransition, "no edge of the graph leads there"},
		{"skip from not started", stateDoc("", nil), stateDoc("draft-brief", nil), tools.CodeInvalidTransition, "Allowed next from capture-idea: check-clarity"},
		{"unknown node", stateDoc("capture-idea", nil), stateDoc("nowhere", nil), tools.CodeInvalidTransition, "not a node of the graph"},
		{"back to not started", stateDoc("capture-idea", nil), stateDoc("", nil), tools.CodeInvalidTransition, "cannot be reset"},
		{"stepsCompleted shrinks", stateDoc("draft-brief", []string{"capture-idea", "check-clarity"}), stateDoc("draft-brief", []string{"capture-idea"}), tools.CodeSchemaValidation, "may only grow"},
		{"stepsCompleted reordered", stateDoc("draft-brief", []string{"capture-idea", "check-clarity"}), stateDoc("draft-brief", []string{"check-clarity", "capture-idea"}), tools.CodeSchemaValidation, "may only grow"},
		{"stepsCompleted unknown node", stateDoc("capture-idea", nil), stateDoc("capture-idea", []string{"typo"}), tools.CodeSchemaValidation, "not a node of the graph"},
		{"schema: required key missing", stateDoc("capture-idea", nil), []byte("---\nschemaVersion: \"1.1\"\ncurrentNodeId: capture-idea\nstepsCompleted: []\n---\n"), tools.CodeSchemaValidation, "workflowType"},
		{"schema: wrong type", stateDoc("capture-idea", nil), []byte("---\nschemaVersion: \"1.1\"\nworkflowType: w\ncurrentNodeId: capture-idea\nstepsCompleted: capture-idea\n---\n"), tools.CodeSchemaValidation, "/stepsCompleted"},
		{"schema: bad decision log", stateDoc("capture-idea", nil), stateDoc("capture-idea", nil, "decisionLog: [{from: a}]"), tools.CodeSchemaValidation, "/decisionLog/0"},
		{"schema: bad version", stateDoc("capture-idea", nil), []byte("---\nschemaVersion: \"2.0\"\nworkflowType: w\ncurrentNodeId: capture-idea\nstepsCompleted: []\n---\n"), tools.CodeSchemaValidation, "/schemaVersion"},
		{"not YAML", stateDoc("capture-idea", nil), []byte("---\nschemaVersion: [\n---\n"), tools.CodeSchemaValidation, "not valid YAML"},
		{"no frontmatter", stateDoc("capture-idea", nil), []byte("# just text\n"), tools.CodeSchemaValidation, "frontmatter"},
		{"damaged old state: new one accepted", []byte("garbage"), stateDoc("draft-brief", nil), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			guard := &Guard{Schema: schema, Graph: g}
			err := guard.ValidateStateWrite(tt.old, tt.new)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			te, ok := tools.AsToolError(err)
			if !ok || te.Code != tt.code || !strings.Contains(te.Message, tt.contains) {
				t.Fatalf("got %v, want %s containing %q", err, tt.code, tt.contains)
			}
			if strings.Contains(te.Message, "/tmp") {
				t.Fatalf("host path in the message: %s", te.Message)
			}
		})
	}
}

func TestGuardInvalidTransitionDetails(t *testing.T) {
	guard := &Guard{Schema: mustSchema(t), Graph: demoGraph(t)}
	err := guard.ValidateStateWrite(stateDoc("check-clarity", []string{"capture-idea"}), stateDoc("end", []string{"capture-idea"}))
	te, _ := tools.AsToolError(err)
	if te == nil {
		t.Fatal("accepted")
	}
	next, _ := te.Details["allowedNext"].([]NextEdge)
	want := []NextEdge{
		{To: "clarify-idea", Label: "needs clarification", ConditionText: "variables.ideaClear == false"},
		{To: "draft-brief", Label: "clear enough", Default: true, ConditionText: "variables.ideaClear == true"},
	}
	if fmt.Sprint(next) != fmt.Sprint(want) || te.Details["from"] != "check-clarity" || te.Details["to"] != "end" {
		t.Fatalf("details: %+v", te.Details)
	}
}

func TestGuardCompletedNeedsConfirmation(t *testing.T) {
	done := stateDoc("end", []string{"capture-idea", "check-clarity", "draft-brief", "end"}, "variables: {workflowStatus: complete}")
	changed := stateDoc("end", []string{"capture-idea", "check-clarity", "draft-brief", "end"}, "variables: {workflowStatus: complete, note: x}")
	grants := 1
	guard := &Guard{Schema: mustSchema(t), Graph: demoGraph(t), Confirm: func() bool {
		if grants == 0 {
			return false
		}
		grants--
		return true
	}}
	// The write that completes the workflow needs no confirmation.
	almost := stateDoc("end", []string{"capture-idea", "check-clarity", "draft-brief"})
	if err := guard.ValidateStateWrite(almost, done); err != nil {
		t.Fatalf("completing write refused: %v", err)
	}
	// An identical rewrite changes nothing.
	if err := guard.ValidateStateWrite(done, done); err != nil {
		t.Fatalf("no-op write refused: %v", err)
	}
	// An invalid change does not use up the confirmation.
	if err := guard.ValidateStateWrite(done, stateDoc("end", nil)); err == nil {
		t.Fatal("shrinking accepted")
	}
	if err := guard.ValidateStateWrite(done, changed); err != nil || grants != 0 {
		t.Fatalf("confirmed write: %v (grants %d)", err, grants)
	}
	err := guard.ValidateStateWrite(done, changed)
	te, _ := tools.AsToolError(err)
	if te == nil || te.Code != tools.CodePreconditionFailed || te.Details["reason"] != ReasonConfirmationRequired || !strings.Contains(te.Message, "ui.ask_user") {
		t.Fatalf("second write: %v", err)
	}
	// The end node in stepsCompleted completes the workflow too.
	endDone := stateDoc("end", []string{"capture-idea", "check-clarity", "draft-brief", "end"})
	if err := (&Guard{Schema: mustSchema(t), Graph: demoGraph(t)}).ValidateStateWrite(endDone, changed); err == nil {
		t.Fatal("change after completion accepted without confirmation")
	}
}

func FuzzGuard(f *testing.F) {
	f.Add(stateDoc("", nil), stateDoc("capture-idea", nil))
	f.Add(stateDoc("check-clarity", []string{"capture-idea"}), []byte("---\nstepsCompleted: {a: 1}\n---\n"))
	f.Add([]byte("---\n---\n"), []byte("---\n- a\n---\n"))
	g := demoGraph(f)
	schema := mustSchema(f)
	f.Fuzz(func(t *testing.T, old, new []byte) {
		guard := &Guard{Schema: schema, Graph: g}
		err := guard.ValidateStateWrite(old, new)
		if err == nil {
			if _, perr := ParseState(new); perr != nil {
				t.Fatalf("accepted a state that does not parse: %v", perr)
			}
			return
		}
		if _, ok := tools.AsToolError(err); !ok {
			t.Fatalf("not a tool error: %v", err)
		}
	})
}

// Artifacts the model records must be files inside the project.
func TestGuardArtifactsStayInTheProject(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "artifacts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("artifacts", filepath.Join(root, "link-in")); err != nil {
		t.Fatal(err)
	}
	guard := &Guard{Schema: mustSchema(t), Graph: demoGraph(t), ProjectRoot: root}
	old := stateDoc("capture-idea", nil, `artifacts: ["../grandfathered.md"]`)
	with := func(entries ...string) []byte {
		b, _ := json.Marshal(entries)
		return stateDoc("capture-idea", nil, "artifacts: "+string(b))
	}
	for _, bad := range []string{"../secret.md", "/etc/passwd", "artifacts/../../x.md", "@pkg/steps/a.md", "@project/artifacts/a.md",
		`C:\notes.md`, `artifacts\a.md`, "", "link-out/stolen.md", "link-out"} {
		err := guard.ValidateStateWrite(old, with("../grandfathered.md", bad))
		te, ok := tools.AsToolError(err)
		if !ok || te.Code != tools.CodeSchemaValidation || !strings.Contains(te.Message, "artifacts[1]") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, good := range []string{"artifacts/brief.md", "notes/today.md", "link-in/brief.md", "artifacts/new/deeper.md"} {
		if err := guard.ValidateStateWrite(old, with("../grandfathered.md", good)); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}
