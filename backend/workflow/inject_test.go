package workflow

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/packages"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func demoWorkflow(t *testing.T) *packages.Workflow {
	return &packages.Workflow{ID: "write-brief", GraphPath: "workflows/write-brief/workflow.graph.json", Graph: demoGraph(t)}
}

func mustState(t *testing.T, b []byte) *State {
	t.Helper()
	st, err := ParseState(b)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestInjectionGolden renders the run blocks of the demo workflow at each kind of node and
// after completion, and the USER_INPUT wrapping.
func TestInjectionGolden(t *testing.T) {
	wf := demoWorkflow(t)
	cases := []struct {
		name   string
		intent string
		state  []byte
		dir    string
	}{
		{"start (entry node, not started)", IntentStart, stateDoc("", nil), "artifacts"},
		{"resume at a decision", IntentResume, stateDoc("check-clarity", []string{"capture-idea"}), "artifacts"},
		{"continue at the end node, custom artifacts folder", IntentContinue, stateDoc("end", []string{"capture-idea", "check-clarity", "draft-brief"}), "docs/out/"},
		{"post-completion profile", IntentContinue, stateDoc("end", []string{"capture-idea", "check-clarity", "draft-brief", "end"}, "variables: {workflowStatus: complete}"), "artifacts"},
	}
	var buf bytes.Buffer
	for _, c := range cases {
		in := NewInjector(c.intent, wf, mustState(t, c.state), "analyst", c.dir)
		fmt.Fprintf(&buf, "### %s\n", c.name)
		for _, b := range in.Blocks() {
			fmt.Fprintf(&buf, "%s\n---\n", b)
		}
	}
	fmt.Fprintf(&buf, "### user input\n%s\n", UserInput("check-clarity", "Yes, it is for roommates."))
	path := filepath.Join("testdata", "injection.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs (run with -update after checking the change):\n%s", path, buf.String())
	}
}

func TestInjectorProfiles(t *testing.T) {
	wf := demoWorkflow(t)
	active := NewInjector(IntentContinue, wf, mustState(t, stateDoc("draft-brief", []string{"capture-idea", "check-clarity"})), "analyst", "artifacts")
	blocks := active.Blocks()
	if len(blocks) != 2 || !strings.HasPrefix(blocks[0], "RUN_DIRECTIVE\n") || !strings.HasPrefix(blocks[1], "NODE_BRIEF\n") {
		t.Fatalf("active blocks: %q", blocks)
	}
	// The persona of a node is its agentId, not the run's active agent.
	if active.EffectiveAgentID != "writer" || !strings.Contains(blocks[0], "- effectiveAgentId: writer") {
		t.Fatalf("effective agent: %s", active.EffectiveAgentID)
	}
	done := NewInjector(IntentContinue, wf, mustState(t, stateDoc("draft-brief", []string{"capture-idea"}, "variables: {workflowStatus: complete}")), "analyst", "artifacts")
	blocks = done.Blocks()
	if len(blocks) != 1 || strings.Contains(blocks[0], "currentNodeId") || strings.Contains(blocks[0], "NODE_BRIEF") ||
		strings.Contains(blocks[0], "stepFile") || !strings.Contains(blocks[0], "Post-Run Protocol:") {
		t.Fatalf("post-completion blocks: %q", blocks)
	}
	if got := conversation.RunInputText(UserInput("n1", "hello\nworld")); got != "hello\nworld" {
		t.Fatalf("RunInputText: %q", got)
	}
	if got := conversation.RunInputText("plain"); got != "plain" {
		t.Fatalf("RunInputText of plain text: %q", got)
	}
}
