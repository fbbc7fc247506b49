package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// blocks is a run injector with fixed blocks.
type blocks []string

func (b blocks) Blocks() []string { return b }

// runHost is a tool host over the fixture's project, with the fs tools on or off.
func (f *fixture) runHost(fs bool) ToolHost {
	p := tools.DefaultPolicy()
	p.FS.Enabled = fs
	return tools.NewHost(tools.Config{Roots: toolsRoots(f), Policy: p})
}

// nodeSetup is the setup of a run whose "state" is @project/node.txt, read before every
// call: node a speaks as the analyst with the fs tools and two blocks, node b as the writer
// without fs tools and with one block. calls counts the setups asked for.
func (f *fixture) nodeSetup(calls *int) func() (*RunSetup, error) {
	return func() (*RunSetup, error) {
		*calls++
		b, err := os.ReadFile(filepath.Join(f.root, "node.txt"))
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(string(b)) == "b" {
			return &RunSetup{AgentID: "writer", Persona: contextbuilder.Persona{ID: "writer", Name: "Theo", Role: "Writer"},
				Injector: blocks{"RUN_DIRECTIVE\n- currentNodeId: b"}, Tools: f.runHost(false)}, nil
		}
		return &RunSetup{AgentID: "analyst", Persona: contextbuilder.Persona{ID: "analyst", Name: "Mary", Role: "Analyst"},
			Injector: blocks{"RUN_DIRECTIVE\n- currentNodeId: a", "NODE_BRIEF\n- currentNodeId: a"}, Tools: f.runHost(true)}, nil
	}
}

func (f *fixture) writeNode(node string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, "node.txt"), []byte(node), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func userInput(text string) *conversation.Entry {
	return &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str("USER_INPUT\n- forNodeId: a\n" + text)}
}

func (f *fixture) runTurn(req RunTurnRequest) *SendResult {
	f.t.Helper()
	res, err := f.svc.RunTurn(context.Background(), req)
	if err != nil {
		f.t.Fatalf("run turn: %v", err)
	}
	return res
}

func TestRunTurnTagsEveryEntry(t *testing.T) {
	f := newFixture(t, nil)
	f.writeNode("a")
	convID := f.create()
	f.seed(convID, 1, 5)
	f.srv.Enqueue(
		fakellm.Response{Reasoning: "look first", ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "fs.read", Arguments: `{"path":"@project/notes.md"}`}}},
		fakellm.Text("Friday it is."),
	)
	calls := 0
	in := userInput("when do we ship?")
	in.AgentID = "analyst"
	in.Widget = json.RawMessage(`{"widgetId":"w1","type":"confirmation","answer":{"confirmed":true}}`)
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", WorkflowID: "wf-1", Input: in, Setup: f.nodeSetup(&calls)})
	if res.Err != nil || res.Text != "Friday it is." || res.Turns != 2 || calls != 2 || res.UserMessageID == "" {
		t.Fatalf("result: %+v (setups %d) %v", res, calls, res.Err)
	}
	msgs := f.messages(convID)[2:] // after the seeded exchange
	if len(msgs) != 5 {
		t.Fatalf("want user, thinking, call, result, answer; got %d messages", len(msgs))
	}
	for _, m := range msgs {
		if m.Mode != conversation.ModeRun || m.RunID != "run-1" || m.WorkflowID != "wf-1" || m.AgentID != "analyst" {
			t.Fatalf("untagged %s %s: mode %q run %q workflow %q agent %q", m.Role, m.PartType, m.Mode, m.RunID, m.WorkflowID, m.AgentID)
		}
	}
	user := msgs[0]
	if user.ID != res.UserMessageID || user.Role != conversation.RoleUser || !strings.HasPrefix(user.Text(), "USER_INPUT\n") ||
		!strings.Contains(string(user.Widget), `"confirmed":true`) || user.PartType != conversation.PartContent {
		t.Fatalf("input: %+v", user)
	}
	if msgs[1].PartType != conversation.PartThinking || msgs[4].ID != res.MessageID {
		t.Fatalf("log: %+v / %+v", msgs[1], msgs[4])
	}
	meta, err := f.store.Get(convID)
	if err != nil || meta.ActiveType != conversation.ActiveWorkflow {
		t.Fatalf("meta: %+v %v", meta, err)
	}
	// The first request: the blocks right before the input, the input last.
	first := texts(f.srv.ChatRequests()[0])
	n := len(first)
	if !strings.HasPrefix(first[n-1], "user: USER_INPUT") || first[n-3] != "user: RUN_DIRECTIVE\n- currentNodeId: a" ||
		first[n-2] != "user: NODE_BRIEF\n- currentNodeId: a" || !strings.Contains(first[n-4], "answer 0") {
		t.Fatalf("first request:\n%s", strings.Join(first, "\n"))
	}
	for _, s := range f.rec.Named(events.StreamStart) {
		if ev := s.(StreamStartEvent); ev.Mode != conversation.ModeRun || ev.AgentID != "analyst" {
			t.Fatalf("stream-start: %+v", ev)
		}
	}
}

func TestRunTurnWithoutInput(t *testing.T) {
	f := newFixture(t, nil)
	f.writeNode("a")
	convID := f.create()
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "c1", Name: "fs.list", Arguments: `{"path":"@project"}`}), fakellm.Text("Let us begin."))
	calls := 0
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", WorkflowID: "wf-1", Setup: f.nodeSetup(&calls)})
	if res.Err != nil || res.UserMessageID != "" || res.Text != "Let us begin." {
		t.Fatalf("result: %+v %v", res, res.Err)
	}
	msgs := f.messages(convID)
	if len(msgs) != 3 || msgs[0].Role != conversation.RoleAssistant {
		t.Fatalf("want call, result, answer; got %d messages", len(msgs))
	}
	reqs := f.srv.ChatRequests()
	first, second := texts(reqs[0]), texts(reqs[1])
	// No user message: the blocks end the first request and keep their place after it.
	if first[len(first)-1] != "user: NODE_BRIEF\n- currentNodeId: a" {
		t.Fatalf("first request:\n%s", strings.Join(first, "\n"))
	}
	tail := second[len(second)-4:]
	if tail[0] != "user: RUN_DIRECTIVE\n- currentNodeId: a" || tail[1] != "user: NODE_BRIEF\n- currentNodeId: a" ||
		!strings.HasPrefix(tail[2], "assistant: ") || !strings.HasSuffix(tail[3], "[result of c1]") {
		t.Fatalf("second request:\n%s", strings.Join(second, "\n"))
	}
}

func TestRunTurnSetupChangesMidTurn(t *testing.T) {
	f := newFixture(t, nil)
	f.writeNode("a")
	convID := f.create()
	f.srv.Enqueue(
		fakellm.Tools(fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/node.txt","content":"b"}`}),
		fakellm.Text("On to the draft."),
	)
	calls := 0
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", WorkflowID: "wf-1", Input: userInput("go"), Setup: f.nodeSetup(&calls)})
	if res.Err != nil || calls != 2 {
		t.Fatalf("result: %+v (setups %d) %v", res, calls, res.Err)
	}
	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %d", len(reqs))
	}
	if sys := systemText(reqs[0]); !strings.Contains(sys, "Mary") || strings.Contains(sys, "Theo") {
		t.Fatalf("first system prompt:\n%s", sys)
	}
	if sys := systemText(reqs[1]); !strings.Contains(sys, "Theo") || strings.Contains(sys, "Mary") || strings.Contains(sys, "fs.write") {
		t.Fatalf("second system prompt (writer, no fs tools):\n%s", sys)
	}
	if got := reqs[0].ToolNames(); !slices.Contains(got, "fs_write") {
		t.Fatalf("first tools: %v", got)
	}
	if got := reqs[1].ToolNames(); slices.Contains(got, "fs_write") || !slices.Contains(got, "ui_ask_user") {
		t.Fatalf("second tools: %v", got)
	}
	// The new block replaced the old ones, before the input; the loop follows intact.
	second := texts(reqs[1])
	var inj []string
	for _, m := range second {
		if strings.HasPrefix(m, "user: RUN_DIRECTIVE") || strings.HasPrefix(m, "user: NODE_BRIEF") {
			inj = append(inj, m)
		}
	}
	tail := second[len(second)-4:]
	if !slices.Equal(inj, []string{"user: RUN_DIRECTIVE\n- currentNodeId: b"}) || tail[0] != inj[0] ||
		!strings.HasPrefix(tail[1], "user: USER_INPUT") || !strings.Contains(tail[2], "[call w1 fs_write") || !strings.HasSuffix(tail[3], "[result of w1]") {
		t.Fatalf("second request:\n%s", strings.Join(second, "\n"))
	}
	// Entries follow the agent of the call that produced them.
	msgs := f.messages(convID)
	var agents []string
	for _, m := range msgs[1:] {
		agents = append(agents, m.AgentID)
	}
	if !slices.Equal(agents, []string{"analyst", "analyst", "writer"}) {
		t.Fatalf("agents of call, result, answer: %v", agents)
	}
	var starts []string
	for _, s := range f.rec.Named(events.StreamStart) {
		starts = append(starts, s.(StreamStartEvent).AgentID)
	}
	if !slices.Equal(starts, []string{"analyst", "writer"}) {
		t.Fatalf("stream-start agents: %v", starts)
	}
}

func TestRunTurnSetupChangeKeepsInLoopCompression(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget = 8000
		s.Context.ReserveForResponse = 0
		s.Context.TriggerThreshold = 0.9 // the report's read takes the request to 92 %
	})
	f.writeNode("a")
	var big strings.Builder
	for i := 0; big.Len() < 12000; i++ {
		big.WriteString("line " + itoa(i) + ": the quarterly figures went up by " + itoa(i*7%100) + " percent\n")
	}
	if err := os.WriteFile(filepath.Join(f.root, "report.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	convID := f.create()
	seeded := f.seed(convID, 12, 60)
	f.srv.Enqueue(
		fakellm.Tools(
			fakellm.ToolCall{ID: "r1", Name: "fs.read", Arguments: `{"path":"@project/report.txt"}`},
			fakellm.ToolCall{ID: "w1", Name: "fs.write", Arguments: `{"path":"@project/node.txt","content":"b"}`},
		),
		fakellm.Text("Figures went up."),
	)
	calls := 0
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", WorkflowID: "wf-1", Input: userInput("read the report"), Setup: f.nodeSetup(&calls)})
	if res.Err != nil || !res.Context.Compressed {
		t.Fatalf("result: %+v %v", res, res.Err)
	}
	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 || len(reqs[1].Messages) >= len(reqs[0].Messages)+3 {
		t.Fatalf("the second request was not compressed: %d then %d messages", len(reqs[0].Messages), len(reqs[1].Messages))
	}
	second := texts(reqs[1])
	tail := second[len(second)-5:]
	if tail[0] != "user: RUN_DIRECTIVE\n- currentNodeId: b" || !strings.HasPrefix(tail[1], "user: USER_INPUT") ||
		!strings.Contains(tail[2], "[call r1") || !strings.Contains(tail[3], "line 1:") || !strings.HasSuffix(tail[4], "[result of w1]") {
		t.Fatalf("second request tail:\n%s", strings.Join(tail, "\n"))
	}
	if !strings.Contains(systemText(reqs[1]), "Theo") {
		t.Fatal("the compressed request lost the new persona")
	}
	history := map[string]bool{}
	for _, e := range seeded {
		history[e.ID] = true
	}
	var data map[string]any
	for _, e := range f.load(convID) {
		if e.Compacted && !history[e.ID] {
			t.Fatalf("a message of the current turn was compacted: %s %s", e.Role, e.ID)
		}
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			_ = json.Unmarshal(e.Data, &data)
		}
	}
	if data["reason"] != ReasonInLoop || data["runId"] != "run-1" || data["mode"] != conversation.ModeRun {
		t.Fatalf("compaction event: %v", data)
	}
	for _, m := range f.messages(convID) {
		if !history[m.ID] && (m.RunID != "run-1" || m.Mode != conversation.ModeRun) {
			t.Fatalf("untagged %s %s", m.Role, m.ID)
		}
	}
}

func TestLoopDetected(t *testing.T) {
	bad := fakellm.ToolCall{Name: "fs.read", Arguments: `{"path":"@project/missing.md","startLine":1}`}
	same := fakellm.ToolCall{Name: "fs.read", Arguments: ` {"startLine": 1, "path": "@project/missing.md"}`}
	other := fakellm.ToolCall{Name: "fs.read", Arguments: `{"path":"@project/missing.md"}`}
	for _, mode := range []string{conversation.ModeChat, conversation.ModeRun} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, nil)
			f.writeNode("a")
			convID := f.create()
			f.srv.Enqueue(fakellm.Tools(bad), fakellm.Tools(other), fakellm.Tools(same), fakellm.Tools(bad), fakellm.Text("never"))
			var res *SendResult
			if mode == conversation.ModeRun {
				calls := 0
				res = f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", Input: userInput("read it"), Setup: f.nodeSetup(&calls)})
			} else {
				res = f.send(SendRequest{ConversationID: convID, Text: "read it"})
			}
			if res.Err == nil || res.Err.Code != CodeLoopDetected || res.Turns != 4 || len(f.srv.ChatRequests()) != 4 {
				t.Fatalf("result: %+v %v", res, res.Err)
			}
			msgs := f.messages(convID)
			last := msgs[len(msgs)-1]
			if last.ID != res.MessageID || last.PartType != conversation.PartError || last.Mode != mode ||
				!strings.HasPrefix(last.Text(), "LLM_ERROR\n- code: ENGINE_LOOP_DETECTED") || !strings.Contains(last.Text(), tools.CodeNotFound) {
				t.Fatalf("persisted: %+v %q", last, last.Text())
			}
			// user + 4 x (call + result) + error
			if len(msgs) != 10 {
				t.Fatalf("want 10 messages, got %d", len(msgs))
			}
			// The failure travels with the next request.
			f.srv.Enqueue(fakellm.Text("Sorry, that file does not exist."))
			next := f.send(SendRequest{ConversationID: convID, Text: "continue"})
			reqs := f.srv.ChatRequests()
			if next.Err != nil || !strings.Contains(strings.Join(texts(reqs[len(reqs)-1]), "\n"), CodeLoopDetected) {
				t.Fatalf("continue: %+v %v", next, next.Err)
			}
		})
	}
}

func TestRunTurnAbort(t *testing.T) {
	f := newFixture(t, nil)
	f.writeNode("a")
	convID := f.create()
	f.srv.Enqueue(fakellm.TextChunks("one two three four five six", 6, 150*time.Millisecond))
	var once sync.Once
	f.svc.opts.Emitter = emitFunc(func(name string, p any) {
		f.rec.Emit(name, p)
		if name == events.StreamChunk {
			once.Do(func() {
				if !f.svc.Busy(convID) || !f.svc.Stop(convID) {
					t.Error("Stop found no running turn")
				}
			})
		}
	})
	calls := 0
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", Input: userInput("count"), Setup: f.nodeSetup(&calls)})
	if res.Err == nil || res.Err.Code != CodeAborted || res.Text == "" || strings.Contains(res.Text, "six") {
		t.Fatalf("result: %+v %v", res, res.Err)
	}
	msgs := f.messages(convID)
	last := msgs[len(msgs)-1]
	if last.PartType != conversation.PartError || last.RunID != "run-1" || !strings.HasPrefix(last.Text(), res.Text+"\n\nLLM_ERROR\n- code: ENGINE_ABORTED") {
		t.Fatalf("persisted: %q", last.Text())
	}
	if f.svc.Busy(convID) {
		t.Fatal("still busy after the turn returned")
	}
}

func TestRunTurnAbortBetweenCalls(t *testing.T) {
	f := newFixture(t, nil)
	f.writeNode("a")
	convID := f.create()
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "c1", Name: "fs.list", Arguments: `{"path":"@project"}`}), fakellm.Text("never"))
	calls := 0
	setup := f.nodeSetup(&calls)
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", Input: userInput("list"), Setup: func() (*RunSetup, error) {
		if calls == 1 {
			f.svc.Stop(convID)
		}
		return setup()
	}})
	if res.Err == nil || res.Err.Code != CodeAborted || len(f.srv.ChatRequests()) != 1 || calls != 2 {
		t.Fatalf("result: %+v %v (setups %d)", res, res.Err, calls)
	}
	msgs := f.messages(convID)
	if last := msgs[len(msgs)-1]; last.PartType != conversation.PartError || !strings.Contains(last.Text(), "- code: ENGINE_ABORTED") {
		t.Fatalf("persisted: %q", last.Text())
	}
}

func TestRunTurnMaxTurnsAndAskUser(t *testing.T) {
	f := newFixture(t, nil)
	f.writeNode("a")
	convID := f.create()
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Tools(fakellm.ToolCall{Name: "fs.list", Arguments: `{"path":"@project"}`})
	})
	calls := 0
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", Input: userInput("loop"), Setup: f.nodeSetup(&calls), MaxTurns: 2})
	if res.Err == nil || res.Err.Code != CodeMaxTurnsExceeded || res.Turns != 2 || calls != 2 {
		t.Fatalf("max turns: %+v %v", res, res.Err)
	}
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "q", Name: "ui.ask_user", Arguments: `{"type":"confirmation","prompt":"Go on?"}`}))
	res = f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", Input: userInput("ask me"), Setup: f.nodeSetup(&calls)})
	if res.Err != nil || res.Pending == nil || res.Pending.Prompt != "Go on?" || res.Turns != 1 {
		t.Fatalf("ask: %+v %v", res, res.Err)
	}
	msgs := f.messages(convID)
	if last := msgs[len(msgs)-1]; last.Role != conversation.RoleTool || len(last.Widget) == 0 || last.RunID != "run-1" {
		t.Fatalf("widget result: %+v", last)
	}
}

func TestRunTurnRequests(t *testing.T) {
	f := newFixture(t, nil)
	f.writeNode("a")
	convID := f.create()
	calls := 0
	setup := f.nodeSetup(&calls)
	tests := []struct {
		name string
		req  RunTurnRequest
		code string
	}{
		{"no conversation", RunTurnRequest{RunID: "r", Setup: setup}, CodeInvalidRequest},
		{"no run", RunTurnRequest{ConversationID: convID, Setup: setup}, CodeInvalidRequest},
		{"no setup", RunTurnRequest{ConversationID: convID, RunID: "r"}, CodeInvalidRequest},
		{"assistant input", RunTurnRequest{ConversationID: convID, RunID: "r", Setup: setup,
			Input: &conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str("x")}}, CodeInvalidRequest},
		{"empty setup", RunTurnRequest{ConversationID: convID, RunID: "r", Setup: func() (*RunSetup, error) { return &RunSetup{}, nil }}, CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.svc.RunTurn(context.Background(), tt.req); errs.CodeOf(err) != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
		})
	}
	if len(f.srv.ChatRequests()) != 0 || len(f.messages(convID)) != 0 {
		t.Fatal("an invalid request reached the LLM or the log")
	}
	// A setup that fails ends the turn with its error; the input stays in the log.
	if err := os.Remove(filepath.Join(f.root, "node.txt")); err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.RunTurn(context.Background(), RunTurnRequest{ConversationID: convID, RunID: "r", Input: userInput("hi"), Setup: setup})
	if !os.IsNotExist(err) || res == nil || res.Turns != 0 || len(f.messages(convID)) != 1 {
		t.Fatalf("setup failure: %+v %v", res, err)
	}
	// Busy: a send running in the conversation refuses a run turn.
	f.writeNode("a")
	f.srv.Enqueue(fakellm.TextChunks("slow answer here", 3, 100*time.Millisecond))
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.svc.Send(context.Background(), SendRequest{ConversationID: convID, Text: "talk"})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !f.svc.Busy(convID) && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if _, err := f.svc.RunTurn(context.Background(), RunTurnRequest{ConversationID: convID, RunID: "r", Setup: setup}); errs.CodeOf(err) != CodeBusy {
		t.Fatalf("busy: %v", err)
	}
	<-done
}

func TestRunTurnBlocksAppearMidTurn(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	f.seed(convID, 1, 5)
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "c1", Name: "fs.list", Arguments: `{"path":"@project"}`}), fakellm.Text("done"))
	calls := 0
	setup := func() (*RunSetup, error) {
		calls++
		var b blocks
		if calls > 1 {
			b = blocks{"RUN_DIRECTIVE\n- currentNodeId: b"}
		}
		return &RunSetup{AgentID: "analyst", Persona: contextbuilder.Persona{ID: "analyst", Name: "Mary"}, Injector: b, Tools: f.runHost(true)}, nil
	}
	res := f.runTurn(RunTurnRequest{ConversationID: convID, RunID: "run-1", Input: userInput("list"), Setup: setup})
	if res.Err != nil || calls != 2 {
		t.Fatalf("result: %+v %v", res, res.Err)
	}
	reqs := f.srv.ChatRequests()
	for _, m := range texts(reqs[0]) {
		if strings.HasPrefix(m, "user: RUN_DIRECTIVE") {
			t.Fatalf("first request has a block: %q", m)
		}
	}
	second := texts(reqs[1])
	tail := second[len(second)-5:]
	if !strings.Contains(tail[0], "answer 0") || tail[1] != "user: RUN_DIRECTIVE\n- currentNodeId: b" ||
		!strings.HasPrefix(tail[2], "user: USER_INPUT") || !strings.HasSuffix(tail[4], "[result of c1]") {
		t.Fatalf("second request:\n%s", strings.Join(second, "\n"))
	}
}
