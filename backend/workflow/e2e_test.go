package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

const ideaNotes = "## Idea\nA shared grocery list for roommates.\n\n## Audience\nRoommates.\n\n## Problem\nThey buy duplicates.\n\n## Constraints\nNone.\n\n## Open questions\nNone\n"

// TestDemoRunEndToEnd drives the demo workflow through the service against the fake LLM
// scripted to follow the protocol: steps, artifacts, a decision, an illegal transition
// corrected, a restart mid-run, completion, and a post-completion change that needs the
// user's confirmation.
func TestDemoRunEndToEnd(t *testing.T) {
	e := newEnv(t)
	srv := e.srv

	// ---- turn 1: start, capture the idea ----
	srv.Enqueue(
		tools1("fs.read", map[string]any{"path": "@state/workflow.md"}),
		tools1("fs.read", map[string]any{"path": "@pkg/workflows/write-brief/steps/capture-idea.md"}),
		tools1("fs.write", map[string]any{"path": "@project/artifacts/idea-notes.md", "content": ideaNotes}),
		patch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"capture-idea"}},
			"currentNodeId":  map[string]any{"set": "check-clarity"},
			"variables":      map[string]any{"merge": map[string]any{"ideaSummary": "A shared grocery list for roommates.", "ideaClear": true}},
		}),
		fakellm.Text("I captured your idea in artifacts/idea-notes.md."),
	)
	res, err := e.svc.Start(ctx(t), StartOptions{PackageID: e.pkgID, WorkflowID: "write-brief",
		Message: "A shared grocery list so my roommates stop buying duplicates."})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	runID, convID := res.Run.RunID, res.Run.ConversationID
	if res.Intent != IntentStart || res.Run.Phase != PhaseWaitingUser || res.Text == "" {
		t.Fatalf("turn 1: %+v", res)
	}
	st := e.state(runID)
	if st.CurrentNodeID != "check-clarity" || !slices.Equal(st.StepsCompleted, []string{"capture-idea"}) {
		t.Fatalf("state after turn 1: %+v", st)
	}
	if !slices.Equal(st.Artifacts, []string{"artifacts/idea-notes.md"}) || readFile(t, e.artifact("artifacts/idea-notes.md")) != ideaNotes {
		t.Fatalf("artifact not written or recorded: %v", st.Artifacts)
	}
	reqs := srv.ChatRequests()
	first := reqs[0]
	blocks := lastUserBlocks(first)
	if len(blocks) != 2 || !strings.Contains(blocks[0], "- intent: start") || !strings.Contains(blocks[0], "- currentNodeId: capture-idea") ||
		!strings.Contains(blocks[1], "NODE_BRIEF\n- currentNodeId: capture-idea (type=step)") {
		t.Fatalf("first request blocks: %q", blocks)
	}
	if strings.Contains(systemText(first), "RUN_DIRECTIVE\n") || !strings.Contains(systemText(first), "Mara") {
		t.Fatalf("system prompt must hold the analyst persona and no run directive:\n%s", systemText(first))
	}
	if last := first.Messages[len(first.Messages)-1]; last.Role != "user" || !strings.HasPrefix(last.Text(), "USER_INPUT\n- forNodeId: capture-idea\n") {
		t.Fatalf("user input not wrapped: %q", last.Text())
	}
	for _, x := range e.entries(convID) {
		if x.IsMessage() && (x.RunID != runID || x.Mode != conversation.ModeRun || x.WorkflowID != "write-brief") {
			t.Fatalf("run message not tagged: %+v", x)
		}
	}
	meta, err := e.store.Get(convID)
	if err != nil || len(meta.Runs) != 1 || meta.Runs[0].RunID != runID || meta.Runs[0].Phase != PhaseWaitingUser || meta.ActiveType != conversation.ActiveWorkflow {
		t.Fatalf("conversation meta: %+v %v", meta, err)
	}

	// ---- turn 2: the decision, with an illegal transition corrected ----
	srv.Enqueue(
		tools1("fs.read", map[string]any{"path": "@pkg/workflows/write-brief/steps/check-clarity.md"}),
		patch(map[string]any{"stepsCompleted": map[string]any{"append": []string{"check-clarity"}}, "currentNodeId": map[string]any{"set": "end"}}),
		patch(map[string]any{
			"stepsCompleted": map[string]any{"append": []string{"check-clarity"}},
			"currentNodeId":  map[string]any{"set": "draft-brief"},
			"variables":      map[string]any{"merge": map[string]any{"ideaClear": true}},
			"decisionLog": map[string]any{"append": []any{map[string]any{"from": "check-clarity", "to": "draft-brief",
				"label": "clear enough", "reason": "Idea, audience and problem are known."}}},
		}),
		fakellm.Text("The idea is clear enough; next I draft the brief."),
	)
	res, err = e.svc.Continue(ctx(t), runID, "go on")
	if err != nil || res.Intent != IntentContinue || res.Run.Phase != PhaseWaitingUser {
		t.Fatalf("turn 2: %+v %v", res, err)
	}
	var rejected *conversation.Entry
	for _, x := range e.toolResults(convID) {
		if x.IsError && strings.Contains(x.Text(), tools.CodeInvalidTransition) {
			rejected = x
		}
	}
	if rejected == nil {
		t.Fatal("the illegal transition to end was not rejected")
	}
	var rej struct {
		Error struct {
			Details struct {
				AllowedNext []NextEdge `json:"allowedNext"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(rejected.Text()), &rej); err != nil {
		t.Fatal(err)
	}
	next := rej.Error.Details.AllowedNext
	if len(next) != 2 || next[0].To != "clarify-idea" || next[1].To != "draft-brief" || !next[1].Default {
		t.Fatalf("allowedNext: %+v", next)
	}
	st = e.state(runID)
	if st.CurrentNodeID != "draft-brief" || !slices.Equal(st.StepsCompleted, []string{"capture-idea", "check-clarity"}) {
		t.Fatalf("state after the decision: %+v", st)
	}
	if dl, _ := st.Fields["decisionLog"].([]any); len(dl) != 1 || dl[0].(map[string]any)["to"] != "draft-brief" {
		t.Fatalf("decision not logged: %v", st.Fields["decisionLog"])
	}

	// ---- restart: new store and service on the same folders; resume ----
	e.restart()
	before := len(srv.ChatRequests())
	srv.Enqueue(
		tools1("fs.read", map[string]any{"path": "@pkg/assets/brief-template.md"}),
		tools1("fs.write", map[string]any{"path": "@project/artifacts/project-brief.md", "content": "# Project brief\n\nShared grocery list.\n"}),
		patch(map[string]any{"stepsCompleted": map[string]any{"append": []string{"draft-brief"}}, "currentNodeId": map[string]any{"set": "end"}}),
		patch(map[string]any{"stepsCompleted": map[string]any{"append": []string{"end"}}, "variables": map[string]any{"merge": map[string]any{"workflowStatus": "complete"}}}),
		fakellm.Text("Done: the brief is in artifacts/project-brief.md."),
	)
	res, err = e.svc.Continue(ctx(t), runID, "continue")
	if err != nil || res.Intent != IntentResume || res.Run.Phase != PhaseCompleted {
		t.Fatalf("turn 3 (after restart): %+v %v", res, err)
	}
	resumed := srv.ChatRequests()[before]
	blocks = lastUserBlocks(resumed)
	if len(blocks) != 2 || !strings.Contains(blocks[0], "- intent: resume") || !strings.Contains(blocks[0], "- currentNodeId: draft-brief") ||
		!strings.Contains(blocks[0], "- effectiveAgentId: writer") || !strings.Contains(blocks[1], "stepFile: @pkg/workflows/write-brief/steps/draft-brief.md") {
		t.Fatalf("resumed request blocks: %q", blocks)
	}
	if !strings.Contains(systemText(resumed), "Theo") {
		t.Fatal("the draft-brief node must speak as its agent (writer)")
	}
	// The history of the earlier turns is in the resumed request (from the log only).
	if !strings.Contains(dumpMessages(resumed), "I captured your idea") {
		t.Fatal("resumed request lost the earlier history")
	}
	st = e.state(runID)
	if !st.Complete(nil) || !slices.Equal(st.StepsCompleted, []string{"capture-idea", "check-clarity", "draft-brief", "end"}) ||
		!slices.Equal(st.Artifacts, []string{"artifacts/idea-notes.md", "artifacts/project-brief.md"}) {
		t.Fatalf("final state: %+v", st)
	}
	run, err := e.svc.Get(runID)
	if err != nil || run.Phase != PhaseCompleted || run.CurrentNodeID != "end" || len(run.Artifacts) != 2 || len(run.StepsCompleted) != 4 {
		t.Fatalf("index row: %+v %v", run, err)
	}

	// ---- post-completion: a state change is refused until the user confirms ----
	before = len(srv.ChatRequests())
	srv.Enqueue(
		patch(map[string]any{"variables": map[string]any{"merge": map[string]any{"ideaClear": false}}}),
		tools1("ui.ask_user", map[string]any{"type": "confirmation", "prompt": "Set ideaClear to false in the run state?"}),
	)
	res, err = e.svc.Continue(ctx(t), runID, "Please mark the idea as unclear in the state.")
	if err != nil || res.Pending == nil || res.Pending.Type != tools.WidgetConfirmation || res.Run.Phase != PhaseCompleted {
		t.Fatalf("turn 4: %+v %v", res, err)
	}
	post := srv.ChatRequests()[before]
	blocks = lastUserBlocks(post)
	if len(blocks) != 1 || !strings.Contains(blocks[0], "- intent: post-run") || strings.Contains(blocks[0], "currentNodeId") ||
		strings.Contains(dumpMessages(post), "NODE_BRIEF\n- currentNodeId: end") {
		t.Fatalf("post-completion request blocks: %q", blocks)
	}
	results := e.toolResults(convID)
	refused := results[len(results)-2]
	if !refused.IsError || !strings.Contains(refused.Text(), ReasonConfirmationRequired) {
		t.Fatalf("post-completion write was not refused: %s", refused.Text())
	}
	if e.state(runID).Variables["ideaClear"] != true {
		t.Fatal("the refused write changed the state")
	}
	status, err := e.svc.Status(runID)
	if err != nil || status.Pending == nil || status.Pending.ID != res.Pending.ID || !status.Complete {
		t.Fatalf("status with pending widget: %+v %v", status, err)
	}

	// The answer: exactly one write is allowed.
	srv.Enqueue(
		patch(map[string]any{"variables": map[string]any{"merge": map[string]any{"ideaClear": false}}}),
		patch(map[string]any{"variables": map[string]any{"merge": map[string]any{"extra": 1}}}),
		fakellm.Text("Updated the state."),
	)
	yes := true
	res, err = e.svc.AnswerWidget(ctx(t), runID, res.Pending.ID, tools.WidgetAnswer{Confirmed: &yes})
	if err != nil || res.Run.Phase != PhaseCompleted {
		t.Fatalf("turn 5: %+v %v", res, err)
	}
	st = e.state(runID)
	if st.Variables["ideaClear"] != false || st.Variables["extra"] != nil {
		t.Fatalf("confirmed write: want ideaClear=false and no second write, got %v", st.Variables)
	}
	results = e.toolResults(convID)
	if results[len(results)-2].IsError || !results[len(results)-1].IsError {
		t.Fatal("the confirmation must allow exactly one write")
	}
	if _, err := e.svc.AnswerWidget(ctx(t), runID, res.Run.RunID, tools.WidgetAnswer{Confirmed: &yes}); errs.CodeOf(err) != CodeNoWidget {
		t.Fatalf("answering again: %v", err)
	}

	// Progress was pushed along the way.
	var phases []string
	for _, p := range e.rec.Named(events.RunsProgressUpdated) {
		phases = append(phases, p.(Progress).Phase)
	}
	if !slices.Contains(phases, PhaseIdle) || !slices.Contains(phases, PhaseRunning) || !slices.Contains(phases, PhaseCompleted) {
		t.Fatalf("progress events: %v", phases)
	}
	// The runtime recorded each step completed and each artifact saved in the
	// conversation, once, as hidden records compaction carries.
	var records []string
	for _, m := range e.entries(convID) {
		if m.PartType == conversation.PartRecord {
			if m.Role != conversation.RoleSystem || m.RunID != runID || !strings.Contains(m.Text(), "run "+runID) {
				t.Fatalf("record: %+v", m)
			}
			records = append(records, strings.SplitN(m.Text(), " —", 2)[0])
		}
	}
	wantRecords := []string{"ARTIFACT_SAVED @project/artifacts/idea-notes.md", "NODE_COMPLETE capture-idea", "NODE_COMPLETE check-clarity",
		"ARTIFACT_SAVED @project/artifacts/project-brief.md", "NODE_COMPLETE draft-brief", "NODE_COMPLETE end"}
	for _, w := range wantRecords {
		n := 0
		for _, r := range records {
			if strings.HasPrefix(r, w) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("record %q written %d times; records: %q", w, n, records)
		}
	}
	if !strings.Contains(systemText(post), "PINNED") || !strings.Contains(systemText(post), "NODE_COMPLETE draft-brief") {
		t.Fatal("the records are not sent to the model")
	}
	// The execution log holds every tool call, refused ones too.
	log := readFile(t, e.svc.execLogPath(runID))
	if !strings.Contains(log, `"code":"E_INVALID_TRANSITION"`) || !strings.Contains(log, `"type":"artifact_recorded"`) || !strings.Contains(log, `"type":"run_created"`) {
		t.Fatalf("execution log:\n%s", log)
	}
}

func dumpMessages(req fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Role + ": " + m.Text() + "\n")
	}
	return b.String()
}

func TestCreateRunErrors(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name                 string
		pkg, wf, agent, conv string
		code                 string
	}{
		{"unknown workflow", e.pkgID, "nope", "", "", CodeWorkflowNotFound},
		{"unknown agent", e.pkgID, "write-brief", "ghost", "", CodeAgentNotFound},
		{"unknown conversation", e.pkgID, "write-brief", "", "0d2a4c8e-0000-4000-8000-000000000000", CodeConversationNotFound},
		{"no package", "", "write-brief", "", "", CodeNoPackage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.CreateRun(tt.pkg, tt.wf, tt.agent, tt.conv)
			if errs.CodeOf(err) != tt.code {
				t.Fatalf("got %v (code %q), want %s", err, errs.CodeOf(err), tt.code)
			}
		})
	}
	if _, err := e.svc.CreateRun("missing@1.0.0", "write-brief", "", ""); err == nil {
		t.Fatal("unknown package accepted")
	}
	runs, err := e.svc.List()
	if err != nil || len(runs) != 0 {
		t.Fatalf("failed creations left runs: %v %v", runs, err)
	}
}

func TestCreateRunFiles(t *testing.T) {
	e := newEnv(t)
	run, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if run.Phase != PhaseIdle || run.ActiveAgentID != "analyst" || run.PackageID != e.pkgID || run.ConversationID == "" {
		t.Fatalf("row: %+v", run)
	}
	st := e.state(run.RunID)
	ref, _ := st.Fields["workflowRef"].(map[string]any)
	if st.RunID != run.RunID || st.Fields["activeAgentId"] != "analyst" || ref["workflowId"] != "write-brief" ||
		st.Fields["updatedAt"] == nil || st.CurrentNodeID != "" || len(st.StepsCompleted) != 0 {
		t.Fatalf("state: %+v", st.Fields)
	}
	body := readFile(t, e.svc.StatePath(run.RunID))
	if !strings.Contains(body, "\n# Write a project brief\n") {
		t.Fatalf("the body of workflow.md was not kept:\n%s", body)
	}
	if !exists(e.svc.execLogPath(run.RunID)) {
		t.Fatal("no execution log")
	}
	idx := readFile(t, e.proj.DataDir+"/"+IndexFile)
	if !strings.Contains(idx, run.RunID) || !strings.Contains(idx, `"phase": "idle"`) {
		t.Fatalf("runsIndex.json:\n%s", idx)
	}
	entries := e.entries(run.ConversationID)
	if len(entries) != 1 || entries[0].Event != conversation.EventRunStarted {
		t.Fatalf("conversation log: %+v", entries)
	}
	// A second run in the same conversation.
	run2, err := e.svc.CreateRun(e.pkgID, "write-brief", "writer", run.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := e.store.Get(run.ConversationID)
	if len(meta.Runs) != 2 || meta.Runs[1].RunID != run2.RunID || meta.SelectedAgentID != "writer" {
		t.Fatalf("meta: %+v", meta)
	}
	if latest, err := e.svc.LatestRun(run.ConversationID); err != nil || latest.RunID != run2.RunID {
		t.Fatalf("LatestRun: %+v %v", latest, err)
	}
	setup, err := e.svc.NextSetup(run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	blocks := setup.Injector.Blocks()
	if setup.AgentID != "analyst" || setup.Persona.Name != "Mara" || len(blocks) != 2 || !strings.Contains(blocks[0], "- intent: start") ||
		!slices.Contains(setup.Tools.ToolNames(), "fs.apply_patch") {
		t.Fatalf("NextSetup: %+v %q", setup, blocks)
	}
}

// A run's turns are offered shell.run as agent mode is (tools.shell.enabled), with the
// settings' time limit; the settings can take it away.
func TestRunTurnsOfferCommandsAsTheSettingsSay(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		t.Run(fmt.Sprint(enabled), func(t *testing.T) {
			e := newEnv(t)
			e.withSettings(func(s *settings.Settings) { s.Tools.Shell.Enabled = enabled })
			run, err := e.svc.CreateRun(e.pkgID, "write-brief", "analyst", "")
			if err != nil {
				t.Fatal(err)
			}
			setup, err := e.svc.NextSetup(run.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(setup.Tools.ToolNames(), conversation.ToolShellRun); got != enabled {
				t.Fatalf("shell.run offered = %v, want %v (%v)", got, enabled, setup.Tools.ToolNames())
			}
		})
	}
}
