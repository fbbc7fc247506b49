package packages

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoPassesValidation(t *testing.T) {
	im, err := NewImporter()
	if err != nil {
		t.Fatal(err)
	}
	pkg, warnings, err := im.Validate(DemoFS())
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("demo has warnings: %v", warnings)
	}
	if pkg.Manifest.Name != DemoName {
		t.Fatalf("name %q", pkg.Manifest.Name)
	}
	wf := pkg.Workflow("write-brief")
	if wf == nil || !wf.Default {
		t.Fatalf("write-brief workflow missing or not default: %+v", pkg.Workflows)
	}
	g := wf.Graph
	var steps, decisions, ends int
	for _, n := range g.Nodes {
		switch n.Type {
		case NodeStep:
			steps++
		case NodeDecision:
			decisions++
			if len(g.OutgoingEdges(n.ID)) < 2 {
				t.Errorf("decision %s has fewer than two ways out", n.ID)
			}
		case NodeEnd:
			ends++
		}
		if wf.Steps[n.ID] == nil {
			t.Errorf("node %s has no parsed step", n.ID)
		}
	}
	if steps < 2 || steps > 3 || decisions != 1 || ends != 1 {
		t.Errorf("want 2-3 steps, 1 decision, 1 end; got %d, %d, %d", steps, decisions, ends)
	}
	if len(pkg.Agents) != 2 {
		t.Errorf("want two agents, got %d", len(pkg.Agents))
	}
	if wf.State["currentNodeId"] != "" || len(wf.State["stepsCompleted"].([]any)) != 0 {
		t.Errorf("state template not blank: %v", wf.State)
	}
}

func TestDemoStepsFollowTheStateProtocol(t *testing.T) {
	im, err := NewImporter()
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := im.Validate(DemoFS())
	if err != nil {
		t.Fatal(err)
	}
	wf := pkg.Workflow("write-brief")
	for id, st := range wf.Steps {
		for _, want := range []string{"## Completion", "fs.apply_patch", "@state/workflow.md", "updateFrontmatter", `"stepsCompleted": { "append": ["` + id + `"] }`} {
			if !strings.Contains(st.Body, want) {
				t.Errorf("step %s does not mention %s", id, want)
			}
		}
		if wf.Graph.IsEnd(id) {
			if !strings.Contains(st.Body, `"workflowStatus": "complete"`) {
				t.Errorf("end step %s does not set workflowStatus", id)
			}
			continue
		}
		if !strings.Contains(st.Body, `"currentNodeId": { "set": "`) {
			t.Errorf("step %s does not set currentNodeId", id)
		}
		if len(wf.Graph.Node(id).Outputs) > 0 && !strings.Contains(st.Body, "@project/artifacts/") {
			t.Errorf("step %s has outputs but never names @project/artifacts/", id)
		}
	}
	if !strings.Contains(wf.Steps["check-clarity"].Body, `"decisionLog"`) {
		t.Error("decision step does not append to decisionLog")
	}
}

func TestWriteDemoProducesAnImportableArchive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "demo.bmad")
	if err := WriteDemo(p); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	zr.Close()
	for name := range demoFileMap(t) {
		if !names[name] {
			t.Errorf("archive lacks %s", name)
		}
	}
	// Reproducible output.
	p2 := filepath.Join(dir, "again.bmad")
	if err := WriteDemo(p2); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p)
	b, _ := os.ReadFile(p2)
	if string(a) != string(b) {
		t.Error("WriteDemo is not reproducible")
	}
	if _, err := NewManager(newHome(t)).Import(p); err != nil {
		t.Fatal(err)
	}
}

func TestWriteDemoFailsCleanly(t *testing.T) {
	if err := WriteDemo(filepath.Join(t.TempDir(), "missing-dir", "demo.bmad")); err == nil {
		t.Fatal("want an error for a path in a missing folder")
	}
}
