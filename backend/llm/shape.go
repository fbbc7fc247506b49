package llm

import (
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Shape is the form of a request's message list. The runtime builds several system
// messages (the system prompt, project instructions, skill bodies, a compaction summary,
// run blocks) and may send several user messages in a row; the OpenAI API takes that, but
// the chat templates of many local models (Mistral and Llama-2 style, Gemma) accept only
// one leading system message and strictly alternating user and assistant turns, and answer
// 400 or drop content otherwise.
type Shape string

const (
	// ShapeAuto sends the standard shape until the endpoint's model refuses it with a
	// chat-template error, then the shape the error asks for (remembered per endpoint
	// and model).
	ShapeAuto Shape = ""
	// ShapeStandard sends the messages as they are.
	ShapeStandard Shape = "standard"
	// ShapeAlternating sends one leading system message and strictly alternating user
	// and assistant turns: consecutive messages of a role are merged, later system
	// messages become user text, and a tool call keeps its results after it.
	ShapeAlternating Shape = "alternating"
	// ShapeNoSystem is ShapeAlternating without a system role: the system text opens
	// the first user message (Gemma's templates).
	ShapeNoSystem Shape = "alternating-no-system"
)

// Shapes lists the shapes a setting may name ("auto" is ShapeAuto).
var Shapes = []string{"auto", string(ShapeStandard), string(ShapeAlternating), string(ShapeNoSystem)}

// ParseShape reads a shape's setting ("auto" or "" for ShapeAuto); ok is false for an
// unknown name.
func ParseShape(s string) (shape Shape, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return ShapeAuto, true
	case string(ShapeStandard):
		return ShapeStandard, true
	case string(ShapeAlternating):
		return ShapeAlternating, true
	case string(ShapeNoSystem):
		return ShapeNoSystem, true
	}
	return ShapeAuto, false
}

// Text put where a strict template needs a turn the conversation does not have.
const (
	// placeholderUser opens a conversation whose first turn is the assistant's.
	placeholderUser = "(continued)"
	// placeholderAssistant separates a user message from a tool call's results before it.
	placeholderAssistant = "(tool results above)"
)

// reshape returns msgs in shape s (a new slice; msgs is not changed). Reshaping a reshaped
// list changes nothing.
func reshape(msgs []openai.ChatCompletionMessage, s Shape) []openai.ChatCompletionMessage {
	if s != ShapeAlternating && s != ShapeNoSystem {
		return msgs
	}
	isSystem := func(m openai.ChatCompletionMessage) bool {
		return m.Role == openai.ChatMessageRoleSystem || m.Role == openai.ChatMessageRoleDeveloper
	}
	var system []string
	i := 0
	for ; i < len(msgs) && isSystem(msgs[i]); i++ {
		if c := msgs[i].Content; strings.TrimSpace(c) != "" {
			system = append(system, c)
		}
	}
	out := make([]openai.ChatCompletionMessage, 0, len(msgs)-i+2)
	// turn is the role of the last turn that counts for alternation: user messages and
	// assistant messages without tool calls (a tool call and its results sit between
	// turns, as strict templates that take tools allow).
	turn := ""
	recount := func() {
		turn = ""
		for j := len(out) - 1; j >= 0; j-- {
			if r := out[j].Role; r == openai.ChatMessageRoleUser || (r == openai.ChatMessageRoleAssistant && len(out[j].ToolCalls) == 0) {
				turn = r
				return
			}
		}
	}
	last := func() *openai.ChatCompletionMessage {
		if len(out) == 0 {
			return nil
		}
		return &out[len(out)-1]
	}
	addUser := func(m openai.ChatCompletionMessage) {
		if p := last(); p != nil && p.Role == openai.ChatMessageRoleUser {
			mergeInto(p, m)
			return
		}
		if turn == openai.ChatMessageRoleUser {
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: placeholderAssistant})
		}
		out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: m.Content, MultiContent: m.MultiContent})
		turn = openai.ChatMessageRoleUser
	}
	for _, m := range msgs[i:] {
		switch {
		case isSystem(m), m.Role == openai.ChatMessageRoleUser:
			addUser(m)
		case m.Role == openai.ChatMessageRoleAssistant:
			if p := last(); p != nil && p.Role == openai.ChatMessageRoleAssistant && len(p.ToolCalls) == 0 {
				// Text said before this message joins it (a tool call keeps its text).
				m.Content = joinText(p.Content, m.Content)
				out = out[:len(out)-1]
				recount()
			}
			if turn == "" {
				out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: placeholderUser})
				turn = openai.ChatMessageRoleUser
			}
			if len(m.ToolCalls) == 0 {
				if turn == openai.ChatMessageRoleAssistant {
					addUser(openai.ChatCompletionMessage{Content: placeholderUser})
				}
				turn = openai.ChatMessageRoleAssistant
			}
			out = append(out, m)
		default: // tool results stay after their call
			out = append(out, m)
		}
	}
	if len(system) == 0 {
		return out
	}
	text := strings.Join(system, "\n\n")
	if s == ShapeAlternating {
		return append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: text}}, out...)
	}
	if len(out) > 0 && out[0].Role == openai.ChatMessageRoleUser {
		first := out[0]
		out[0] = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text}
		mergeInto(&out[0], first)
		return out
	}
	return append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: text}}, out...)
}

// mergeInto adds the content of m to p, text to text; a message with image
// parts keeps them, after the text before them.
func mergeInto(p *openai.ChatCompletionMessage, m openai.ChatCompletionMessage) {
	if len(p.MultiContent) == 0 && len(m.MultiContent) == 0 {
		p.Content = joinText(p.Content, m.Content)
		return
	}
	parts := func(x openai.ChatCompletionMessage) []openai.ChatMessagePart {
		if len(x.MultiContent) > 0 {
			return x.MultiContent
		}
		return []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: x.Content}}
	}
	merged := append(append([]openai.ChatMessagePart(nil), parts(*p)...), parts(m)...)
	// Neighbouring text parts become one, as the text of two messages does.
	out := merged[:0]
	for _, part := range merged {
		if n := len(out); n > 0 && part.Type == openai.ChatMessagePartTypeText && out[n-1].Type == openai.ChatMessagePartTypeText {
			out[n-1].Text = joinText(out[n-1].Text, part.Text)
			continue
		}
		out = append(out, part)
	}
	p.Content, p.MultiContent = "", out
}

func joinText(a, b string) string {
	switch {
	case strings.TrimSpace(a) == "":
		return b
	case strings.TrimSpace(b) == "":
		return a
	}
	return a + "\n\n" + b
}

// templateRefusal reads a failed request's error as a chat template's refusal of the
// request's shape and returns the shape that answers it, or "" when the error is not one.
// Servers report template errors as 400 (vLLM, LM Studio), 422 (TGI) or 500 (llama.cpp
// before it checked templates up front).
func templateRefusal(e *Error) Shape {
	if e == nil {
		return ""
	}
	switch e.StatusCode {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusInternalServerError:
	default:
		return ""
	}
	text := strings.ToLower(e.Message + " " + e.body)
	switch {
	case strings.Contains(text, "system role") && (strings.Contains(text, "not supported") || strings.Contains(text, "not allowed")),
		strings.Contains(text, "only user and assistant roles"):
		return ShapeNoSystem
	case strings.Contains(text, "roles must alternate"),
		strings.Contains(text, "system message must be at the beginning"),
		strings.Contains(text, "system message should be at the beginning"),
		strings.Contains(text, "conversation roles must"):
		return ShapeAlternating
	}
	return ""
}

// shapeFor returns the shape the client sends to model.
func (c *Client) shapeFor(model string) Shape {
	if c.cfg.Shape != ShapeAuto {
		return c.cfg.Shape
	}
	if s := c.endpoints().Shape(c.baseURL, model); s != "" {
		return s
	}
	return ShapeStandard
}

// strictness orders the shapes from the loosest.
func strictness(s Shape) int {
	switch s {
	case ShapeAlternating:
		return 1
	case ShapeNoSystem:
		return 2
	}
	return 0
}
