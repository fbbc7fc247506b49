package engine

import (
	"strings"
	"sync"
	"time"

	"crewagent/backend/compression"
	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/llm"
)

// The payloads of the events the engine emits (aliases of backend/events).
type (
	UsageEvent       = events.UsageEvent
	StreamStartEvent = events.StreamStartEvent
	StreamChunkEvent = events.StreamChunkEvent
	EventError       = events.Error
	StreamEndEvent   = events.StreamEndEvent
	ToolStartEvent   = events.ToolStartEvent
	ToolEndEvent     = events.ToolEndEvent
	ChangeEvent      = events.ChangeEvent
)

// Change kinds (aliases of backend/events).
const (
	ChangeCreated = events.Created
	ChangeUpdated = events.Updated
)

func usageEvent(convID string, u compression.Usage, status string) UsageEvent {
	if status == "" {
		status = u.Status()
	}
	return UsageEvent{ConversationID: convID, UsedTokens: u.UsedTokens, TotalBudget: u.TotalBudget,
		UsagePercent: u.UsagePercent, Remaining: u.Remaining, Status: status}
}

// reportedUsage is what the servers reported for the conversation's LLM calls
// so far (nil when nothing was reported).
func (s *ChatService) reportedUsage(convID string) *conversation.UsageTotals {
	m, err := s.opts.Store.Get(convID)
	if err != nil {
		return nil
	}
	return m.Usage
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
