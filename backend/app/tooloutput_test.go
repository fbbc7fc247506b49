package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/app"
	"crewagent/backend/approval"
	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/sandbox"
)

// A command the model runs streams its output to the window while it runs: several
// tool:output events, in order, the last one marked done, all before the call's result. In
// Ask mode the window learns that the call was allowed before its output comes.
func TestCommandOutputStreamsToTheWindow(t *testing.T) {
	for _, mode := range []string{"full-auto", "ask"} {
		t.Run(mode, func(t *testing.T) { testCommandOutput(t, mode) })
	}
}

func testCommandOutput(t *testing.T, mode string) {
	home, root := t.TempDir(), t.TempDir()
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	t.Setenv("CREWAGENT_HOME", "")
	t.Setenv("CREWAGENT_APPROVE", mode)
	t.Setenv("CREWAGENT_LLM_BASE_URL", srv.URL())
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	t.Setenv("CREWAGENT_LLM_API_KEY", "")
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	testkit.WriteFile(t, filepath.Join(home, "settings.json"), `{"tools":{"shell":{"enabled":true,"inChat":true,"timeoutSeconds":60}}}`)
	rec := &events.Recorder{}
	ws, err := app.Open(home, root, app.Options{Emitter: rec}, app.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := sandbox.Check(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the command sandbox must work in CI: %v", err)
		}
		mustOK(t, ws.SetRunWithoutSandbox(true))
	}
	meta, err := ws.Store().Create("", conversation.ActiveChat)
	mustOK(t, err)

	cmd := `for i in 1 2 3 4 5; do echo "line $i"; echo "warn $i" >&2; sleep 0.15; done; printf '\033[31mred\033[0m é\n'`
	args, _ := json.Marshal(map[string]string{"command": cmd})
	srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "sh1", Name: "shell.run", Arguments: string(args)}), fakellm.Text("Ran it."))
	if _, err := ws.Send(app.SendRequest{ConversationID: meta.ID, Text: "run the loop"}); err != nil {
		t.Fatal(err)
	}
	if mode == "ask" {
		testkit.Wait(t, "the approval request", func() bool { return len(rec.Named(events.ApprovalRequested)) == 1 })
		if n := len(rec.Named(events.ToolOutput)); n != 0 {
			t.Fatalf("%d output events before the answer", n)
		}
		mustOK(t, ws.AnswerApproval(meta.ID, "sh1", approval.Answer{Decision: approval.AnswerAllow}))
	}
	testkit.Wait(t, "the reply", func() bool { return len(srv.ChatRequests()) == 2 && !ws.Tasks().Busy(meta.ID) })

	var (
		text     strings.Builder
		outputs  int
		done     = -1
		toolEnd  = -1
		resolved = -1
		first    = -1
		position int
	)
	for _, e := range rec.Events() {
		position++
		switch e.Name {
		case events.ToolOutput:
			o := e.Payload.(events.ToolOutputEvent)
			if o.ConversationID != meta.ID || o.ToolCallID != "sh1" || o.ToolName != "shell.run" {
				t.Fatalf("event %+v", o)
			}
			if done >= 0 {
				t.Fatalf("output after the done event: %+v", o)
			}
			if first < 0 {
				first = position
			}
			if o.Done {
				done = position
			}
			outputs++
			text.WriteString(o.Data)
		case events.ApprovalResolved:
			resolved = position
		case events.StreamToolEnd:
			if e.Payload.(events.ToolEndEvent).ToolCallID == "sh1" {
				toolEnd = position
			}
		}
	}
	// The command sleeps between its lines: the output came in several pieces.
	if outputs < 4 || done < 0 || toolEnd < done {
		t.Fatalf("%d output events, done at %d, tool end at %d", outputs, done, toolEnd)
	}
	if mode == "ask" && (resolved < 0 || resolved > first) {
		t.Fatalf("approval resolved at %d, first output at %d", resolved, first)
	}
	want := ""
	for i := 1; i <= 5; i++ {
		want += "line " + string(rune('0'+i)) + "\nwarn " + string(rune('0'+i)) + "\n"
	}
	want += "\x1b[31mred\x1b[0m é\n"
	if text.String() != want {
		t.Fatalf("output %q, want %q", text.String(), want)
	}
	// What reached the model is the result, as before.
	last := srv.ChatRequests()[1].LastMessage()
	if last.Role != "tool" || !strings.Contains(last.Text(), "line 5") {
		t.Fatalf("%+v", last)
	}
}
