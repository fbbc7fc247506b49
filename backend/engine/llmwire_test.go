package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

// Parallel calls streamed with one id (or none) each run once, and the next request
// carries both calls, each with an id of its own answered by its own result.
func TestDuplicateToolCallIDsRunAndPairUp(t *testing.T) {
	for _, ids := range []string{"", fakellm.IDsSame, fakellm.IDsEmpty} {
		t.Run("ids "+ids, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.Enqueue(fakellm.Response{CallIDs: ids, ToolCalls: []fakellm.ToolCall{
				{ID: "dup", Name: "fs.read", Arguments: `{"path":"@project/notes.md"}`},
				{ID: "dup", Name: "fs.read", Arguments: `{"path":"@project/todo.txt"}`},
			}}, fakellm.Text("Read both."))
			res := f.send(SendRequest{Text: "read my notes and my todo list"})
			if res.Err != nil || res.Text != "Read both." {
				t.Fatalf("result %+v err %v", res, res.Err)
			}
			reqs := f.srv.ChatRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			next := reqs[1].Messages
			var call *fakellm.RecordedMessage
			results := map[string]string{}
			for i := range next {
				m := next[i]
				if m.Role == "assistant" && len(m.ToolCalls) > 0 {
					call = &next[i]
				}
				if m.Role == "tool" {
					if _, twice := results[m.ToolCallID]; twice {
						t.Fatalf("two results for %s", m.ToolCallID)
					}
					results[m.ToolCallID] = m.Text()
				}
			}
			if call == nil || len(call.ToolCalls) != 2 || call.ToolCalls[0].ID == call.ToolCalls[1].ID {
				t.Fatalf("calls sent back: %+v", call)
			}
			for _, tc := range call.ToolCalls {
				want := "ship on friday"
				if strings.Contains(tc.Arguments, "todo.txt") {
					want = "buy milk"
				}
				if !strings.Contains(results[tc.ID], want) {
					t.Fatalf("call %s (%s) answered with %q", tc.ID, tc.Arguments, results[tc.ID])
				}
			}
			n := 0
			for _, e := range f.messages(res.ConversationID) {
				if e.Role == conversation.RoleTool {
					n++
				}
			}
			if n != 2 {
				t.Fatalf("%d tool results logged", n)
			}
		})
	}
}

// The cached prompt tokens a server reports reach the send's usage, the message of each
// call, the conversation's totals (also after a restart and a lost index) and the
// context:usage event; every request carries the conversation's prompt_cache_key.
func TestCachedTokensRecorded(t *testing.T) {
	for _, shape := range []string{fakellm.CacheOpenAI, fakellm.CacheDeepSeek} {
		t.Run(shape, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.SetCacheReport(shape)
			first := f.send(SendRequest{Text: "remember that the staging port is 6851"})
			second := f.send(SendRequest{ConversationID: first.ConversationID, Text: "and the owner is Leocadia"})
			reqs := f.srv.ChatRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			want := reqs[1].CachedTokens
			if want <= 0 || second.Usage.CachedTokens != want || first.Usage.CachedTokens != 0 {
				t.Fatalf("cached: first %d, second %d, server %d", first.Usage.CachedTokens, second.Usage.CachedTokens, want)
			}
			key := llm.CacheKey(first.ConversationID)
			if reqs[0].PromptCacheKey != key || reqs[1].PromptCacheKey != key {
				t.Fatalf("keys %q %q, want %q", reqs[0].PromptCacheKey, reqs[1].PromptCacheKey, key)
			}
			var logged []conversation.Usage
			for _, e := range f.messages(first.ConversationID) {
				if e.Usage != nil {
					logged = append(logged, *e.Usage)
				}
			}
			if len(logged) != 2 || logged[0] != first.Usage || logged[1] != second.Usage {
				t.Fatalf("usage in the log %+v", logged)
			}
			wantTotals := func(where string) {
				t.Helper()
				m, err := f.store.Get(first.ConversationID)
				if err != nil {
					t.Fatal(err)
				}
				u := m.Usage
				if u == nil || u.Calls != 2 || u.CachedTokens != want || u.PromptTokens != first.Usage.PromptTokens+second.Usage.PromptTokens ||
					u.Last == nil || *u.Last != second.Usage {
					t.Fatalf("%s: totals %+v", where, u)
				}
			}
			wantTotals("after the sends")
			f.reopen()
			wantTotals("after a restart")
			if err := f.store.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(f.dataDir, "conversations", "index.json")); err != nil {
				t.Fatal(err)
			}
			f.open()
			wantTotals("with the index rebuilt from the log")

			f.send(SendRequest{ConversationID: first.ConversationID, Text: "thanks"})
			var last *UsageEvent
			for _, p := range f.rec.Named(events.ContextUsage) {
				ev := p.(UsageEvent)
				last = &ev
			}
			if last == nil || last.Reported == nil || last.Reported.Calls != 2 || last.Reported.CachedTokens != want {
				t.Fatalf("context:usage before the third call: %+v", last)
			}
			if b, _ := json.Marshal(last); !strings.Contains(string(b), `"reported":{"calls":2`) {
				t.Fatalf("event JSON %s", b)
			}
		})
	}
}

// An endpoint that refuses prompt_cache_key gets the turn sent again at once without it,
// and no later request carries it.
func TestPromptCacheKeyRefusedOnce(t *testing.T) {
	for _, style := range []string{fakellm.RefuseOpenAI, fakellm.RefusePydantic} {
		t.Run(style, func(t *testing.T) {
			f := newFixture(t, func(s *settings.Settings) { s.LLM.MaxRetries = 0 })
			f.srv.RefuseFields(style, llm.FieldPromptCacheKey)
			first := f.send(SendRequest{Text: "hello"})
			if first.Err != nil {
				t.Fatalf("the turn failed: %v", first.Err)
			}
			second := f.send(SendRequest{ConversationID: first.ConversationID, Text: "again"})
			if second.Err != nil {
				t.Fatal(second.Err)
			}
			reqs := f.srv.ChatRequests()
			if len(reqs) != 3 || !reqs[0].HasField(llm.FieldPromptCacheKey) || reqs[1].HasField(llm.FieldPromptCacheKey) || reqs[2].HasField(llm.FieldPromptCacheKey) {
				t.Fatalf("%d requests", len(reqs))
			}
			for _, e := range f.messages(first.ConversationID) {
				if e.PartType == conversation.PartError {
					t.Fatalf("an error was logged: %s", e.Text())
				}
			}
		})
	}
}

// The model's thinking, under either name, is kept in the log and never sent back.
func TestReasoningKeptNotSentBack(t *testing.T) {
	for _, tt := range []struct {
		field string
		json  bool
	}{{"reasoning_content", false}, {"reasoning", false}, {"reasoning", true}} {
		t.Run(tt.field, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.Enqueue(fakellm.Response{Reasoning: "The user wants the port; it was 6851.", ReasoningField: tt.field, JSON: tt.json, Text: "Port 6851."}, fakellm.Text("ok"))
			first := f.send(SendRequest{Text: "which port?"})
			f.send(SendRequest{ConversationID: first.ConversationID, Text: "thanks"})
			var thinking, answer bool
			for _, e := range f.messages(first.ConversationID) {
				thinking = thinking || (e.PartType == conversation.PartThinking && e.Text() == "The user wants the port; it was 6851.")
				answer = answer || e.Text() == "Port 6851."
			}
			if !thinking || !answer {
				t.Fatalf("thinking logged %v, answer logged %v", thinking, answer)
			}
			next := f.srv.ChatRequests()[1]
			for _, m := range next.Messages {
				if strings.Contains(m.Text(), "The user wants the port") {
					t.Fatalf("the thinking was sent back: %+v", m)
				}
			}
		})
	}
}
