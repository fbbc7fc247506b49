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

	"crewagent/backend/app"
	"crewagent/backend/conversation"
	"crewagent/backend/convtools"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm/fakellm"
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

	// Events in the seed's order, routed by conversation.
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
