package llm

import (
	"encoding/json"

	"crewagent/backend/conversation"
)

// Message is one chat message of a request. Content is nil for an assistant message that
// only carries tool calls. Tool names in ToolCalls are the runtime's names ("fs.read").
type Message struct {
	Role       string
	Content    *string
	ToolCalls  []conversation.ToolCall
	ToolCallID string
	Name       string
	// Images go beside the text of a user message as image parts (data URLs),
	// or as a note in words to an endpoint's model that refused images.
	Images []Image
}

// Image is an image a message carries.
type Image struct {
	Name string
	MIME string
	Data []byte
}

// Tool declares a function the model may call. Name is the runtime's name ("fs.read");
// Parameters is a JSON schema (empty: an object without properties).
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Request is one chat completion request.
type Request struct {
	Messages    []Message
	Tools       []Tool
	Model       string   // overrides Config.Model when set
	Temperature *float32 // nil: the server's default
	MaxTokens   int      // 0: the server's default
	// CacheKey identifies the conversation the request belongs to ("" for none). It is
	// sent hashed as prompt_cache_key (see CacheKey), which keeps the requests of one
	// conversation on the same prompt cache, unless the endpoint refused that field.
	CacheKey string
}

// Usage is the token usage a server reported (conversation.Usage).
type Usage = conversation.Usage

// Result is what a call produced. After a failure it holds whatever arrived before it
// (partial text and partial tool calls) so the caller can persist it.
type Result struct {
	Content   string
	Reasoning string // reasoning_content (DeepSeek, some local servers), if any
	// ToolCalls in index order, names mapped back to the runtime's names. Arguments are the
	// concatenated fragments and may be incomplete JSON in a partial result.
	ToolCalls    []conversation.ToolCall
	FinishReason string
	Usage        Usage
	// UsageReported is false when the server sent no usage (Usage is then zero).
	UsageReported bool
	// CacheReported is true when the usage said how many prompt tokens came from the
	// server's prompt cache (Usage.CachedTokens, possibly 0).
	CacheReported bool
	Model         string // the model the server says answered
	Attempts      int    // requests sent, retries included
}

// Finish reasons of an answer (Result.FinishReason) as OpenAI-compatible servers send them.
const (
	FinishStop          = "stop"
	FinishToolCalls     = "tool_calls"
	FinishLength        = "length"         // the output limit (max_tokens) cut the answer short
	FinishContentFilter = "content_filter" // the provider's filter cut the answer short
)

// IncompleteFinish reports whether a finish reason says the server cut the answer short
// (length or content_filter): the text is partial and its tool calls must not run.
func IncompleteFinish(reason string) bool {
	return reason == FinishLength || reason == FinishContentFilter
}

// Incomplete reports whether the answer was cut short by the server (IncompleteFinish).
func (r *Result) Incomplete() bool { return r != nil && IncompleteFinish(r.FinishReason) }

// Handler receives a stream as it arrives. Its methods run on the calling goroutine of
// Stream, in order; a slow handler does not count against IdleTimeout.
type Handler interface {
	// OnDelta receives a non-empty piece of the answer text.
	OnDelta(text string)
	// OnToolCallStart announces the tool call at index once its name is known.
	OnToolCallStart(index int, id, name string)
}

// ToolCallDeltaHandler is implemented by handlers that want tool call arguments as they
// arrive (after OnToolCallStart for that index).
type ToolCallDeltaHandler interface {
	OnToolCallDelta(index int, argumentsDelta string)
}

// ReasoningHandler is implemented by handlers that want reasoning_content deltas.
type ReasoningHandler interface {
	OnReasoningDelta(text string)
}
