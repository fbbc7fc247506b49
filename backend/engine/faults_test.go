package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// writeCalls are two fs.write calls; the second one's arguments come in two chunks.
// The events of a response made of them: 0 role, 1 call a, 2 args a, 3 call b, 4-5 args b,
// 6 finish, 7 usage.
var writeCalls = []fakellm.ToolCall{
	{ID: "call_a", Name: "fs.write", Arguments: `{"path":"@project/a.txt","content":"written by a"}`},
	{ID: "call_b", Name: "fs.write", Arguments: `{"path":"@project/b.txt","content":"written by b"}`, ArgChunks: 2},
}

// TestStreamFaultsThroughTheEngine drives every stream fault a real server produces through
// a send in agent mode (tools on), restarts the store, and checks what was persisted and
// that the conversation goes on: a stream without a finish is a persisted LLM failure
// (partial text + LLM_STREAM_INCOMPLETE) that Retry answers again; an answer the server cut
// short (length, content_filter) is a persisted incomplete answer that "continue" resumes
// and Retry replaces. No tool call of such a response ever runs.
func TestStreamFaultsThroughTheEngine(t *testing.T) {
	cases := []struct {
		name string
		resp fakellm.Response
		// code is the failure ("" for an incomplete answer, finish then says why).
		code, finish string
		partial      string
	}{
		{"server closes the connection", fakellm.Response{Text: "The plan has three parts: first", Chunks: 4, Fault: fakellm.FaultClose, CutAfter: 3},
			llm.CodeStreamIncomplete, "", "The plan has three parts: first"},
		{"response ends without finish", fakellm.Response{Text: "The plan has three parts: first", Chunks: 4, Fault: fakellm.FaultEnd, CutAfter: 3},
			llm.CodeStreamIncomplete, "", "The plan has three parts: first"},
		{"chunked body cut mid-chunk", fakellm.Response{Text: "The plan has three parts: first", Chunks: 4, Fault: fakellm.FaultChunkCut, CutAfter: 3},
			llm.CodeStreamIncomplete, "", "The plan has three parts: first"},
		{"connection reset", fakellm.Response{Text: "The plan has three parts: first", Chunks: 4, Fault: fakellm.FaultAbort, CutAfter: 3},
			llm.CodeStreamIncomplete, "", "The plan has three parts: first"},
		{"a complete fs.write then a cut call", fakellm.Response{ToolCalls: writeCalls, Fault: fakellm.FaultClose, CutAfter: 5},
			llm.CodeStreamIncomplete, "", ""},
		{"a complete fs.write then a chunk cut", fakellm.Response{ToolCalls: writeCalls, Fault: fakellm.FaultChunkCut, CutAfter: 5},
			llm.CodeStreamIncomplete, "", ""},
		{"stall", fakellm.Response{Text: "The plan has three parts: first", Chunks: 4, StallAfter: 3, Stall: fakellm.StallForever},
			llm.CodeTimeout, "", "The plan has three parts: first"},
		{"output limit", fakellm.Response{Text: "The plan has three parts: first", FinishReason: "length"},
			"", "length", "The plan has three parts: first"},
		{"content filter", fakellm.Response{Text: "The plan has three parts: first", FinishReason: "content_filter"},
			"", "content_filter", "The plan has three parts: first"},
		{"output limit with complete tool calls", fakellm.Response{Text: "Writing both.", ToolCalls: writeCalls, FinishReason: "length"},
			"", "length", "Writing both."},
		{"rate limited without Retry-After", fakellm.RateLimited(""), llm.CodeRateLimit, "", ""},
		{"rate limited with Retry-After", fakellm.RateLimited("0.001"), llm.CodeRateLimit, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.Enqueue(tc.resp)
			if tc.code == llm.CodeRateLimit {
				f.srv.Enqueue(tc.resp, tc.resp, tc.resp) // the retries see the same
			}
			res := f.send(SendRequest{Text: "explain the plan", Mode: "agent", AgentID: "analyst"})
			convID := res.ConversationID
			for _, name := range []string{"a.txt", "b.txt"} {
				if _, err := os.Stat(filepath.Join(f.root, name)); !os.IsNotExist(err) {
					t.Fatalf("%s was written by a call of an unfinished answer (%v)", name, err)
				}
			}
			if n := len(f.rec.Named(events.StreamToolEnd)); n != len(f.rec.Named(events.StreamToolStart)) {
				t.Fatalf("tool starts %d, ends %d", len(f.rec.Named(events.StreamToolStart)), n)
			}
			for _, e := range f.rec.Named(events.StreamToolEnd) {
				if !e.(ToolEndEvent).Interrupted {
					t.Fatalf("a call ran: %+v", e)
				}
			}

			f.reopen() // the state must stand on its own after a restart
			msgs := f.messages(convID)
			if len(msgs) != 2 || msgs[0].Text() != "explain the plan" {
				t.Fatalf("log: %+v", msgs)
			}
			last := msgs[1]
			if last.Role != conversation.RoleAssistant || last.ID != res.MessageID {
				t.Fatalf("answer entry %+v", last)
			}
			for _, m := range msgs {
				if m.Role == conversation.RoleTool {
					t.Fatalf("a tool result was persisted: %+v", m)
				}
			}
			if tc.code != "" {
				if res.Err == nil || res.Err.Code != tc.code || res.FinishReason != "" {
					t.Fatalf("want %s, got %+v (finish %q)", tc.code, res.Err, res.FinishReason)
				}
				if !strings.HasPrefix(tc.partial, res.Text) || (tc.partial == "") != (res.Text == "") {
					t.Fatalf("partial text %q, want a start of %q", res.Text, tc.partial)
				}
				want := "LLM_ERROR\n- code: " + tc.code
				if res.Text != "" {
					want = res.Text + "\n\n" + want
				}
				if last.PartType != conversation.PartError || !strings.HasPrefix(last.Text(), want) || last.FinishReason != "" {
					t.Fatalf("error entry %q (%s)", last.Text(), last.PartType)
				}
			} else {
				if res.Err != nil || res.FinishReason != tc.finish || res.Text != tc.partial {
					t.Fatalf("result %+v", res)
				}
				if last.PartType != conversation.PartContent || last.Text() != tc.partial || last.FinishReason != tc.finish ||
					!last.Incomplete() || len(last.ToolCalls) != 0 {
					t.Fatalf("incomplete answer entry %+v", last)
				}
			}

			// Retry answers the same user message again (never "already has an answer").
			f.srv.Enqueue(fakellm.Text("The plan has three parts: a, b and c."))
			again := f.send(SendRequest{ConversationID: convID, Retry: true})
			if again.Err != nil || again.FinishReason != "" || again.Text != "The plan has three parts: a, b and c." {
				t.Fatalf("retry: %+v", again)
			}
			reqs := f.srv.ChatRequests()
			got := texts(reqs[len(reqs)-1])
			if got[len(got)-1] != "user: explain the plan" || strings.Count(strings.Join(got, "\n"), "explain the plan") != 1 {
				t.Fatalf("retried request: %q", got)
			}

			// "continue" after an incomplete answer sends its partial text back.
			if tc.code == "" {
				f2 := newFixture(t, nil)
				f2.srv.Enqueue(tc.resp, fakellm.Text(" second and third."))
				first := f2.send(SendRequest{Text: "explain the plan"})
				next := f2.send(SendRequest{ConversationID: first.ConversationID, Text: "continue"})
				if next.Err != nil || next.FinishReason != "" {
					t.Fatalf("continue: %+v", next)
				}
				reqs := f2.srv.ChatRequests()
				got := texts(reqs[len(reqs)-1])
				if n := len(got); got[n-1] != "user: continue" || got[n-2] != "assistant: "+tc.partial {
					t.Fatalf("continue request: %q", got)
				}
			}
		})
	}
}

// A complete answer whose stream loses only its end ([DONE], usage) is a normal answer and
// its tool calls run.
func TestFinishedAnswerSurvivesALostStreamEnd(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Response{ToolCalls: writeCalls[:1], Fault: fakellm.FaultChunkCut, CutAfter: 4}, fakellm.Text("Done."))
	res := f.send(SendRequest{Text: "write a", Mode: "agent", AgentID: "analyst"})
	if res.Err != nil || res.Text != "Done." {
		t.Fatalf("%+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(f.root, "a.txt")); err != nil || string(b) != "written by a" {
		t.Fatalf("a.txt: %q %v", b, err)
	}
}

// A model message with more tool calls than engine.maxToolCallsPerMessage: the first ones
// run, every other one is answered with E_TOO_MANY_TOOL_CALLS without running, so each
// call has its result and the next request is valid (the fake server is strict about it).
func TestToolCallsPerMessageAreCapped(t *testing.T) {
	f := newFixture(t, func(s *settings.Settings) { s.Engine.MaxToolCallsPerMessage = 3 })
	var calls []fakellm.ToolCall
	for i := range 10 {
		calls = append(calls, fakellm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "fs.write",
			Arguments: fmt.Sprintf(`{"path":"@project/out/%d.txt","content":"x"}`, i)})
	}
	f.srv.Enqueue(fakellm.Tools(calls...), fakellm.Text("Wrote three; the rest next time."))
	res := f.send(SendRequest{Text: "write ten files", Mode: "agent", AgentID: "analyst"})
	if res.Err != nil || res.Text != "Wrote three; the rest next time." {
		t.Fatalf("%+v", res)
	}
	des, _ := os.ReadDir(filepath.Join(f.root, "out"))
	if len(des) != 3 {
		t.Fatalf("%d files written, want 3", len(des))
	}
	results := map[string]*conversation.Entry{}
	for _, m := range f.messages(res.ConversationID) {
		if m.Role == conversation.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	for i, c := range calls {
		r := results[c.ID]
		switch {
		case r == nil:
			t.Fatalf("call %d has no result", i)
		case i < 3 && r.IsError:
			t.Fatalf("call %d: %s", i, r.Text())
		case i >= 3 && (!r.IsError || !strings.Contains(r.Text(), tools.CodeTooManyCalls) || !strings.Contains(r.Text(), "at most 3")):
			t.Fatalf("call %d: %s", i, r.Text())
		}
	}
	if n := len(f.srv.ChatRequests()); n != 2 {
		t.Fatalf("%d requests", n)
	}
	// The default cap is there without settings.
	if d := settings.Defaults().Engine.MaxToolCallsPerMessage; d != 64 {
		t.Fatalf("default cap %d", d)
	}
}
