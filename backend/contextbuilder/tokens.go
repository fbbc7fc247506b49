package contextbuilder

import (
	"unicode/utf8"

	"crewagent/backend/convlog"
)

// MessageOverhead is the per-message framing cost in tokens; ReplyPriming is
// paid once per request. Both follow OpenAI's counting recipe (and the values
// of backend/tokens).
const (
	MessageOverhead = 4
	ReplyPriming    = 3
)

// CountMessage returns what m costs in a request: MessageOverhead + content +
// tool-call names and arguments + tool_call_id + name. It is used for messages
// composed or rewritten at request time; log entries carry their stored count.
func CountMessage(c Counter, model string, m *Message) int {
	n := MessageOverhead + c.Count(model, m.Text())
	for _, tc := range m.ToolCalls {
		n += c.Count(model, tc.Function.Name) + c.Count(model, tc.Function.Arguments)
	}
	if m.ToolCallID != "" {
		n += c.Count(model, m.ToolCallID)
	}
	if m.Name != "" {
		n += c.Count(model, m.Name)
	}
	return n
}

// TokensOf returns what msgs cost as a request: the sum of their Tokens plus
// ReplyPriming (tool definitions not included).
func TokensOf(msgs []Message) int {
	n := ReplyPriming
	for i := range msgs {
		n += msgs[i].Tokens
	}
	return n
}

// CharsOf returns the runes of a message's content and tool calls, the unit of
// Budget.MaxChars.
func CharsOf(m *Message) int {
	n := utf8.RuneCountInString(m.Text())
	for _, tc := range m.ToolCalls {
		n += utf8.RuneCountInString(tc.Function.Name) + utf8.RuneCountInString(tc.Function.Arguments)
	}
	return n
}

func runeCount(s string) int { return utf8.RuneCountInString(s) }

// entryTokens returns the stored count of e, counting it once when the store
// left it at 0.
func entryTokens(c Counter, model string, e *convlog.Entry) int {
	if e.Tokens > 0 {
		return e.Tokens
	}
	if ec, ok := c.(EntryCounter); ok {
		return ec.CountMessage(model, e)
	}
	n := MessageOverhead + c.Count(model, e.Text())
	for _, tc := range e.ToolCalls {
		n += c.Count(model, tc.Function.Name) + c.Count(model, tc.Function.Arguments)
	}
	return n + c.Count(model, e.ToolCallID) + c.Count(model, e.ToolName)
}
