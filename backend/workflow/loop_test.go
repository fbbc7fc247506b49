package workflow

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/fsx"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// lastError returns the run's last persisted error part.
func (e *env) lastErrorPart(convID string) *conversation.Entry {
	var last *conversation.Entry
	for _, x := range e.entries(convID) {
		if x.PartType == conversation.PartError {
			last = x
		}
	}
	return last
}

func TestLoopDetected(t *testing.T) {
	e := newEnv(t)
	bad := tools1("fs.read", map[string]any{"path": "@project/missing.md"})
	e.srv.Enqueue(bad, tools1("fs.read", map[string]any{"path": "@project/missing.md", "startLine": 1}), bad, bad)
	res, err := e.svc.Start(ctx(t), StartOptions{PackageID: e.pkgID, WorkflowID: "write-brief", Message: "hi"})
	if errs.CodeOf(err) != CodeLoopDetected {
		t.Fatalf("got %v", err)
	}
	if res.Run.Phase != PhaseFailed || res.Run.LastError == nil || res.Run.LastError.Code != CodeLoopDetected {
		t.Fatalf("row: %+v", res.Run)
	}
	part := e.lastErrorPart(res.Run.ConversationID)
	if part == nil || !strings.Contains(part.Text(), llm.ErrorBlockHeader+"\n- code: "+CodeLoopDetected) || part.RunID != res.Run.RunID {
		t.Fatalf("failure not persisted: %+v", part)
	}
	if got := len(e.srv.ChatRequests()); got != 4 {
		t.Fatalf("requests: %d", got)
	}
	// continue resumes a failed run.
	e.srv.Enqueue(fakellm.Text("Sorry, let me start over: what is your idea?"))
	res, err = e.svc.Continue(ctx(t), res.Run.RunID, "please go on")
	if err != nil || res.Intent != IntentResume || res.Run.Phase != PhaseWaitingUser || res.Run.LastError != nil {
		t.Fatalf("resume after failure: %+v %v", res, err)
	}
	// The failure travels with the next request (so the model can pick up after it).
	reqs := e.srv.ChatRequests()
	if !strings.Contains(dumpMessages(reqs[len(reqs)-1]), CodeLoopDetected) {
		t.Fatal("the persisted failure is not in the next request")
	}
}

func TestMaxTurns(t *testing.T) {
	e := newEnv(t)
	e.withSettings(func(s *settings.Settings) { s.Engine.MaxTurns = 2 })
	e.srv.Enqueue(
		tools1("fs.read", map[string]any{"path": "@state/workflow.md"}),
		tools1("fs.list", map[string]any{"path": "@project"}),
		fakellm.Text("never reached"),
	)
	res, err := e.svc.Start(ctx(t), StartOptions{PackageID: e.pkgID, WorkflowID: "write-brief"})
	if errs.CodeOf(err) != CodeMaxTurns || res.Run.Phase != PhaseWaitingUser || res.Run.LastError.Code != CodeMaxTurns {
		t.Fatalf("got %+v %v", res, err)
	}
	if n := len(e.srv.ChatRequests()); n != 2 {
		t.Fatalf("requests: %d, want 2", n)
	}
	if p := e.lastErrorPart(res.Run.ConversationID); p == nil || !strings.Contains(p.Text(), CodeMaxTurns) {
		t.Fatal("max turns not persisted")
	}
}

func TestLLMFailurePersisted(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakellm.Response{Text: "Let me look at", Chunks: 3, Cut: true, CutAfter: 3})
	res, err := e.svc.Start(ctx(t), StartOptions{PackageID: e.pkgID, WorkflowID: "write-brief", Message: "hello"})
	var failed *llm.Error
	if !errors.As(err, &failed) {
		t.Fatalf("want an LLM error, got %v", err)
	}
	if res.Run.Phase != PhaseFailed || !strings.HasPrefix(res.Run.LastError.Code, "LLM_") {
		t.Fatalf("row: %+v", res.Run)
	}
	part := e.lastErrorPart(res.Run.ConversationID)
	if part == nil || part.Role != conversation.RoleAssistant || !strings.Contains(part.Text(), "\n\nLLM_ERROR\n- code: LLM_") ||
		!strings.HasPrefix(part.Text(), "Let me") || part.Mode != conversation.ModeRun || part.RunID != res.Run.RunID {
		t.Fatalf("error part: %+v %q", part, part.Text())
	}
}

func TestAbortAndBusy(t *testing.T) {
	e := newEnv(t)
	run, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakellm.Response{Text: "thinking...", Chunks: 2, StallAfter: 2, Stall: fakellm.StallForever})
	type out struct {
		res *TurnResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := e.svc.Continue(ctx(t), run.RunID, "start")
		done <- out{res, err}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := e.svc.Status(run.RunID)
		if err == nil && st.Active && len(e.rec.Named(events.StreamChunk)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn never started streaming")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := e.svc.Continue(ctx(t), run.RunID, "again"); errs.CodeOf(err) != CodeRunBusy {
		t.Fatalf("second turn while busy: %v", err)
	}
	if !e.svc.Abort(run.RunID) {
		t.Fatal("Abort found no turn")
	}
	o := <-done
	if errs.CodeOf(o.err) != CodeAborted || o.res.Run.Phase != PhaseWaitingUser || o.res.Run.LastError.Code != CodeAborted {
		t.Fatalf("aborted turn: %+v %v", o.res, o.err)
	}
	if p := e.lastErrorPart(run.ConversationID); p == nil || !strings.Contains(p.Text(), CodeAborted) || !strings.HasPrefix(p.Text(), "think") {
		t.Fatalf("abort not persisted with the partial text: %q", p.Text())
	}
	if e.svc.Abort(run.RunID) {
		t.Fatal("Abort reported a turn after it ended")
	}
}

func TestArtifactRollback(t *testing.T) {
	e := newEnv(t)
	run, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	// Damage the state so that artifacts[] cannot be appended to.
	p := e.svc.StatePath(run.RunID)
	b := strings.Replace(readFile(t, p), "artifacts: []", "artifacts: not-a-list", 1)
	if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(
		tools1("fs.write", map[string]any{"path": "@project/artifacts/idea-notes.md", "content": "notes"}),
		fakellm.Text("The notes could not be saved."),
	)
	res, err := e.svc.Continue(ctx(t), run.RunID, "go")
	if err != nil {
		t.Fatal(err)
	}
	if exists(e.artifact("artifacts/idea-notes.md")) {
		t.Fatal("the unrecorded artifact was left behind")
	}
	results := e.toolResults(res.Run.ConversationID)
	r := results[len(results)-1]
	if !r.IsError || !strings.Contains(r.Text(), tools.CodeInternal) || !strings.Contains(r.Text(), "removed again") || strings.Contains(r.Text(), e.root) {
		t.Fatalf("tool result: %s", r.Text())
	}
	log := readFile(t, e.svc.execLogPath(run.RunID))
	if !strings.Contains(log, `"type":"artifact_rollback"`) {
		t.Fatalf("rollback not logged:\n%s", log)
	}
	// the call itself is logged as failed, not as a success followed by a rollback
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if strings.Contains(line, `"tool":"fs.write"`) && !strings.Contains(line, `"ok":false`) {
			t.Fatalf("the write is logged as a success: %s", line)
		}
	}
}

func TestArtifactRecordedOnce(t *testing.T) {
	e := newEnv(t)
	run, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	write := tools1("fs.write", map[string]any{"path": "@project/artifacts/a.md", "content": "one"})
	e.srv.Enqueue(write,
		tools1("fs.write", map[string]any{"path": "@project/artifacts/a.md", "content": "two"}),
		tools1("fs.write", map[string]any{"path": "@project/notes/outside.md", "content": "x"}),
		fakellm.Text("ok"))
	if _, err := e.svc.Continue(ctx(t), run.RunID, "go"); err != nil {
		t.Fatal(err)
	}
	if got := e.state(run.RunID).Artifacts; len(got) != 1 || got[0] != "artifacts/a.md" {
		t.Fatalf("artifacts: %v", got)
	}
}

func TestContinueAnswersPendingWidget(t *testing.T) {
	e := newEnv(t)
	run, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(tools1("ui.ask_user", map[string]any{"type": "selection", "prompt": "Which platform?", "options": []string{"web", "mobile"}}))
	res, err := e.svc.Continue(ctx(t), run.RunID, "start")
	if err != nil || res.Pending == nil || res.Run.Phase != PhaseWaitingUser {
		t.Fatalf("ask: %+v %v", res, err)
	}
	// After a restart the widget is still pending (it is read from the log).
	e.restart()
	w, err := e.svc.PendingWidget(run.RunID)
	if err != nil || w == nil || w.ID != res.Pending.ID {
		t.Fatalf("pending after restart: %+v %v", w, err)
	}
	if _, err := e.svc.AnswerWidget(ctx(t), run.RunID, w.ID, tools.WidgetAnswer{Selected: "desktop"}); errs.CodeOf(err) != CodeBadAnswer {
		t.Fatalf("invalid answer: %v", err)
	}
	e.srv.Enqueue(fakellm.Text("Mobile it is."))
	if _, err := e.svc.Continue(ctx(t), run.RunID, "Mobile"); err != nil {
		t.Fatal(err)
	}
	var answer *conversation.Entry
	for _, x := range e.entries(run.ConversationID) {
		if x.Role == conversation.RoleUser {
			answer = x
		}
	}
	if answer == nil || len(answer.Widget) == 0 || !strings.Contains(string(answer.Widget), `"selected":"mobile"`) ||
		!strings.Contains(answer.Text(), "Which platform?") {
		t.Fatalf("answer entry: %+v", answer)
	}
	if w, _ := e.svc.PendingWidget(run.RunID); w != nil {
		t.Fatal("widget still pending after the answer")
	}
}

func TestAnswerFromText(t *testing.T) {
	conf := &tools.Widget{Type: tools.WidgetConfirmation}
	sel := &tools.Widget{Type: tools.WidgetSelection, Options: []tools.WidgetOption{{Value: "a", Label: "Alpha"}, {Value: "b", Label: "Beta"}}}
	form := &tools.Widget{Type: tools.WidgetForm, Fields: []tools.WidgetField{{Name: "n", Label: "Name", Type: tools.FieldText, Required: true}}}
	tests := []struct {
		name string
		w    *tools.Widget
		text string
		ok   bool
		want string
	}{
		{"yes", conf, " Yes. ", true, "true"},
		{"no", conf, "no", true, "false"},
		{"chinese yes", conf, "确认", true, "true"},
		{"free text", conf, "maybe later", false, ""},
		{"selection by label", sel, "beta", true, "b"},
		{"selection by value", sel, "a", true, "a"},
		{"selection unknown", sel, "gamma", false, ""},
		{"form json", form, `{"n":"Ann"}`, true, "Ann"},
		{"form missing required", form, `{}`, false, ""},
		{"form text", form, "Ann", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := answerFromText(tt.w, tt.text)
			if ok != tt.ok {
				t.Fatalf("ok = %v", ok)
			}
			if !ok {
				return
			}
			got := a.Selected
			if a.Confirmed != nil {
				got = map[bool]string{true: "true", false: "false"}[*a.Confirmed]
			}
			if a.Values != nil {
				got, _ = a.Values["n"].(string)
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWatchReportsExternalStateChanges(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.Watch(); err != nil {
		t.Fatal(err)
	}
	run, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	p := e.svc.StatePath(run.RunID)
	b := strings.Replace(readFile(t, p), `currentNodeId: ""`, "currentNodeId: capture-idea", 1)
	if err := fsx.WriteFile(p, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		found := false
		for _, x := range e.rec.Named(events.RunsProgressUpdated) {
			if pr := x.(Progress); pr.RunID == run.RunID && pr.CurrentNodeID == "capture-idea" {
				found = len(pr.Nodes) == 5 && pr.Nodes[0].Status == NodeCurrent
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress event for the external change: %+v", e.rec.Named(events.RunsProgressUpdated))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got, _ := e.svc.Get(run.RunID); got.CurrentNodeID != "capture-idea" {
		t.Fatalf("index not refreshed: %+v", got)
	}
}

func TestStatusAndListUnknownRun(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.Status("nope"); errs.CodeOf(err) != CodeRunNotFound {
		t.Fatalf("status: %v", err)
	}
	if _, err := e.svc.Continue(context.Background(), "../etc", "x"); errs.CodeOf(err) != CodeRunNotFound {
		t.Fatalf("continue: %v", err)
	}
	runs, err := e.svc.List()
	if err != nil || len(runs) != 0 {
		t.Fatalf("list: %v %v", runs, err)
	}
	if err := os.WriteFile(e.proj.DataDir+"/"+IndexFile, []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.List(); errs.CodeOf(err) != CodeIndexCorrupt {
		t.Fatalf("corrupt index: %v", err)
	}
}

func TestSharedEngineStopsRunTurns(t *testing.T) {
	e := newEnv(t)
	chat, err := engine.New(engine.Options{Store: e.store, Settings: engine.StaticSettings(e.set), Counter: counter, Emitter: e.rec,
		Tools: toolHosts(tools.Roots{Project: e.root})})
	if err != nil {
		t.Fatal(err)
	}
	svc := e.service(chat)
	defer svc.Close()
	run, err := svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakellm.Response{Text: "thinking...", Chunks: 2, StallAfter: 2, Stall: fakellm.StallForever})
	type out struct {
		res *TurnResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := svc.Continue(ctx(t), run.RunID, "start")
		done <- out{res, err}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !chat.Busy(run.ConversationID) || len(e.rec.Named(events.StreamChunk)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the turn never started streaming")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A chat send in the run's conversation waits for the turn.
	if _, err := chat.Send(ctx(t), engine.SendRequest{ConversationID: run.ConversationID, Text: "hello"}); !errors.Is(err, engine.ErrConversationBusy) {
		t.Fatalf("send during the turn: %v", err)
	}
	if !chat.Stop(run.ConversationID) {
		t.Fatal("Stop found no turn")
	}
	o := <-done
	if errs.CodeOf(o.err) != CodeAborted || o.res.Run.Phase != PhaseWaitingUser {
		t.Fatalf("stopped turn: %+v %v", o.res, o.err)
	}
}

// A service is built from the project's parts; it builds none itself.
func TestNewNeedsItsParts(t *testing.T) {
	e := newEnv(t)
	full := Config{Project: e.proj, Packages: e.mgr, Store: e.store, Settings: StaticSettings(e.set), Engine: e.svc.cfg.Engine, Roots: e.roots()}
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no engine", func(c *Config) { c.Engine = nil }, "Config.Engine is required"},
		{"no roots", func(c *Config) { c.Roots = tools.Roots{} }, "Config.Roots is required"},
		{"a loop without tasks", func(c *Config) { c.Engine, c.Loop = nil, NewEngineLoop(e.svc.cfg.Engine) }, "Config.Tasks is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := full
			tt.edit(&cfg)
			if svc, err := New(cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				if svc != nil {
					svc.Close()
				}
				t.Fatalf("New: %v, want %q", err, tt.want)
			}
		})
	}
	svc, err := New(full)
	if err != nil {
		t.Fatal(err)
	}
	svc.Close()
}
