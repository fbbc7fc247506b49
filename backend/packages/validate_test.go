package packages

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// brokenCase turns the demo into a broken package and names one problem the report must hold.
type brokenCase struct {
	name    string
	mutate  func(t *testing.T, f fileMap)
	file    string
	pointer string
	msg     string
}

func bmadCases() []brokenCase {
	return []brokenCase{
		{"bmad missing required name", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { delete(m, "name") })
		}, "bmad.json", "", "missing property 'name'"},
		{"bmad version not semver", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { m["version"] = "1.0" })
		}, "bmad.json", "/version", `'1.0' does not match pattern ^\d+\.\d+\.\d+`},
		{"bmad schemaVersion not 1.1", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { m["schemaVersion"] = "2.0" })
		}, "bmad.json", "/schemaVersion", "does not match pattern"},
		{"bmad unknown property", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { m["homepage"] = "x" })
		}, "bmad.json", "", "additional properties 'homepage' not allowed"},
		{"bmad wrong type", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { m["description"] = 5 })
		}, "bmad.json", "/description", "want string"},
		{"bmad entry missing agents", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { delete(obj(m, "entry"), "agents") })
		}, "bmad.json", "/entry", "missing property 'agents'"},
		{"bmad createdAt not date-time", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { m["createdAt"] = "yesterday" })
		}, "bmad.json", "/createdAt", "date-time"},
		{"bmad workflow id pattern", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { obj(m, "workflows", 0)["id"] = "-bad id" })
		}, "bmad.json", "/workflows/0/id", "does not match pattern"},
		{"bmad workflow item missing graph", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { delete(obj(m, "workflows", 0), "graph") })
		}, "bmad.json", "/workflows/0", "missing property 'graph'"},
		{"bmad integrity not hex", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { m["integrity"] = map[string]any{"sha256": "xyz"} })
		}, "bmad.json", "/integrity/sha256", "does not match pattern"},
		{"bmad runtime unknown property", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { obj(m, "runtime")["gpu"] = true })
		}, "bmad.json", "/runtime", "additional properties 'gpu' not allowed"},
		{"bmad duplicate workflow id", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) {
				m["workflows"] = append(arr(m, "workflows"), obj(m, "workflows", 0))
			})
		}, "bmad.json", "/workflows/1/id", "duplicate workflow id \"write-brief\""},
		{"bmad path outside package", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { obj(m, "workflows", 0)["graph"] = "../graph.json" })
		}, "bmad.json", "/workflows/0/graph", "points outside the package"},
		{"bmad graph file missing", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "bmad.json", func(m map[string]any) { obj(m, "workflows", 0)["graph"] = "nope.json" })
		}, "bmad.json", "/workflows/0/graph", "nope.json does not exist"},
		{"bmad not JSON", func(t *testing.T, f fileMap) {
			f["bmad.json"] = []byte("{\n  \"name\": \"x\",\n  oops\n}")
		}, "bmad.json", "", "not valid JSON: line 3"},
		{"bmad missing", func(t *testing.T, f fileMap) {
			delete(f, "bmad.json")
		}, "bmad.json", "", "missing: a package needs bmad.json"},
	}
}

func agentsCases() []brokenCase {
	return []brokenCase{
		{"agents empty list", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { m["agents"] = []any{} })
		}, "agents.json", "/agents", "minItems"},
		{"agents missing schemaVersion", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { delete(m, "schemaVersion") })
		}, "agents.json", "", "missing property 'schemaVersion'"},
		{"agent missing persona", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { delete(obj(m, "agents", 0), "persona") })
		}, "agents.json", "/agents/0", "missing property 'persona'"},
		{"agent id pattern", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 1)["id"] = "writer two" })
		}, "agents.json", "/agents/1/id", "does not match pattern"},
		{"agent principles wrong type", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 0, "persona")["principles"] = 5 })
		}, "agents.json", "/agents/0/persona/principles", "does not match any allowed form"},
		{"agent icon empty", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 0, "metadata")["icon"] = "" })
		}, "agents.json", "/agents/0/metadata/icon", "minLength"},
		{"agent tools unknown property", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 0, "tools", "fs")["root"] = "/" })
		}, "agents.json", "/agents/0/tools/fs", "additional properties 'root' not allowed"},
		{"agent limit below minimum", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 0, "tools", "fs")["maxReadBytes"] = 0 })
		}, "agents.json", "/agents/0/tools/fs/maxReadBytes", "minimum"},
		{"agent prompt missing content", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 0)["prompts"] = []any{map[string]any{"id": "p"}} })
		}, "agents.json", "/agents/0/prompts/0", "missing property 'content'"},
		{"agent duplicate id", func(t *testing.T, f fileMap) {
			f.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 1)["id"] = "analyst" })
		}, "agents.json", "/agents/1/id", "duplicate agent id \"analyst\""},
		{"agents file missing", func(t *testing.T, f fileMap) {
			delete(f, "agents.json")
		}, "bmad.json", "/entry/agents", "agents.json does not exist"},
	}
}

func graphCases() []brokenCase {
	g := demoGraph
	return []brokenCase{
		{"graph missing entryNodeId", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { delete(m, "entryNodeId") })
		}, g, "", "missing property 'entryNodeId'"},
		{"graph no nodes", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { m["nodes"] = []any{}; m["edges"] = []any{} })
		}, g, "/nodes", "minItems"},
		{"graph node type not allowed", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "nodes", 0)["type"] = "task" })
		}, g, "/nodes/0/type", "value must be one of"},
		{"graph node missing file", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { delete(obj(m, "nodes", 2), "file") })
		}, g, "/nodes/2", "missing property 'file'"},
		{"graph node unknown property", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "nodes", 0)["prompt"] = "x" })
		}, g, "/nodes/0", "additional properties 'prompt' not allowed"},
		{"graph node id pattern", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "nodes", 4)["id"] = "the end" })
		}, g, "/nodes/4/id", "does not match pattern"},
		{"graph edge missing label", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { delete(obj(m, "edges", 0), "label") })
		}, g, "/edges/0", "missing property 'label'"},
		{"graph edge empty label", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "edges", 0)["label"] = "" })
		}, g, "/edges/0/label", "minLength"},
		{"graph conditionExpr not object", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "edges", 1)["conditionExpr"] = "ideaClear" })
		}, g, "/edges/1/conditionExpr", "want object"},
		{"graph unknown top-level property", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { m["start"] = "x" })
		}, g, "", "additional properties 'start' not allowed"},
		{"graph entry node unknown", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { m["entryNodeId"] = "begin" })
		}, g, "/entryNodeId", "entry node \"begin\" is not a node"},
		{"graph edge to unknown node", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "edges", 3)["to"] = "publish" })
		}, g, "/edges/3/to", "unknown node \"publish\""},
		{"graph edge from unknown node", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "edges", 0)["from"] = "start" })
		}, g, "/edges/0/from", "unknown node \"start\""},
		{"graph duplicate node id", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "nodes", 2)["id"] = "check-clarity" })
		}, g, "/nodes/2/id", "duplicate node id \"check-clarity\""},
		{"graph duplicate edge id", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "edges", 1)["id"] = "capture-to-check" })
		}, g, "/edges/1/id", "duplicate edge id"},
		{"graph node agent unknown", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "nodes", 3)["agentId"] = "editor" })
		}, g, "/nodes/3/agentId", "unknown agent \"editor\" (agents.json defines: analyst, writer)"},
		{"graph node file outside package", func(t *testing.T, f fileMap) {
			f.patchJSON(t, g, func(m map[string]any) { obj(m, "nodes", 0)["file"] = "../../etc/passwd" })
		}, g, "/nodes/0/file", "points outside the package"},
		{"step file missing", func(t *testing.T, f fileMap) {
			delete(f, demoStep)
		}, g, "/nodes/0/file", "does not exist in the package"},
		{"graph not JSON", func(t *testing.T, f fileMap) {
			f[g] = []byte(`{"nodes": [}`)
		}, g, "", "not valid JSON: line 1"},
	}
}

func stepCases() []brokenCase {
	s := demoStep
	return []brokenCase{
		{"step missing nodeId", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { delete(m, "nodeId") })
		}, s, "", "missing property 'nodeId'"},
		{"step type not allowed", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["type"] = "task" })
		}, s, "/type", "value must be one of"},
		{"step schemaVersion wrong", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["schemaVersion"] = "1.0" })
		}, s, "/schemaVersion", "does not match pattern"},
		{"step inputs not a list", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["inputs"] = "notes.md" })
		}, s, "/inputs", "want array"},
		{"step transition missing label", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { delete(m["transitions"].([]any)[0].(map[string]any), "label") })
		}, s, "/transitions/0", "missing property 'label'"},
		{"step transition unknown property", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["transitions"].([]any)[0].(map[string]any)["when"] = "x" })
		}, s, "/transitions/0", "additional properties 'when' not allowed"},
		{"step transition to unknown node", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["transitions"].([]any)[0].(map[string]any)["to"] = "publish" })
		}, s, "/transitions/0/to", "unknown node \"publish\""},
		{"step nodeId does not match node", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["nodeId"] = "draft-brief" })
		}, s, "/nodeId", "does not match the graph node \"capture-idea\""},
		{"step type does not match node", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["type"] = "decision" })
		}, s, "/type", "is a \"step\" node"},
		{"step agent unknown", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, s, func(m map[string]any) { m["agentId"] = "editor" })
		}, s, "/agentId", "unknown agent \"editor\""},
		{"step without frontmatter", func(t *testing.T, f fileMap) {
			_, body, _ := ParseFrontmatter(f[s])
			f[s] = body
		}, s, "", "no YAML frontmatter"},
		{"step frontmatter bad YAML", func(t *testing.T, f fileMap) {
			f.replace(t, s, "nodeId: capture-idea", "nodeId: [capture-idea")
		}, s, "", "frontmatter is not valid YAML"},
		{"step frontmatter not closed", func(t *testing.T, f fileMap) {
			f[s] = []byte("---\nschemaVersion: \"1.1\"\nnodeId: capture-idea\n\n## Goal\n")
		}, s, "", "no closing --- line"},
		{"step frontmatter not a mapping", func(t *testing.T, f fileMap) {
			_, body, _ := ParseFrontmatter(f[s])
			f[s] = append([]byte("---\n- a\n- b\n---\n"), body...)
		}, s, "", "frontmatter must be a YAML mapping"},
	}
}

func workflowCases() []brokenCase {
	w := demoWorkflow
	return []brokenCase{
		{"workflow missing currentNodeId", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) { delete(m, "currentNodeId") })
		}, w, "", "missing property 'currentNodeId'"},
		{"workflow stepsCompleted not a list", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) { m["stepsCompleted"] = "capture-idea" })
		}, w, "/stepsCompleted", "want array"},
		{"workflow workflowType empty", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) { m["workflowType"] = "" })
		}, w, "/workflowType", "minLength"},
		{"workflow schemaVersion wrong", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) { m["schemaVersion"] = 1.1 })
		}, w, "/schemaVersion", "want string"},
		{"workflow variables not a mapping", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) { m["variables"] = []any{"a"} })
		}, w, "/variables", "want object"},
		{"workflow decisionLog item unknown property", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) {
				m["decisionLog"] = []any{map[string]any{"from": "a", "to": "b", "label": "c", "why": "d"}}
			})
		}, w, "/decisionLog/0", "additional properties 'why' not allowed"},
		{"workflow decisionLog item missing label", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) {
				m["decisionLog"] = []any{map[string]any{"from": "a", "to": "b"}}
			})
		}, w, "/decisionLog/0", "missing property 'label'"},
		{"workflow updatedAt not date-time", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) { m["updatedAt"] = "last tuesday" })
		}, w, "/updatedAt", "date-time"},
		{"workflow currentNodeId unknown", func(t *testing.T, f fileMap) {
			f.patchFrontmatter(t, w, func(m map[string]any) { m["currentNodeId"] = "publish" })
		}, w, "/currentNodeId", "unknown node \"publish\""},
		{"workflow without frontmatter", func(t *testing.T, f fileMap) {
			_, body, _ := ParseFrontmatter(f[w])
			f[w] = body
		}, w, "", "no YAML frontmatter"},
		{"workflow file missing", func(t *testing.T, f fileMap) {
			delete(f, w)
		}, "bmad.json", "/workflows/0/workflow", "does not exist in the package"},
	}
}

// TestBrokenPackagesAreReported imports each broken variant of the demo as a .bmad file and
// checks that the report names the problem and that nothing is installed.
func TestBrokenPackagesAreReported(t *testing.T) {
	groups := map[string][]brokenCase{
		"bmad.json":            bmadCases(),
		"agents.json":          agentsCases(),
		"workflow.graph.json":  graphCases(),
		"step frontmatter":     stepCases(),
		"workflow frontmatter": workflowCases(),
	}
	demo := demoFileMap(t)
	for group, cases := range groups {
		t.Run(group, func(t *testing.T) {
			home := newHome(t)
			m := NewManager(home)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					files := demo.clone()
					tc.mutate(t, files)
					archive := filepath.Join(t.TempDir(), "broken.bmad")
					files.writeZip(t, archive, "")
					_, err := m.Import(archive)
					probs := validationProblems(t, err)
					wantProblem(t, probs, tc.file, tc.pointer, tc.msg)
					if !strings.Contains(err.Error(), tc.msg) {
						t.Errorf("Error() does not carry the message %q:\n%s", tc.msg, err)
					}
				})
			}
			assertPristine(t, home)
		})
	}
}

// TestEveryProblemIsCollected breaks several files at once and compares the whole report with
// a golden file.
func TestEveryProblemIsCollected(t *testing.T) {
	files := demoFileMap(t)
	files.patchJSON(t, "bmad.json", func(m map[string]any) { m["version"] = "one" })
	files.patchJSON(t, "agents.json", func(m map[string]any) { obj(m, "agents", 1)["id"] = "analyst" })
	files.patchJSON(t, demoGraph, func(m map[string]any) {
		obj(m, "edges", 0)["to"] = "nowhere"
		obj(m, "nodes", 3)["agentId"] = "editor"
	})
	files.replace(t, demoStep, "## Goal", "## Purpose")
	files.patchFrontmatter(t, demoDecision, func(m map[string]any) { m["nodeId"] = "decide" })
	files.patchFrontmatter(t, demoWorkflow, func(m map[string]any) { delete(m, "stepsCompleted") })
	dir := t.TempDir()
	files.writeDir(t, dir)

	_, err := NewManager(newHome(t)).Check(dir)
	probs := validationProblems(t, err)
	if len(probs) < 6 {
		t.Fatalf("want at least 6 problems, got %d:\n%v", len(probs), err)
	}
	got := err.Error() + "\n"
	golden := filepath.Join("testdata", "golden", "report.txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("report differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

func TestWarningsDoNotBlockImport(t *testing.T) {
	files := demoFileMap(t)
	// An orphan node (unreachable, no way out) and a transition the graph does not have.
	files.patchJSON(t, demoGraph, func(m map[string]any) {
		m["nodes"] = append(arr(m, "nodes"), map[string]any{
			"id": "orphan", "type": "step", "file": "workflows/write-brief/steps/end.md",
		})
	})
	files.patchFrontmatter(t, demoStep, func(m map[string]any) {
		m["transitions"] = append(m["transitions"].([]any), map[string]any{"to": "end", "label": "skip"})
	})
	dir := t.TempDir()
	files.writeDir(t, dir)
	_, err := NewManager(newHome(t)).Check(dir)
	// The orphan reuses end.md, whose nodeId is "end": that is an error, not a warning.
	wantProblem(t, validationProblems(t, err), "workflows/write-brief/steps/end.md", "/nodeId", "does not match the graph node \"orphan\"")

	files.replace(t, demoGraph, `"file": "workflows/write-brief/steps/end.md",
      "id": "orphan"`, `"file": "workflows/write-brief/steps/orphan.md",
      "id": "orphan"`)
	files["workflows/write-brief/steps/orphan.md"] = []byte("---\nschemaVersion: \"1.1\"\nnodeId: orphan\ntype: step\n---\n## Goal\nx\n## Instructions\ny\n")
	dir = t.TempDir()
	files.writeDir(t, dir)
	warnings, err := NewManager(newHome(t)).Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, warnings, demoGraph, "/nodes/5", "cannot be reached from the entry node")
	wantProblem(t, warnings, demoGraph, "/nodes/5", "has no outgoing edges")
	wantProblem(t, warnings, demoStep, "/transitions/1/to", "no edge from \"capture-idea\" to \"end\"")
}

// TestStepSectionsAreWarnings: the schemas require no section of a step, so a missing or
// unknown one is a warning and the package installs.
func TestStepSectionsAreWarnings(t *testing.T) {
	s := demoStep
	cases := []struct {
		name  string
		patch func(t *testing.T, f fileMap)
		want  []string
	}{
		{"no Goal", func(t *testing.T, f fileMap) { f.replace(t, s, "## Goal", "Goal:") },
			[]string{`no "## Goal" section`}},
		{"no Instructions", func(t *testing.T, f fileMap) { f.replace(t, s, "## Instructions", "### Instructions") },
			[]string{`no "## Instructions" section`}},
		{"Goal only inside a code fence", func(t *testing.T, f fileMap) { f.replace(t, s, "## Goal", "```\n## Goal\n```") },
			[]string{`no "## Goal" section`}},
		{"unknown section", func(t *testing.T, f fileMap) { f.replace(t, s, "## Goal", "## Aim") },
			[]string{`no "## Goal" section`, `unknown section "## Aim"`}},
		{"body only, no sections at all", func(t *testing.T, f fileMap) {
			fm, _, _, _ := SplitFrontmatter(f[s])
			f[s] = []byte("---\n" + string(fm) + "---\nCapture the idea.\n")
		}, []string{`no "## Goal" section`, `no "## Instructions" section`}},
		{"Completion is known", func(t *testing.T, f fileMap) { f[s] = append(f[s], "\n## completion\nDone.\n"...) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := demoFileMap(t)
			c.patch(t, files)
			p := filepath.Join(t.TempDir(), "p.bmad")
			files.writeZip(t, p, "")
			inst, err := NewManager(newHome(t)).Import(p)
			if err != nil {
				t.Fatalf("import refused: %v", err)
			}
			if len(inst.Warnings) != len(c.want) {
				t.Fatalf("warnings %v, want %d", inst.Warnings, len(c.want))
			}
			for _, w := range c.want {
				wantProblem(t, inst.Warnings, s, "", w)
			}
		})
	}
}

func TestNodeFileRelativeToGraphFolder(t *testing.T) {
	files := demoFileMap(t)
	files.replace(t, demoGraph, `"file": "workflows/write-brief/steps/capture-idea.md"`, `"file": "steps/capture-idea.md"`)
	dir := t.TempDir()
	files.writeDir(t, dir)
	im, err := NewImporter()
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := im.Validate(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := pkg.Workflow("write-brief").Graph.Node("capture-idea").File; got != demoStep {
		t.Fatalf("node file %q, want it resolved to %q", got, demoStep)
	}
}

func TestHasHeading(t *testing.T) {
	cases := []struct {
		body string
		want bool
	}{
		{"## Goal\n", true},
		{"intro\n##   goal  \n", true},
		{"## Goal ##\n", true},
		{"   ## Goal\n", true},
		{"    ## Goal\n", false}, // indented code
		{"# Goal\n", false},
		{"### Goal\n", false},
		{"##Goal\n", false},
		{"## Goals\n", false},
		{"```\n## Goal\n```\n", false},
		{"~~~md\n## Goal\n~~~\n## Goal\n", true},
	}
	for _, c := range cases {
		if got := hasHeading(c.body, "Goal"); got != c.want {
			t.Errorf("hasHeading(%q) = %v, want %v", c.body, got, c.want)
		}
	}
}
