package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

func listCall(id string) fakellm.Response {
	return fakellm.Tools(fakellm.ToolCall{ID: id, Name: "fs.list", Arguments: `{"path":"@project"}`, ArgChunks: 3})
}

func TestSendToolCallsThenAnswer(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(listCall("call_1"), fakellm.TextChunks("You have two files: notes.md and todo.txt.", 4, 0))

	res := f.send(SendRequest{Text: "What files do I have?"})
	if res.Err != nil {
		t.Fatalf("unexpected failure: %v", res.Err)
	}
	if res.Text != "You have two files: notes.md and todo.txt." || res.Turns != 2 {
		t.Fatalf("result: %+v", res)
	}
	if res.Context.UsedTokens <= 0 || res.Context.TotalBudget != 128000-8192 || res.Context.Compressed {
		t.Fatalf("context: %+v", res.Context)
	}
	if res.Usage.TotalTokens <= 0 {
		t.Fatalf("usage not summed: %+v", res.Usage)
	}

	meta, err := f.store.Get(res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Title != "What files do I have?" || meta.ActiveType != conversation.ActiveChat {
		t.Fatalf("meta: %+v", meta)
	}

	msgs := f.messages(res.ConversationID)
	if len(msgs) != 4 {
		t.Fatalf("want 4 messages, got %d", len(msgs))
	}
	user, call, tool, answer := msgs[0], msgs[1], msgs[2], msgs[3]
	if user.Role != conversation.RoleUser || user.Text() != "What files do I have?" || user.Mode != conversation.ModeChat ||
		user.PartType != conversation.PartContent || user.ID != res.UserMessageID || user.Tokens == 0 {
		t.Fatalf("user: %+v", user)
	}
	if call.Role != conversation.RoleAssistant || call.Content != nil || len(call.ToolCalls) != 1 ||
		call.ToolCalls[0].ID != "call_1" || call.ToolCalls[0].Function.Name != "fs.list" ||
		call.ToolCalls[0].Function.Arguments != `{"path":"@project"}` || call.Mode != conversation.ModeChat {
		t.Fatalf("tool call message: %+v", call)
	}
	if tool.Role != conversation.RoleTool || tool.ToolCallID != "call_1" || tool.ToolName != "fs.list" ||
		tool.PartType != conversation.PartToolResult || tool.IsError || !strings.Contains(tool.Text(), "notes.md") {
		t.Fatalf("tool message: %+v", tool)
	}
	if answer.Role != conversation.RoleAssistant || answer.PartType != conversation.PartContent || answer.Text() != res.Text || answer.ID != res.MessageID {
		t.Fatalf("answer: %+v", answer)
	}

	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 requests, got %d", len(reqs))
	}
	if got := reqs[0].ToolNames(); !slices.Contains(got, "fs_list") || !slices.Contains(got, "ui_ask_user") {
		t.Fatalf("tools sent: %v", got)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || last.ToolCallID != "call_1" || !strings.Contains(last.Text(), "todo.txt") {
		t.Fatalf("second request does not end with the tool result: %+v", last)
	}
}

func TestToolErrorIsPersistedAsErrorResult(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "c1", Name: "fs.read", Arguments: `{"path":"/etc/passwd"}`}), fakellm.Text("I cannot read that."))
	res := f.send(SendRequest{Text: "read /etc/passwd"})
	tool := f.messages(res.ConversationID)[2]
	if tool.Role != conversation.RoleTool || !tool.IsError || !strings.Contains(tool.Text(), "E_SANDBOX_VIOLATION") {
		t.Fatalf("tool message: %+v", tool)
	}
	ends := f.rec.Named(events.StreamToolEnd)
	if len(ends) != 1 || ends[0].(ToolEndEvent).OK || ends[0].(ToolEndEvent).Error.Code != "E_SANDBOX_VIOLATION" {
		t.Fatalf("tool-end: %+v", ends)
	}
}

func TestReopenKeepsToolMessagesAndSendsHistory(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(listCall("call_1"), fakellm.Text("Two files."))
	first := f.send(SendRequest{Text: "list my files"})

	f.reopen()
	msgs := f.messages(first.ConversationID)
	if len(msgs) != 4 || msgs[2].Role != conversation.RoleTool || msgs[2].ToolCallID != "call_1" {
		t.Fatalf("after reopen: %d messages", len(msgs))
	}
	f.srv.Enqueue(fakellm.Text("notes.md has your plan."))
	second := f.send(SendRequest{ConversationID: first.ConversationID, Text: "which one has the plan?"})
	if second.Err != nil || second.ConversationID != first.ConversationID {
		t.Fatalf("second send: %+v", second)
	}
	reqs := f.srv.ChatRequests()
	got := texts(reqs[len(reqs)-1])
	var hist []string
	for _, s := range got {
		if !strings.HasPrefix(s, "system: ") {
			hist = append(hist, s)
		}
	}
	want := []string{
		"user: list my files",
		`assistant:  [call call_1 fs_list {"path":"@project"}]`,
		"tool: " + msgs[2].Text() + " [result of call_1]",
		"assistant: Two files.",
		"user: which one has the plan?",
	}
	if !slices.Equal(hist, want) {
		t.Fatalf("history sent after reopen:\n got %q\nwant %q", hist, want)
	}
}

func TestUserMessagePersistedBeforeTheLLMCall(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	var seen []string
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		for _, e := range f.load(convID) {
			seen = append(seen, e.Role+": "+e.Text())
		}
		return fakellm.Unauthorized()
	})
	res := f.send(SendRequest{ConversationID: convID, Text: "hello there"})
	if res.Err == nil || res.Err.Code != llm.CodeAuth {
		t.Fatalf("want LLM_AUTH, got %+v", res.Err)
	}
	if !slices.Equal(seen, []string{"user: hello there"}) {
		t.Fatalf("log while the LLM was called: %q", seen)
	}
	msgs := f.messages(convID)
	if len(msgs) != 2 || msgs[0].Text() != "hello there" || msgs[1].PartType != conversation.PartError ||
		!strings.HasPrefix(msgs[1].Text(), "LLM_ERROR\n- code: LLM_AUTH") {
		t.Fatalf("log after the failure: %+v", msgs)
	}
}

func TestNotConfiguredWritesNothing(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) { s.LLM.BaseURL = "" })
	_, err := f.svc.Send(context.Background(), SendRequest{Text: "hi"})
	if err == nil || !strings.Contains(err.Error(), "llm.baseUrl") {
		t.Fatalf("want a not-configured error, got %v", err)
	}
	if list, _ := f.store.List(); len(list) != 0 {
		t.Fatalf("a conversation was created: %+v", list)
	}
}

func TestFailuresArePersistedAndContinueResumes(t *testing.T) {
	cases := []struct {
		name    string
		resp    []fakellm.Response
		code    string
		partial string
	}{
		{"cut stream", []fakellm.Response{{Text: "The plan has three parts: first", Chunks: 4, Cut: true, CutAfter: 3}}, llm.CodeStreamIncomplete, "The plan has three parts: first"},
		{"500 after retries", []fakellm.Response{fakellm.ServerError(), fakellm.ServerError(), fakellm.ServerError(), fakellm.ServerError()}, llm.CodeServer, ""},
		{"stall", []fakellm.Response{{Text: "Thinking about the plan now", Chunks: 4, StallAfter: 3, Stall: fakellm.StallForever}}, llm.CodeTimeout, "Thinking about the plan now"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.Enqueue(tc.resp...)
			res := f.send(SendRequest{Text: "explain the plan"})
			if res.Err == nil || res.Err.Code != tc.code {
				t.Fatalf("want %s, got %+v", tc.code, res.Err)
			}
			if !strings.HasPrefix(tc.partial, res.Text) || (tc.partial == "") != (res.Text == "") {
				t.Fatalf("partial text %q, want prefix %q", res.Text, tc.partial)
			}
			if tc.code == llm.CodeServer && len(f.srv.ChatRequests()) != 4 {
				t.Fatalf("want 4 attempts, got %d", len(f.srv.ChatRequests()))
			}
			msgs := f.messages(res.ConversationID)
			errMsg := msgs[len(msgs)-1]
			wantStart := "LLM_ERROR\n- code: " + tc.code
			if res.Text != "" {
				wantStart = res.Text + "\n\n" + wantStart
			}
			if errMsg.Role != conversation.RoleAssistant || errMsg.PartType != conversation.PartError || !strings.HasPrefix(errMsg.Text(), wantStart) || errMsg.ID != res.MessageID {
				t.Fatalf("error message: %+v", errMsg)
			}
			ends := f.rec.Named(events.StreamEnd)
			if end := ends[len(ends)-1].(StreamEndEvent); end.Error == nil || end.Error.Code != tc.code || end.MessageID != res.MessageID {
				t.Fatalf("stream-end: %+v", end)
			}

			f.srv.Enqueue(fakellm.Text("...second and third parts."))
			next := f.send(SendRequest{ConversationID: res.ConversationID, Text: "continue"})
			if next.Err != nil {
				t.Fatal(next.Err)
			}
			reqs := f.srv.ChatRequests()
			got := reqs[len(reqs)-1].Messages
			n := len(got)
			if got[n-1].Text() != "continue" || got[n-2].Role != "assistant" || got[n-2].Text() != errMsg.Text() || got[n-3].Text() != "explain the plan" {
				t.Fatalf("continue request: %q", texts(reqs[len(reqs)-1]))
			}
		})
	}
}

func TestCompressionOverThreshold(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget = 8000
		s.Context.ReserveForResponse = 0
	})
	convID := f.create()
	seeded := f.seed(convID, 40, 60)
	f.srv.Enqueue(fakellm.Text("Done."))
	res := f.send(SendRequest{ConversationID: convID, Text: "summarise where we are"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if !res.Context.Compressed || res.Context.UsagePercent > 90 {
		t.Fatalf("context: %+v", res.Context)
	}

	all := f.load(convID)
	var evt *conversation.Entry
	compacted := map[string]bool{}
	for _, e := range all {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			evt = e
		}
		if e.Compacted {
			compacted[e.ID] = true
		}
	}
	if evt == nil {
		t.Fatal("no compaction event")
	}
	var data map[string]any
	if err := json.Unmarshal(evt.Data, &data); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"strategy", "from", "to", "count", "tokensBefore", "tokensAfter", "keptFrom", "reason"} {
		if _, ok := data[k]; !ok {
			t.Fatalf("compaction data lacks %s: %s", k, evt.Data)
		}
	}
	if data["strategy"] != "key-messages" || data["reason"] != ReasonThreshold || data["tokensAfter"].(float64) >= data["tokensBefore"].(float64) {
		t.Fatalf("compaction data: %s", evt.Data)
	}
	if len(compacted) == 0 || int(data["count"].(float64)) != len(compacted) || !compacted[data["from"].(string)] {
		t.Fatalf("%d compacted, data %s", len(compacted), evt.Data)
	}
	// nothing deleted: every seeded message is still in the log
	ids := map[string]bool{}
	for _, e := range all {
		ids[e.ID] = true
	}
	for _, e := range seeded {
		if !ids[e.ID] {
			t.Fatalf("message %s was deleted", e.ID)
		}
	}
	var statuses []string
	for _, p := range f.rec.Named(events.ContextUsage) {
		statuses = append(statuses, p.(UsageEvent).Status)
	}
	if !slices.Contains(statuses, "compressing") || statuses[len(statuses)-1] == "compressing" {
		t.Fatalf("usage statuses: %v", statuses)
	}
	// compacted messages that still fit are sent word for word: the newest
	// of them, never one older than one left out, and not all of them
	sent := f.srv.ChatRequests()[0]
	texts := map[string]bool{}
	for _, m := range sent.Messages {
		texts[m.Text()] = true
	}
	var order []bool // per compacted message, in log order: sent
	for _, s := range seeded {
		if compacted[s.ID] {
			order = append(order, texts[s.Text()])
		}
	}
	for i := 1; i < len(order); i++ {
		if order[i-1] && !order[i] {
			t.Fatalf("a compacted message was sent while a newer one was not: %v", order)
		}
	}
	if len(order) == 0 || order[0] {
		t.Fatalf("every compacted message was sent: %v", order)
	}

	// the next send (after a restart) starts from the compacted state
	f.reopen()
	f.srv.Enqueue(fakellm.Text("ok"))
	next := f.send(SendRequest{ConversationID: convID, Text: "and next?"})
	if next.Err != nil {
		t.Fatal(next.Err)
	}
	second := f.srv.ChatRequests()[1]
	kept := 0
	for _, m := range second.Messages {
		for _, s := range seeded {
			if m.Text() == s.Text() {
				if compacted[s.ID] && !texts[s.Text()] {
					t.Fatalf("compacted message %s sent after reopen, not before", s.ID)
				}
				if !compacted[s.ID] {
					kept++
				}
			}
		}
	}
	if kept == 0 {
		t.Fatal("the messages kept by the compaction were not sent after reopen")
	}
}

func TestContextLengthForcesCompressionAndRetry(t *testing.T) {
	f := newFixture(t, nil)
	convID := f.create()
	f.seed(convID, 15, 30)
	f.srv.Enqueue(fakellm.ContextLengthExceeded(), fakellm.Text("Here is the answer."))
	res := f.send(SendRequest{ConversationID: convID, Text: "answer please"})
	if res.Err != nil || res.Text != "Here is the answer." || !res.Context.Compressed {
		t.Fatalf("result: %+v err %v", res, res.Err)
	}
	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 || len(reqs[1].Body) >= len(reqs[0].Body) {
		t.Fatalf("want a smaller retry: %d requests", len(reqs))
	}
	var reason string
	for _, e := range f.load(convID) {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			var d map[string]any
			_ = json.Unmarshal(e.Data, &d)
			reason, _ = d["reason"].(string)
		}
	}
	if reason != ReasonContextLength {
		t.Fatalf("compaction reason %q", reason)
	}
	ends := f.rec.Named(events.StreamEnd)
	if len(ends) != 2 || !ends[0].(StreamEndEvent).Retrying || ends[0].(StreamEndEvent).Error.Code != llm.CodeContextLength {
		t.Fatalf("stream ends: %+v", ends)
	}

	// The provider said 9001 tokens of 8192: the next request is built for
	// the lower limit learned. Refused again, it is retried once more only
	// when it can be made smaller (the compaction landed with part of the
	// history word for word, which can go into the summary now); otherwise
	// nothing more is sent. Either way the failure is persisted and the
	// send ends.
	f.srv.Enqueue(fakellm.ContextLengthExceeded(), fakellm.ContextLengthExceeded(), fakellm.Text("never sent"))
	res = f.send(SendRequest{ConversationID: convID, Text: "again"})
	reqs = f.srv.ChatRequests()
	switch {
	case res.Err == nil:
		t.Fatalf("want a failure: %+v", res)
	case len(reqs) == 3 && res.Err.Code == CodeContextTooLarge:
	case len(reqs) == 4 && res.Err.Code == llm.CodeContextLength && len(reqs[3].Body) < len(reqs[2].Body):
	default:
		t.Fatalf("want at most one smaller resend: %+v, %d requests", res.Err, len(reqs))
	}
	if last := f.messages(convID); last[len(last)-1].PartType != conversation.PartError || !strings.Contains(last[len(last)-1].Text(), res.Err.Code) {
		t.Fatalf("the failure is not persisted: %+v", last[len(last)-1])
	}
}

func TestModeSwitchKeepsHistoryAndChangesSystemPrompt(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Text("hello"))
	first := f.send(SendRequest{Text: "hi"})
	before := len(f.load(first.ConversationID))

	if err := f.svc.SetMode(first.ConversationID, conversation.ModeAgent, "analyst"); err != nil {
		t.Fatal(err)
	}
	meta, _ := f.store.Get(first.ConversationID)
	if meta.ActiveType != conversation.ActiveAgent || meta.SelectedAgentID != "analyst" || len(f.load(first.ConversationID)) != before {
		t.Fatalf("after SetMode: %+v, %d entries", meta, len(f.load(first.ConversationID)))
	}
	if err := f.svc.SetMode(first.ConversationID, conversation.ModeAgent, "nobody"); !errors.Is(err, ErrAgentNotFound) {
		t.Fatalf("unknown agent: %v", err)
	}

	f.srv.Enqueue(fakellm.Text("As an analyst: why?"), fakellm.Text("back in chat"))
	second := f.send(SendRequest{ConversationID: first.ConversationID, Text: "help me plan"}) // mode from the conversation
	if err := f.svc.SetMode(first.ConversationID, conversation.ModeChat, ""); err != nil {
		t.Fatal(err)
	}
	third := f.send(SendRequest{ConversationID: first.ConversationID, Text: "thanks"})
	if second.Err != nil || third.Err != nil {
		t.Fatal(second.Err, third.Err)
	}
	reqs := f.srv.ChatRequests()
	chat1, agent, chat2 := systemText(reqs[0]), systemText(reqs[1]), systemText(reqs[2])
	if strings.Contains(chat1, "PERSONA") || strings.Contains(chat2, "PERSONA") || !strings.Contains(chat1, "active: chat") {
		t.Fatalf("chat system prompt has a persona:\n%s", chat1)
	}
	if !strings.Contains(agent, "PERSONA") || !strings.Contains(agent, "Mary") || !strings.Contains(agent, "active: agent") {
		t.Fatalf("agent system prompt:\n%s", agent)
	}
	// history kept across the switches
	if got := texts(reqs[2]); !slices.Contains(got, "user: hi") || !slices.Contains(got, "assistant: As an analyst: why?") {
		t.Fatalf("history after switching back: %q", got)
	}
	msgs := f.messages(first.ConversationID)
	if msgs[2].Mode != conversation.ModeAgent || msgs[2].AgentID != "analyst" || msgs[3].AgentID != "analyst" || msgs[4].Mode != conversation.ModeChat {
		t.Fatalf("mode tags: %+v %+v %+v", msgs[2], msgs[3], msgs[4])
	}
}

func TestAgentModeNeedsAKnownAgent(t *testing.T) {
	f := newFixture(t, nil)
	if _, err := f.svc.Send(context.Background(), SendRequest{Mode: conversation.ModeAgent, Text: "hi"}); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("no agent: %v", err)
	}
	if _, err := f.svc.Send(context.Background(), SendRequest{Mode: conversation.ModeAgent, AgentID: "ghost", Text: "hi"}); !errors.Is(err, ErrAgentNotFound) {
		t.Fatalf("unknown agent: %v", err)
	}
	if _, err := f.svc.Send(context.Background(), SendRequest{Mode: "run", Text: "hi"}); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("run mode: %v", err)
	}
	if list, _ := f.store.List(); len(list) != 0 {
		t.Fatalf("conversations created by failed sends: %d", len(list))
	}
}

func TestCancelDuringStream(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.TextChunks("one two three four five six", 6, 150*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	f.svc.opts.Emitter = emitFunc(func(name string, p any) {
		f.rec.Emit(name, p)
		if name == events.StreamChunk {
			once.Do(cancel)
		}
	})
	res, err := f.svc.Send(ctx, SendRequest{Text: "count"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Code != llm.CodeAborted || res.Text == "" || strings.Contains(res.Text, "six") {
		t.Fatalf("result: %+v %v", res, res.Err)
	}
	msgs := f.messages(res.ConversationID)
	last := msgs[len(msgs)-1]
	if last.PartType != conversation.PartError || !strings.HasPrefix(last.Text(), res.Text+"\n\nLLM_ERROR\n- code: LLM_ABORTED") {
		t.Fatalf("persisted: %q", last.Text())
	}
	if f.svc.Busy(res.ConversationID) {
		t.Fatal("still busy after the send returned")
	}
}

func TestStopDuringToolsKeepsLogValid(t *testing.T) {
	f := newFixture(t, nil)
	host := &cancelHost{}
	f.hosts = func(scope ToolScope) (ToolHost, error) {
		h, err := NewToolHosts(toolsRoots(f))(scope)
		host.ToolHost = h
		return host, err
	}
	f.reopen()
	var convID string
	host.before = func(n int) {
		if n == 1 {
			if !f.svc.Stop(convID) {
				t.Error("Stop found no running send")
			}
		}
	}
	convID = f.create()
	f.srv.Enqueue(fakellm.Tools(
		fakellm.ToolCall{ID: "a", Name: "fs.read", Arguments: `{"path":"@project/notes.md"}`},
		fakellm.ToolCall{ID: "b", Name: "fs.read", Arguments: `{"path":"@project/todo.txt"}`},
	))
	res := f.send(SendRequest{ConversationID: convID, Text: "read both"})
	if res.Err == nil || res.Err.Code != llm.CodeAborted {
		t.Fatalf("want LLM_ABORTED, got %+v", res.Err)
	}
	msgs := f.messages(convID)
	// user, assistant(calls a,b), tool(a), error
	if len(msgs) != 4 || msgs[2].ToolCallID != "a" || msgs[3].PartType != conversation.PartError {
		t.Fatalf("log: %d messages", len(msgs))
	}
	var interrupted []string
	for _, p := range f.rec.Named(events.StreamToolEnd) {
		if e := p.(ToolEndEvent); e.Interrupted {
			interrupted = append(interrupted, e.ToolCallID)
		}
	}
	if !slices.Equal(interrupted, []string{"b"}) {
		t.Fatalf("interrupted tool-ends: %v", interrupted)
	}
	// "continue": the strict fake server accepts the request (b gets a synthetic result)
	f.srv.Enqueue(fakellm.Text("resumed"))
	next := f.send(SendRequest{ConversationID: convID, Text: "continue"})
	if next.Err != nil {
		t.Fatalf("continue after stop: %v", next.Err)
	}
	reqs := f.srv.ChatRequests()
	if got := strings.Join(texts(reqs[len(reqs)-1]), "\n"); !strings.Contains(got, "TOOL_RESULT_INTERRUPTED") || !strings.Contains(got, "LLM_ABORTED") {
		t.Fatalf("continue request:\n%s", got)
	}
}

func TestMaxTurns(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) { s.Engine.MaxTurns = 2 })
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Tools(fakellm.ToolCall{Name: "fs.list", Arguments: `{"path":"@project"}`})
	})
	res := f.send(SendRequest{Text: "loop forever"})
	if res.Err == nil || res.Err.Code != CodeMaxTurnsExceeded || res.Turns != 2 || len(f.srv.ChatRequests()) != 2 {
		t.Fatalf("result: %+v err %+v", res, res.Err)
	}
	msgs := f.messages(res.ConversationID)
	last := msgs[len(msgs)-1]
	if last.PartType != conversation.PartError || !strings.HasPrefix(last.Text(), "LLM_ERROR\n- code: ENGINE_MAX_TURNS_EXCEEDED") || !strings.Contains(last.Text(), "retryable: false") {
		t.Fatalf("persisted: %q", last.Text())
	}
	// user + 2 x (calls + result) + error
	if len(msgs) != 6 {
		t.Fatalf("want 6 messages, got %d", len(msgs))
	}
}

func TestEventsInOrderWithIDs(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(listCall("call_1"), fakellm.TextChunks("Two files.", 2, 0))
	res := f.send(SendRequest{Text: "list"})
	msgs := f.messages(res.ConversationID)
	callID, answerID := msgs[1].ID, msgs[3].ID

	var seq []string
	for _, e := range f.rec.Events() {
		switch p := e.Payload.(type) {
		case UsageEvent:
			if p.ConversationID != res.ConversationID {
				t.Fatalf("usage for another conversation: %+v", p)
			}
			seq = append(seq, e.Name)
		case ChangeEvent:
			if p.ConversationID != res.ConversationID {
				t.Fatalf("change: %+v", p)
			}
			seq = append(seq, e.Name+" "+p.Kind)
		case StreamStartEvent:
			seq = append(seq, e.Name+" "+p.MessageID)
		case StreamChunkEvent:
			if len(seq) > 0 && seq[len(seq)-1] == e.Name+" "+p.MessageID {
				continue // coalescing may split text in any number of chunks
			}
			seq = append(seq, e.Name+" "+p.MessageID)
		case StreamEndEvent:
			seq = append(seq, e.Name+" "+p.MessageID)
		case ToolStartEvent:
			seq = append(seq, e.Name+" "+p.MessageID+" "+p.ToolCallID+" "+p.ToolName)
		case ToolEndEvent:
			if !p.OK || p.ResultMessageID != msgs[2].ID {
				t.Fatalf("tool-end: %+v", p)
			}
			seq = append(seq, e.Name+" "+p.MessageID+" "+p.ToolCallID)
		default:
			t.Fatalf("unexpected payload %T", p)
		}
	}
	want := []string{
		"conversation:changed created", // with the user message (CreateWith)
		"context:usage",
		"llm:stream-start " + callID,
		"llm:stream-tool-start " + callID + " call_1 fs.list",
		"llm:stream-end " + callID,
		"conversation:changed updated", // tool-call message
		"conversation:changed updated", // tool result
		"llm:stream-tool-end " + callID + " call_1",
		"context:usage",
		"llm:stream-start " + answerID,
		"llm:stream-chunk " + answerID,
		"llm:stream-end " + answerID,
		"conversation:changed updated", // answer
	}
	if !slices.Equal(seq, want) {
		t.Fatalf("events:\n got %q\nwant %q", seq, want)
	}
}

func TestChunksAreCoalescedAndComplete(t *testing.T) {
	f := newFixture(t, nil)
	text := strings.Repeat("All work and no play. ", 40)
	f.srv.Enqueue(fakellm.TextChunks(text, 80, 0))
	res := f.send(SendRequest{Text: "write"})
	var got strings.Builder
	chunks := f.rec.Named(events.StreamChunk)
	for _, c := range chunks {
		got.WriteString(c.(StreamChunkEvent).Delta)
	}
	if got.String() != text || res.Text != text {
		t.Fatal("chunk events do not add up to the answer")
	}
	if len(chunks) >= 80 {
		t.Fatalf("%d chunk events for 80 deltas: not coalesced", len(chunks))
	}
}

func TestOneSendAtATimePerConversation(t *testing.T) {
	f := newFixture(t, nil)
	convA, convB := f.create(), f.create()
	started := make(chan struct{})
	var once sync.Once
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		once.Do(func() { close(started) })
		return fakellm.Response{Text: "slow answer", Delay: 300 * time.Millisecond}
	})
	done := make(chan *SendResult)
	go func() {
		res, err := f.svc.Send(context.Background(), SendRequest{ConversationID: convA, Text: "first"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	if _, err := f.svc.Send(context.Background(), SendRequest{ConversationID: convA, Text: "second"}); !errors.Is(err, ErrConversationBusy) {
		t.Fatalf("want busy, got %v", err)
	}
	if res, err := f.svc.Send(context.Background(), SendRequest{ConversationID: convB, Text: "other"}); err != nil || res.Err != nil {
		t.Fatalf("another conversation: %v %v", err, res.Err)
	}
	if res := <-done; res == nil || res.Err != nil {
		t.Fatalf("first send: %+v", res)
	}
	if n := len(f.messages(convA)); n != 2 {
		t.Fatalf("the busy send wrote something: %d messages", n)
	}
}

func TestAskUserStopsTheLoop(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "q", Name: "ui.ask_user", Arguments: `{"type":"confirmation","prompt":"Delete todo.txt?"}`}))
	res := f.send(SendRequest{Text: "clean up"})
	if res.Err != nil || res.Pending == nil || res.Pending.Prompt != "Delete todo.txt?" || len(f.srv.ChatRequests()) != 1 {
		t.Fatalf("result: %+v", res)
	}
	tool := f.messages(res.ConversationID)[2]
	if tool.Role != conversation.RoleTool || len(tool.Widget) == 0 {
		t.Fatalf("tool message: %+v", tool)
	}
}

func TestLLMSummaryStrategy(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget = 8000
		s.Context.ReserveForResponse = 0
		s.Context.CompressionStrategy = settings.StrategyLLMSummary
		s.LLM.SummaryModel = "cheap-model"
	})
	convID := f.create()
	f.seed(convID, 40, 60)
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		if !r.Stream {
			return fakellm.Text("- Goals: the user asked twenty questions about words.")
		}
		return fakellm.Text("answered")
	})
	res := f.send(SendRequest{ConversationID: convID, Text: "where are we?"})
	if res.Err != nil || !res.Context.Compressed {
		t.Fatalf("result: %+v %v", res, res.Err)
	}
	reqs := f.srv.Requests()
	var summaryReq, chatReq *fakellm.RecordedRequest
	for i := range reqs {
		if reqs[i].Path != "/v1/chat/completions" {
			continue
		}
		if reqs[i].Stream {
			chatReq = &reqs[i]
		} else {
			summaryReq = &reqs[i]
		}
	}
	if summaryReq == nil || summaryReq.Model != "cheap-model" || chatReq == nil {
		t.Fatalf("requests: %+v", reqs)
	}
	if sys := systemText(*chatReq); !strings.Contains(sys, "CONVERSATION_SUMMARY\n") || !strings.Contains(sys, "Summary:\n- Goals: the user asked") {
		t.Fatalf("the summary is not in the request:\n%s", sys)
	}
	if !strings.Contains(summaryReq.Messages[0].Text(), "requirement and constraint") {
		t.Fatal("the summary prompt does not ask for the facts the digest keeps")
	}
	all := f.load(convID)
	evtAt, sumAt := -1, -1
	for i, e := range all {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			evtAt = i
		}
		if e.Role == conversation.RoleSystem && strings.HasPrefix(e.Text(), "CONVERSATION_SUMMARY") {
			sumAt = i
		}
	}
	if evtAt < 0 || sumAt < evtAt {
		t.Fatalf("compaction event at %d, summary at %d", evtAt, sumAt)
	}

	// the summary travels with the next request after a restart
	f.reopen()
	f.srv.SetDefault(nil)
	f.srv.Enqueue(fakellm.Text("ok"))
	f.send(SendRequest{ConversationID: convID, Text: "go on"})
	chat := f.srv.ChatRequests()
	if last := chat[len(chat)-1]; !strings.Contains(systemText(last), "Summary:\n- Goals") {
		t.Fatalf("summary missing after reopen: %q", texts(last))
	}
}

func TestLLMConfigFromSettings(t *testing.T) {
	s := settings.Defaults().LLM
	s.BaseURL, s.Model, s.APIKey = "http://127.0.0.1:1/v1", "m", "k"
	cfg := LLMConfig(s)
	if cfg.BaseURL != s.BaseURL || cfg.Model != "m" || cfg.APIKey != "k" || cfg.Timeout != 120*time.Second ||
		cfg.IdleTimeout != 60*time.Second || cfg.FirstTokenTimeout != 60*time.Second || cfg.MaxRetries != 3 {
		t.Fatalf("config: %+v", cfg)
	}
	s.MaxRetries = 0
	if LLMConfig(s).MaxRetries >= 0 {
		t.Fatal("maxRetries 0 must disable retries")
	}
	s.ReasoningEffort = "high"
	if LLMConfig(s).ReasoningEffort != "high" {
		t.Fatal("reasoningEffort not passed on")
	}
	s.ReasoningEffort = "max"
	if LLMConfig(s).ReasoningEffort != "" {
		t.Fatal("an unknown reasoningEffort was sent")
	}
	// Every shape the settings accept is one the client knows, and back.
	if !slices.Equal(settings.RequestShapes, llm.Shapes) {
		t.Fatalf("settings shapes %v, client shapes %v", settings.RequestShapes, llm.Shapes)
	}
	for _, name := range settings.RequestShapes {
		s.RequestShape = name
		want, ok := llm.ParseShape(name)
		if !ok || LLMConfig(s).Shape != want {
			t.Fatalf("%q: %q, %v", name, LLMConfig(s).Shape, ok)
		}
	}
}

func TestInLoopCompressionKeepsTheCurrentLoop(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) {
		s.Context.TokenBudget = 8000
		s.Context.ReserveForResponse = 0
	})
	var big strings.Builder
	for i := 0; big.Len() < 12000; i++ {
		big.WriteString("line " + itoa(i) + ": the quarterly figures went up by " + itoa(i*7%100) + " percent\n")
	}
	if err := os.WriteFile(filepath.Join(f.root, "report.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	convID := f.create()
	seeded := f.seed(convID, 12, 60)
	f.srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "r1", Name: "fs.read", Arguments: `{"path":"@project/report.txt"}`}), fakellm.Text("Figures went up."))
	res := f.send(SendRequest{ConversationID: convID, Text: "read the report"})
	if res.Err != nil || !res.Context.Compressed {
		t.Fatalf("result: %+v %v", res, res.Err)
	}
	reqs := f.srv.ChatRequests()
	if len(reqs) != 2 || len(reqs[1].Messages) >= len(reqs[0].Messages)+2 {
		t.Fatalf("the second request was not compressed: %d then %d messages", len(reqs[0].Messages), len(reqs[1].Messages))
	}
	n := len(reqs[1].Messages)
	if last := reqs[1].Messages[n-1]; last.Role != "tool" || last.ToolCallID != "r1" || !strings.Contains(last.Text(), "line 1:") {
		t.Fatalf("the loop's tool result is not intact: %+v", last)
	}
	var data map[string]any
	var evts int
	for _, e := range f.load(convID) {
		if e.IsEvent() && e.Event == conversation.EventCompaction {
			evts++
			_ = json.Unmarshal(e.Data, &data)
		}
	}
	if evts != 1 || data["reason"] != ReasonInLoop {
		t.Fatalf("%d compaction events, last %v", evts, data)
	}
	history := map[string]bool{}
	for _, e := range seeded {
		history[e.ID] = true
	}
	for _, e := range f.load(convID) {
		if e.Compacted && !history[e.ID] {
			t.Fatalf("a message of the current loop was compacted: %s %s", e.Role, e.ID)
		}
	}
}

func TestRetryAnswersTheLastMessageAgain(t *testing.T) {
	toolCall := fakellm.Response{ToolCalls: []fakellm.ToolCall{{Name: "fs.read", Arguments: `{"path":"@project/notes.md"}`}}}
	cases := []struct {
		name string
		// first is what the LLM does to the first send; the log is then
		// trimmed to keep entries (-1: all), as a crash would leave it.
		first []fakellm.Response
		keep  int
		// inRequest are the starts of the retried request's non-system texts.
		inRequest []string
	}{
		{"after a failure", []fakellm.Response{fakellm.Unauthorized()}, -1, []string{"explain the plan"}},
		{"after a cut stream and a tool call", []fakellm.Response{toolCall, {Text: "The notes say", Chunks: 3, Cut: true, CutAfter: 2}}, -1,
			[]string{"explain the plan", "", `{"ok":true,"path":"@project/notes.md","content":"# Notes\nship on friday\n"`}},
		{"when the reply never finished", []fakellm.Response{fakellm.Text("lost in the crash")}, 1, []string{"explain the plan"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.Enqueue(tc.first...)
			first := f.send(SendRequest{Text: "explain the plan"})
			convID := first.ConversationID
			if tc.keep >= 0 {
				f.truncateLog(convID, tc.keep)
			}
			failed := map[string]bool{}
			for _, m := range f.messages(convID) {
				if m.PartType == conversation.PartError {
					failed[m.ID] = true
				}
			}

			f.srv.Enqueue(fakellm.Text("The plan has three parts."))
			res := f.send(SendRequest{ConversationID: convID, Retry: true})
			if res.Err != nil || res.Text != "The plan has three parts." {
				t.Fatalf("retry: %+v %v", res, res.Err)
			}
			reqs := f.srv.ChatRequests()
			last := reqs[len(reqs)-1]
			var got []string
			for _, m := range last.Messages {
				if m.Role == "system" {
					continue
				}
				if strings.Contains(m.Text(), "LLM_ERROR") || strings.Contains(m.Text(), "lost in the crash") {
					t.Fatalf("a failed answer is in the retried request: %q", texts(last))
				}
				got = append(got, m.Text())
			}
			if len(got) != len(tc.inRequest) {
				t.Fatalf("retried request %q, want %q", got, tc.inRequest)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.inRequest[i]) {
					t.Fatalf("retried request %q, want %q", got, tc.inRequest)
				}
			}
			users, kept := 0, 0
			for _, m := range f.messages(convID) {
				if m.Role == conversation.RoleUser {
					users++
				}
				if failed[m.ID] {
					kept++
					if m.InContext() {
						t.Fatalf("failed answer %s still in the context", m.ID)
					}
				}
			}
			if users != 1 || res.UserMessageID != f.messages(convID)[0].ID {
				t.Fatalf("the message was sent again: %d user messages, result %+v", users, res)
			}
			if kept != len(failed) {
				t.Fatalf("%d of %d failed answers left the log", len(failed)-kept, len(failed))
			}
		})
	}
}

func TestRetryRefusals(t *testing.T) {
	f := newFixture(t, nil)
	empty := f.create()
	f.srv.Enqueue(fakellm.Text("Done."))
	answered := f.send(SendRequest{Text: "hi"}).ConversationID
	for _, tc := range []struct {
		name string
		req  SendRequest
		want string
	}{
		{"no conversation", SendRequest{Retry: true}, "needs the conversation"},
		{"with text", SendRequest{ConversationID: answered, Retry: true, Text: "again"}, "no new text"},
		{"nothing sent yet", SendRequest{ConversationID: empty, Retry: true}, "nothing to retry"},
		{"already answered", SendRequest{ConversationID: answered, Retry: true}, "already has an answer"},
		{"with attachments", SendRequest{ConversationID: answered, Retry: true, Attachments: []conversation.Attachment{{Name: "a.txt"}}}, "a retry takes no attachments"},
		{"also a continuation", SendRequest{ConversationID: answered, Retry: true, resume: true}, "a retry or a continuation, not both"},
		{"continuation with text", SendRequest{ConversationID: answered, resume: true, Text: "more"}, "no new text"},
		{"continuation with attachments", SendRequest{ConversationID: answered, resume: true, Attachments: []conversation.Attachment{{Name: "a.txt"}}}, "a continuation takes no attachments"},
		{"resolution without the conversation", SendRequest{resolve: &Resolution{ToolCallID: "c1"}}, "needs the conversation"},
		{"empty message", SendRequest{ConversationID: answered, Text: " \n"}, "the message is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Send(context.Background(), tc.req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
	if n := len(f.srv.ChatRequests()); n != 1 {
		t.Fatalf("a refused retry called the LLM: %d requests", n)
	}
}
