package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/convtools"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/internal/testkit"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/mcp/mcptest"
)

// convWorld is a project opened through the application layer against a
// fake OpenAI server whose answers are scripted per conversation: each
// request is recognised by the first user message of the conversation it
// comes from.
type convWorld struct {
	home, root string
	srv        *fakellm.Server
	rec        *events.Recorder
	ws         *app.Workspace

	mu     sync.Mutex
	script map[string]func(r fakellm.RecordedRequest) fakellm.Response
}

func newConvWorld(t *testing.T, settings string) *convWorld {
	t.Helper()
	w := &convWorld{home: t.TempDir(), root: t.TempDir(), srv: fakellm.New(), rec: &events.Recorder{},
		script: map[string]func(fakellm.RecordedRequest) fakellm.Response{}}
	t.Cleanup(w.srv.Close)
	t.Setenv("CREWAGENT_HOME", "")
	t.Setenv("CREWAGENT_LLM_BASE_URL", w.srv.URL())
	t.Setenv("CREWAGENT_LLM_MODEL", "fake-model")
	t.Setenv("CREWAGENT_LLM_API_KEY", "")
	t.Setenv("CREWAGENT_TOKEN_BUDGET", "")
	if settings != "" {
		if err := os.WriteFile(filepath.Join(w.home, "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		first := firstUser(r)
		w.mu.Lock()
		f := w.script[first]
		w.mu.Unlock()
		if f == nil {
			return fakellm.Response{Text: "no script for " + first}
		}
		return f(r)
	})
	w.open(t)
	return w
}

func (w *convWorld) open(t *testing.T) {
	t.Helper()
	ws, err := app.Open(w.home, w.root, app.Options{Emitter: w.rec}, app.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.ws = ws
	t.Cleanup(func() { ws.Close() })
}

// on scripts the conversation whose first user message is first.
func (w *convWorld) on(first string, f func(r fakellm.RecordedRequest) fakellm.Response) {
	w.mu.Lock()
	w.script[first] = f
	w.mu.Unlock()
}

func firstUser(r fakellm.RecordedRequest) string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Text()
		}
	}
	return ""
}

// afterTool reports whether the request ends with the result of a call to tool.
func afterTool(r fakellm.RecordedRequest, tool string) (fakellm.RecordedMessage, bool) {
	last := r.LastMessage()
	if last.Role != "tool" {
		return last, false
	}
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, c := range r.Messages[i].ToolCalls {
			if c.ID == last.ToolCallID {
				return last, c.Name == tool || c.Name == strings.ReplaceAll(tool, ".", "_")
			}
		}
	}
	return last, false
}

func call(id, name string, args any) fakellm.ToolCall {
	b, _ := json.Marshal(args)
	return fakellm.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

func (w *convWorld) entries(t *testing.T, id string) []*conversation.Entry {
	t.Helper()
	es, err := w.ws.Entries(id)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// taskEvents lists the task events as "name conversation-title[ reason]".
func (w *convWorld) taskEvents() []string {
	var out []string
	for _, e := range w.rec.Events() {
		te, ok := e.Payload.(events.TaskEvent)
		if !ok {
			continue
		}
		s := strings.TrimPrefix(e.Name, "task:") + " " + te.Title
		if te.Reason != "" {
			s += " " + te.Reason
		}
		out = append(out, s)
	}
	return out
}

// protocolValid checks that every tool call of the log has exactly one
// result and every result answers a call before it.
func protocolValid(t *testing.T, es []*conversation.Entry) {
	t.Helper()
	calls := map[string]bool{}
	answered := map[string]int{}
	for _, e := range es {
		if !e.IsMessage() || !e.InContext() {
			continue
		}
		for _, c := range e.ToolCalls {
			if e.PartType != conversation.PartError {
				calls[c.ID] = true
			}
		}
		if e.Role == conversation.RoleTool {
			if !calls[e.ToolCallID] {
				t.Fatalf("tool result %s answers no call before it", e.ToolCallID)
			}
			answered[e.ToolCallID]++
		}
	}
	for id := range calls {
		if answered[id] != 1 {
			t.Fatalf("tool call %s has %d results", id, answered[id])
		}
	}
}

func resultOf(t *testing.T, es []*conversation.Entry, callID string) convtools.Handover {
	t.Helper()
	for _, e := range es {
		if e.Role == conversation.RoleTool && e.ToolCallID == callID {
			h, ok := convtools.Decode(e.Text())
			if !ok {
				t.Fatalf("result of %s is not a handover: %s", callID, e.Text())
			}
			return h
		}
	}
	t.Fatalf("no result for %s", callID)
	return convtools.Handover{}
}

// conv.create through the command line's path: the parent's task ends as
// replaced, the child answers its first message in a task of its own, then
// the parent's continuation gets the child's last answer as the result of
// the very same call, and goes on.
func TestConvCreateHandsOverAndContinues(t *testing.T) {
	w := newConvWorld(t, "")
	var contRequest fakellm.RecordedRequest
	w.on("Plan a weekend in Lyon", func(r fakellm.RecordedRequest) fakellm.Response {
		if last, ok := afterTool(r, "conv.create"); ok {
			contRequest = r
			return fakellm.Response{Text: "Done: " + last.Text()[:0] + "I have the hotels."}
		}
		return fakellm.Response{Text: "Let me ask a helper.", ToolCalls: []fakellm.ToolCall{call("call-create", "conv.create",
			map[string]any{"user_instruction": "Find three hotels in Lyon", "title": "Hotels", "base_instruction_text": "You are a travel researcher."})}}
	})
	var childRequest fakellm.RecordedRequest
	w.on("Find three hotels in Lyon", func(r fakellm.RecordedRequest) fakellm.Response {
		childRequest = r
		return fakellm.Response{Text: "Hotel Bellecour, Hotel Fourviere, Hotel Part-Dieu."}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Plan a weekend in Lyon"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result == nil || res.Result.Text != "Done: I have the hotels." || res.Result.Err != nil {
		for _, r := range w.srv.ChatRequests() {
			t.Logf("request %d: %d messages, first user %q, last %s %.200q", r.Seq, len(r.Messages), firstUser(r), r.LastMessage().Role, r.LastMessage().Text())
		}
		t.Fatalf("final result %+v", res.Result)
	}
	parent := res.Result.ConversationID

	// The child: a real conversation with its origin and instructions.
	list, err := w.ws.ListConversations()
	if err != nil {
		t.Fatal(err)
	}
	var child conversation.ConversationMeta
	for _, m := range list {
		if m.ID != parent {
			child = m
		}
	}
	if len(list) != 2 || child.ParentID != parent || child.Origin == nil || child.Origin.ConversationID != parent ||
		child.Origin.ToolCallID != "call-create" || child.Title != "Hotels" || child.Instructions == nil ||
		child.Instructions.Base != "You are a travel researcher." {
		t.Fatalf("child record %+v (origin %+v, instructions %+v)", child, child.Origin, child.Instructions)
	}
	// Its request: the base instruction in the system prompt, its first message.
	sys := ""
	for _, m := range childRequest.Messages {
		if m.Role == "system" {
			sys += m.Text()
		}
	}
	if !strings.Contains(sys, "You are a travel researcher.") || childRequest.LastUserText() != "Find three hotels in Lyon" {
		t.Fatalf("child request: system %q, last user %q", sys, childRequest.LastUserText())
	}

	// The continuation: the result of the same call id, with the child's answer.
	last := contRequest.LastMessage()
	if last.Role != "tool" || last.ToolCallID != "call-create" {
		t.Fatalf("continuation ends with %+v", last)
	}
	var got convtools.Handover
	if err := json.Unmarshal([]byte(last.Text()), &got); err != nil {
		t.Fatal(err)
	}
	if !got.OK || got.Status != convtools.StatusCompleted || got.ConversationID != child.ID ||
		got.LastAssistantMessage != "Hotel Bellecour, Hotel Fourviere, Hotel Part-Dieu." || got.FirstUserMessage != "Find three hotels in Lyon" {
		t.Fatalf("result the continuation got: %+v", got)
	}

	// Events in order (the caller replaced, the child's task, the continuation), routed by conversation.
	want := []string{
		"started Plan a weekend in Lyon", "aborted Plan a weekend in Lyon replaced",
		"started Hotels", "complete Hotels",
		"started Plan a weekend in Lyon", "complete Plan a weekend in Lyon",
	}
	if got := w.taskEvents(); !slices.Equal(got, want) {
		t.Fatalf("task events\n got %q\nwant %q", got, want)
	}
	// The tasks, as the command line lists them.
	var outcomes []string
	for _, r := range res.Tasks {
		outcomes = append(outcomes, fmt.Sprintf("%s/%s/%d/%v/%s", r.Title, r.Tool, r.Depth, r.Continues, r.Outcome))
	}
	wantTasks := []string{"Plan a weekend in Lyon//0/false/handed-over", "Hotels/conv.create/1/false/answered", "Plan a weekend in Lyon//0/true/answered"}
	if !slices.Equal(outcomes, wantTasks) {
		t.Fatalf("tasks %q, want %q", outcomes, wantTasks)
	}

	// Both logs are complete; the parent waits for nothing any more.
	pes := w.entries(t, parent)
	protocolValid(t, pes)
	protocolValid(t, w.entries(t, child.ID))
	if h := resultOf(t, pes, "call-create"); h.Status != convtools.StatusCompleted {
		t.Fatalf("stored result %+v", h)
	}
	meta, _ := w.ws.GetConversation(parent)
	if meta.Waiting != nil {
		t.Fatalf("still waiting: %+v", meta.Waiting)
	}
	page, err := w.ws.LoadConversation(parent, 50)
	if err != nil {
		t.Fatal(err)
	}
	var hv *conversation.HandoverView
	for _, v := range page.Entries {
		if v.View.Handover != nil {
			hv = v.View.Handover
		}
	}
	if hv == nil || hv.ConversationID != child.ID || hv.Status != conversation.HandoverCompleted || hv.Title != "Hotels" ||
		hv.Answer != "Hotel Bellecour, Hotel Fourviere, Hotel Part-Dieu." || page.Unfinished {
		t.Fatalf("the screen's view of the call: %+v (unfinished %v)", hv, page.Unfinished)
	}
}

// toolNames lists the tools a request declared.
func toolNames(r fakellm.RecordedRequest) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// conv.send asks an existing conversation; the calls after it in the same
// message are answered without running; a nested handover (the child asks
// a grandchild) runs before the work that waits for it.
func TestConvSendAndNestedHandovers(t *testing.T) {
	w := newConvWorld(t, "")
	// An existing conversation, answered once before.
	w.on("Keep the budget", func(r fakellm.RecordedRequest) fakellm.Response {
		if strings.Contains(r.LastUserText(), "How much is left") {
			return fakellm.Response{Text: "412 EUR are left."}
		}
		return fakellm.Response{Text: "Noted."}
	})
	first, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Keep the budget"})
	if err != nil {
		t.Fatal(err)
	}
	budget := first.Result.ConversationID

	w.on("Book the trip", func(r fakellm.RecordedRequest) fakellm.Response {
		results := map[string]string{}
		for _, m := range r.Messages {
			if m.Role == "tool" {
				results[m.ToolCallID] = m.Text()
			}
		}
		if strings.Contains(results["c1"], "Hotel Fourviere") && strings.Contains(results["c2"], engine.CodeHandedOver) {
			return fakellm.Response{Text: "Booked."}
		}
		if r.LastMessage().Role == "tool" {
			return fakellm.Response{Text: "unexpected: " + r.LastMessage().Text()}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{
			call("c1", "conv.create", map[string]any{"user_instruction": "Pick a hotel within budget", "tools": []string{"fs.read", "conv.send", "fs.delete"}}),
			call("c2", "fs.list", map[string]any{"path": "@project"}),
		}}
	})
	var childTools []string
	w.on("Pick a hotel within budget", func(r fakellm.RecordedRequest) fakellm.Response {
		childTools = toolNames(r)
		if last, ok := afterTool(r, "conv.send"); ok {
			if !strings.Contains(last.Text(), "412 EUR") {
				return fakellm.Response{Text: "no budget: " + last.Text()}
			}
			return fakellm.Response{Text: "Hotel Fourviere fits the 412 EUR left."}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("c3", "conv.send", map[string]any{"conversation_id": budget, "text": "How much is left?"})}}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Book the trip"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.Text != "Booked." {
		t.Fatalf("final %q (%v)", res.Result.Text, res.Result.Err)
	}
	var order []string
	for _, r := range res.Tasks {
		order = append(order, fmt.Sprintf("%s/%d/%s", r.Title, r.Depth, r.Outcome))
	}
	want := []string{"Book the trip/0/handed-over", "Pick a hotel within budget/1/handed-over", "Keep the budget/2/answered",
		"Pick a hotel within budget/1/answered", "Book the trip/0/answered"}
	if !slices.Equal(order, want) {
		t.Fatalf("tasks %q\nwant %q", order, want)
	}
	// The child's tools are narrowed to those asked for that its parent has.
	if !slices.Equal(childTools, []string{"fs_read", "conv_send"}) {
		t.Fatalf("child tools %v", childTools)
	}
	pes := w.entries(t, res.Result.ConversationID)
	protocolValid(t, pes)
	h := resultOf(t, pes, "c1")
	if !slices.ContainsFunc(h.Ignored, func(s string) bool { return strings.Contains(s, "fs.delete") }) {
		t.Fatalf("fs.delete not reported as ignored: %v", h.Ignored)
	}
	for _, e := range pes {
		if e.ToolCallID == "c2" && (!e.IsError || !strings.Contains(e.Text(), engine.CodeHandedOver)) {
			t.Fatalf("fs.list after the handover: %s", e.Text())
		}
	}
	bes := w.entries(t, budget)
	protocolValid(t, bes)
	if got := bes[len(bes)-1].Text(); got != "412 EUR are left." {
		t.Fatalf("budget conversation ends with %q", got)
	}
}

// conv.list, conv.history and conv.destroy answer within the task: nothing
// is replaced. History holds messages only; destroy refuses the user's
// conversations, missing ones and the work in progress, and deletes a
// child with the conversations it created.
func TestConvListHistoryDestroyDoNotInterrupt(t *testing.T) {
	w := newConvWorld(t, "")
	w.on("Root with a child", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "conv.create"); ok {
			return fakellm.Response{Text: "child made"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("k1", "conv.create", map[string]any{"user_instruction": "Child: read a file"})}}
	})
	w.on("Child: read a file", func(r fakellm.RecordedRequest) fakellm.Response {
		if _, ok := afterTool(r, "fs.list"); ok {
			return fakellm.Response{Text: "The folder is empty."}
		}
		return fakellm.Response{Text: "Looking.", ToolCalls: []fakellm.ToolCall{call("k2", "fs.list", map[string]any{"path": "@project"})}}
	})
	made, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Root with a child"})
	if err != nil {
		t.Fatal(err)
	}
	root := made.Result.ConversationID
	var child string
	for _, r := range made.Tasks {
		if r.Tool == convtools.Create {
			child = r.ConversationID
		}
	}

	// A later message of the same conversation: its work made the child.
	results := map[string]string{}
	w.on("Root with a child", func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			for _, m := range r.Messages {
				if m.Role == "tool" {
					results[m.ToolCallID] = m.Text()
				}
			}
			return fakellm.Response{Text: "tidied"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{
			call("l", "conv.list", map[string]any{}),
			call("h", "conv.history", map[string]any{"conversation_id": child, "limit": 10}),
			call("d-root", "conv.destroy", map[string]any{"conversation_id": root}),
			call("d-missing", "conv.destroy", map[string]any{"conversation_id": "4b1c0d4e-0000-4000-8000-000000000000"}),
			call("d-child", "conv.destroy", map[string]any{"conversation_id": child}),
			call("h-bad", "conv.history", map[string]any{"conversation_id": child, "limit": 0}),
		}}
	})
	before := len(w.taskEvents())
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{ConversationID: root, Text: "Tidy up"})
	if err != nil || res.Result.Text != "tidied" {
		t.Fatalf("%v %+v", err, res)
	}
	if got := w.taskEvents()[before:]; !slices.Equal(got, []string{"started Root with a child", "complete Root with a child"}) {
		t.Fatalf("events %q: something was interrupted", got)
	}
	var list struct {
		OK            bool                  `json:"ok"`
		Conversations []convtools.ListEntry `json:"conversations"`
	}
	mustOK(t, json.Unmarshal([]byte(results["l"]), &list))
	if !list.OK || len(list.Conversations) != 2 {
		t.Fatalf("list %s", results["l"])
	}
	for _, c := range list.Conversations {
		if c.ID == child && (c.ParentID != root || c.MessageCount == 0 || c.LastActiveAt == "") {
			t.Fatalf("child in the list: %+v", c)
		}
		if _, err := time.Parse(time.RFC3339, c.LastActiveAt); err != nil {
			t.Fatalf("last_active_at %q is not RFC 3339", c.LastActiveAt)
		}
	}
	var hist struct {
		Entries []convtools.HistoryEntry `json:"entries"`
	}
	mustOK(t, json.Unmarshal([]byte(results["h"]), &hist))
	var roles []string
	for _, e := range hist.Entries {
		roles = append(roles, e.Role+":"+e.Text)
	}
	if !slices.Equal(roles, []string{"user:Child: read a file", "assistant:Looking.", "assistant:The folder is empty."}) {
		t.Fatalf("history %q (messages only)", roles)
	}
	for id, code := range map[string]string{"d-root": convtools.CodeRefused, "d-missing": convtools.CodeNotFound, "h-bad": "E_BAD_ARGUMENTS"} {
		if !strings.Contains(results[id], `"ok":false`) || !strings.Contains(results[id], code) {
			t.Fatalf("%s: %s", id, results[id])
		}
	}
	if !strings.Contains(results["d-root"], `"reason":`) {
		t.Fatalf("refusal without a reason: %s", results["d-root"])
	}
	if !strings.Contains(results["d-child"], `"ok":true`) {
		t.Fatalf("destroy child: %s", results["d-child"])
	}
	if _, err := w.ws.GetConversation(child); err == nil {
		t.Fatal("the child is still there")
	}
	if _, err := w.ws.GetConversation(root); err != nil {
		t.Fatal("the root went with it")
	}
}

// Past settings engine.maxInterruptChainDepth a handover is refused with an
// error result, and the conversation goes on in its own task.
func TestConvDepthLimit(t *testing.T) {
	w := newConvWorld(t, `{"engine":{"maxInterruptChainDepth":1}}`)
	w.on("Level 0", func(r fakellm.RecordedRequest) fakellm.Response {
		if last, ok := afterTool(r, "conv.create"); ok {
			return fakellm.Response{Text: "level 0 got: " + last.Text()}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("a", "conv.create", map[string]any{"user_instruction": "Level 1"})}}
	})
	var refusal string
	w.on("Level 1", func(r fakellm.RecordedRequest) fakellm.Response {
		if last, ok := afterTool(r, "conv.create"); ok {
			refusal = last.Text()
			return fakellm.Response{Text: "did it myself"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("b", "conv.create", map[string]any{"user_instruction": "Level 2"})}}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Level 0"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(refusal, convtools.CodeTooDeep) || !strings.Contains(res.Result.Text, "did it myself") {
		t.Fatalf("refusal %s; final %q", refusal, res.Result.Text)
	}
	if len(res.Tasks) != 3 {
		t.Fatalf("%d tasks", len(res.Tasks))
	}
	list, _ := w.ws.ListConversations()
	if len(list) != 2 {
		t.Fatalf("%d conversations: the refused one was created", len(list))
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Stop in the conversation that waits stops the whole chain: the child's
// reply is stopped, the waiting call gets a result that says so, and no
// continuation runs.
func TestConvStopStopsTheChain(t *testing.T) {
	w := newConvWorld(t, "")
	w.on("Delegate and wait", func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			t.Error("a continuation ran after Stop")
			return fakellm.Response{Text: "continued"}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("s1", "conv.create", map[string]any{"user_instruction": "A slow job", "title": "Slow job"})}}
	})
	w.on("A slow job", func(r fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Response{Text: "Working on it, step one, step two", Chunks: 4, StallAfter: 2, Stall: fakellm.StallForever}
	})
	type out struct {
		res *app.ChainResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Delegate and wait"})
		done <- out{res, err}
	}()
	var root, child string
	testkit.Wait(t, "the child's reply to stream", func() bool {
		for _, e := range w.rec.Named(events.StreamChunk) {
			if ev := e.(events.StreamChunkEvent); ev.Delta != "" {
				if m, err := w.ws.GetConversation(ev.ConversationID); err == nil && m.IsChild() {
					root, child = m.ParentID, m.ID
					return true
				}
			}
		}
		return false
	})
	page, err := w.ws.LoadConversation(root, 50)
	if err != nil || page.WaitingFor == nil || page.WaitingFor.ConversationID != child || !page.WaitingFor.Answering || page.Unfinished {
		t.Fatalf("the waiting parent's page: %+v, %v", page.WaitingFor, err)
	}
	if !w.ws.Stop(root) {
		t.Fatal("Stop in the waiting conversation stopped nothing")
	}
	var o out
	select {
	case o = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the chain did not end")
	}
	if o.err != nil || o.res.Stopped != child {
		t.Fatalf("chain result %+v, %v", o.res, o.err)
	}
	ces := w.entries(t, child)
	protocolValid(t, ces)
	last := ces[len(ces)-1]
	if last.PartType != conversation.PartError || !strings.Contains(last.Text(), "LLM_ABORTED") || !strings.HasPrefix(last.Text(), "Working") {
		t.Fatalf("the child ends with %q", last.Text())
	}
	pes := w.entries(t, root)
	protocolValid(t, pes)
	h := resultOf(t, pes, "s1")
	if h.OK || h.Status != convtools.StatusStopped || h.Error == nil || h.Error.Code != convtools.CodeStopped {
		t.Fatalf("the waiting call's result: %+v", h)
	}
	if m, _ := w.ws.GetConversation(root); m.Waiting != nil {
		t.Fatal("the parent still waits")
	}
	// The parent can be continued by the user (Continue sends a message).
	page, _ = w.ws.LoadConversation(root, 50)
	if page.Unfinished || !page.Stopped || !page.CanContinue {
		t.Fatalf("the stopped parent: unfinished %v, stopped %v, can continue %v", page.Unfinished, page.Stopped, page.CanContinue)
	}
}

// The window's path: Send starts the chain in the background; every task
// of it runs and the conversation list follows.
func TestConvThroughTheWindowPath(t *testing.T) {
	w := newConvWorld(t, "")
	w.on("Window: delegate", func(r fakellm.RecordedRequest) fakellm.Response {
		if last, ok := afterTool(r, "conv.create"); ok {
			return fakellm.Response{Text: "Summary: " + strings.Split(strings.Split(last.Text(), `"last_assistant_message":"`)[1], `"`)[0]}
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("w1", "conv.create", map[string]any{"user_instruction": "Window: the detail"})}}
	})
	w.on("Window: the detail", func(r fakellm.RecordedRequest) fakellm.Response { return fakellm.Response{Text: "forty-two"} })
	meta, err := w.ws.CreateConversation("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.ws.Send(app.SendRequest{ConversationID: meta.ID, Text: "Window: delegate"}); err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the continuation to complete", func() bool {
		n := 0
		for _, e := range w.rec.Named(events.TaskComplete) {
			if e.(events.TaskEvent).ConversationID == meta.ID && e.(events.TaskEvent).Continues {
				n++
			}
		}
		return n == 1
	})
	es := w.entries(t, meta.ID)
	protocolValid(t, es)
	if got := es[len(es)-1].Text(); got != "Summary: forty-two" {
		t.Fatalf("ends with %q", got)
	}
	// While one task runs, a reply elsewhere is refused with the name of the
	// conversation that answers.
	w.on("Busy", func(r fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Response{Text: "slow", Chunks: 2, StallAfter: 1, Stall: fakellm.StallForever}
	})
	busy, _ := w.ws.CreateConversation("Busy one")
	other, _ := w.ws.CreateConversation("Other")
	if _, err := w.ws.Send(app.SendRequest{ConversationID: busy.ID, Text: "Busy"}); err != nil {
		t.Fatal(err)
	}
	testkit.Wait(t, "the busy reply", func() bool { return w.ws.Tasks().Busy(busy.ID) })
	_, err = w.ws.Send(app.SendRequest{ConversationID: other.ID, Text: "hello"})
	if err == nil || !strings.Contains(err.Error(), "Busy one") {
		t.Fatalf("a second reply: %v", err)
	}
	w.ws.Stop(busy.ID)
	testkit.Wait(t, "the busy reply to stop", func() bool { return !w.ws.Tasks().Busy(busy.ID) })
}

// A created conversation keeps what it was created with after a restart:
// its base instruction, its narrower tools and the MCP servers its creator
// allowed it (mcp_allowlist), checked on the requests the server receives.
func TestChildKeepsItsInstructionsAcrossARestart(t *testing.T) {
	npm := mcptest.Servers(t)
	doc, _ := json.Marshal(map[string]any{
		"tools": map[string]any{"mcp": map[string]any{"enabled": true}},
		"mcpServers": map[string]any{
			"alpha": npm.Everything("conv-alpha", nil),
			"beta":  npm.Everything("conv-beta", nil),
		},
	})
	w := newConvWorld(t, string(doc))
	mcpServersOf := func(r fakellm.RecordedRequest) []string {
		var out []string
		for _, name := range toolNames(r) {
			if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
				srv, _, server := strings.Cut(rest, "__")
				if server && !slices.Contains(out, srv) { // mcp__read_resource is no server's
					out = append(out, srv)
				}
			}
		}
		return out
	}
	var rootServers []string
	w.on("Research with a narrow helper", func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			return fakellm.Response{Text: "ok"}
		}
		rootServers = mcpServersOf(r)
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("n1", "conv.create", map[string]any{
			"user_instruction": "Helper: look things up", "base_instruction_text": "Answer in one line.",
			"tools": []string{"fs.read"}, "mcp_allowlist": []string{"beta", "gamma"}})}}
	})
	var childRequests []fakellm.RecordedRequest
	w.on("Helper: look things up", func(r fakellm.RecordedRequest) fakellm.Response {
		childRequests = append(childRequests, r)
		return fakellm.Response{Text: "looked"}
	})
	res, err := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Research with a narrow helper"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rootServers, []string{"alpha", "beta"}) {
		t.Fatalf("the root's MCP servers: %v", rootServers)
	}
	child := res.Tasks[1].ConversationID
	if h := resultOf(t, w.entries(t, res.Result.ConversationID), "n1"); !slices.ContainsFunc(h.Ignored, func(s string) bool { return strings.Contains(s, "gamma") }) {
		t.Fatalf("a server the creator does not have is not reported: %v", h.Ignored)
	}
	// After a restart, a message to the child is answered as before.
	mustOK(t, w.ws.Close())
	w.open(t)
	if _, err := w.ws.ChatChain(context.Background(), engine.SendRequest{ConversationID: child, Text: "Helper: one more?"}); err != nil {
		t.Fatal(err)
	}
	if len(childRequests) != 2 {
		t.Fatalf("%d child requests", len(childRequests))
	}
	for i, r := range childRequests {
		sys := ""
		for _, m := range r.Messages {
			if m.Role == "system" {
				sys += m.Text()
			}
		}
		builtIn := slices.DeleteFunc(toolNames(r), func(n string) bool { return strings.HasPrefix(n, "mcp__") })
		if !strings.Contains(sys, "Answer in one line.") || !slices.Equal(builtIn, []string{"fs_read"}) || !slices.Equal(mcpServersOf(r), []string{"beta"}) {
			t.Fatalf("child request %d: instructions %v, tools %v, MCP servers %v", i, strings.Contains(sys, "Answer in one line."), builtIn, mcpServersOf(r))
		}
	}
}

// Deleting a conversation that waits for another one's answer stops that
// work; deleting the one that answers lets the waiting one go on, told that
// it is gone.
func TestDeletingAConversationOfTheWork(t *testing.T) {
	for _, victim := range []string{"parent", "child"} {
		t.Run(victim, func(t *testing.T) {
			w := newConvWorld(t, "")
			var continued string
			w.on("Delegate then wait", func(r fakellm.RecordedRequest) fakellm.Response {
				if last, ok := afterTool(r, "conv.create"); ok {
					continued = last.Text()
					return fakellm.Response{Text: "went on"}
				}
				return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("d1", "conv.create", map[string]any{"user_instruction": "Slow helper"})}}
			})
			w.on("Slow helper", func(r fakellm.RecordedRequest) fakellm.Response {
				return fakellm.Response{Text: "working", Chunks: 3, StallAfter: 2, Stall: fakellm.StallForever}
			})
			done := make(chan *app.ChainResult, 1)
			go func() {
				res, _ := w.ws.ChatChain(context.Background(), engine.SendRequest{Text: "Delegate then wait"})
				done <- res
			}()
			var parent, child string
			testkit.Wait(t, "the child answering", func() bool {
				for _, task := range w.ws.Tasks().All() {
					if m, err := w.ws.GetConversation(task.ConversationID); err == nil && m.IsChild() {
						parent, child = m.ParentID, m.ID
						return true
					}
				}
				return false
			})
			target := map[string]string{"parent": parent, "child": child}[victim]
			if _, err := w.ws.DeleteConversation(target); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("the work did not end")
			}
			if victim == "parent" {
				if continued != "" {
					t.Fatal("the deleted parent's reply went on")
				}
				if w.ws.Tasks().Busy(child) {
					t.Fatal("the child still answers for a deleted parent")
				}
				return
			}
			if !strings.Contains(continued, "deleted") || !strings.Contains(continued, `"ok":false`) {
				t.Fatalf("the parent went on with %s", continued)
			}
			protocolValid(t, w.entries(t, parent))
		})
	}
}

// The command line's Ctrl-C (its context cancelled) while a created
// conversation answers stops all of the work, and says which one it stopped.
func TestConvCtrlCStopsTheChain(t *testing.T) {
	w := newConvWorld(t, "")
	w.on("Start and cancel", func(r fakellm.RecordedRequest) fakellm.Response {
		if r.LastMessage().Role == "tool" {
			t.Error("a continuation ran after Ctrl-C")
		}
		return fakellm.Response{ToolCalls: []fakellm.ToolCall{call("x1", "conv.create", map[string]any{"user_instruction": "Endless helper"})}}
	})
	w.on("Endless helper", func(r fakellm.RecordedRequest) fakellm.Response {
		return fakellm.Response{Text: "thinking about it", Chunks: 3, StallAfter: 2, Stall: fakellm.StallForever}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *app.ChainResult, 1)
	go func() {
		res, err := w.ws.ChatChain(ctx, engine.SendRequest{Text: "Start and cancel"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var child string
	testkit.Wait(t, "the child answering", func() bool {
		for _, task := range w.ws.Tasks().All() {
			if m, err := w.ws.GetConversation(task.ConversationID); err == nil && m.IsChild() {
				child = m.ID
				return true
			}
		}
		return false
	})
	cancel()
	var res *app.ChainResult
	select {
	case res = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("Ctrl-C did not end the work")
	}
	if res == nil || res.Stopped != child {
		t.Fatalf("result %+v, want the child %s stopped", res, child)
	}
	if len(w.ws.Tasks().All())+len(w.ws.Tasks().Queued()) != 0 {
		t.Fatal("tasks left after Ctrl-C")
	}
	protocolValid(t, w.entries(t, res.Result.ConversationID))
}
