package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

// chunk renders one chat.completion.chunk with the given delta JSON and finish reason.
func chunk(delta string, finish string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m1","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, fr)
}

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return chunk(`{"content":`+string(b)+`}`, "")
}

func ev(payload string) string { return "data: " + payload + "\n\n" }

const usageChunk = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m1","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`

var (
	roleChunk = chunk(`{"role":"assistant","content":""}`, "")
	stopChunk = chunk(`{}`, "stop")
	toolStop  = chunk(`{}`, "tool_calls")
)

func TestStreamRawSSE(t *testing.T) {
	type want struct {
		content   string
		reasoning string
		calls     []conversation.ToolCall
		finish    string
		usage     *Usage
		code      string // error code, "" for success
		deltas    int    // OnDelta calls (-1: do not check)
	}
	tests := []struct {
		name string
		raw  []string
		want want
	}{
		{
			name: "basic",
			raw:  []string{ev(roleChunk) + ev(textChunk("Hel")) + ev(textChunk("lo")) + ev(stopChunk) + ev("[DONE]")},
			want: want{content: "Hello", finish: "stop", deltas: 2},
		},
		{
			name: "comments event and id lines",
			raw: []string{": ping\n\n", "event: message\nid: 1\nretry: 100\n" + ev(textChunk("a")),
				": keep-alive\n\n: another\n\nevent: message\n" + ev(textChunk("b")) + ev(stopChunk) + ev("[DONE]")},
			want: want{content: "ab", finish: "stop", deltas: 2},
		},
		{
			name: "chunks split mid-line and mid-JSON",
			raw: func() []string {
				body := ev(roleChunk) + ev(textChunk("split ")) + ev(textChunk("text")) + ev(stopChunk) + ev("[DONE]")
				var parts []string
				for len(body) > 7 {
					parts = append(parts, body[:7])
					body = body[7:]
				}
				return append(parts, body)
			}(),
			want: want{content: "split text", finish: "stop", deltas: 2},
		},
		{
			name: "CRLF line ends",
			raw: []string{strings.ReplaceAll(": ping\n\n"+ev(textChunk("crlf"))+ev(textChunk(" ok"))+ev(stopChunk)+ev("[DONE]"),
				"\n", "\r\n")},
			want: want{content: "crlf ok", finish: "stop", deltas: 2},
		},
		{
			name: "data without space and surrounding whitespace",
			raw:  []string{"data:" + textChunk("x") + "\n\n", "data:   " + textChunk("y") + "   \n\n", "data:[DONE]\n\n"},
			want: want{content: "xy", deltas: 2},
		},
		{
			name: "one event over several data lines",
			raw:  []string{"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\n", "data: \"delta\":{\"content\":\"joined\"}}]}\n\n", ev("[DONE]")},
			want: want{content: "joined", deltas: 1},
		},
		{
			name: "events without blank lines between them",
			raw:  []string{"data: " + textChunk("p") + "\ndata: " + textChunk("q") + "\ndata: [DONE]\n"},
			want: want{content: "pq", deltas: 2},
		},
		{
			name: "DONE missing",
			raw:  []string{ev(textChunk("no done")) + ev(stopChunk)},
			want: want{content: "no done", finish: "stop", deltas: 1},
		},
		{
			name: "usage-only final chunk",
			raw:  []string{ev(textChunk("u")) + ev(stopChunk) + ev(usageChunk) + ev("[DONE]")},
			want: want{content: "u", finish: "stop", usage: &Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18}, deltas: 1},
		},
		{
			name: "tool call split across chunks, arguments split mid-JSON",
			raw: []string{
				ev(roleChunk),
				ev(chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"fs_read","arguments":""}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"@pro"}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ject/a.md\"}"}}]}`, "")),
				ev(toolStop), ev("[DONE]"),
			},
			want: want{finish: "tool_calls", deltas: 0, calls: []conversation.ToolCall{
				{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/a.md"}`}},
			}},
		},
		{
			name: "parallel tool calls interleaved by index",
			raw: []string{
				ev(chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"fs_read","arguments":""}},{"index":1,"id":"call_b","type":"function","function":{"name":"fs_list","arguments":"{\"pa"}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"@project\"}"}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"x\"}"}}]}`, "")),
				ev(toolStop), ev("[DONE]"),
			},
			want: want{finish: "tool_calls", deltas: 0, calls: []conversation.ToolCall{
				{ID: "call_a", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"x"}`}},
				{ID: "call_b", Type: "function", Function: conversation.FunctionCall{Name: "fs.list", Arguments: `{"path":"@project"}`}},
			}},
		},
		{
			name: "tool calls without index",
			raw: []string{
				ev(chunk(`{"tool_calls":[{"id":"call_x","type":"function","function":{"name":"fs_read","arguments":"{\"path\""}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"function":{"arguments":":\"a\"}"}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"id":"call_y","type":"function","function":{"name":"fs_list","arguments":"{}"}}]}`, "")),
				ev(toolStop),
			},
			want: want{finish: "tool_calls", deltas: 0, calls: []conversation.ToolCall{
				{ID: "call_x", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"a"}`}},
				{ID: "call_y", Type: "function", Function: conversation.FunctionCall{Name: "fs.list", Arguments: `{}`}},
			}},
		},
		{
			name: "every call numbered 0 with distinct ids",
			raw: []string{
				ev(chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"fs_read","arguments":"{\"path\":\"a\"}"}}]}`, "")),
				ev(chunk(`{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"fs_read","arguments":"{\"path\":\"b\"}"}}]}`, "")),
				ev(toolStop),
			},
			want: want{finish: "tool_calls", deltas: 0, calls: []conversation.ToolCall{
				{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"a"}`}},
				{ID: "call_2", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"b"}`}},
			}},
		},
		{
			name: "text then tool call",
			raw: []string{ev(textChunk("Let me look.")),
				ev(chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ui_ask_user","arguments":"{}"}}]}`, "")),
				ev(toolStop), ev("[DONE]")},
			want: want{content: "Let me look.", finish: "tool_calls", deltas: 1, calls: []conversation.ToolCall{
				{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "ui.ask_user", Arguments: `{}`}},
			}},
		},
		{
			name: "reasoning content",
			raw:  []string{ev(chunk(`{"reasoning_content":"think "}`, "")), ev(chunk(`{"reasoning_content":"more"}`, "")), ev(textChunk("answer")), ev(stopChunk), ev("[DONE]")},
			want: want{content: "answer", reasoning: "think more", finish: "stop", deltas: 1},
		},
		{
			name: "in-stream error after output",
			raw:  []string{ev(textChunk("partial")), ev(`{"error":{"message":"The server is overloaded","type":"server_error","code":null}}`)},
			want: want{content: "partial", code: CodeServer, deltas: 1},
		},
		{
			name: "in-stream error with spaces after comments",
			raw:  []string{": ping\n\n", ev(`{ "error" : { "message" : "This model's maximum context length is 4096 tokens", "type" : "invalid_request_error" } }`)},
			want: want{code: CodeContextLength, deltas: 0},
		},
		{
			name: "in-stream error as a string",
			raw:  []string{ev(`{"error":"rate limit exceeded, slow down"}`)},
			want: want{code: CodeRateLimit, deltas: 0},
		},
		{
			name: "vLLM error object",
			raw:  []string{ev(`{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 3000 tokens","type":"BadRequestError","code":400}`)},
			want: want{code: CodeContextLength, deltas: 0},
		},
		{
			name: "malformed JSON",
			raw:  []string{ev(textChunk("ok")), ev(`{"choices":[{"delta":{"content":"x"`)},
			want: want{content: "ok", code: CodeBadResponse, deltas: 1},
		},
		{
			name: "only DONE",
			raw:  []string{ev("[DONE]")},
			want: want{code: CodeBadResponse, deltas: 0},
		},
		{
			name: "non-event body",
			raw:  []string{"<html>hello</html>\n"},
			want: want{code: CodeBadResponse, deltas: 0},
		},
	}
	tools := []Tool{{Name: "fs.read"}, {Name: "fs.list"}, {Name: "ui.ask_user"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.Enqueue(fakellm.Response{Raw: tt.raw})
			cfg := testConfig(srv)
			cfg.MaxRetries = -1
			c := New(cfg)
			rec := newRecorder()
			req := userReq("hi")
			req.Tools = tools
			res, err := c.Stream(context.Background(), req, rec)
			if res == nil {
				t.Fatal("nil result")
			}
			if tt.want.code == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				wantCode(t, err, tt.want.code)
			}
			if res.Content != tt.want.content {
				t.Errorf("content = %q, want %q", res.Content, tt.want.content)
			}
			if rec.text.String() != tt.want.content {
				t.Errorf("handler text = %q, want %q", rec.text.String(), tt.want.content)
			}
			if res.Reasoning != tt.want.reasoning || rec.reasoning.String() != tt.want.reasoning {
				t.Errorf("reasoning = %q / %q, want %q", res.Reasoning, rec.reasoning.String(), tt.want.reasoning)
			}
			if tt.want.deltas >= 0 && rec.count("delta:") != tt.want.deltas {
				t.Errorf("OnDelta calls = %d, want %d (%v)", rec.count("delta:"), tt.want.deltas, rec.events)
			}
			if tt.want.finish != "" && res.FinishReason != tt.want.finish {
				t.Errorf("finish = %q, want %q", res.FinishReason, tt.want.finish)
			}
			if len(res.ToolCalls) != len(tt.want.calls) {
				t.Fatalf("tool calls = %+v, want %+v", res.ToolCalls, tt.want.calls)
			}
			for i, w := range tt.want.calls {
				if res.ToolCalls[i] != w {
					t.Errorf("tool call %d = %+v, want %+v", i, res.ToolCalls[i], w)
				}
				// the handler saw the start (with the runtime name) and all argument bytes
				if rec.count(fmt.Sprintf("start:%d:%s:%s", i, w.ID, w.Function.Name)) != 1 {
					t.Errorf("no start event for call %d in %v", i, rec.events)
				}
				if got := rec.args[i]; got == nil || got.String() != w.Function.Arguments {
					t.Errorf("handler args %d = %v, want %q", i, got, w.Function.Arguments)
				}
			}
			if tt.want.usage != nil {
				if !res.UsageReported || res.Usage != *tt.want.usage {
					t.Errorf("usage = %+v (reported %v), want %+v", res.Usage, res.UsageReported, *tt.want.usage)
				}
			} else if res.UsageReported {
				t.Errorf("usage reported without a usage chunk: %+v", res.Usage)
			}
		})
	}
}

func TestStreamScripted(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{
		Text:   "Hello there, this is a streamed answer.",
		Chunks: 5,
		Usage:  &fakellm.Usage{PromptTokens: 20, CompletionTokens: 9, TotalTokens: 29},
	})
	c := New(testConfig(srv))
	rec := newRecorder()
	res, err := c.Stream(context.Background(), userReq("hi"), rec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "Hello there, this is a streamed answer." || rec.count("delta:") != 5 {
		t.Fatalf("content %q in %d deltas", res.Content, rec.count("delta:"))
	}
	if !res.UsageReported || res.Usage.TotalTokens != 29 || res.Usage.PromptTokens != 20 {
		t.Fatalf("usage = %+v reported=%v", res.Usage, res.UsageReported)
	}
	if res.FinishReason != "stop" || res.Attempts != 1 || res.Model != "test-model" {
		t.Fatalf("result = %+v", res)
	}
}

func TestStreamUsageNotReported(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Text: "no usage", OmitUsage: true})
	res, err := New(testConfig(srv)).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.UsageReported || res.Usage != (Usage{}) {
		t.Fatalf("usage = %+v reported=%v", res.Usage, res.UsageReported)
	}
}

func TestStreamParallelToolCallsScripted(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{
		Interleave: true,
		ToolCalls: []fakellm.ToolCall{
			{ID: "call_1", Name: "fs.read", Arguments: `{"path":"@project/README.md"}`, ArgChunks: 4},
			{ID: "call_2", Name: "fs.list", Arguments: `{"path":"@project","depth":2}`, ArgChunks: 3},
		},
	})
	c := New(testConfig(srv))
	rec := newRecorder()
	req := userReq("use tools")
	req.Tools = []Tool{{Name: "fs.read"}, {Name: "fs.list"}}
	res, err := c.Stream(context.Background(), req, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []conversation.ToolCall{
		{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"@project/README.md"}`}},
		{ID: "call_2", Type: "function", Function: conversation.FunctionCall{Name: "fs.list", Arguments: `{"path":"@project","depth":2}`}},
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0] != want[0] || res.ToolCalls[1] != want[1] {
		t.Fatalf("tool calls = %+v", res.ToolCalls)
	}
	if res.FinishReason != "tool_calls" {
		t.Fatalf("finish = %q", res.FinishReason)
	}
	if rec.count("args:") != 7 {
		t.Fatalf("argument deltas = %d, want 7: %v", rec.count("args:"), rec.events)
	}
	// the wire carried the OpenAI-safe names
	got := srv.ChatRequests()[0].ToolNames()
	if strings.Join(got, ",") != "fs_read,fs_list" {
		t.Fatalf("wire tool names = %v", got)
	}
}

func TestStreamNonStreamedAnswer(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{JSON: true, Text: "whole answer",
		ToolCalls: []fakellm.ToolCall{{ID: "call_9", Name: "fs.read", Arguments: `{"path":"a"}`}}})
	rec := newRecorder()
	req := userReq("hi")
	req.Tools = []Tool{{Name: "fs.read"}}
	res, err := New(testConfig(srv)).Stream(context.Background(), req, rec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "whole answer" || len(res.ToolCalls) != 1 || res.ToolCalls[0].Function.Name != "fs.read" ||
		res.ToolCalls[0].ID != "call_9" || !res.UsageReported || res.FinishReason != "tool_calls" {
		t.Fatalf("result = %+v", res)
	}
	if rec.text.String() != "whole answer" || rec.count("start:0:call_9:fs.read") != 1 {
		t.Fatalf("handler events = %v", rec.events)
	}
}

func TestStreamMissingToolCallIDGetsOne(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Raw: []string{
		ev(chunk(`{"tool_calls":[{"index":0,"type":"function","function":{"name":"fs_read","arguments":"{}"}}]}`, "")),
		ev(toolStop), ev("[DONE]"),
	}})
	req := userReq("hi")
	req.Tools = []Tool{{Name: "fs.read"}}
	res, err := New(testConfig(srv)).Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 || !strings.HasPrefix(res.ToolCalls[0].ID, "call_") || len(res.ToolCalls[0].ID) < 10 {
		t.Fatalf("tool calls = %+v", res.ToolCalls)
	}
}
