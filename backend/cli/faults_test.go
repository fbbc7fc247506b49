package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// TestChatStreamFaults runs `crewagent chat` against a server that breaks its answer off
// in each way real servers do, then checks the exit code, the output, the persisted state,
// and that `chat --retry` (and "continue") pick the conversation up.
func TestChatStreamFaults(t *testing.T) {
	writeA := fakellm.ToolCall{ID: "call_a", Name: "fs.write", Arguments: `{"path":"@project/a.txt","content":"written by a"}`}
	writeB := fakellm.ToolCall{ID: "call_b", Name: "fs.write", Arguments: `{"path":"@project/b.txt","content":"written by b"}`, ArgChunks: 2}
	cases := []struct {
		name   string
		resp   []fakellm.Response
		code   int
		stdout string // the start of what chat streamed
		errHas string // on stderr
		finish string // persisted finishReason of an incomplete answer
	}{
		{"connection closed without finish", []fakellm.Response{{Text: "Half of the answer and then", Chunks: 3, Fault: fakellm.FaultClose, CutAfter: 2}},
			ExitLLMFailed, "Half of t", "LLM_STREAM_INCOMPLETE", ""},
		{"chunked body cut mid-chunk", []fakellm.Response{{Text: "Half of the answer and then", Chunks: 3, Fault: fakellm.FaultChunkCut, CutAfter: 2}},
			ExitLLMFailed, "Half of t", "LLM_STREAM_INCOMPLETE", ""},
		{"a complete fs.write then a cut call", []fakellm.Response{{ToolCalls: []fakellm.ToolCall{writeA, writeB}, Fault: fakellm.FaultClose, CutAfter: 5}},
			ExitLLMFailed, "", "LLM_STREAM_INCOMPLETE", ""},
		{"stall", []fakellm.Response{{Text: "Half of the answer and then", Chunks: 3, StallAfter: 2, Stall: fakellm.StallForever}},
			ExitLLMFailed, "Half of t", "LLM_TIMEOUT", ""},
		{"rate limited without Retry-After", []fakellm.Response{fakellm.RateLimited("")},
			ExitLLMFailed, "", "LLM_RATE_LIMIT", ""},
		{"output limit", []fakellm.Response{{Text: "Half of the answer", FinishReason: "length", ToolCalls: []fakellm.ToolCall{writeA}}},
			ExitOK, "Half of the answer", "output limit (finish_reason length)", "length"},
		{"content filter", []fakellm.Response{{Text: "Half of the answer", FinishReason: "content_filter"}},
			ExitOK, "Half of the answer", "content filter stopped it (finish_reason content_filter)", "content_filter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newChatEnv(t)
			writeSettings(t, c.home, `{"llm":{"idleTimeoutSeconds":1,"maxRetries":0}}`)
			c.srv.Enqueue(tc.resp...)
			r := c.run(t, "", "chat", "explain the plan")
			if r.code != tc.code || !strings.HasPrefix(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.errHas) ||
				!strings.Contains(r.stderr, "--retry") {
				t.Fatalf("chat: %+v", r)
			}
			if _, err := os.Stat(filepath.Join(c.root, "a.txt")); !os.IsNotExist(err) {
				t.Fatalf("a call of an unfinished answer wrote a.txt (%v)", err)
			}
			convID := onlyConversation(t, c)
			msgs := c.messages(t, convID)
			if len(msgs) != 2 {
				t.Fatalf("log: %+v", msgs)
			}
			last := msgs[1]
			if tc.finish == "" && (last.PartType != conversation.PartError || !strings.Contains(last.Text(), "- code: "+tc.errHas)) {
				t.Fatalf("error entry %+v", last)
			}
			if tc.finish != "" && (last.FinishReason != tc.finish || last.Text() != "Half of the answer" || len(last.ToolCalls) != 0) {
				t.Fatalf("incomplete entry %+v", last)
			}

			c.srv.Enqueue(fakellm.Text("The whole answer."))
			r = c.run(t, "", "chat", "--conversation", convID, "--retry")
			if r.code != ExitOK || r.stdout != "The whole answer.\n" || r.stderr != "" {
				t.Fatalf("chat --retry: %+v", r)
			}
		})
	}
}

func TestChatIncompleteJSONAndContinue(t *testing.T) {
	c := newChatEnv(t)
	c.srv.Enqueue(fakellm.Response{Text: "The first half", FinishReason: "length"}, fakellm.Text(" and the second half."))
	r := c.run(t, "", "--json", "chat", "explain the plan")
	var out struct {
		ConversationID string `json:"conversationId"`
		Text           string `json:"text"`
		Incomplete     bool   `json:"incomplete"`
		FinishReason   string `json:"finishReason"`
	}
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &out) != nil || !out.Incomplete || out.FinishReason != "length" || out.Text != "The first half" {
		t.Fatalf("chat --json: %+v", r)
	}
	r = c.run(t, "", "chat", "--conversation", out.ConversationID, "continue")
	if r.code != ExitOK || r.stdout != " and the second half.\n" {
		t.Fatalf("continue: %+v", r)
	}
	reqs := c.srv.ChatRequests()
	msgs := reqs[len(reqs)-1].Messages
	if n := len(msgs); msgs[n-2].Text() != "The first half" || msgs[n-1].Text() != "continue" {
		t.Fatalf("continue request ends %q %q", msgs[n-2].Text(), msgs[n-1].Text())
	}
}

func writeSettings(t *testing.T, home, body string) {
	t.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// onlyConversation returns the id of the project's one conversation.
func onlyConversation(t *testing.T, c *chatEnv) string {
	t.Helper()
	r := c.run(t, "", "--json", "conversations", "list")
	var list []conversation.ConversationMeta
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 {
		t.Fatalf("conversations list: %+v", r)
	}
	return list[0].ID
}
