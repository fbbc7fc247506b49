package packages

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/errs"
)

// builderStep is one node of a package written the way the original Builder exports it.
type builderStep struct {
	id, typ, title, agent string
	instructions          string
	next                  []string
}

// builderPackage writes a package in the form the original Builder's export produces: the
// v1.1 bmad.json, agents.json, workflow.md and workflow.graph.json at the archive root (or
// under workflows/<id>/ with a workflows[] index when dir is set), and one steps/<nodeId>.md
// per node whose body is a "# Title" and a "## Instructions" list, with no Goal section.
func builderPackage(t *testing.T, name, workflowType, dir string, steps []builderStep) fileMap {
	t.Helper()
	f := fileMap{}
	prefix := ""
	if dir != "" {
		prefix = "workflows/" + dir + "/"
	}
	manifest := map[string]any{
		"schemaVersion": "1.1",
		"name":          name,
		"version":       "0.1.0",
		"description":   name + " 工作流",
		"author":        "工作室",
		"createdAt":     "2025-12-20T08:00:00.000Z",
		"entry": map[string]any{
			"workflow": prefix + "workflow.md",
			"graph":    prefix + "workflow.graph.json",
			"agents":   "agents.json",
		},
	}
	if dir != "" {
		manifest["workflows"] = []any{map[string]any{
			"id": dir, "displayName": name, "workflow": prefix + "workflow.md", "graph": prefix + "workflow.graph.json", "tags": []any{},
		}}
	}
	f["bmad.json"] = mustJSON(t, manifest)
	f["agents.json"] = mustJSON(t, map[string]any{
		"schemaVersion": "1.1",
		"agents": []any{map[string]any{
			"id":       "analyst",
			"metadata": map[string]any{"name": "小明", "title": "需求分析师", "icon": "🧭"},
			"persona": map[string]any{
				"role": "需求分析师", "identity": "熟悉业务的分析师", "communication_style": "简洁",
				"principles": []any{"先问清楚", "不编造"},
			},
		}},
	})
	var index strings.Builder
	nodes, edges := []any{}, []any{}
	for _, s := range steps {
		node := map[string]any{"id": s.id, "type": s.typ, "title": s.title, "file": prefix + "steps/" + s.id + ".md"}
		if s.agent != "" {
			node["agentId"] = s.agent
		}
		nodes = append(nodes, node)
		var tr strings.Builder
		for i, to := range s.next {
			edges = append(edges, map[string]any{"id": s.id + "-" + to, "from": s.id, "to": to, "label": "下一步", "isDefault": i == 0})
			fmt.Fprintf(&tr, "  - to: %s\n    label: 下一步\n    isDefault: %v\n", to, i == 0)
		}
		front := fmt.Sprintf("---\nschemaVersion: \"1.1\"\nnodeId: %s\ntype: %s\ntitle: %s\n", s.id, s.typ, s.title)
		if s.agent != "" {
			front += "agentId: " + s.agent + "\n"
		}
		if tr.Len() > 0 {
			front += "transitions:\n" + tr.String()
		} else {
			front += "transitions: []\n"
		}
		f[prefix+"steps/"+s.id+".md"] = []byte(front + "---\n\n# " + s.title + "\n\n## Instructions\n" + s.instructions + "\n")
		fmt.Fprintf(&index, "- %s: steps/%s.md\n", s.title, s.id)
	}
	f[prefix+"workflow.graph.json"] = mustJSON(t, map[string]any{
		"schemaVersion": "1.1", "entryNodeId": steps[0].id, "nodes": nodes, "edges": edges,
		"metadata": map[string]any{"generatedBy": "builder"},
	})
	f[prefix+"workflow.md"] = []byte("---\nschemaVersion: \"1.1\"\nworkflowType: " + workflowType +
		"\ncurrentNodeId: \"\"\nstepsCompleted: []\nvariables: {}\ndecisionLog: []\nartifacts: []\nupdatedAt: \"\"\n---\n\n# " +
		name + "\n\n## Steps Index\n" + index.String())
	return f
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func requirementsPackage(t *testing.T) fileMap {
	return builderPackage(t, "需求分析 Demo", "requirements", "", []builderStep{
		{id: "collect", typ: "step", title: "收集需求", agent: "analyst", instructions: "1. 询问用户的目标。\n2. 记录到 @project/artifacts/需求.md。", next: []string{"review"}},
		{id: "review", typ: "decision", title: "评审", instructions: "1. 需求是否清楚？", next: []string{"done", "collect"}},
		{id: "done", typ: "end", title: "完成", instructions: "1. 设置 workflowStatus 为 complete。"},
	})
}

func dataPackage(t *testing.T) fileMap {
	return builderPackage(t, "数据 Demo", "data", "data-cleanup", []builderStep{
		{id: "load", typ: "step", title: "读取数据", agent: "analyst", instructions: "1. 读取 @project/data.csv。", next: []string{"end"}},
		{id: "end", typ: "end", title: "结束", instructions: "1. 完成。"},
	})
}

// TestBuilderPackagesInstallSideBySide: two packages exported by the original Builder, named
// in Chinese and without Goal sections, install side by side under distinct ids; the missing
// sections are warnings.
func TestBuilderPackagesInstallSideBySide(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	dir := t.TempDir()
	reqFile, dataFile := filepath.Join(dir, "需求分析.bmad"), filepath.Join(dir, "数据.bmad")
	requirementsPackage(t).writeZip(t, reqFile, "")
	dataPackage(t).writeZip(t, dataFile, "需求导出/") // a single top-level folder, as zipping a folder gives

	req, err := m.Import(reqFile)
	if err != nil {
		t.Fatalf("Builder package refused: %v", err)
	}
	data, err := m.Import(dataFile)
	if err != nil {
		t.Fatalf("Builder package refused: %v", err)
	}
	if req.ID != "需求分析-demo@0.1.0" || data.ID != "数据-demo@0.1.0" {
		t.Fatalf("ids %q and %q", req.ID, data.ID)
	}
	for _, c := range []struct {
		inst  *Installed
		steps []string
	}{
		{req, []string{"steps/collect.md", "steps/review.md", "steps/done.md"}},
		{data, []string{"workflows/data-cleanup/steps/load.md", "workflows/data-cleanup/steps/end.md"}},
	} {
		if len(c.inst.Warnings) != len(c.steps) {
			t.Errorf("%s: warnings %v", c.inst.ID, c.inst.Warnings)
		}
		for _, s := range c.steps {
			wantProblem(t, c.inst.Warnings, s, "", `no "## Goal" section`)
		}
	}
	list, err := m.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "需求分析 Demo" || list[1].Name != "数据 Demo" {
		t.Fatalf("registry %+v", list)
	}
	if got := packageDirs(t, home); !reflect.DeepEqual(got, []string{"数据-demo@0.1.0", "需求分析-demo@0.1.0"}) {
		t.Fatalf("packages/ holds %v", got)
	}
	for _, id := range []string{req.ID, data.ID} {
		pkg, err := m.Load(id)
		if err != nil {
			t.Fatalf("Load(%s): %v", id, err)
		}
		st := pkg.Workflows[0].Steps[pkg.Workflows[0].Graph.EntryNodeID]
		if st == nil || !strings.Contains(st.Body, "## Instructions") {
			t.Fatalf("%s: entry step %+v", id, st)
		}
	}
	if wf := mustLoad(t, m, data.ID).Workflow("data-cleanup"); wf == nil || wf.DisplayName != "数据 Demo" {
		t.Fatalf("data workflow %+v", wf)
	}
}

func mustLoad(t *testing.T, m *Manager, id string) *Package {
	t.Helper()
	pkg, err := m.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// TestReimportIsRefusedWithoutReplace: importing a package whose id and version are
// installed is refused in words and changes nothing; Replace replaces it.
func TestReimportIsRefusedWithoutReplace(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	dir := t.TempDir()
	first := filepath.Join(dir, "first.bmad")
	requirementsPackage(t).writeZip(t, first, "")
	if _, err := m.Import(first); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(home, registryFileName))

	changed := requirementsPackage(t)
	changed.patchJSON(t, "bmad.json", func(m map[string]any) { m["description"] = "第二版" })
	second := filepath.Join(dir, "second.bmad")
	changed.writeZip(t, second, "")
	_, err := m.Import(second)
	if errs.CodeOf(err) != CodeExists {
		t.Fatalf("second import: %v, want %s", err, CodeExists)
	}
	if msg := err.Error(); !strings.Contains(msg, `"需求分析 Demo" 0.1.0`) || !strings.Contains(msg, "需求分析-demo@0.1.0") || !strings.Contains(msg, "not replaced") {
		t.Errorf("message %q", msg)
	}
	if inst, ok := ExistingOf(err); !ok || inst.ID != "需求分析-demo@0.1.0" || inst.Description != "需求分析 Demo 工作流" {
		t.Errorf("ExistingOf = %+v, %v", inst, ok)
	}
	after, _ := os.ReadFile(filepath.Join(home, registryFileName))
	if string(before) != string(after) {
		t.Errorf("the refused import changed the registry:\n%s", after)
	}
	if got := packageDirs(t, home); !reflect.DeepEqual(got, []string{"需求分析-demo@0.1.0"}) {
		t.Fatalf("packages/ holds %v", got)
	}

	// A name that differs only in case and spacing has the same id: refused as well.
	same := requirementsPackage(t)
	same.patchJSON(t, "bmad.json", func(m map[string]any) { m["name"] = "需求分析  DEMO" })
	third := filepath.Join(dir, "third.bmad")
	same.writeZip(t, third, "")
	if _, err := m.Import(third); errs.CodeOf(err) != CodeExists || !strings.Contains(err.Error(), `installed as "需求分析 Demo" 0.1.0`) {
		t.Fatalf("same id, other spelling: %v", err)
	}

	inst, err := m.Import(second, Replace())
	if err != nil {
		t.Fatal(err)
	}
	if inst.Description != "第二版" {
		t.Fatalf("replaced package %+v", inst)
	}
	if list, _ := m.List(); len(list) != 1 || list[0].Description != "第二版" {
		t.Fatalf("registry %+v", list)
	}
}

// TestCollidedIDsStayInstalled: an installation made when the id kept only ASCII (both
// Chinese-named packages became demo@0.1.0) keeps working under its id; importing the
// packages now adds them beside it, nothing is renamed.
func TestCollidedIDsStayInstalled(t *testing.T) {
	home := newHome(t)
	m := NewManager(home)
	dir := t.TempDir()
	data := filepath.Join(dir, "data.bmad")
	dataPackage(t).writeZip(t, data, "")
	inst, err := m.Import(data)
	if err != nil {
		t.Fatal(err)
	}
	// The earlier layout: folder and record under the ASCII-only id.
	pkgs := filepath.Join(home, packagesDirName)
	if err := os.Rename(filepath.Join(pkgs, inst.ID), filepath.Join(pkgs, "demo@0.1.0")); err != nil {
		t.Fatal(err)
	}
	regPath := filepath.Join(home, registryFileName)
	b, _ := os.ReadFile(regPath)
	b = []byte(strings.ReplaceAll(string(b), inst.ID, "demo@0.1.0"))
	if err := os.WriteFile(regPath, b, 0o644); err != nil {
		t.Fatal(err)
	}

	if pkg, err := m.Load("demo@0.1.0"); err != nil || pkg.Manifest.Name != "数据 Demo" {
		t.Fatalf("old installation: %v", err)
	}
	req := filepath.Join(dir, "req.bmad")
	requirementsPackage(t).writeZip(t, req, "")
	if _, err := m.Import(req); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Import(data); err != nil {
		t.Fatalf("the new id of the old package is free: %v", err)
	}
	var ids []string
	list, _ := m.List()
	for _, p := range list {
		ids = append(ids, p.ID)
	}
	if !reflect.DeepEqual(ids, []string{"demo@0.1.0", "需求分析-demo@0.1.0", "数据-demo@0.1.0"}) {
		t.Fatalf("ids %v", ids)
	}
	if _, err := m.Load("demo@0.1.0"); err != nil {
		t.Fatalf("old installation after the imports: %v", err)
	}
}

// TestBuilderPackageInconsistenciesRefuse: what does make a package unusable still refuses
// it, each problem with its file and JSON pointer.
func TestBuilderPackageInconsistenciesRefuse(t *testing.T) {
	cases := []struct {
		name            string
		patch           func(t *testing.T, f fileMap)
		file, ptr, want string
	}{
		{"graph names a missing file", func(t *testing.T, f fileMap) { delete(f, "steps/review.md") },
			"workflow.graph.json", "/nodes/1/file", `step file "steps/review.md" does not exist`},
		{"transition to an unknown node", func(t *testing.T, f fileMap) { f.replace(t, "steps/collect.md", "to: review", "to: 评审") },
			"steps/collect.md", "/transitions/0/to", `unknown node "评审"`},
		{"edge to an unknown node", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "workflow.graph.json", func(m map[string]any) { obj(m, "edges", 0)["to"] = "归档" })
		}, "workflow.graph.json", "/edges/0/to", `unknown node "归档"`},
		{"schema: step without nodeId", func(t *testing.T, f fileMap) { f.replace(t, "steps/done.md", "nodeId: done\n", "") },
			"steps/done.md", "", "nodeId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := requirementsPackage(t)
			c.patch(t, f)
			p := filepath.Join(t.TempDir(), "p.bmad")
			f.writeZip(t, p, "")
			home := newHome(t)
			_, err := NewManager(home).Import(p)
			wantProblem(t, validationProblems(t, err), c.file, c.ptr, c.want)
			// The warnings found beside the problems travel with the error.
			wantProblem(t, WarningsOf(err), "steps/collect.md", "", `no "## Goal" section`)
			assertPristine(t, home)
		})
	}
}
