package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"crewagent/backend/conversation"
	"crewagent/backend/frontmatter"
	"crewagent/backend/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestUpdateFrontmatterGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "patch", "workflow.in.md"))
	if err != nil {
		t.Fatal(err)
	}
	upd, err := os.ReadFile(filepath.Join("testdata", "patch", "workflow.update.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, keys, terr := UpdateFrontmatter(in, upd)
	if terr != nil {
		t.Fatal(terr)
	}
	wantKeys := []string{"stepsCompleted", "currentNodeId", "variables", "decisionLog", "artifacts", "obsolete", "newKey", "ratio"}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Fatalf("keys %v", keys)
	}
	if !bytes.Equal(SplitFrontmatter(out).Body, SplitFrontmatter(in).Body) {
		t.Fatal("body changed")
	}
	golden := filepath.Join("testdata", "patch", "workflow.golden.md")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("golden mismatch (run with -update):\n--- got\n%s\n--- want\n%s", out, want)
	}

	// Semantics, independent of formatting.
	var fm map[string]any
	if err := yaml.Unmarshal(SplitFrontmatter(out).YAML, &fm); err != nil {
		t.Fatal(err)
	}
	wantFM := map[string]any{
		"schemaVersion":  "1.1",
		"workflowType":   "create-brief",
		"currentNodeId":  "step-2",
		"stepsCompleted": []any{"step-1"},
		"variables":      map[string]any{"audience": "devs", "flags": map[string]any{"draft": true}, "count": 3},
		"decisionLog":    []any{map[string]any{"from": "step-1", "to": "step-2", "label": "next"}},
		"artifacts":      []any{"artifacts/old.md", "artifacts/brief.md"},
		"runId":          "r-1",
		"newKey":         "true",
		"ratio":          0.5,
	}
	if !reflect.DeepEqual(fm, wantFM) {
		t.Fatalf("frontmatter:\n%#v\nwant\n%#v", fm, wantFM)
	}
	// Key order: existing keys keep their places, new ones come last.
	var order []string
	var doc yaml.Node
	_ = yaml.Unmarshal(SplitFrontmatter(out).YAML, &doc)
	for i := 0; i < len(doc.Content[0].Content); i += 2 {
		order = append(order, doc.Content[0].Content[i].Value)
	}
	wantOrder := []string{"schemaVersion", "workflowType", "currentNodeId", "stepsCompleted", "variables", "decisionLog", "artifacts", "runId", "newKey", "ratio"}
	if !reflect.DeepEqual(order, wantOrder) {
		t.Fatalf("order %v", order)
	}
}

func TestUpdateFrontmatterCases(t *testing.T) {
	tests := []struct {
		name, in, update, want string
		code                   string
	}{
		{"set new key", "---\na: 1\n---\nbody\n", `{"b":{"set":[1,"x"]}}`, "---\na: 1\nb:\n  - 1\n  - x\n---\nbody\n", ""},
		{"set replaces and keeps comment", "---\na: 1 # note\n---\n", `{"a":{"set":2}}`, "---\na: 2 # note\n---\n", ""},
		{"set null", "---\na: 1\n---\n", `{"a":{"set":null}}`, "---\na: null\n---\n", ""},
		{"append creates list", "---\na: 1\n---\n", `{"l":{"append":["x"]}}`, "---\na: 1\nl:\n  - x\n---\n", ""},
		{"append to null", "---\nl:\n---\n", `{"l":{"append":["x"]}}`, "---\nl:\n  - x\n---\n", ""},
		{"append to block list", "---\nl:\n  - a\n---\n", `{"l":{"append":["b","c"]}}`, "---\nl:\n  - a\n  - b\n  - c\n---\n", ""},
		{"merge deep", "---\nv:\n  a: 1\n  n:\n    x: 1\n---\n", `{"v":{"merge":{"n":{"y":2},"b":2}}}`, "---\nv:\n  a: 1\n  n:\n    x: 1\n    y: 2\n  b: 2\n---\n", ""},
		{"merge replaces non-object", "---\nv:\n  n: 1\n---\n", `{"v":{"merge":{"n":{"y":2}}}}`, "---\nv:\n  n:\n    y: 2\n---\n", ""},
		{"unset missing is fine", "---\na: 1\n---\n", `{"zz":{"unset":true}}`, "---\na: 1\n---\n", ""},
		{"unset last key", "---\na: 1\n---\nB", `{"a":{"unset":true}}`, "---\n---\nB", ""},
		{"empty frontmatter", "---\n---\nbody", `{"a":{"set":"x"}}`, "---\na: x\n---\nbody", ""},
		{"no frontmatter gets one", "# Title\n", `{"a":{"set":"x"}}`, "---\na: x\n---\n# Title\n", ""},
		{"crlf kept", "---\r\na: 1\r\n---\r\nbody\r\n", `{"b":{"set":2}}`, "---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n", ""},
		{"bom kept", "\ufeff---\na: 1\n---\nx", `{"a":{"set":2}}`, "\ufeff---\na: 2\n---\nx", ""},
		{"dots close", "---\na: 1\n...\nx", `{"a":{"set":2}}`, "---\na: 2\n...\nx", ""},
		{"string that looks like bool is quoted", "---\n---\n", `{"a":{"set":"yes"}}`, "---\na: \"yes\"\n---\n", ""},
		{"big int exact", "---\n---\n", `{"a":{"set":12345678901234567890}}`, "---\na: 12345678901234567890\n---\n", ""},
		{"append to string", "---\na: x\n---\n", `{"a":{"append":["y"]}}`, "", CodeBadArguments},
		{"append non-array", "---\na: []\n---\n", `{"a":{"append":"y"}}`, "", CodeBadArguments},
		{"merge into list", "---\na: []\n---\n", `{"a":{"merge":{"x":1}}}`, "", CodeBadArguments},
		{"merge non-object", "---\na: {}\n---\n", `{"a":{"merge":[1]}}`, "", CodeBadArguments},
		{"unset false", "---\na: 1\n---\n", `{"a":{"unset":false}}`, "", CodeBadArguments},
		{"two ops", "---\na: 1\n---\n", `{"a":{"set":1,"unset":true}}`, "", CodeBadArguments},
		{"unknown op", "---\na: 1\n---\n", `{"a":{"replace":1}}`, "", CodeBadArguments},
		{"op not object", "---\na: 1\n---\n", `{"a":1}`, "", CodeBadArguments},
		{"empty update", "---\na: 1\n---\n", `{}`, "", CodeBadArguments},
		{"update not object", "---\na: 1\n---\n", `[1]`, "", CodeBadArguments},
		{"invalid yaml", "---\na: [1\n---\n", `{"a":{"set":1}}`, "", CodeSchemaValidation},
		{"yaml not a mapping", "---\n- a\n- b\n---\n", `{"a":{"set":1}}`, "", CodeSchemaValidation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, terr := UpdateFrontmatter([]byte(tc.in), json.RawMessage(tc.update))
			if tc.code != "" {
				if terr == nil || terr.Code != tc.code {
					t.Fatalf("want %s, got %v (%q)", tc.code, terr, out)
				}
				return
			}
			if terr != nil {
				t.Fatal(terr)
			}
			if string(out) != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", out, tc.want)
			}
		})
	}
}

func TestFSApplyPatchTool(t *testing.T) {
	var guarded int
	hs := newHarness(t, func(c *Config) {
		c.StateGuard = StateGuardFunc(func(old, new []byte) error {
			guarded++
			if strings.Contains(string(new), "currentNodeId: bad") {
				return NewError(CodeInvalidTransition, "not reachable", map[string]any{"allowedNext": []string{"step-1"}})
			}
			return nil
		})
	})
	statePath := filepath.Join(hs.f.roots.State, StateFileName)
	m := hs.mustOK(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter",
		"update": map[string]any{"stepsCompleted": map[string]any{"append": []string{"step-1"}}}})
	b, _ := os.ReadFile(statePath)
	if m["sha256"] != shaOf(string(b)) || !strings.Contains(m["frontmatter"].(string), "step-1") ||
		!reflect.DeepEqual(m["updatedKeys"], []any{"stepsCompleted"}) || guarded != 1 {
		t.Fatalf("result %v guarded %d", m, guarded)
	}
	if !strings.HasSuffix(string(b), "---\n# Demo\n\nBody text.\n") {
		t.Fatalf("body changed: %q", b)
	}
	e := hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter",
		"update": map[string]any{"currentNodeId": map[string]any{"set": "bad"}}}, CodeInvalidTransition)
	if e["details"].(map[string]any)["allowedNext"] == nil {
		t.Fatalf("details: %v", e)
	}
	if b2, _ := os.ReadFile(statePath); !bytes.Equal(b, b2) {
		t.Fatal("rejected patch changed the state file")
	}
	// ifMatchSha256
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter",
		"update": map[string]any{"a": map[string]any{"set": 1}}, "ifMatchSha256": shaOf("stale")}, CodePreconditionFailed)
	hs.mustOK(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter",
		"update": map[string]any{"a": map[string]any{"set": 1}}, "ifMatchSha256": shaOf(string(b))})

	// Other files and errors.
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@project/missing.md", "operation": "updateFrontmatter",
		"update": map[string]any{"a": map[string]any{"set": 1}}}, CodeNotFound)
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@pkg/workflows/a.md", "operation": "updateFrontmatter",
		"update": map[string]any{"a": map[string]any{"set": 1}}}, CodeSandboxViolation)
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "replace",
		"update": map[string]any{"a": map[string]any{"set": 1}}}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter"}, CodeBadArguments)
	testkit.WriteFile(t, filepath.Join(hs.f.roots.Project, "data.json"), `{"a":1}`)
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@project/data.json", "operation": "updateFrontmatter",
		"update": map[string]any{"a": map[string]any{"set": 1}}}, CodeBadArguments)
	m = hs.mustOK(conversation.ToolFSApplyPatch, map[string]any{"path": "@project/docs/readme.md", "operation": "updateFrontmatter",
		"update": map[string]any{"title": map[string]any{"set": "Readme"}}})
	if b, _ := os.ReadFile(filepath.Join(hs.f.roots.Project, "docs/readme.md")); string(b) != "---\ntitle: Readme\n---\n# Readme\nline two\nline three\n" {
		t.Fatalf("readme: %q", b)
	}
	if len(hs.artifacts()) != 0 {
		t.Fatal("apply_patch reported an artifact")
	}
	noTempFiles(t, hs.f.base)
}

func TestFSApplyPatchWriteLimit(t *testing.T) {
	hs := newHarness(t, func(c *Config) { c.Policy.FS.MaxWriteBytes = 120 })
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter",
		"update": map[string]any{"long": map[string]any{"set": strings.Repeat("x", 200)}}}, CodeWriteLimit)
}

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		in         string
		found      bool
		yaml, body string
	}{
		{"---\na: 1\n---\nbody", true, "a: 1\n", "body"},
		{"---\n---\n", true, "", ""},
		{"---  \na: 1\n---\t\n", true, "a: 1\n", ""},
		{"---\na: 1\n---", true, "a: 1\n", ""},
		{"---\na: 1\n", false, "", "---\na: 1\n"},
		{"----\na: 1\n---\n", false, "", "----\na: 1\n---\n"},
		{"# no fm\n---\na\n---\n", false, "", "# no fm\n---\na\n---\n"},
		{"---\na: 1\n---x\n---\nb", true, "a: 1\n---x\n", "b"},
		{"", false, "", ""},
	}
	for _, tc := range tests {
		fm := SplitFrontmatter([]byte(tc.in))
		if fm.Found != tc.found || string(fm.YAML) != tc.yaml || string(fm.Body) != tc.body {
			t.Errorf("%q: found=%v yaml=%q body=%q", tc.in, fm.Found, fm.YAML, fm.Body)
		}
	}
}

func FuzzSplitFrontmatter(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nbody", "---\r\na: 1\r\n...\r\n", "\ufeff---\n---\n", "no frontmatter", "---\n- x\n---\n",
		"---\na: [1\n---\n", "---\nl: []\nv: {}\n---\n---\n"} {
		f.Add([]byte(s))
	}
	upd := json.RawMessage(`{"stepsCompleted":{"append":["s"]},"variables":{"merge":{"k":"v"}},"x":{"set":"---"},"gone":{"unset":true}}`)
	f.Fuzz(func(t *testing.T, b []byte) {
		fm := SplitFrontmatter(b)
		joined := append(append(append(append([]byte{}, fm.Open...), fm.YAML...), fm.Close...), fm.Body...)
		if !bytes.Equal(joined, b) {
			t.Fatalf("split does not reassemble: %q", b)
		}
		if !fm.Found {
			if len(fm.Open)+len(fm.YAML)+len(fm.Close) != 0 {
				t.Fatalf("parts without frontmatter: %q", b)
			}
			return
		}
		if !bytes.HasPrefix(bytes.TrimPrefix(fm.Open, frontmatter.BOM), []byte("---")) {
			t.Fatalf("open %q", fm.Open)
		}
		if c := strings.TrimRight(string(fm.Close), " \t\r\n"); c != "---" && c != "..." {
			t.Fatalf("close %q", fm.Close)
		}
		out, _, terr := UpdateFrontmatter(b, upd)
		if terr != nil {
			return
		}
		again := SplitFrontmatter(out)
		if !again.Found || !bytes.Equal(again.Body, fm.Body) {
			t.Fatalf("body not preserved:\nin  %q\nout %q", b, out)
		}
		var m map[string]any
		if err := yaml.Unmarshal(again.YAML, &m); err != nil {
			t.Fatalf("output frontmatter does not parse: %v\n%q", err, out)
		}
		if m["x"] != "---" {
			t.Fatalf("set value lost: %v", m)
		}
	})
}

// "variables": {"set": {...}} adds or replaces the keys it names and keeps the others, as
// the original runtime did; "unset" with a list of names removes variables; other keys'
// "set" still replaces the value.
func TestFSApplyPatchVariablesMerge(t *testing.T) {
	hs := newHarness(t, nil)
	patch := func(update map[string]any) map[string]any {
		return hs.mustOK(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter", "update": update})
	}
	vars := func() (map[string]any, map[string]any) {
		b, _ := os.ReadFile(filepath.Join(hs.f.roots.State, StateFileName))
		var fm map[string]any
		if err := yaml.Unmarshal(SplitFrontmatter(b).YAML, &fm); err != nil {
			t.Fatal(err)
		}
		v, _ := fm["variables"].(map[string]any)
		return v, fm
	}
	patch(map[string]any{"variables": map[string]any{"set": map[string]any{"name": "Ada", "mood": "happy"}}})
	patch(map[string]any{"variables": map[string]any{"set": map[string]any{"mood": "sad", "score": 3}}})
	if v, _ := vars(); !reflect.DeepEqual(v, map[string]any{"name": "Ada", "mood": "sad", "score": 3}) {
		t.Fatalf("after two sets: %v", v)
	}
	patch(map[string]any{"variables": map[string]any{"unset": []string{"name", "missing"}}})
	if v, _ := vars(); !reflect.DeepEqual(v, map[string]any{"mood": "sad", "score": 3}) {
		t.Fatalf("after unset: %v", v)
	}
	patch(map[string]any{"workflowRef": map[string]any{"set": map[string]any{"a": 1, "b": 2}}})
	patch(map[string]any{"workflowRef": map[string]any{"set": map[string]any{"c": 3}}})
	if _, fm := vars(); !reflect.DeepEqual(fm["workflowRef"], map[string]any{"c": 3}) {
		t.Fatalf("set on another key: %v", fm["workflowRef"])
	}
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter",
		"update": map[string]any{"stepsCompleted": map[string]any{"unset": []string{"x"}}}}, CodeBadArguments)
	hs.mustFail(conversation.ToolFSApplyPatch, map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter",
		"update": map[string]any{"variables": map[string]any{"unset": []any{1}}}}, CodeBadArguments)
	patch(map[string]any{"variables": map[string]any{"unset": true}})
	if v, fm := vars(); v != nil || fm["variables"] != nil {
		t.Fatalf("unset true: %v", fm)
	}
	// The runtime's own UpdateFrontmatter keeps "set" as a replacement (a new run resets them).
	b, _ := os.ReadFile(filepath.Join(hs.f.roots.State, StateFileName))
	out, _, terr := UpdateFrontmatter(b, json.RawMessage(`{"variables":{"set":{"a":1}}}`))
	if terr != nil {
		t.Fatal(terr)
	}
	out, _, terr = UpdateFrontmatter(out, json.RawMessage(`{"variables":{"set":{}}}`))
	if terr != nil || !strings.Contains(string(out), "variables: {}") {
		t.Fatalf("reset: %s %v", out, terr)
	}
}
