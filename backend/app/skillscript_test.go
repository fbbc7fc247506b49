package app_test

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/approval"
	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/sandbox"
)

// A skill's bundled script runs through shell.run in a chat: the model
// activates the skill, then runs python3 @skill/sheet-maker/scripts/… with
// the project as the output folder, and the workbook is on disk. The chat is
// in Ask mode with nobody to ask: the command runs only because the active
// skill's allowed-tools (Bash(python3:*)) grant its prefix; another command
// in the same chat is refused.
func TestSkillScriptRunsThroughTheSandbox(t *testing.T) {
	if err := sandbox.Check(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the command sandbox must work in CI: %v", err)
		}
		t.Skipf("bubblewrap cannot start here: %v", err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 runs the skills' scripts and is installed with the app's packages (scripts/lib.sh): %v", err)
	}
	w := newConvWorld(t, `{"tools":{"shell":{"enabled":true,"inChat":true,"timeoutSeconds":60}}}`)
	w.ws.Close()
	copyTree(t, filepath.Join("testdata", "skills", "sheet-maker"), filepath.Join(w.root, ".crewagent", "skills", "sheet-maker"))
	w.open(t)

	const make = `python3 @skill/sheet-maker/scripts/make_xlsx.py @project/fruit.xlsx "Fruit,Qty" "Apples,3" "Pears,5"`
	w.on("Make a workbook of our fruit", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "skill.activate"); ok {
			return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("c-make", "shell.run", map[string]any{"command": make})}}
		}
		if _, ok := afterTool(r, "shell.run"); ok {
			last := r.LastMessage()
			if last.ToolCallID == "c-make" {
				return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("c-other", "shell.run", map[string]any{"command": "touch other.txt"})}}
			}
			return fakellm.Response{Text: "fruit.xlsx is ready."}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("c-act", "skill.activate", map[string]any{"name": "sheet-maker"})}}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Make a workbook of our fruit",
		Approve: approval.Ask, NoAsk: "nobody is there to answer"})
	if err != nil || res.Result == nil || res.Result.Text != "fruit.xlsx is ready." {
		t.Fatalf("chat: %+v, %v", res, err)
	}
	results := map[string]*conversation.Entry{}
	for _, e := range w.entries(t, res.Result.ConversationID) {
		if e.Role == conversation.RoleTool {
			results[e.ToolCallID] = e
		}
	}
	if r := results["c-make"]; r == nil || r.IsError {
		t.Fatalf("the script's result: %+v", r)
	}
	if r := results["c-other"]; r == nil || !r.IsError || !strings.Contains(r.Text(), "nobody is there to answer") {
		t.Fatalf("another command ran without asking: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(w.root, "other.txt")); err == nil {
		t.Fatal("other.txt was made")
	}
	z, err := zip.OpenReader(filepath.Join(w.root, "fruit.xlsx"))
	if err != nil {
		t.Fatalf("the workbook: %v", err)
	}
	defer z.Close()
	var sheet string
	for _, f := range z.File {
		if f.Name == "xl/worksheets/sheet1.xml" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			sheet = string(b)
		}
	}
	for _, want := range []string{"<t>Fruit</t>", "<t>Pears</t>", "<v>5</v>"} {
		if !strings.Contains(sheet, want) {
			t.Fatalf("the sheet lacks %s: %s", want, sheet)
		}
	}
}
