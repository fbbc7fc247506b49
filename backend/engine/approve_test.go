package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/approval"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/tools"
)

// policyApprover decides with a real approval.Policy and waits through a
// real approval.Broker; grants go into the policy.
type policyApprover struct {
	mu     sync.Mutex
	policy approval.Policy
	broker approval.Broker
}

func (a *policyApprover) Decide(q ApprovalQuery) approval.Decision {
	a.mu.Lock()
	p := a.policy
	a.mu.Unlock()
	p.Skills = q.Grants
	if q.Override != "" {
		p.Mode = q.Override
	}
	return p.Decide(q.Call)
}

func (a *policyApprover) Wait(ctx context.Context, convID, callID string, ready func() error) (approval.Answer, error) {
	return a.broker.Wait(ctx, convID, callID, ready)
}

func (a *policyApprover) Grant(convID string, ans approval.Answer, rule string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.policy.Conversation = append(a.policy.Conversation, rule)
	return nil
}

func approvalFixture(t *testing.T, mode approval.Mode) (*fixture, *policyApprover) {
	ap := &policyApprover{policy: approval.Policy{Mode: mode}}
	f := newFixture(t, nil)
	f.approvals = ap
	f.store.Close()
	f.open()
	return f, ap
}

func writeCall(id, path, content string) fakellm.ToolCall {
	return fakellm.ToolCall{ID: id, Name: "fs.write", Arguments: `{"path":"` + path + `","content":"` + content + `"}`}
}

// waitRequested waits for the n-th approval request of the fixture.
func waitRequested(t *testing.T, f *fixture, n int) events.ApprovalEvent {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if evs := f.rec.Named(events.ApprovalRequested); len(evs) >= n {
			return evs[n-1].(events.ApprovalEvent)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no approval request #%d", n)
	return events.ApprovalEvent{}
}

func sendAsync(f *fixture, req SendRequest) chan *SendResult {
	out := make(chan *SendResult, 1)
	go func() {
		res, err := f.svc.Send(context.Background(), req)
		if err != nil {
			f.t.Errorf("send: %v", err)
		}
		out <- res
	}()
	return out
}

func TestApprovalAskThenAnswers(t *testing.T) {
	tests := []struct {
		name    string
		answer  approval.Answer
		written bool
		inModel string
	}{
		{"allow", approval.Answer{Decision: approval.AnswerAllow}, true, `"ok":true`},
		{"allow for the conversation", approval.Answer{Decision: approval.AnswerConversation}, true, `"ok":true`},
		{"deny with a reason", approval.Answer{Decision: approval.AnswerDeny, Reason: "keep the notes as they are"}, false, "the user denied this call; their reason: keep the notes as they are"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ap := approvalFixture(t, approval.Ask)
			f.srv.Enqueue(fakellm.Tools(writeCall("call_w", "@project/notes.md", "# Notes\\nship on monday\\n")), fakellm.Text("Done."))
			done := sendAsync(f, SendRequest{Text: "move the release to monday"})
			ev := waitRequested(t, f, 1)

			// While it waits: the placeholder is in the log, with the request and its diff.
			msgs := f.messages(ev.ConversationID)
			held := msgs[len(msgs)-1]
			if held.ID != ev.ResultMessageID || held.Role != conversation.RoleTool || !held.Approval.Waiting() ||
				!strings.Contains(held.Text(), CodeApprovalPending) {
				t.Fatalf("placeholder: %+v", held)
			}
			a := held.Approval
			if a.Kind != "write" || !strings.Contains(a.Summary, "change @project/notes.md") || a.Grant != "fs.write" ||
				!strings.Contains(a.Diff, "-ship on friday\n+ship on monday\n") || a.NewFile {
				t.Fatalf("request: %+v", a)
			}
			if b, _ := os.ReadFile(filepath.Join(f.root, "notes.md")); !strings.Contains(string(b), "friday") {
				t.Fatal("written before the answer")
			}

			if !ap.broker.Answer(ev.ConversationID, ev.ToolCallID, tc.answer) {
				t.Fatal("nobody waited")
			}
			res := <-done
			if res.Err != nil || res.Text != "Done." {
				t.Fatalf("%+v", res)
			}
			b, _ := os.ReadFile(filepath.Join(f.root, "notes.md"))
			if got := strings.Contains(string(b), "monday"); got != tc.written {
				t.Fatalf("written = %v: %q", got, b)
			}
			// The answer replaced the placeholder: one result for the call, the same entry.
			var results []*conversation.Entry
			for _, m := range f.messages(ev.ConversationID) {
				if m.ToolCallID == "call_w" {
					results = append(results, m)
				}
			}
			if len(results) != 1 || results[0].ID != ev.ResultMessageID || results[0].Approval == nil ||
				results[0].Approval.Answer != tc.answer.Decision || results[0].Approval.Waiting() {
				t.Fatalf("results: %+v", results)
			}
			reqs := f.srv.ChatRequests()
			last := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1]
			if last.ToolCallID != "call_w" || !strings.Contains(last.Text(), tc.inModel) {
				t.Fatalf("the model got %q", last.Text())
			}
			if tc.answer.Decision == approval.AnswerConversation {
				// The grant holds for the next write of the conversation.
				f.srv.Enqueue(fakellm.Tools(writeCall("call_2", "@project/todo.txt", "buy bread\\n")), fakellm.Text("Done again."))
				res := f.send(SendRequest{ConversationID: res.ConversationID, Text: "and the list"})
				if b, _ := os.ReadFile(filepath.Join(f.root, "todo.txt")); string(b) != "buy bread\n" || res.Text != "Done again." {
					t.Fatalf("second write: %q %+v", b, res)
				}
				if n := len(f.rec.Named(events.ApprovalRequested)); n != 1 {
					t.Fatalf("%d requests", n)
				}
			}
		})
	}
}

func TestApprovalRefusals(t *testing.T) {
	tests := []struct {
		name   string
		mode   approval.Mode
		rules  approval.Rules
		req    SendRequest
		reason string
	}{
		{"read-only", approval.ReadOnly, approval.Rules{}, SendRequest{}, "read-only mode"},
		{"nobody to ask", approval.Ask, approval.Rules{}, SendRequest{NoAsk: "input is not a terminal"}, "waits for the user's approval, and input is not a terminal"},
		{"deny rule over full-auto", approval.FullAuto, approval.Rules{Deny: []string{"fs.write(@project/*.md)"}}, SendRequest{}, `fs.write(@project/*.md)\" in the user`},
		{"the send's mode", approval.FullAuto, approval.Rules{}, SendRequest{Approve: approval.ReadOnly}, "read-only mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ap := approvalFixture(t, tc.mode)
			ap.policy.User = tc.rules
			f.srv.Enqueue(fakellm.Tools(writeCall("call_w", "@project/notes.md", "gone")), fakellm.Text("I could not."))
			req := tc.req
			req.Text = "overwrite the notes"
			res := f.send(req)
			if b, _ := os.ReadFile(filepath.Join(f.root, "notes.md")); string(b) == "gone" {
				t.Fatal("written")
			}
			msgs := f.messages(res.ConversationID)
			tool := msgs[2]
			if !tool.IsError || tool.Approval != nil || !strings.Contains(tool.Text(), CodeApprovalDenied) || !strings.Contains(tool.Text(), tc.reason) {
				t.Fatalf("tool result: %s", tool.Text())
			}
			if n := len(f.rec.Named(events.ApprovalRequested)); n != 0 {
				t.Fatalf("%d requests", n)
			}
		})
	}
}

// Reads never ask; auto-edit writes in the project; a new file's request
// shows it whole.
func TestApprovalAutoEditAndNewFiles(t *testing.T) {
	f, _ := approvalFixture(t, approval.AutoEdit)
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "c1", Name: "fs.list", Arguments: `{"path":"@project"}`}, writeCall("c2", "@project/new.md", "hello\\n")), fakellm.Text("Written."))
	res := f.send(SendRequest{Text: "write a note"})
	if b, err := os.ReadFile(filepath.Join(f.root, "new.md")); err != nil || string(b) != "hello\n" || res.Text != "Written." {
		t.Fatalf("%q %v %+v", b, err, res)
	}

	f, ap := approvalFixture(t, approval.Ask)
	f.srv.Enqueue(fakellm.Tools(writeCall("c1", "@project/docs/new.md", "hello\\n")), fakellm.Text("Written."))
	done := sendAsync(f, SendRequest{Text: "write a note"})
	ev := waitRequested(t, f, 1)
	if !ev.Approval.NewFile || ev.Approval.Diff != "--- /dev/null\n+++ @project/docs/new.md\n@@ -0,0 +1 @@\n+hello\n" ||
		!strings.Contains(ev.Approval.Summary, "create @project/docs/new.md") {
		t.Fatalf("%+v", ev.Approval)
	}
	ap.broker.Answer(ev.ConversationID, ev.ToolCallID, approval.Answer{Decision: approval.AnswerAllow})
	<-done
	if b, _ := os.ReadFile(filepath.Join(f.root, "docs", "new.md")); string(b) != "hello\n" {
		t.Fatalf("%q", b)
	}
}

// Stop while a call waits: it never runs, its result says so, and the log
// read after a restart has the call answered once.
func TestApprovalStopWhileWaiting(t *testing.T) {
	f, ap := approvalFixture(t, approval.Ask)
	f.srv.Enqueue(fakellm.Tools(writeCall("call_w", "@project/notes.md", "gone"), fakellm.ToolCall{ID: "call_l", Name: "fs.list", Arguments: `{"path":"@project"}`}))
	done := sendAsync(f, SendRequest{Text: "overwrite the notes"})
	ev := waitRequested(t, f, 1)
	if !f.svc.Stop(ev.ConversationID) {
		t.Fatal("nothing to stop")
	}
	res := <-done
	if res.Err == nil || res.Err.Code != "LLM_ABORTED" {
		t.Fatalf("%+v", res)
	}
	if ap.broker.Answer(ev.ConversationID, ev.ToolCallID, approval.Answer{Decision: approval.AnswerAllow}) {
		t.Fatal("an answer after the stop was taken")
	}
	f.reopen()
	if b, _ := os.ReadFile(filepath.Join(f.root, "notes.md")); string(b) == "gone" {
		t.Fatal("written")
	}
	var results []*conversation.Entry
	for _, m := range f.messages(ev.ConversationID) {
		if m.Role == conversation.RoleTool {
			results = append(results, m)
		}
	}
	if len(results) != 1 || results[0].ID != ev.ResultMessageID || results[0].Approval.State != conversation.ApprovalStopped ||
		!strings.Contains(results[0].Text(), "stopped while this call waited") {
		t.Fatalf("results: %+v", results)
	}
	if n := len(f.rec.Named(events.ApprovalResolved)); n != 0 {
		t.Fatalf("events of the reopened service: %d", n)
	}
}

// A request left waiting by a process that ended (killed while it waited)
// is read back as waiting, with its diff; it never runs by itself.
func TestApprovalWaitingSurvivesInTheLog(t *testing.T) {
	f, ap := approvalFixture(t, approval.Ask)
	f.srv.Enqueue(fakellm.Tools(writeCall("call_w", "@project/notes.md", "gone")), fakellm.Text("ok"))
	done := sendAsync(f, SendRequest{Text: "overwrite the notes"})
	ev := waitRequested(t, f, 1)
	// Another reader of the same files (the app after a restart) sees the request.
	entries, err := f.store.Load(ev.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	var held *conversation.Entry
	for _, e := range entries {
		if e.ID == ev.ResultMessageID {
			held = e
		}
	}
	if held == nil || !held.Approval.Waiting() || held.Approval.Diff == "" {
		t.Fatalf("%+v", held)
	}
	ap.broker.Answer(ev.ConversationID, ev.ToolCallID, approval.Answer{Decision: approval.AnswerDeny})
	<-done
}

// A run turn follows the same approvals: its own state files never ask; a
// write to the project is refused when nobody can be asked (the command
// line without a terminal), through the context.
func TestApprovalRunTurn(t *testing.T) {
	f, _ := approvalFixture(t, approval.Ask)
	state := t.TempDir()
	host := func() ToolHost {
		r := toolsRoots(f)
		r.State = state
		return tools.NewHost(tools.Config{Roots: r, Policy: tools.DefaultPolicy()})
	}
	setup := func() (*RunSetup, error) {
		return &RunSetup{AgentID: "analyst", Persona: contextbuilder.Persona{ID: "analyst", Name: "Mary", Role: "Analyst"},
			Injector: blocks{"RUN_DIRECTIVE\n- currentNodeId: a"}, Tools: host()}, nil
	}
	convID := f.create()
	f.srv.Enqueue(fakellm.Tools(
		fakellm.ToolCall{ID: "s1", Name: "fs.write", Arguments: `{"path":"@state/workflow.md","content":"---\ncurrentNodeId: a\n---\n"}`},
		fakellm.ToolCall{ID: "p1", Name: "fs.write", Arguments: `{"path":"@project/report.md","content":"report"}`},
	), fakellm.Text("Step done."))
	ctx := WithApprovals(context.Background(), "", "nobody can be asked here")
	res, err := f.svc.RunTurn(ctx, RunTurnRequest{ConversationID: convID, RunID: "r1", WorkflowID: "w", Input: userInput("go"), Setup: setup})
	if err != nil || res.Err != nil {
		t.Fatalf("%v %+v", err, res)
	}
	if b, err := os.ReadFile(filepath.Join(state, "workflow.md")); err != nil || !strings.Contains(string(b), "currentNodeId: a") {
		t.Fatalf("state: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(f.root, "report.md")); err == nil {
		t.Fatal("the project write ran")
	}
	results := map[string]string{}
	for _, m := range f.messages(convID) {
		if m.Role == conversation.RoleTool {
			results[m.ToolCallID] = m.Text()
		}
	}
	if !strings.Contains(results["s1"], `"ok":true`) || !strings.Contains(results["p1"], "nobody can be asked here") {
		t.Fatalf("%v", results)
	}
}

// A tool the policy does not offer is refused by the host: nobody is asked.
func TestApprovalNotAskedForAToolNotOffered(t *testing.T) {
	f, _ := approvalFixture(t, approval.Ask)
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "x1", Name: "fs.delete", Arguments: `{"path":"@project/notes.md"}`}), fakellm.Text("ok"))
	res := f.send(SendRequest{Text: "delete the notes"})
	if n := len(f.rec.Named(events.ApprovalRequested)); n != 0 {
		t.Fatalf("%d requests", n)
	}
	tool := f.messages(res.ConversationID)[2]
	if !tool.IsError || tool.Approval != nil || strings.Contains(tool.Text(), CodeApprovalDenied) {
		t.Fatalf("%s", tool.Text())
	}
}
