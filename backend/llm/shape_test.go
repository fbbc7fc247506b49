package llm

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"

	openai "github.com/sashabaranov/go-openai"
)

func text(s string) *string { return &s }

// runtimeShaped is a request as the runtime builds it: several system messages (prompt,
// project instructions, a summary), user messages in a row, a tool loop, and a run block
// as a system message in the middle.
func runtimeShaped() Request {
	call := []conversation.ToolCall{{ID: "c1", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: `{"path":"a.md"}`}}}
	return Request{
		Messages: []Message{
			{Role: conversation.RoleSystem, Content: text("SYSTEM-PROMPT")},
			{Role: conversation.RoleSystem, Content: text("PROJECT-INSTRUCTIONS")},
			{Role: conversation.RoleSystem, Content: text("SUMMARY-OF-EARLIER")},
			{Role: conversation.RoleUser, Content: text("SKILL-BODY")},
			{Role: conversation.RoleUser, Content: text("FIRST-QUESTION")},
			{Role: conversation.RoleAssistant, Content: text("LET-ME-LOOK")},
			{Role: conversation.RoleAssistant, ToolCalls: call},
			{Role: conversation.RoleTool, ToolCallID: "c1", Content: text("FILE-CONTENT")},
			{Role: conversation.RoleUser, Content: text("STOPPED-THEN-ASKED")},
			{Role: conversation.RoleSystem, Content: text("RUN-DIRECTIVE")},
			{Role: conversation.RoleUser, Content: text("CONTINUE-PLEASE")},
		},
		Tools: []Tool{{Name: "fs.read", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
	}
}

var runtimeTexts = []string{"SYSTEM-PROMPT", "PROJECT-INSTRUCTIONS", "SUMMARY-OF-EARLIER", "SKILL-BODY", "FIRST-QUESTION",
	"LET-ME-LOOK", "FILE-CONTENT", "STOPPED-THEN-ASKED", "RUN-DIRECTIVE", "CONTINUE-PLEASE"}

// everyTextSent fails unless each text is in the request, in order.
func everyTextSent(t *testing.T, rec fakellm.RecordedRequest, texts []string) {
	t.Helper()
	var all strings.Builder
	for _, m := range rec.Messages {
		all.WriteString(m.Text() + "\n")
	}
	rest := all.String()
	for _, w := range texts {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("%q is missing from the request (or out of order):\n%s", w, all.String())
		}
		rest = rest[i+len(w):]
	}
}

func TestStrictTemplateLearntPerModel(t *testing.T) {
	tests := []struct {
		template string
		want     Shape
	}{
		{fakellm.TemplateAlternating, ShapeAlternating},
		{fakellm.TemplateNoSystem, ShapeNoSystem},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			srv := newFake(t)
			srv.SetTemplate(tt.template)
			path := filepath.Join(t.TempDir(), "llm-endpoints.json")
			cfg := testConfig(srv)
			cfg.MaxRetries = -1 // a template refusal is not a retry
			cfg.Endpoints = NewEndpointMemory(path)
			c := New(cfg)
			srv.Enqueue(fakellm.Response{Text: "answer one"}, fakellm.Response{Text: "answer two"})
			res, err := c.Stream(context.Background(), runtimeShaped(), nil)
			if err != nil {
				t.Fatalf("the turn failed: %v", err)
			}
			if res.Content != "answer one" {
				t.Fatalf("answer %q", res.Content)
			}
			reqs := srv.ChatRequests()
			if len(reqs) < 2 || len(reqs) > 3 {
				t.Fatalf("%d requests, want the refused ones and one accepted", len(reqs))
			}
			last := reqs[len(reqs)-1]
			var roles []string
			for _, m := range last.Messages {
				roles = append(roles, m.Role)
			}
			// The tool results follow their call; "STOPPED-THEN-ASKED" after them gets
			// an assistant turn first.
			wantRoles := "user assistant tool assistant user"
			if tt.want == ShapeAlternating {
				wantRoles = "system " + wantRoles
			}
			if got := strings.Join(roles, " "); got != wantRoles {
				t.Fatalf("roles %q, want %q", got, wantRoles)
			}
			everyTextSent(t, last, runtimeTexts)
			if got := NewEndpointMemory(path).Shape(c.baseURL, cfg.Model); got != tt.want {
				t.Fatalf("remembered %q, want %q", got, tt.want)
			}
			// The next turn goes in the learnt shape at once; another model of the same
			// endpoint starts from the standard shape.
			before := len(srv.ChatRequests())
			if _, err := c.Stream(context.Background(), runtimeShaped(), nil); err != nil {
				t.Fatalf("second turn: %v", err)
			}
			if n := len(srv.ChatRequests()) - before; n != 1 {
				t.Fatalf("the second turn sent %d requests, want 1", n)
			}
			if NewEndpointMemory(path).Shape(c.baseURL, "another-model") != "" {
				t.Fatal("the shape was remembered for every model")
			}
		})
	}
}

func TestStrictTemplateAppliesToCompleteToo(t *testing.T) {
	srv := newFake(t)
	srv.SetTemplate(fakellm.TemplateAlternating)
	cfg := testConfig(srv)
	cfg.MaxRetries = -1
	cfg.Endpoints = NewEndpointMemory("")
	srv.Enqueue(fakellm.Response{Text: "summary"})
	req := runtimeShaped()
	req.Tools = nil
	res, err := New(cfg).Complete(context.Background(), req)
	if err != nil || res.Content != "summary" {
		t.Fatalf("%q, %v", res.Content, err)
	}
	everyTextSent(t, srv.ChatRequests()[len(srv.ChatRequests())-1], runtimeTexts)
}

func TestFixedShape(t *testing.T) {
	t.Run("standard is kept and the refusal reaches the caller", func(t *testing.T) {
		srv := newFake(t)
		srv.SetTemplate(fakellm.TemplateAlternating)
		cfg := testConfig(srv)
		cfg.MaxRetries = -1
		cfg.Shape = ShapeStandard
		cfg.Endpoints = NewEndpointMemory("")
		_, err := New(cfg).Stream(context.Background(), runtimeShaped(), nil)
		e := AsError(err)
		if e == nil || e.StatusCode != 400 || !strings.Contains(e.Message, "alternate") {
			t.Fatalf("want the template's 400, got %v", err)
		}
		if n := len(srv.ChatRequests()); n != 1 {
			t.Fatalf("%d requests, want 1", n)
		}
	})
	t.Run("alternating is sent from the first request", func(t *testing.T) {
		srv := newFake(t)
		srv.SetTemplate(fakellm.TemplateAlternating)
		cfg := testConfig(srv)
		cfg.Shape = ShapeAlternating
		cfg.Endpoints = NewEndpointMemory("")
		if _, err := New(cfg).Stream(context.Background(), runtimeShaped(), nil); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.ChatRequests()); n != 1 {
			t.Fatalf("%d requests, want 1", n)
		}
	})
}

func TestTemplateRefusal(t *testing.T) {
	tests := []struct {
		status int
		msg    string
		want   Shape
	}{
		{400, "Conversation roles must alternate user/assistant/user/assistant/...", ShapeAlternating},
		{500, "Error rendering prompt with jinja template: After the optional system message, conversation roles must alternate user/assistant/user/assistant/...", ShapeAlternating},
		{422, "Template error: template not found or System role not supported", ShapeNoSystem},
		{400, "System role not supported", ShapeNoSystem},
		{400, "Only user and assistant roles are supported!", ShapeNoSystem},
		{400, "Unrecognized request argument supplied: stream_options", ""},
		{401, "roles must alternate", ""},
		{429, "Conversation roles must alternate", ""},
	}
	for _, tt := range tests {
		if got := templateRefusal(&Error{StatusCode: tt.status, Message: tt.msg}); got != tt.want {
			t.Errorf("%d %q: %q, want %q", tt.status, tt.msg, got, tt.want)
		}
	}
}

// alternates reports why msgs break the strict template rule of shape s ("" when they
// keep it): one leading system message at most (none without a system role), then user
// and assistant turns alternating from a user turn, tool calls and results between turns,
// every tool result right after its call or another result.
func alternates(msgs []openai.ChatCompletionMessage, s Shape) string {
	if len(msgs) > 0 && msgs[0].Role == openai.ChatMessageRoleSystem {
		if s == ShapeNoSystem {
			return "a system message"
		}
		msgs = msgs[1:]
	}
	want := openai.ChatMessageRoleUser
	prev := ""
	for i, m := range msgs {
		switch {
		case m.Role == openai.ChatMessageRoleTool:
			if prev != "call" && prev != "result" {
				return "a tool result not after its call"
			}
			prev = "result"
			continue
		case m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0:
			prev = "call"
			continue
		case m.Role != want:
			return "message " + string(rune('0'+i%10)) + " is " + m.Role + ", want " + want
		}
		prev = m.Role
		if want == openai.ChatMessageRoleUser {
			want = openai.ChatMessageRoleAssistant
		} else {
			want = openai.ChatMessageRoleUser
		}
	}
	return ""
}

func FuzzReshape(f *testing.F) {
	f.Add([]byte("ssuuaCtuSu"), false)
	f.Add([]byte("aCttaau"), true)
	f.Add([]byte("Ctu"), false)
	f.Fuzz(func(t *testing.T, script []byte, noSystem bool) {
		if len(script) > 64 {
			return
		}
		shape := ShapeAlternating
		if noSystem {
			shape = ShapeNoSystem
		}
		// s system, u user, a assistant, C assistant with a call, t its result; tool
		// results only follow a call (the log is protocol-complete).
		var msgs []openai.ChatCompletionMessage
		var texts []string
		canResult := false
		for i, b := range script {
			content := "m" + strings.Repeat("x", i) + "."
			var m openai.ChatCompletionMessage
			switch b % 5 {
			case 0:
				m = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: content}
			case 1:
				m = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: content}
			case 2:
				m = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content}
			case 3:
				m = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content, ToolCalls: []openai.ToolCall{{ID: "c"}}}
			case 4:
				if !canResult {
					continue
				}
				m = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: content, ToolCallID: "c"}
			}
			canResult = b%5 == 3 || b%5 == 4
			msgs = append(msgs, m)
			texts = append(texts, content)
		}
		orig := append([]openai.ChatCompletionMessage(nil), msgs...)
		out := reshape(msgs, shape)
		if why := alternates(out, shape); why != "" {
			t.Fatalf("%q: %s", script, why)
		}
		for i := range orig {
			if orig[i].Content != msgs[i].Content || orig[i].Role != msgs[i].Role {
				t.Fatal("reshape changed its input")
			}
		}
		var all strings.Builder
		for _, m := range out {
			all.WriteString(m.Content + "|")
		}
		rest := all.String()
		for _, w := range texts {
			// each text is whole and in order ("m" + i x's + "." is unique)
			i := strings.Index(rest, w)
			for i > 0 && rest[i-1] == 'x' {
				j := strings.Index(rest[i+1:], w)
				if j < 0 {
					i = -1
					break
				}
				i += 1 + j
			}
			if i < 0 {
				t.Fatalf("%q: %q lost or out of order in %q", script, w, all.String())
			}
			rest = rest[i+len(w):]
		}
		again := reshape(out, shape)
		if len(again) != len(out) {
			t.Fatalf("%q: reshaping again changed %d messages into %d", script, len(out), len(again))
		}
		for i := range out {
			if again[i].Role != out[i].Role || again[i].Content != out[i].Content {
				t.Fatalf("%q: reshaping again changed message %d", script, i)
			}
		}
	})
}
