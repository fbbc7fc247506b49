package contextbuilder

import (
	"unicode/utf8"

	"crewagent/backend/conversation"
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

// entryTokens is EntryTokens.
func entryTokens(c Counter, model string, e *conversation.Entry) int { return EntryTokens(c, model, e) }

// EntryTokens returns what log entry e costs in a request for model. The
// count stored at append time is used when it was made with the model's
// encoding (or the entry does not say, or the counter cannot tell) and is
// plausible for the entry's size; otherwise the entry is counted again, with
// the counter's EntryCounter when it has one (the engine's caches the
// recount). Implausible: a count below one token per 32 bytes, or above one
// token per byte (plus framing) — "tokens":1 on 100 KB is not believed.
func EntryTokens(c Counter, model string, e *conversation.Entry) int {
	if e.Tokens > 0 && plausible(e) {
		enc := ""
		if en, ok := c.(EncodingNamer); ok {
			enc = en.EncodingFor(model)
		}
		if e.TokenEncoding == "" || enc == "" || e.TokenEncoding == enc {
			return e.Tokens
		}
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

// plausible reports whether e's stored count fits its size.
func plausible(e *conversation.Entry) bool {
	size := len(e.Text()) + len(e.ToolCallID) + len(e.ToolName)
	parts := 2
	for _, tc := range e.ToolCalls {
		size += len(tc.Function.Name) + len(tc.Function.Arguments)
		parts += 2
	}
	if e.Tokens > size+MessageOverhead+parts {
		return false
	}
	return size < 256 || e.Tokens*32 >= size
}
