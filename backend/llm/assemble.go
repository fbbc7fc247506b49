package llm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"crewagent/backend/conversation"
)

// assembler builds a Result from stream chunks and feeds the handler.
type assembler struct {
	names *NameMap
	h     Handler
	td    ToolCallDeltaHandler
	rh    ReasoningHandler

	content   strings.Builder
	reasoning strings.Builder
	calls     []*callState       // in order of first appearance; Result index = position
	byServer  map[int]*callState // latest call seen for a server index
	ids       idSet              // the call ids given out in this answer
	finish    string
	usage     Usage
	reported  bool
	model     string
	chunks    int  // data chunks decoded
	begun     bool // something was delivered to the handler

	cached        int  // prompt tokens read from the server's cache
	cacheReported bool // the stream said how many
}

// callState is one tool call being assembled. serverID is the id the server streamed it
// with; id is the call's id in the answer, unique within it (the server's id unless
// another call of the answer has it already or it is empty).
type callState struct {
	index    int
	serverID string
	id       string
	name     string // wire name
	args     strings.Builder
	started  bool
	split    *callState // the complete call this one was split from (a repeated announcement)
	sent     int        // bytes of args delivered to the handler
}

func newAssembler(names *NameMap, h Handler) *assembler {
	a := &assembler{names: names, h: h, byServer: map[int]*callState{}, ids: newIDSet()}
	if h != nil {
		a.td, _ = h.(ToolCallDeltaHandler)
		a.rh, _ = h.(ReasoningHandler)
	}
	return a
}

func (a *assembler) add(chunk openai.ChatCompletionStreamResponse) {
	a.chunks++
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	if chunk.Usage != nil {
		a.usage = Usage{
			PromptTokens:     chunk.Usage.PromptTokens,
			CompletionTokens: chunk.Usage.CompletionTokens,
			TotalTokens:      chunk.Usage.TotalTokens,
		}
		if a.usage.TotalTokens == 0 {
			a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
		}
		a.reported = true
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // only the first choice is requested
		}
		d := ch.Delta
		if d.ReasoningContent != "" {
			a.reasoning.WriteString(d.ReasoningContent)
			a.begun = true
			if a.rh != nil {
				a.rh.OnReasoningDelta(d.ReasoningContent)
			}
		}
		if d.Content != "" {
			a.content.WriteString(d.Content)
			a.begun = true
			if a.h != nil {
				a.h.OnDelta(d.Content)
			}
		}
		var touched []*callState
		for _, tc := range d.ToolCalls {
			touched = append(touched, a.delta(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments))
		}
		if fc := d.FunctionCall; fc != nil { // legacy function_call streaming
			zero := 0
			touched = append(touched, a.delta(&zero, "", fc.Name, fc.Arguments))
		}
		for _, cs := range touched {
			a.notify(cs)
		}
		if ch.FinishReason != "" {
			a.finish = string(ch.FinishReason)
		}
	}
}

// delta adds one tool call fragment and returns the call it belongs to.
func (a *assembler) delta(index *int, id, name, args string) *callState {
	cs := a.call(index, id, name)
	if id != "" && cs.serverID == "" {
		cs.serverID = id
	}
	if name != "" && cs.name == "" {
		cs.name = name
	}
	cs.args.WriteString(args)
	return cs
}

// finished reports whether the server ended the answer with a finish_reason.
func (a *assembler) finished() bool { return a.finish != "" }

// call finds or creates the call a tool call delta belongs to. Most servers send an index;
// without one an id starts a new call and an id-less delta continues the last one. A new
// id on an index that already has another id (servers that number every call 0) starts a
// new call too, and so does a delta that announces a call again — a name, with the same
// id or none — when the call it would continue is complete (servers that give parallel
// calls one index and one id, or none).
func (a *assembler) call(index *int, id, name string) *callState {
	if index == nil {
		if id != "" {
			for i := len(a.calls) - 1; i >= 0; i-- {
				if cs := a.calls[i]; cs.serverID == id {
					if reannounced(cs, id, name) {
						return a.splitCall(-1, cs)
					}
					return cs
				}
			}
			return a.newCall(-1)
		}
		if n := len(a.calls); n > 0 {
			return a.calls[n-1]
		}
		return a.newCall(-1)
	}
	cs, ok := a.byServer[*index]
	switch {
	case !ok, id != "" && cs.serverID != "" && cs.serverID != id:
		return a.newCall(*index)
	case reannounced(cs, id, name):
		return a.splitCall(*index, cs)
	}
	return cs
}

// reannounced reports a delta that opens a call again (a name, and the same id or none)
// on a call whose name is known and whose arguments are a complete JSON value.
func reannounced(cs *callState, id, name string) bool {
	if name == "" || cs.name == "" || (id != "" && cs.serverID != id) {
		return false
	}
	args := strings.TrimSpace(cs.args.String())
	return args != "" && json.Valid([]byte(args))
}

func (a *assembler) splitCall(serverIndex int, from *callState) *callState {
	cs := a.newCall(serverIndex)
	cs.split = from
	return cs
}

// blank reports a call split off whose arguments are still only white space: it may be
// a repeated announcement of the call it was split from, not a call of its own.
func (cs *callState) blank() bool {
	return cs.split != nil && strings.TrimSpace(cs.args.String()) == ""
}

func (a *assembler) newCall(serverIndex int) *callState {
	cs := &callState{index: len(a.calls)}
	a.calls = append(a.calls, cs)
	if serverIndex >= 0 {
		a.byServer[serverIndex] = cs
	}
	return cs
}

func (a *assembler) notify(cs *callState) {
	if !cs.started {
		if cs.name == "" || cs.blank() {
			return // wait for the name (and, for a repeated announcement, for arguments)
		}
		cs.id = a.ids.unique(cs.serverID)
		cs.started = true
		a.begun = true
		if a.h != nil {
			a.h.OnToolCallStart(cs.index, cs.id, a.names.Name(cs.name))
		}
	}
	if n := cs.args.Len(); n > cs.sent {
		delta := cs.args.String()[cs.sent:]
		cs.sent = n
		a.begun = true
		if a.td != nil {
			a.td.OnToolCallDelta(cs.index, delta)
		}
	}
}

// fill copies what was assembled into res.
func (a *assembler) fill(res *Result) {
	res.Content = a.content.String()
	res.Reasoning = a.reasoning.String()
	res.FinishReason = a.finish
	res.Usage = a.usage
	res.UsageReported = a.reported
	if a.cacheReported {
		res.Usage.CachedTokens, res.CacheReported = a.cached, true
	}
	res.Model = a.model
	res.ToolCalls = nil
	for _, cs := range a.calls {
		if cs.blank() {
			// A repeated announcement after all: its white space belongs to the
			// call it repeated (an ancestor when it was split off twice).
			to := cs.split
			for to.blank() {
				to = to.split
			}
			to.args.WriteString(cs.args.String())
		}
	}
	for _, cs := range a.calls {
		if cs.name == "" && cs.args.Len() == 0 || cs.blank() {
			continue
		}
		if cs.id == "" {
			cs.id = a.ids.unique(cs.serverID)
		}
		res.ToolCalls = append(res.ToolCalls, conversation.ToolCall{
			ID:       cs.id,
			Type:     "function",
			Function: conversation.FunctionCall{Name: a.names.Name(cs.name), Arguments: cs.args.String()},
		})
	}
}

// idSet gives the tool calls of one answer unique ids, so that each result is sent back
// paired with its own call.
type idSet map[string]bool

func newIDSet() idSet { return idSet{} }

// unique returns id, or a new id when id is empty or taken by another call of the answer.
func (s idSet) unique(id string) string {
	for id == "" || s[id] {
		id = newCallID()
	}
	s[id] = true
	return id
}

// newCallID makes an id for a tool call a server sent without one (or with another
// call's).
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
