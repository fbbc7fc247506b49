package events

import (
	"sync"
	"time"
	"unicode/utf8"
)

// ToolOutputEvent is the payload of tool:output: the next piece of a running
// tool call's output (stdout and stderr interleaved, as written), several
// writes coalesced. Skipped counts the bytes left out before Data because
// they came faster than the window is sent them; Done marks the call's last
// event (its result follows with llm:stream-tool-end).
type ToolOutputEvent struct {
	ConversationID string `json:"conversationId"`
	ToolCallID     string `json:"toolCallId"`
	ToolName       string `json:"toolName"`
	Data           string `json:"data"`
	Skipped        int64  `json:"skipped,omitempty"`
	Done           bool   `json:"done,omitempty"`
}

// Coalescing defaults of ToolOutputBatcher.
const (
	// DefaultOutputInterval is the least time between two events of a call
	// (and the longest a piece waits).
	DefaultOutputInterval = 50 * time.Millisecond
	// DefaultOutputFlushBytes sends what is pending at once when this much
	// waits and the last event is DefaultOutputInterval old.
	DefaultOutputFlushBytes = 4 << 10
	// DefaultOutputKeepBytes bounds what waits for one call: older bytes are
	// dropped (and counted in Skipped) when a command writes faster.
	DefaultOutputKeepBytes = 64 << 10
)

// ToolOutputBatcher turns the output of running tool calls into tool:output
// events: at most one event per call every Interval, the pending bytes of a
// call bounded by KeepBytes (a flood keeps its newest bytes), UTF-8
// sequences never split between events. Safe for concurrent use.
type ToolOutputBatcher struct {
	em         Emitter
	interval   time.Duration
	flushBytes int
	keepBytes  int

	mu    sync.Mutex
	calls map[outputKey]*pendingOutput
}

type outputKey struct{ conv, call string }

type pendingOutput struct {
	tool     string
	data     []byte
	skipped  int64
	lastEmit time.Time
	timer    *time.Timer
}

// NewToolOutputBatcher returns a batcher emitting to em; zero values take the
// defaults.
func NewToolOutputBatcher(em Emitter, interval time.Duration, flushBytes, keepBytes int) *ToolOutputBatcher {
	if interval <= 0 {
		interval = DefaultOutputInterval
	}
	if flushBytes <= 0 {
		flushBytes = DefaultOutputFlushBytes
	}
	if keepBytes <= 0 {
		keepBytes = DefaultOutputKeepBytes
	}
	keepBytes = max(keepBytes, flushBytes)
	return &ToolOutputBatcher{em: em, interval: interval, flushBytes: flushBytes, keepBytes: keepBytes, calls: map[outputKey]*pendingOutput{}}
}

// Add takes a piece of the output of call callID of conversation convID
// (data is copied).
func (b *ToolOutputBatcher) Add(convID, tool, callID string, data []byte) {
	if len(data) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	k := outputKey{convID, callID}
	p := b.calls[k]
	if p == nil {
		p = &pendingOutput{tool: tool}
		b.calls[k] = p
	}
	p.data = append(p.data, data...)
	if over := len(p.data) - b.keepBytes; over > 0 {
		// Keep the newest bytes, starting at a character.
		for over < len(p.data) && !utf8.RuneStart(p.data[over]) {
			over++
		}
		p.skipped += int64(over)
		p.data = append(p.data[:0], p.data[over:]...)
	}
	if len(p.data) >= b.flushBytes && time.Since(p.lastEmit) >= b.interval {
		b.flushLocked(k, p, false)
		return
	}
	if p.timer == nil {
		p.timer = time.AfterFunc(b.interval, func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			if cur := b.calls[k]; cur == p {
				p.timer = nil
				b.flushLocked(k, p, false)
			}
		})
	}
}

// Done sends what is left of the call's output with Done set, and forgets
// the call.
func (b *ToolOutputBatcher) Done(convID, tool, callID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := outputKey{convID, callID}
	p := b.calls[k]
	if p == nil {
		p = &pendingOutput{tool: tool}
	}
	delete(b.calls, k)
	b.flushLocked(k, p, true)
}

// flushLocked emits the pending bytes (all of them when done; otherwise
// without an incomplete character at the end).
func (b *ToolOutputBatcher) flushLocked(k outputKey, p *pendingOutput, done bool) {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	n := len(p.data)
	if !done {
		n = completeRunes(p.data)
	}
	if n == 0 && !done {
		return
	}
	ev := ToolOutputEvent{ConversationID: k.conv, ToolCallID: k.call, ToolName: p.tool, Data: string(p.data[:n]), Skipped: p.skipped, Done: done}
	p.data = append(p.data[:0], p.data[n:]...)
	p.skipped = 0
	p.lastEmit = time.Now()
	b.em.Emit(ToolOutput, ev)
}

// completeRunes is the length of b without an incomplete UTF-8 sequence at
// its end.
func completeRunes(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return len(b)
		}
		if utf8.RuneStart(c) {
			if r, size := utf8.DecodeRune(b[len(b)-i:]); r == utf8.RuneError && size <= 1 && !utf8.FullRune(b[len(b)-i:]) {
				return len(b) - i
			}
			return len(b)
		}
	}
	return len(b)
}
