package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/engine"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/workflow"
)

// runEnv runs commands as the run tests need them (no standard input).
type runEnv struct{ *llmEnv }

func newRunEnv(t *testing.T) *runEnv {
	t.Helper()
	return &runEnv{newLLMEnv(t)}
}

func (r *runEnv) run(t *testing.T, args ...string) runResult {
	t.Helper()
	return r.runStdin(t, "", args...)
}

func toolCall(name string, args any) fakellm.Response {
	b, _ := json.Marshal(args)
	return fakellm.Tools(fakellm.ToolCall{Name: name, Arguments: string(b)})
}

func statePatch(update map[string]any) fakellm.Response {
	return toolCall("fs.apply_patch", map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter", "update": update})
}

func oneLineErr(t *testing.T, r runResult, code int, contains string) {
	t.Helper()
	if r.code != code || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, contains) {
		t.Fatalf("want exit %d and one stderr line containing %q, got %+v", code, contains, r)
	}
}

func TestRunCommands(t *testing.T) {
	r := newRunEnv(t)

	oneLineErr(t, r.run(t, "run", "start"), 1, "usage: crewagent run start --workflow ID")
	oneLineErr(t, r.run(t, "run", "status", "nope"), 1, `no run "nope"`)

	// No package installed: the demo is installed and bound to the project.
	r.srv.Enqueue(
		toolCall("fs.read", map[string]any{"path": "@state/workflow.md"}),
		toolCall("fs.write", map[string]any{"path": "@project/artifacts/idea-notes.md", "content": "## Idea\nRoommate grocery list.\n"}),
		statePatch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"capture-idea"}},
			"currentNodeId":  map[string]any{"set": "check-clarity"},
		}),
		fakellm.Text("Captured."),
	)
	res := r.run(t, "run", "start", "--workflow", "write-brief", "--json", "A grocery list for roommates.")
	var out runOutput
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &out) != nil {
		t.Fatalf("run start: %+v", res)
	}
	if out.RunID == "" || out.ConversationID == "" || out.Phase != workflow.PhaseWaitingUser || out.CurrentNodeID != "check-clarity" ||
		!slices.Equal(out.StepsCompleted, []string{"capture-idea"}) || !slices.Equal(out.Artifacts, []string{"artifacts/idea-notes.md"}) ||
		out.Text != "Captured." || out.Intent != workflow.IntentStart || out.PackageID != "crewagent-demo@1.0.0" {
		t.Fatalf("run start output: %+v", out)
	}
	p, err := project.Open(r.home, r.root)
	if err != nil || p.ActivePackageID != "crewagent-demo@1.0.0" {
		t.Fatalf("package not bound to the project: %+v %v", p, err)
	}
	if _, err := os.Stat(filepath.Join(r.root, "artifacts", "idea-notes.md")); err != nil {
		t.Fatal(err)
	}

	// context --mode run previews the next run request without calling the LLM.
	before := len(r.srv.ChatRequests())
	res = r.run(t, "context", out.ConversationID, "--mode", "run", "--json")
	var prev engine.Preview
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &prev) != nil {
		t.Fatalf("context --mode run: %+v", res)
	}
	var blocks []string
	for _, m := range prev.Messages {
		if m.Role == "user" && m.Content != nil && (strings.HasPrefix(*m.Content, "RUN_DIRECTIVE") || strings.HasPrefix(*m.Content, "NODE_BRIEF")) {
			blocks = append(blocks, strings.SplitN(*m.Content, "\n", 2)[0])
		}
	}
	if prev.Mode != "run" || prev.AgentID != "analyst" || !slices.Equal(blocks, []string{"RUN_DIRECTIVE", "NODE_BRIEF"}) ||
		!strings.Contains(res.stdout, "currentNodeId: check-clarity") || len(r.srv.ChatRequests()) != before {
		t.Fatalf("run preview: mode %q agent %q blocks %v requests %d->%d", prev.Mode, prev.AgentID, blocks, before, len(r.srv.ChatRequests()))
	}
	res = r.run(t, "context", out.ConversationID, "--mode", "chat")
	if res.code != 0 || strings.Contains(res.stdout, "RUN_DIRECTIVE") {
		t.Fatalf("chat-mode preview of a run conversation: %+v", res)
	}

	// status and list
	res = r.run(t, "run", "status", out.RunID)
	if res.code != 0 || !strings.Contains(res.stdout, "phase: waiting-user") || !strings.Contains(res.stdout, "current node: check-clarity (agent analyst)") ||
		!strings.Contains(res.stdout, "[x] capture-idea  [>] check-clarity") || !strings.Contains(res.stdout, "artifacts: artifacts/idea-notes.md") {
		t.Fatalf("run status: %+v", res)
	}
	res = r.run(t, "run", "status", out.RunID, "--json")
	var st workflow.RunStatus
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &st) != nil || st.Phase != workflow.PhaseWaitingUser || len(st.Nodes) != 5 {
		t.Fatalf("run status --json: %+v", res)
	}
	res = r.run(t, "run", "list")
	if res.code != 0 || !strings.Contains(res.stdout, out.RunID) || !strings.Contains(res.stdout, "waiting-user") {
		t.Fatalf("run list: %+v", res)
	}
	res = r.run(t, "run", "list", "--json")
	var runs []workflow.Run
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &runs) != nil || len(runs) != 1 || runs[0].RunID != out.RunID {
		t.Fatalf("run list --json: %+v", res)
	}

	// continue (a new process each time): a question, then its answer as text.
	r.srv.Enqueue(toolCall("ui.ask_user", map[string]any{"type": "selection", "prompt": "Web or mobile?", "options": []string{"web", "mobile"}}))
	res = r.run(t, "run", "continue", out.RunID, "go", "on")
	if res.code != 0 || !strings.Contains(res.stdout, "question: Web or mobile? (answer one of: web, mobile)") || !strings.Contains(res.stdout, "phase: waiting-user (node check-clarity)") {
		t.Fatalf("run continue: %+v", res)
	}
	reqs := r.srv.ChatRequests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last.LastUserText(), "USER_INPUT\n- forNodeId: check-clarity\ngo on") {
		t.Fatalf("user input: %q", last.LastUserText())
	}
	r.srv.Enqueue(fakellm.Text("Mobile, noted."))
	res = r.run(t, "run", "continue", out.RunID, "mobile")
	if res.code != 0 || !strings.Contains(res.stdout, "Mobile, noted.") {
		t.Fatalf("answer: %+v", res)
	}
	reqs = r.srv.ChatRequests()
	if !strings.Contains(reqs[len(reqs)-1].LastUserText(), `Answer to "Web or mobile?"`) {
		t.Fatalf("the answer was not recorded as the widget's answer: %q", reqs[len(reqs)-1].LastUserText())
	}

	// An LLM failure exits 2 after it is persisted.
	r.srv.Enqueue(fakellm.Unauthorized())
	res = r.run(t, "run", "continue", out.RunID, "next")
	oneLineErr(t, res, ExitLLMFailed, "LLM_AUTH")
	res = r.run(t, "run", "status", out.RunID, "--json")
	if json.Unmarshal([]byte(res.stdout), &st) != nil || st.Phase != workflow.PhaseFailed || st.LastError == nil || st.LastError.Code != "LLM_AUTH" {
		t.Fatalf("status after the failure: %+v", res)
	}

	// Unknown workflow: one line naming the available ones.
	oneLineErr(t, r.run(t, "run", "start", "--workflow", "nope"), 1, "available: write-brief")
	oneLineErr(t, r.run(t, "run", "continue", out.RunID), 1, "usage")
}

func TestPackageCommands(t *testing.T) {
	r := newRunEnv(t)
	res := r.run(t, "package", "list")
	if res.code != 0 || !strings.Contains(res.stdout, "no packages installed") {
		t.Fatalf("empty list: %+v", res)
	}
	file := filepath.Join(t.TempDir(), "demo.bmad")
	if err := packages.WriteDemo(file); err != nil {
		t.Fatal(err)
	}
	res = r.run(t, "package", "import", file)
	if res.code != 0 || !strings.HasPrefix(res.stdout, "installed crewagent-demo@1.0.0\tcrewagent-demo 1.0.0\tworkflows: write-brief\tagents: analyst, writer") {
		t.Fatalf("import: %+v", res)
	}
	res = r.run(t, "package", "list", "--json")
	var list []packages.Installed
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &list) != nil || len(list) != 1 || list[0].ID != "crewagent-demo@1.0.0" {
		t.Fatalf("list --json: %+v", res)
	}
	bad := filepath.Join(t.TempDir(), "bad.bmad")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = r.run(t, "package", "import", bad)
	if res.code != 1 || strings.Count(res.stderr, "\n") != 2 || !strings.Contains(res.stderr, "error: bad.bmad: not a valid .bmad/.zip archive") ||
		!strings.Contains(res.stderr, "is not a valid package (1 problem, listed above); nothing was installed") {
		t.Fatalf("bad import: %+v", res)
	}
	oneLineErr(t, r.run(t, "package", "import"), 1, "usage: crewagent package import FILE")

	// remove: the demo stays away, and a run without a package says what to do
	oneLineErr(t, r.run(t, "package", "remove", "nope@1.0.0"), 1, `package "nope@1.0.0" is not installed`)
	oneLineErr(t, r.run(t, "package", "remove"), 1, "usage: crewagent package remove ID")
	res = r.run(t, "package", "remove", "crewagent-demo@1.0.0", "--json")
	var removed map[string]string
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &removed) != nil || removed["removed"] != "crewagent-demo@1.0.0" {
		t.Fatalf("remove: %+v", res)
	}
	if res = r.run(t, "package", "list"); !strings.Contains(res.stdout, "no packages installed") {
		t.Fatalf("list after remove: %+v", res)
	}
	oneLineErr(t, r.run(t, "run", "start", "--workflow", "write-brief"), 1, "crewagent package install-demo")
	res = r.run(t, "package", "install-demo")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "installed crewagent-demo@1.0.0\t") {
		t.Fatalf("install-demo: %+v", res)
	}
}
