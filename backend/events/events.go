// Package events names the events pushed to the frontend, defines the type
// of every payload (payloads.go) and the Emitter interface the window's
// adapter implements (tests use Recorder).
package events

import "sync"

// Event names (contracts.md). go generate writes them for the window as
// frontend/src/bridge/events.gen.ts (gen/main.go reads this, the first const
// block of the file: one string constant a line).
//
//go:generate go run ./gen -src events.go -out ../../frontend/src/bridge/events.gen.ts
const (
	ContextUsage        = "context:usage"
	StreamStart         = "llm:stream-start"
	StreamChunk         = "llm:stream-chunk"
	StreamEnd           = "llm:stream-end"
	StreamToolStart     = "llm:stream-tool-start"
	StreamToolEnd       = "llm:stream-tool-end"
	ConversationChanged = "conversation:changed"
	// ConversationEntries carries what the store appended or updated in a
	// conversation, each entry with its view, and the state of its end: the
	// window appends and replaces by id instead of reading the page again.
	ConversationEntries = "conversation:entries"
	RunsProgressUpdated = "runs:progressUpdated"
	// A task (a reply, a run turn, the answer of a conversation the
	// conversation tools handed a turn to, a continuation) started, ended by
	// itself, or was ended (replaced by a handover, interrupted, shut down).
	TaskStarted  = "task:started"
	TaskComplete = "task:complete"
	TaskAborted  = "task:aborted"
	MCPStatus    = "mcp:status"
	// SkillsChanged: the open project's skills changed on disk (or with its
	// package); list them again.
	SkillsChanged = "skills:changed"
	// A tool call waits for the user's approval (approval:requested), and
	// its request was answered or the reply stopped while it waited
	// (approval:resolved).
	ApprovalRequested = "approval:requested"
	ApprovalResolved  = "approval:resolved"
	// ToolOutput carries the output of a running tool call (shell.run) as
	// it comes, coalesced (ToolOutputBatcher).
	ToolOutput = "tool:output"
	// An MCP server asks the user to fill in a form during a call
	// (mcp:elicitation), and the request was answered or its call ended
	// (mcp:elicitation-done).
	MCPElicitation     = "mcp:elicitation"
	MCPElicitationDone = "mcp:elicitation-done"
)

// Emitter pushes an event to the frontend.
type Emitter interface {
	Emit(name string, payload any)
}

// Nop drops every event.
type Nop struct{}

// Emit implements Emitter.
func (Nop) Emit(string, any) {}

// Recorded is one event captured by Recorder.
type Recorded struct {
	Name    string
	Payload any
}

// Recorder keeps every emitted event; safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []Recorded
}

// Emit implements Emitter.
func (r *Recorder) Emit(name string, payload any) {
	r.mu.Lock()
	r.events = append(r.events, Recorded{name, payload})
	r.mu.Unlock()
}

// Events returns a copy of what was emitted so far.
func (r *Recorder) Events() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Recorded(nil), r.events...)
}

// Named returns the payloads of the events with the given name.
func (r *Recorder) Named(name string) []any {
	var out []any
	for _, e := range r.Events() {
		if e.Name == name {
			out = append(out, e.Payload)
		}
	}
	return out
}
