package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/tools"
	"crewagent/backend/workflow"
)

const briefNotes = "## Idea\nA shared grocery list for roommates.\n"

func toolCall(name string, args any) fakellm.Response {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return fakellm.Tools(fakellm.ToolCall{Name: name, Arguments: string(b)})
}

func statePatch(update map[string]any) fakellm.Response {
	return toolCall("fs.apply_patch", map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter", "update": update})
}

// waitTurn waits for the n-th conversation:changed with streaming=false of a
// conversation (1-based) and returns it.
func waitTurn(t *testing.T, rec *events.Recorder, id string, n int) events.ChangeEvent {
	t.Helper()
	var got events.ChangeEvent
	testkit.Wait(t, "the turn to end", func() bool {
		seen := 0
		for _, c := range changes(rec) {
			if c.ConversationID == id && c.Streaming != nil && !*c.Streaming {
				seen++
				if seen == n {
					got = c
					return true
				}
			}
		}
		return false
	})
	return got
}

func progressOf(rec *events.Recorder, runID string) []workflow.Progress {
	var out []workflow.Progress
	for _, p := range rec.Named(events.RunsProgressUpdated) {
		if pr, ok := p.(workflow.Progress); ok && pr.RunID == runID {
			out = append(out, pr)
		}
	}
	return out
}

func nodeStatuses(st *workflow.RunStatus) string {
	var parts []string
	for _, n := range st.Nodes {
		parts = append(parts, n.ID+"="+n.Status)
	}
	return strings.Join(parts, ",")
}

// TestRunInTheConversationView drives the demo workflow through the bound
// methods against the fake LLM: start, progress events, a selection widget
// answered with a structured answer, completion, talking after completion,
// the run panel's data (status, execution log, artifacts) and the run-mode
// context preview.
func TestRunInTheConversationView(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(
		toolCall("fs.read", map[string]any{"path": "@state/workflow.md"}),
		toolCall("fs.write", map[string]any{"path": "@project/artifacts/idea-notes.md", "content": briefNotes}),
		statePatch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"capture-idea"}},
			"currentNodeId":  map[string]any{"set": "check-clarity"},
			"variables":      map[string]any{"merge": map[string]any{"ideaClear": true}},
		}),
		toolCall("ui.ask_user", map[string]any{"type": "selection", "prompt": "Which format should the brief have?", "options": []string{"One page", "Bullet summary"}}),
	)
	w := startedTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	conv, err := a.Conversations.Create("")
	must(t, err)
	_, err = a.Chat.SetMode(conv.ID, "run", "")
	must(t, err)

	run, err := a.Runs.Start(app.StartRunRequest{ConversationID: conv.ID, WorkflowID: "write-brief", Message: "A shared grocery list for roommates."})
	if err != nil {
		t.Fatal(err)
	}
	if run.ConversationID != conv.ID || run.PackageID != w.info.ActivePackageID || run.WorkflowID != "write-brief" {
		t.Fatalf("StartRun = %+v", run)
	}
	if m, _ := a.Conversations.Get(conv.ID); m.Title != "Write a project brief" {
		t.Fatalf("the conversation is titled %q, not after its workflow", m.Title)
	}
	if end := waitTurn(t, w.rec, conv.ID, 1); end.Error != nil {
		t.Fatalf("turn 1 ended with %+v", end.Error)
	}

	// the turn streamed like a chat reply
	for _, name := range []string{events.StreamStart, events.StreamEnd, events.StreamToolStart, events.StreamToolEnd, events.ContextUsage, events.RunsProgressUpdated} {
		if len(w.rec.Named(name)) == 0 {
			t.Errorf("no %s event during the run turn", name)
		}
	}
	for _, p := range w.rec.Named(events.StreamStart) {
		if s := p.(engine.StreamStartEvent); s.ConversationID != conv.ID || s.Mode != conversation.ModeRun {
			t.Fatalf("stream-start %+v", s)
		}
	}
	// as in chat, the usage is reported before the model is called
	firstStart, firstUsage := -1, -1
	for i, ev := range w.rec.Events() {
		switch p := ev.Payload.(type) {
		case engine.StreamStartEvent:
			if firstStart < 0 && p.ConversationID == conv.ID {
				firstStart = i
			}
		case engine.UsageEvent:
			if firstUsage < 0 && p.ConversationID == conv.ID {
				firstUsage = i
			}
		}
	}
	if firstUsage < 0 || firstUsage > firstStart {
		t.Fatalf("context:usage (event %d) does not come before the first request (event %d)", firstUsage, firstStart)
	}
	var usage []engine.UsageEvent
	for _, p := range w.rec.Named(events.ContextUsage) {
		if u, ok := p.(engine.UsageEvent); ok && u.ConversationID == conv.ID {
			usage = append(usage, u)
		}
	}
	if len(usage) == 0 || usage[len(usage)-1].UsedTokens <= 0 || usage[len(usage)-1].TotalBudget <= 0 {
		t.Fatalf("context:usage for the run: %+v", usage)
	}

	st, err := a.Runs.ConversationRun(conv.ID)
	if err != nil || st == nil {
		t.Fatalf("ConversationRun = %v, %v", st, err)
	}
	if st.RunID != run.RunID || st.Phase != workflow.PhaseWaitingUser || st.Active ||
		nodeStatuses(st) != "capture-idea=completed,check-clarity=current,clarify-idea=pending,draft-brief=pending,end=pending" {
		t.Fatalf("status after turn 1: phase %s active %v nodes %s", st.Phase, st.Active, nodeStatuses(st))
	}
	if !slices.Equal(st.Artifacts, []string{"artifacts/idea-notes.md"}) {
		t.Fatalf("artifacts %v", st.Artifacts)
	}
	pending := st.Pending
	if pending == nil || pending.Type != tools.WidgetSelection || len(pending.Options) != 2 {
		t.Fatalf("pending widget %+v", pending)
	}
	var phases []string
	for _, p := range progressOf(w.rec, run.RunID) {
		phases = append(phases, p.Phase)
	}
	if !slices.Contains(phases, workflow.PhaseRunning) || phases[len(phases)-1] != workflow.PhaseWaitingUser {
		t.Fatalf("progress phases %v", phases)
	}

	// the run panel: the execution log and the artifact
	logView, err := a.Runs.Log(run.RunID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, l := range logView.Lines {
		if l.Type == tools.ExecLineType {
			calls = append(calls, l.Tool)
			if l.OK == nil || !*l.OK || l.Args == "" {
				t.Fatalf("tool call line %+v", l)
			}
		}
	}
	if strings.Join(calls, ",") != "fs.read,fs.write,fs.apply_patch,ui.ask_user" || logView.Truncated || logView.Lines[0].Type != "run_created" {
		t.Fatalf("RunLog: calls %v, first %+v, truncated %v", calls, logView.Lines[0], logView.Truncated)
	}
	if tail, _ := a.Runs.Log(run.RunID, 2); len(tail.Lines) != 2 || !tail.Truncated || tail.Lines[1].Raw != logView.Lines[len(logView.Lines)-1].Raw {
		t.Fatalf("RunLog(2) = %+v", tail)
	}
	art, err := a.Runs.ReadArtifact("artifacts/idea-notes.md")
	if err != nil || art.Content != briefNotes || art.Size != int64(len(briefNotes)) || art.Binary || art.Truncated {
		t.Fatalf("ReadArtifact = %+v, %v", art, err)
	}

	// answering: a wrong widget, a wrong option, then the real answer
	if err := a.Runs.AnswerQuestion(run.RunID, "not-the-widget", tools.WidgetAnswer{Selected: "One page"}); codeOfErr(t, err) != workflow.CodeNoWidget {
		t.Fatalf("answer to another widget: %v", err)
	}
	if err := a.Runs.AnswerQuestion(run.RunID, pending.ID, tools.WidgetAnswer{Selected: "Two pages"}); codeOfErr(t, err) != workflow.CodeBadAnswer {
		t.Fatalf("answer outside the options: %v", err)
	}
	srv.Enqueue(
		statePatch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"check-clarity"}},
			"currentNodeId":  map[string]any{"set": "draft-brief"},
		}),
		toolCall("fs.write", map[string]any{"path": "@project/artifacts/project-brief.md", "content": "# Project brief\n\nOne page.\n"}),
		statePatch(map[string]any{"stepsCompleted": map[string]any{"append": []string{"draft-brief"}}, "currentNodeId": map[string]any{"set": "end"}}),
		statePatch(map[string]any{"stepsCompleted": map[string]any{"append": []string{"end"}}, "variables": map[string]any{"merge": map[string]any{"workflowStatus": "complete"}}}),
		fakellm.Text("Done: the brief is in artifacts/project-brief.md."),
	)
	before := len(srv.ChatRequests())
	must(t, a.Runs.AnswerQuestion(run.RunID, pending.ID, tools.WidgetAnswer{Selected: "One page"}))
	if end := waitTurn(t, w.rec, conv.ID, 2); end.Error != nil {
		t.Fatalf("turn 2 ended with %+v", end.Error)
	}
	var streamed strings.Builder
	for _, p := range w.rec.Named(events.StreamChunk) {
		if c := p.(engine.StreamChunkEvent); c.ConversationID == conv.ID {
			streamed.WriteString(c.Delta)
		}
	}
	if !strings.Contains(streamed.String(), "Done: the brief is in artifacts/project-brief.md.") {
		t.Fatalf("the final answer was not streamed: %q", streamed.String())
	}
	if last := srv.ChatRequests()[before].LastUserText(); !strings.Contains(last, "One page") {
		t.Fatalf("the answer did not reach the model: %q", last)
	}
	st, err = a.Runs.ConversationRun(conv.ID)
	must(t, err)
	if st.Phase != workflow.PhaseCompleted || !st.Complete || st.Pending != nil || len(st.Artifacts) != 2 ||
		nodeStatuses(st) != "capture-idea=completed,check-clarity=completed,clarify-idea=pending,draft-brief=completed,end=completed" {
		t.Fatalf("status after turn 2: %+v nodes %s", st.Progress, nodeStatuses(st))
	}
	// the answer is in the log: the widget's tool message, then the user
	// message that carries the structured answer (the UI shows it read-only)
	page, err := a.Conversations.Load(conv.ID, 0)
	must(t, err)
	var widgetMsg, answerMsg *conversation.Entry
	for _, e := range page.Entries {
		if e.IsMessage() && e.Role == conversation.RoleTool && len(e.Widget) > 0 {
			widgetMsg = e.Entry
		}
		if e.IsMessage() && e.Role == conversation.RoleUser && len(e.Widget) > 0 {
			answerMsg = e.Entry
		}
	}
	var rec workflow.WidgetAnswerRecord
	if widgetMsg == nil || answerMsg == nil || json.Unmarshal(answerMsg.Widget, &rec) != nil || rec.WidgetID != pending.ID || rec.Answer.Selected != "One page" {
		t.Fatalf("widget %+v answer %+v", widgetMsg, answerMsg)
	}

	// after completion the user keeps talking; the run stays completed
	srv.Enqueue(fakellm.Text("The brief is finished; ask me anything about it."))
	must(t, a.Chat.Send(app.SendRequest{ConversationID: conv.ID, Text: "Thanks! Anything else?", Mode: "run"}))
	waitTurn(t, w.rec, conv.ID, 3)
	st, _ = a.Runs.ConversationRun(conv.ID)
	if st.Phase != workflow.PhaseCompleted {
		t.Fatalf("phase after talking on: %s", st.Phase)
	}
	last := srv.ChatRequests()[len(srv.ChatRequests())-1]
	if !strings.Contains(dumpRequest(last), "- intent: post-run") {
		t.Fatal("the message after completion was not sent with the post-run directive")
	}

	// the inspector previews run mode with the run's blocks
	p, err := a.Chat.Preview(conv.ID, "run", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != conversation.ModeRun || !strings.Contains(previewText(p), "RUN_DIRECTIVE") || p.Usage.UsedTokens <= 0 ||
		!strings.Contains(previewText(p), "Critical actions (always follow):") {
		t.Fatalf("run preview: mode %s, %d messages", p.Mode, len(p.Messages))
	}
	if p2, err := a.Chat.Preview(conv.ID, "", ""); err != nil || p2.Mode != conversation.ModeRun {
		t.Fatalf("preview in the conversation's own mode: %+v, %v", p2, err)
	}
	if runs, _ := a.Runs.List(); len(runs) != 1 || runs[0].RunID != run.RunID {
		t.Fatalf("ListRuns = %+v", runs)
	}
}

func dumpRequest(r fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Role + ": " + m.Text() + "\n")
	}
	return b.String()
}

func previewText(p *engine.Preview) string {
	var b strings.Builder
	for _, m := range p.Messages {
		if m.Content != nil {
			b.WriteString(*m.Content + "\n")
		}
	}
	return b.String()
}

func TestStopAbortsTheRunTurn(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.TextChunks(strings.Repeat("thinking aloud ", 200), 200, 20*time.Millisecond))
	w := startedTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	run, err := a.Runs.Start(app.StartRunRequest{WorkflowID: "write-brief", Message: "an idea"})
	if err != nil {
		t.Fatal(err)
	}
	conv := run.ConversationID
	if !hasChange(w.rec, conv, "created") {
		t.Fatal("no created event for the run's new conversation")
	}
	testkit.Wait(t, "the first chunk", func() bool { return len(w.rec.Named(events.StreamChunk)) > 0 })
	if st, _ := a.Runs.ConversationRun(conv); st == nil || !st.Active || st.Phase != workflow.PhaseRunning {
		t.Fatalf("status while running: %+v", st)
	}
	if err := a.Chat.Send(app.SendRequest{ConversationID: conv, Text: "more", Mode: "run"}); codeOfErr(t, err) != errs.Busy {
		t.Fatalf("a message while the turn runs: %v", err)
	}
	if _, err := a.Runs.Start(app.StartRunRequest{ConversationID: conv, WorkflowID: "write-brief"}); codeOfErr(t, err) != errs.Busy {
		t.Fatalf("a second run while the turn runs: %v", err)
	}
	stopped, err := a.Chat.Stop(conv)
	if err != nil || !stopped {
		t.Fatalf("StopStreaming = %v, %v", stopped, err)
	}
	if end := waitTurn(t, w.rec, conv, 1); end.Error != nil {
		t.Fatalf("a stopped turn reported %+v (the log shows the stop)", end.Error)
	}
	st, err := a.Runs.ConversationRun(conv)
	if err != nil || st.Phase != workflow.PhaseWaitingUser || st.LastError == nil || st.LastError.Code != workflow.CodeAborted || st.Active {
		t.Fatalf("status after stop: %+v, %v", st, err)
	}
	if runs, _ := a.Runs.List(); len(runs) != 1 {
		t.Fatalf("the refused second run was created: %+v", runs)
	}
}

// Deleting a conversation in the window stops its run's turn and deletes the
// run with it (its runsIndex.json row and runs/<runId>/); other runs stay.
func TestDeleteConversationDeletesItsRuns(t *testing.T) {
	srv := newFakeLLM(t)
	srv.Enqueue(fakellm.Text("Tell me about the other idea."), fakellm.TextChunks(strings.Repeat("thinking aloud ", 200), 200, 20*time.Millisecond))
	w := startedTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	other, err := a.Runs.Start(app.StartRunRequest{WorkflowID: "write-brief", Message: "another idea"})
	if err != nil {
		t.Fatal(err)
	}
	waitTurn(t, w.rec, other.ConversationID, 1)
	run, err := a.Runs.Start(app.StartRunRequest{WorkflowID: "write-brief", Message: "an idea"})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the first chunk", func() bool { return len(w.rec.Named(events.StreamChunk)) > 0 })
	if err := a.Conversations.Delete(run.ConversationID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.info.DataDir, "runs", run.RunID)); !os.IsNotExist(err) {
		t.Fatalf("the run's folder is still there (%v)", err)
	}
	runs, err := a.Runs.List()
	if err != nil || len(runs) != 1 || runs[0].RunID != other.RunID {
		t.Fatalf("runs after the deletion: %+v, %v", runs, err)
	}
	if _, err := os.Stat(filepath.Join(w.info.DataDir, "runs", other.RunID)); err != nil {
		t.Fatalf("another conversation's run was removed: %v", err)
	}
}

func TestStartRunRefusals(t *testing.T) {
	srv := newFakeLLM(t)
	w := startedTestProject(t, llmSettings(srv.URL(), ""))
	a := w.app
	m, _ := a.Conversations.Create("")
	tests := []struct {
		name string
		req  app.StartRunRequest
		code string
	}{
		{"unknown workflow", app.StartRunRequest{ConversationID: m.ID, WorkflowID: "nope"}, workflow.CodeWorkflowNotFound},
		{"no workflow", app.StartRunRequest{ConversationID: m.ID}, engine.CodeInvalidRequest},
		{"unknown agent", app.StartRunRequest{ConversationID: m.ID, WorkflowID: "write-brief", AgentID: "ghost"}, workflow.CodeAgentNotFound},
		{"unknown conversation", app.StartRunRequest{ConversationID: "6f0c3a52-8e0b-4b43-9d52-3c7d1f0e9a11", WorkflowID: "write-brief"}, convlog.ErrNotFound.Code},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Runs.Start(tt.req); codeOfErr(t, err) != tt.code {
				t.Fatalf("StartRun: %v, want %s", err, tt.code)
			}
		})
	}
	if runs, _ := a.Runs.List(); len(runs) != 0 {
		t.Fatalf("refused starts created runs: %+v", runs)
	}
	if st, err := a.Runs.ConversationRun(m.ID); st != nil || err != nil {
		t.Fatalf("ConversationRun without a run = %+v, %v", st, err)
	}
	if _, err := a.Runs.Log("6f0c3a52-8e0b-4b43-9d52-3c7d1f0e9a11", 0); codeOfErr(t, err) != workflow.CodeRunNotFound {
		t.Fatalf("RunLog of an unknown run: %v", err)
	}
	if err := a.Runs.AnswerQuestion("6f0c3a52-8e0b-4b43-9d52-3c7d1f0e9a11", "w", tools.WidgetAnswer{}); codeOfErr(t, err) != workflow.CodeRunNotFound {
		t.Fatalf("AnswerRunWidget of an unknown run: %v", err)
	}
	if len(srv.ChatRequests()) != 0 {
		t.Fatal("a refused start called the LLM")
	}

	// no active package; no LLM
	bare := openTestProject(t, llmSettings(srv.URL(), ""))
	if _, err := bare.app.Runs.Start(app.StartRunRequest{WorkflowID: "write-brief"}); codeOfErr(t, err) != workflow.CodeNoPackage {
		t.Fatalf("without a package: %v", err)
	}
	noLLM := startedTestProject(t, "")
	if _, err := noLLM.app.Runs.Start(app.StartRunRequest{WorkflowID: "write-brief"}); codeOfErr(t, err) != "E_LLM_NOT_CONFIGURED" {
		t.Fatalf("without an LLM: %v", err)
	}
	// without a project
	ta, _ := newTestApp(t)
	for name, call := range map[string]func() error{
		"StartRun":        func() error { _, err := ta.Runs.Start(app.StartRunRequest{WorkflowID: "write-brief"}); return err },
		"ConversationRun": func() error { _, err := ta.Runs.ConversationRun("x"); return err },
		"RunLog":          func() error { _, err := ta.Runs.Log("x", 0); return err },
		"ReadArtifact":    func() error { _, err := ta.Runs.ReadArtifact("a.md"); return err },
		"ActivePackage":   func() error { _, err := ta.Packages.Active(); return err },
		"ListRuns":        func() error { _, err := ta.Runs.List(); return err },
	} {
		if codeOfErr(t, call()) != errs.NoProject {
			t.Errorf("%s without a project", name)
		}
	}
}

// An edit of a run's state made on disk by someone else reaches the window
// as runs:progressUpdated (the watcher runs while the project is open).
func TestRunStateEditedOnDiskIsReported(t *testing.T) {
	w := startedTestProject(t, "")
	ws, err := w.app.session.Current()
	must(t, err)
	run, err := ws.Runs().CreateRun(w.info.ActivePackageID, "write-brief", "", "")
	must(t, err)
	path := ws.Runs().StatePath(run.RunID)
	data, err := os.ReadFile(path)
	must(t, err)
	edited := strings.Replace(string(data), `currentNodeId: ""`, `currentNodeId: check-clarity`, 1)
	edited = strings.Replace(edited, "stepsCompleted: []", "stepsCompleted:\n    - capture-idea", 1)
	if edited == string(data) {
		t.Fatalf("the state template changed shape:\n%s", data)
	}
	must(t, os.WriteFile(path, []byte(edited), 0o644))
	testkit.Wait(t, "progress from the edited state", func() bool {
		for _, p := range progressOf(w.rec, run.RunID) {
			if p.CurrentNodeID == "check-clarity" {
				return true
			}
		}
		return false
	})
	// closed with the project: later edits are not reported
	must(t, w.app.Projects.Close())
	n := len(progressOf(w.rec, run.RunID))
	must(t, os.WriteFile(path, data, 0o644))
	time.Sleep(300 * time.Millisecond)
	if len(progressOf(w.rec, run.RunID)) != n {
		t.Fatal("the state watcher still runs after the project closed")
	}
}

// maxArtifactBytes is what ReadArtifact returns of a file at most.
const maxArtifactBytes = 2 << 20

func TestReadArtifactStaysInTheProject(t *testing.T) {
	w := startedTestProject(t, "")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	must(t, os.WriteFile(outside, []byte("secret"), 0o644))
	art := filepath.Join(w.root, "artifacts")
	must(t, os.MkdirAll(art, 0o755))
	must(t, os.WriteFile(filepath.Join(art, "notes.md"), []byte("# notes\nünïcode\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(art, "image.png"), []byte{0x89, 'P', 'N', 'G', 0, 0, 1}, 0o644))
	big := strings.Repeat("é", maxArtifactBytes/2+10) // 2 bytes each: cut inside a character
	must(t, os.WriteFile(filepath.Join(art, "big.md"), []byte(big), 0o644))
	must(t, os.Symlink(outside, filepath.Join(art, "escape.txt")))
	must(t, os.Symlink(filepath.Join(art, "notes.md"), filepath.Join(art, "inside-link.md")))

	tests := []struct {
		path     string
		code     string
		content  string
		binary   bool
		truncate bool
	}{
		{path: "artifacts/notes.md", content: "# notes\nünïcode\n"},
		{path: "./artifacts/../artifacts/notes.md", content: "# notes\nünïcode\n"},
		{path: "artifacts/inside-link.md", content: "# notes\nünïcode\n"},
		{path: "artifacts/image.png", binary: true},
		{path: "artifacts/big.md", truncate: true},
		{path: "artifacts/escape.txt", code: errs.ArtifactPath},
		{path: "../secret.txt", code: errs.ArtifactPath},
		{path: outside, code: errs.ArtifactPath},
		{path: "artifacts", code: errs.ArtifactPath},
		{path: "", code: errs.ArtifactPath},
		{path: "artifacts/missing.md", code: convlog.ErrNotFound.Code},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			v, err := w.app.Runs.ReadArtifact(tt.path)
			if tt.code != "" {
				if codeOfErr(t, err) != tt.code {
					t.Fatalf("ReadArtifact(%q): %v, want %s", tt.path, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.binary:
				if !v.Binary || v.Content != "" {
					t.Fatalf("binary file: %+v", v)
				}
			case tt.truncate:
				if !v.Truncated || v.Binary || len(v.Content) > maxArtifactBytes || !strings.HasPrefix(big, v.Content) || v.Size != int64(len(big)) {
					t.Fatalf("big file: truncated %v binary %v len %d size %d", v.Truncated, v.Binary, len(v.Content), v.Size)
				}
			default:
				if v.Content != tt.content || v.Path == "" || v.ModifiedAt == "" {
					t.Fatalf("ReadArtifact(%q) = %+v", tt.path, v)
				}
			}
		})
	}
}
