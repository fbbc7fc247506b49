package conversation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoRun is the graph of the demo package's write-brief workflow.
func demoRun(steps []string, current string, complete bool) *RunInfo {
	return &RunInfo{
		Nodes: map[string]RunNode{
			"capture-idea":  {Title: "Capture the idea", Type: "step", File: "workflows/write-brief/steps/capture-idea.md"},
			"check-clarity": {Title: "Is the idea clear enough?", Type: "decision", File: "workflows/write-brief/steps/check-clarity.md"},
			"clarify-idea":  {Title: "Clarify the idea", Type: "step", File: "workflows/write-brief/steps/clarify-idea.md"},
			"draft-brief":   {Title: "Draft the brief", Type: "step", File: "workflows/write-brief/steps/draft-brief.md"},
			"end":           {Title: "Wrap up", Type: "end", File: "workflows/write-brief/steps/end.md"},
		},
		StepsCompleted: steps, Current: current, Complete: complete,
	}
}

func TestCallWords(t *testing.T) {
	info := demoRun(nil, "capture-idea", false)
	tests := []struct {
		tool, args string
		failed     bool
		info       *RunInfo
		want       string
	}{
		{"fs.read", `{"path":"@state/workflow.md"}`, false, info, "read the run's state"},
		{"fs.read", `{"path":"@pkg/workflows/write-brief/steps/capture-idea.md"}`, false, info, "read the step's instructions"},
		{"fs.read", `{"path":"@pkg/workflows/write-brief/steps/capture-idea.md"}`, false, nil, "read the step's instructions"},
		{"fs.read", `{"path":"@pkg/assets/brief-template.md"}`, false, info, "read brief-template.md"},
		{"fs.read", `{"path":"@project/docs/notes.md","startLine":3}`, true, info, "tried: read notes.md (failed)"},
		{"fs.read", `{"path":"@state/logs/tool-results/c/m.json"}`, false, info, "read a saved tool output"},
		{"fs.read", `{"pa`, false, info, "read a file"},
		{"fs.list", `{"path":"@project"}`, false, info, "listed the project"},
		{"fs.list", `{"path":"@project/src/"}`, false, info, "listed src"},
		{"fs.search", `{"path":"@project","pattern":"TODO|FIXME"}`, false, info, "searched for “TODO|FIXME”"},
		{"fs.write", `{"path":"@project/artifacts/idea-notes.md","content":"# x"}`, false, info, "wrote idea-notes.md"},
		{"fs.apply_patch", `{"path":"@project/a.md","operation":"updateFrontmatter","update":{}}`, false, info, "edited a.md"},
		{"fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"stepsCompleted":{"append":["capture-idea"]},"currentNodeId":{"set":"check-clarity"},"variables":{"merge":{"ideaClear":true}}}}`,
			false, info, "moved to “Is the idea clear enough?”"},
		{"fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"stepsCompleted":{"append":["check-clarity"]},"currentNodeId":{"set":"draft-brief"},"decisionLog":{"append":[{"from":"check-clarity","to":"draft-brief","label":"clear enough"}]}}}`,
			false, info, "decided: clear enough, moved to “Draft the brief”"},
		{"fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"stepsCompleted":{"append":["end"]},"variables":{"merge":{"workflowStatus":"complete"}}}}`,
			false, info, "finished the run"},
		{"fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"stepsCompleted":{"append":["draft-brief"]}}}`,
			false, info, "finished “Draft the brief”"},
		{"fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"variables":{"merge":{"ideaClear":false}}}}`,
			false, info, "updated the run's state"},
		{"fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":{"currentNodeId":{"set":"somewhere"}}}`,
			false, nil, "moved to the next step"},
		{"fs.apply_patch", `{"path":"@state/workflow.md","update":"garbage"}`, false, info, "updated the run's state"},
		{"ui.ask_user", `{"type":"confirmation","prompt":"Sure?"}`, false, info, "asked you a question"},
		{"mcp__files__read", `{}`, false, info, "used read of files"},
		{"mcp__broken", `{}`, false, info, "used the tool mcp__broken"},
		{"conv.create", `{"user_instruction":"Find three hotels in Lyon","title":"Hotels"}`, false, nil, "handed a task to a new conversation “Hotels”"},
		{"conv.create", `{"user_instruction":"Find three hotels in Lyon"}`, false, nil, "handed a task to a new conversation “Find three hotels in Lyon”"},
		{"conv.send", `{"conversation_id":"c","text":"How much is left?"}`, false, nil, "asked another conversation “How much is left?”"},
		{"conv.list", `{}`, false, nil, "listed the conversations"},
		{"skill.activate", `{"name":"pptx"}`, false, nil, "activated the skill “pptx”"},
	}
	for _, tt := range tests {
		if got := CallSaid(tt.tool, tt.args, tt.failed, tt.info).String(); got != tt.want {
			t.Errorf("CallSaid(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
		// nothing internal in the words: no aliases, node ids or variable names
		for _, leak := range []string{"@state", "@pkg", "@project", "capture-idea", "ideaClear", "workflowStatus", "check-clarity"} {
			if strings.Contains(CallSaid(tt.tool, tt.args, tt.failed, tt.info).String(), leak) {
				t.Errorf("CallSaid(%s, %s) names %s", tt.tool, tt.args, leak)
			}
		}
	}
}

// callsOf is an assistant message of run r1 with one tool call per
// {name, arguments}, each answered by a result (failed when its arguments
// contain "FAIL").
func callsOf(id string, calls ...[2]string) []*Entry {
	a := msg(id, RoleAssistant, "", run("r1"))
	out := []*Entry{a}
	for k, c := range calls {
		callID := id + "-c" + string(rune('0'+k))
		a.ToolCalls = append(a.ToolCalls, ToolCall{ID: callID, Type: "function", Function: FunctionCall{Name: c[0], Arguments: c[1]}})
		r := msg(id+"-r"+string(rune('0'+k)), RoleTool, `{"ok":true}`, run("r1"), result(callID))
		r.ToolName = c[0]
		if strings.Contains(c[1], "FAIL") {
			r.IsError = true
		}
		out = append(out, r)
	}
	return out
}

func patchOf(update string) [2]string {
	return [2]string{"fs.apply_patch", `{"path":"@state/workflow.md","operation":"updateFrontmatter","update":` + update + `}`}
}

// demoLog is the log of a demo run: the first step, a question, the answer,
// the decision, the draft, the end, the closing words; then a change after
// the run, confirmed.
func demoLog() []*Entry {
	var es []*Entry
	add := func(more ...*Entry) { es = append(es, more...) }
	add(msg("u1", RoleUser, RunInput("capture-idea", "A shared grocery list."), run("r1")))
	add(callsOf("a1", [2]string{"fs.read", `{"path":"@state/workflow.md"}`})...)
	add(callsOf("a2", [2]string{"fs.read", `{"path":"@pkg/workflows/write-brief/steps/capture-idea.md"}`})...)
	add(callsOf("a3", [2]string{"fs.write", `{"path":"@project/artifacts/idea-notes.md","content":"## Idea"}`})...)
	add(callsOf("a4", patchOf(`{"stepsCompleted":{"append":["capture-idea"]},"currentNodeId":{"set":"check-clarity"},"variables":{"merge":{"ideaClear":true}}}`))...)
	add(msg("rec1", RoleSystem, "NODE_COMPLETE capture-idea", run("r1"), part("record")))
	add(ask("w1", "k1", "r1")...)
	add(answer("u2", "w1", "r1"))
	add(callsOf("a5", patchOf(`{"stepsCompleted":{"append":["check-clarity"]},"currentNodeId":{"set":"draft-brief"},"decisionLog":{"append":[{"label":"clear enough"}]}}`))...)
	add(callsOf("a6", [2]string{"fs.read", `{"path":"@pkg/assets/brief-template.md"}`}, [2]string{"fs.read", `{"path":"@project/FAIL.md"}`})...)
	add(callsOf("a7", [2]string{"fs.write", `{"path":"@project/artifacts/project-brief.md","content":"# Brief"}`})...)
	add(callsOf("a8", patchOf(`{"stepsCompleted":{"append":["draft-brief"]},"currentNodeId":{"set":"end"}}`))...)
	add(callsOf("a9", patchOf(`{"stepsCompleted":{"append":["end"]},"variables":{"merge":{"workflowStatus":"complete"}}}`))...)
	add(msg("a10", RoleAssistant, "Done! The brief is in artifacts/project-brief.md.", run("r1")))
	add(msg("u3", RoleUser, RunInput("end", "Please mark the idea as unclear."), run("r1")))
	add(callsOf("a11", patchOf(`{"variables":{"merge":{"ideaClear":false}}}`))...)
	add(msg("a12", RoleAssistant, "Updated.", run("r1")))
	return es
}

// steps lists the step rows of views as "first: title — summary (calls,
// failed)" and checks that every entry of a step names its first.
func steps(t *testing.T, views []EntryView) []string {
	t.Helper()
	var out []string
	firsts := map[string]bool{}
	for _, v := range views {
		if s := v.View.Step; s != nil {
			firsts[v.ID] = true
			line := v.ID + ": " + s.Title + " — " + s.Summary + " (" + itoa(s.Calls)
			if s.Failed > 0 {
				line += ", " + itoa(s.Failed) + " failed"
			}
			out = append(out, line+")")
		}
	}
	for _, v := range views {
		if v.View.InStep != "" && !firsts[v.View.InStep] {
			t.Errorf("%s is in the step %s, which is not a step", v.ID, v.View.InStep)
		}
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRunStepsInWords(t *testing.T) {
	complete := demoRun([]string{"capture-idea", "check-clarity", "draft-brief", "end"}, "end", true)
	tests := []struct {
		name    string
		entries []*Entry
		info    *RunInfo
		want    []string
	}{
		{"a finished run", demoLog(), complete, []string{
			"a1: Step 1 · Capture the idea — read the run's state, read the step's instructions, wrote idea-notes.md, moved to “Is the idea clear enough?” (4)",
			"a5: Step 2 · Is the idea clear enough? — decided: clear enough, moved to “Draft the brief” (1)",
			"a6: Step 3 · Draft the brief — read brief-template.md, tried: read FAIL.md (failed), wrote project-brief.md, moved to “Wrap up” (4, 1 failed)",
			"a9: Step 4 · Wrap up — finished the run (1)",
			"a11: After the run — updated the run's state (1)",
		}},
		{"the page starts in the middle of the run", demoLog()[13:], complete, []string{
			"a5: Step 2 · Is the idea clear enough? — decided: clear enough, moved to “Draft the brief” (1)",
			"a6: Step 3 · Draft the brief — read brief-template.md, tried: read FAIL.md (failed), wrote project-brief.md, moved to “Wrap up” (4, 1 failed)",
			"a9: Step 4 · Wrap up — finished the run (1)",
			"a11: After the run — updated the run's state (1)",
		}},
		{"a step in progress", demoLog()[:5], demoRun(nil, "capture-idea", false), []string{
			"a1: Step 1 · Capture the idea — read the run's state, read the step's instructions (2)",
		}},
		{"without the run's graph", demoLog()[:9], nil, []string{
			"a1: Run step — read the run's state, read the step's instructions, wrote idea-notes.md, moved to the next step (4)",
		}},
		{"a step done twice (a loop)", append(demoLog()[:9:9],
			append(callsOf("b1", [2]string{"fs.read", `{"path":"@pkg/workflows/write-brief/steps/capture-idea.md"}`},
				patchOf(`{"stepsCompleted":{"append":["capture-idea"]},"currentNodeId":{"set":"check-clarity"}}`)),
				callsOf("b2", [2]string{"fs.read", `{"path":"@state/workflow.md"}`})...)...),
			demoRun([]string{"capture-idea", "capture-idea"}, "check-clarity", false), []string{
				"a1: Step 1 · Capture the idea — read the run's state, read the step's instructions, wrote idea-notes.md, moved to “Is the idea clear enough?” (4)",
				"b1: Step 2 · Capture the idea — read the step's instructions, moved to “Is the idea clear enough?” (2)",
				"b2: Step 3 · Is the idea clear enough? — read the run's state (1)",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := steps(t, ViewsWith(tt.entries, ViewOptions{Runs: map[string]*RunInfo{"r1": tt.info}}))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	// chat and agent mode: tool calls stay cards
	chat := callsOf("c1", [2]string{"fs.read", `{"path":"@project/a.md"}`})
	for _, e := range chat {
		e.RunID, e.Mode = "", ModeAgent
	}
	if got := steps(t, Views(chat)); len(got) != 0 {
		t.Fatalf("agent mode grouped: %v", got)
	}
}

// The views of the demo run, as the screen receives them.
func TestRunStepsGolden(t *testing.T) {
	views := ViewsWith(demoLog(), ViewOptions{Runs: map[string]*RunInfo{"r1": demoRun([]string{"capture-idea", "check-clarity", "draft-brief", "end"}, "end", true)}})
	type row struct {
		ID   string `json:"id"`
		View View   `json:"view"`
	}
	var rows []row
	for _, v := range views {
		rows = append(rows, row{v.ID, v.View})
	}
	got, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "run-steps.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(got)+"\n" {
		t.Fatalf("views differ from %s (run with -update to accept):\n%s", golden, got)
	}
}
