package llm

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
)

func TestComplete(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Text: "a summary", Usage: &fakellm.Usage{PromptTokens: 100, CompletionTokens: 3, TotalTokens: 103}})
	res, err := New(testConfig(srv)).Complete(context.Background(), userReq("summarise"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "a summary" || res.FinishReason != "stop" || !res.UsageReported || res.Usage.TotalTokens != 103 {
		t.Fatalf("result %+v", res)
	}
	if r := srv.ChatRequests()[0]; r.Stream || r.IncludeUsage {
		t.Fatalf("Complete sent stream=%v include_usage=%v", r.Stream, r.IncludeUsage)
	}
}

func TestCompleteToolCallsMapped(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Tools(fakellm.ToolCall{ID: "call_7", Name: "ui.ask_user", Arguments: `{"q":"?"}`}))
	req := userReq("ask me")
	req.Tools = []Tool{{Name: "ui.ask_user"}, {Name: "ui_ask_user"}}
	res, err := New(testConfig(srv)).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// "ui_ask_user" keeps its own name; "ui.ask_user" goes out as "ui_ask_user_2"
	if got := strings.Join(srv.ChatRequests()[0].ToolNames(), ","); got != "ui_ask_user_2,ui_ask_user" {
		t.Fatalf("wire names %s", got)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Function.Name != "ui_ask_user" {
		// the fake answers with the declared name closest to the script: "ui_ask_user"
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
}

func TestCompleteRetriesCutBody(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Text: "first", Cut: true}, fakellm.Text("second"))
	res, err := New(testConfig(srv)).Complete(context.Background(), userReq("x"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "second" || res.Attempts != 2 {
		t.Fatalf("result %+v", res)
	}
}

func TestCompleteMalformedJSON(t *testing.T) {
	for _, body := range []string{`{"id":"x","choices":[{"message":`, `{not json}`, `<html>oops</html>`} {
		srv := newFake(t)
		srv.Enqueue(fakellm.Response{Raw: []string{body}})
		res, err := New(testConfig(srv)).Complete(context.Background(), userReq("x"))
		wantCode(t, err, CodeBadResponse)
		if res.Attempts != 1 {
			t.Fatalf("%s: malformed answer retried", body)
		}
	}
}

func TestCompleteNoChoices(t *testing.T) {
	srv := newFake(t)
	srv.Enqueue(fakellm.Response{Raw: []string{`{"id":"x","object":"chat.completion","choices":[]}`}})
	_, err := New(testConfig(srv)).Complete(context.Background(), userReq("x"))
	e := wantCode(t, err, CodeBadResponse)
	if !strings.Contains(e.Message, "no choices") {
		t.Fatalf("message %q", e.Message)
	}
}

func TestTestConnection(t *testing.T) {
	srv := newFake(t)
	srv.RequireAPIKey("sk-good")
	cfg := testConfig(srv)
	cfg.APIKey = "sk-good"
	if err := New(cfg).TestConnection(context.Background()); err != nil {
		t.Fatalf("good key: %v", err)
	}
	cfg.APIKey = "sk-bad"
	err := New(cfg).TestConnection(context.Background())
	wantCode(t, err, CodeAuth)
	cfg.APIKey = ""
	wantCode(t, New(cfg).TestConnection(context.Background()), CodeAuth)

	// no retries: the button reports the first failure
	srv2 := newFake(t)
	srv2.SetDefault(func(fakellm.RecordedRequest) fakellm.Response { return fakellm.ServerError() })
	wantCode(t, New(testConfig(srv2)).TestConnection(context.Background()), CodeServer)
	if n := len(srv2.ChatRequests()); n != 1 {
		t.Fatalf("TestConnection sent %d requests", n)
	}
}

func TestModels(t *testing.T) {
	srv := newFake(t)
	srv.SetModels("llama3:latest", "qwen2.5-coder")
	ids, err := New(testConfig(srv)).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "llama3:latest,qwen2.5-coder" {
		t.Fatalf("models %v", ids)
	}
	srv.RequireAPIKey("k")
	_, err = New(testConfig(srv)).Models(context.Background())
	wantCode(t, err, CodeAuth)
}

func TestNotConfigured(t *testing.T) {
	srv := newFake(t)
	tests := []struct {
		name string
		cfg  Config
		msg  string
	}{
		{"no base URL", Config{Model: "m"}, "base URL"},
		{"not http", Config{BaseURL: "ftp://example.com/v1", Model: "m"}, "http"},
		{"no host", Config{BaseURL: "localhost:11434", Model: "m"}, "http"},
		{"no model", Config{BaseURL: srv.URL()}, "model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.cfg)
			res, err := c.Stream(context.Background(), userReq("hi"), nil)
			e := wantCode(t, err, CodeNotConfigured)
			if res == nil || e.Retryable() || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("res %v error %+v", res, e)
			}
			_, err = c.Complete(context.Background(), userReq("hi"))
			wantCode(t, err, CodeNotConfigured)
			wantCode(t, c.TestConnection(context.Background()), CodeNotConfigured)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent while not configured", n)
	}
}

func TestRequestOnTheWire(t *testing.T) {
	srv := newFake(t)
	temp := float32(0)
	req := Request{
		Messages: []Message{
			{Role: conversation.RoleSystem, Content: conversation.Str("be brief")},
			{Role: conversation.RoleUser, Content: conversation.Str("list files")},
			{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{
				{ID: "call_1", Type: "function", Function: conversation.FunctionCall{Name: "fs.list", Arguments: `{"path":"@project"}`}},
				{ID: "call_2", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"a"}`}},
			}},
			{Role: conversation.RoleTool, ToolCallID: "call_1", Name: "fs.list", Content: conversation.Str("a\nb")},
			{Role: conversation.RoleTool, ToolCallID: "call_2", Name: "fs.read", Content: conversation.Str("")},
		},
		Tools: []Tool{
			{Name: "fs.list", Description: "List files", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "fs.read"},
		},
		Temperature: &temp,
		MaxTokens:   256,
	}
	if _, err := New(testConfig(srv)).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.ChatRequests()[0]
	if r.Model != "test-model" || !r.Stream || !r.IncludeUsage || r.MaxTokens != 256 {
		t.Fatalf("request %+v", r)
	}
	if r.Temperature == nil || math.Abs(*r.Temperature) > 1e-30 {
		t.Fatalf("temperature 0 not sent: %v", r.Temperature)
	}
	if r.Header.Get("Authorization") != "" {
		t.Fatalf("Authorization sent without a key: %q", r.Header.Get("Authorization"))
	}
	if len(r.Messages) != 5 {
		t.Fatalf("messages %+v", r.Messages)
	}
	a := r.Messages[2]
	if a.Content != nil || len(a.ToolCalls) != 2 || a.ToolCalls[0].Name != "fs_list" || a.ToolCalls[1].Name != "fs_read" ||
		a.ToolCalls[1].Type != "function" {
		t.Fatalf("assistant message %+v", a)
	}
	if r.Messages[3].Name != "fs_list" || r.Messages[3].Text() != "a\nb" || r.Messages[4].Text() != "(no output)" {
		t.Fatalf("tool messages %+v %+v", r.Messages[3], r.Messages[4])
	}
	if r.Tools[0].Name != "fs_list" || r.Tools[0].Description != "List files" ||
		string(r.Tools[1].Parameters) != `{"type":"object","properties":{}}` {
		t.Fatalf("tools %+v", r.Tools)
	}

	// a per-request model, and a reasoning model gets max_completion_tokens and no temperature
	one := float32(0.7)
	if _, err := New(testConfig(srv)).Complete(context.Background(), Request{
		Messages: req.Messages[:2], Model: "o3-mini", MaxTokens: 99, Temperature: &one,
	}); err != nil {
		t.Fatal(err)
	}
	raw := string(srv.ChatRequests()[1].Body)
	if !strings.Contains(raw, `"model":"o3-mini"`) || !strings.Contains(raw, `"max_completion_tokens":99`) ||
		strings.Contains(raw, `"max_tokens"`) || strings.Contains(raw, `"temperature"`) {
		t.Fatalf("reasoning request body %s", raw)
	}
}
