package engine

import (
	"strings"
	"sync"
	"time"

	"crewagent/backend/compression"
	"crewagent/backend/events"
	"crewagent/backend/llm"
)

// UsageEvent is the payload of context:usage.
type UsageEvent struct {
	ConversationID string  `json:"conversationId"`
	UsedTokens     int     `json:"usedTokens"`
	TotalBudget    int     `json:"totalBudget"`
	UsagePercent   float64 `json:"usagePercent"`
	Remaining      int     `json:"remaining"`
	Status         string  `json:"status"` // normal | warning | critical | compressing
}

// StreamStartEvent is the payload of llm:stream-start: one LLM call begins.
// MessageID is the id the assistant message of this call is persisted under.
type StreamStartEvent struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"`
	Mode           string `json:"mode"`
	AgentID        string `json:"agentId,omitempty"`
	Turn           int    `json:"turn"` // 0-based LLM call of the send
}

// StreamChunkEvent is the payload of llm:stream-chunk: answer text, several
// deltas coalesced.
type StreamChunkEvent struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"`
	Delta          string `json:"delta"`
}

// EventError is the failure carried by stream-end and tool-end events.
type EventError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// StreamEndEvent is the payload of llm:stream-end: the LLM call is over.
// Error is set when it failed; Retrying when the call is sent again (after a
// context-length error and a forced compression) under a new message id.
type StreamEndEvent struct {
	ConversationID string      `json:"conversationId"`
	MessageID      string      `json:"messageId"`
	FinishReason   string      `json:"finishReason,omitempty"`
	Usage          *llm.Usage  `json:"usage,omitempty"`
	ToolCalls      int         `json:"toolCalls"`
	Error          *EventError `json:"error,omitempty"`
	Retrying       bool        `json:"retrying,omitempty"`
}

// ToolStartEvent is the payload of llm:stream-tool-start: the model announced
// a tool call (its arguments are still streaming).
type ToolStartEvent struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"` // the assistant message holding the call
	ToolCallID     string `json:"toolCallId"`
	ToolName       string `json:"toolName"`
	Index          int    `json:"index"`
}

// ToolEndEvent is the payload of llm:stream-tool-end: the tool has run
// (ResultMessageID is its persisted tool message), or the call was abandoned
// (Interrupted, when the stream or the send stopped before it ran).
type ToolEndEvent struct {
	ConversationID  string      `json:"conversationId"`
	MessageID       string      `json:"messageId"`
	ToolCallID      string      `json:"toolCallId"`
	ToolName        string      `json:"toolName"`
	OK              bool        `json:"ok"`
	DurationMs      int64       `json:"durationMs"`
	ResultMessageID string      `json:"resultMessageId,omitempty"`
	Pending         bool        `json:"pending,omitempty"` // ui.ask_user waits for the user
	Interrupted     bool        `json:"interrupted,omitempty"`
	Error           *EventError `json:"error,omitempty"`
}

// ChangeEvent is the payload of conversation:changed.
type ChangeEvent struct {
	ConversationID string `json:"conversationId"`
	Kind           string `json:"kind"` // created | updated
}

// Change kinds.
const (
	ChangeCreated = "created"
	ChangeUpdated = "updated"
)

func usageEvent(convID string, u compression.Usage, status string) UsageEvent {
	if status == "" {
		status = u.Status()
	}
	return UsageEvent{ConversationID: convID, UsedTokens: u.UsedTokens, TotalBudget: u.TotalBudget,
		UsagePercent: u.UsagePercent, Remaining: u.Remaining, Status: status}
}

func eventError(err error) *EventError {
	e := llm.AsError(err)
	if e == nil {
		return nil
	}
	return &EventError{Code: e.Code, Message: e.Message}
}

// Coalescing defaults for llm:stream-chunk.
const (
	DefaultFlushInterval = 30 * time.Millisecond
	DefaultFlushChars    = 256
)

// streamEmitter turns one LLM call's handler callbacks into stream events.
// Text deltas are coalesced: they are flushed when FlushChars bytes are
// pending, FlushInterval after the first pending delta, before any other
// event of the call, and at the end. Nothing is ever dropped.
type streamEmitter struct {
	em       events.Emitter
	convID   string
	msgID    string
	interval time.Duration
	chars    int

	mu      sync.Mutex
	pending strings.Builder
	timer   *time.Timer
	closed  bool
	started []ToolStartEvent // tool calls announced, in order
}

func newStreamEmitter(em events.Emitter, convID, msgID string, interval time.Duration, chars int) *streamEmitter {
	return &streamEmitter{em: em, convID: convID, msgID: msgID, interval: interval, chars: chars}
}

// OnDelta implements llm.Handler.
func (s *streamEmitter) OnDelta(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.pending.WriteString(text)
	if s.pending.Len() >= s.chars {
		s.flushLocked()
		return
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(s.interval, s.flushTimer)
	}
}

// OnToolCallStart implements llm.Handler.
func (s *streamEmitter) OnToolCallStart(index int, id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.flushLocked()
	ev := ToolStartEvent{ConversationID: s.convID, MessageID: s.msgID, ToolCallID: id, ToolName: name, Index: index}
	s.started = append(s.started, ev)
	s.em.Emit(events.StreamToolStart, ev)
}

func (s *streamEmitter) flushTimer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	if !s.closed {
		s.flushLocked()
	}
}

func (s *streamEmitter) flushLocked() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.pending.Len() == 0 {
		return
	}
	delta := s.pending.String()
	s.pending.Reset()
	s.em.Emit(events.StreamChunk, StreamChunkEvent{ConversationID: s.convID, MessageID: s.msgID, Delta: delta})
}

// end flushes what is pending, emits llm:stream-end and returns the tool calls
// announced during the call.
func (s *streamEmitter) end(ev StreamEndEvent) []ToolStartEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.flushLocked()
		s.closed = true
	}
	ev.ConversationID, ev.MessageID = s.convID, s.msgID
	s.em.Emit(events.StreamEnd, ev)
	return s.started
}
