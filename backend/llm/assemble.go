package llm

import (
	"crypto/rand"
	"encoding/hex"
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
	finish    string
	usage     Usage
	reported  bool
	model     string
	chunks    int  // data chunks decoded
	begun     bool // something was delivered to the handler
}

type callState struct {
	index   int
	id      string
	name    string // wire name
	args    strings.Builder
	started bool
	sent    int // bytes of args delivered to the handler
}

func newAssembler(names *NameMap, h Handler) *assembler {
	a := &assembler{names: names, h: h, byServer: map[int]*callState{}}
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
			cs := a.call(tc.Index, tc.ID)
			if tc.ID != "" && cs.id == "" {
				cs.id = tc.ID
			}
			if tc.Function.Name != "" && cs.name == "" {
				cs.name = tc.Function.Name
			}
			cs.args.WriteString(tc.Function.Arguments)
			touched = append(touched, cs)
		}
		if fc := d.FunctionCall; fc != nil { // legacy function_call streaming
			zero := 0
			cs := a.call(&zero, "")
			if fc.Name != "" && cs.name == "" {
				cs.name = fc.Name
			}
			cs.args.WriteString(fc.Arguments)
			touched = append(touched, cs)
		}
		for _, cs := range touched {
			a.notify(cs)
		}
		if ch.FinishReason != "" {
			a.finish = string(ch.FinishReason)
		}
	}
}

// call finds or creates the call a tool call delta belongs to. Most servers send an index;
// without one an id starts a new call and an id-less delta continues the last one. A new
// id on an index that already has another id (servers that number every call 0) starts a
// new call too.
func (a *assembler) call(index *int, id string) *callState {
	if index == nil {
		if id != "" {
			for _, cs := range a.calls {
				if cs.id == id {
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
	if !ok || (id != "" && cs.id != "" && cs.id != id) {
		return a.newCall(*index)
	}
	return cs
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
		if cs.name == "" {
			return // wait for the name
		}
		if cs.id == "" {
			cs.id = newCallID()
		}
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
	res.Model = a.model
	res.ToolCalls = nil
	for _, cs := range a.calls {
		if cs.name == "" && cs.args.Len() == 0 {
			continue
		}
		if cs.id == "" {
			cs.id = newCallID()
		}
		res.ToolCalls = append(res.ToolCalls, conversation.ToolCall{
			ID:       cs.id,
			Type:     "function",
			Function: conversation.FunctionCall{Name: a.names.Name(cs.name), Arguments: cs.args.String()},
		})
	}
}

// newCallID makes an id for a tool call a server sent without one.
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
