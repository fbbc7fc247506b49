package projectmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/mcp"
)

// Elicitations lets the window answer what MCP servers ask the user during a call (a
// form, elicitation/create): each request is pushed as an mcp:elicitation event and
// waits for Answer; an answered request, or one whose call ended first, is announced
// by mcp:elicitation-done. Pending lists the requests still waiting (a window reloaded
// shows them again).
type Elicitations struct {
	em events.Emitter

	mu      sync.Mutex
	next    int
	pending map[string]*elicitation
}

type elicitation struct {
	ev     events.MCPElicitationEvent
	answer chan mcp.ElicitResponse
}

// NewElicitations returns the window's elicitations, announced on em.
func NewElicitations(em events.Emitter) *Elicitations {
	if em == nil {
		em = events.Nop{}
	}
	return &Elicitations{em: em, pending: map[string]*elicitation{}}
}

// Ask is the window's mcp.ElicitFunc: it shows the request and waits for the answer, or
// for ctx (the call) to end, which cancels it.
func (e *Elicitations) Ask(ctx context.Context, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	if r.Mode != "" && r.Mode != "form" {
		return mcp.ElicitResponse{}, fmt.Errorf("this client answers forms only, not %q requests", r.Mode)
	}
	e.mu.Lock()
	e.next++
	id := fmt.Sprintf("elicit-%d", e.next)
	el := &elicitation{answer: make(chan mcp.ElicitResponse, 1),
		ev: events.MCPElicitationEvent{ID: id, Server: r.Server, Message: r.Message, Schema: r.Schema}}
	if len(el.ev.Schema) == 0 {
		el.ev.Schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	e.pending[id] = el
	e.mu.Unlock()
	e.em.Emit(events.MCPElicitation, el.ev)
	defer func() {
		e.mu.Lock()
		delete(e.pending, id)
		e.mu.Unlock()
		e.em.Emit(events.MCPElicitationDone, events.MCPElicitationDoneEvent{ID: id})
	}()
	select {
	case a := <-el.answer:
		return a, nil
	case <-ctx.Done():
		return mcp.ElicitResponse{Action: "cancel"}, nil
	}
}

// Answer answers the request id: action accept (with content, the form's fields),
// decline or cancel.
func (e *Elicitations) Answer(id, action string, content map[string]any) error {
	switch action {
	case "accept", "decline", "cancel":
	default:
		return errs.Errorf(errs.InvalidArgument, "%q is not an answer to a form: accept, decline or cancel", action)
	}
	e.mu.Lock()
	el := e.pending[id]
	if el != nil {
		delete(e.pending, id)
	}
	e.mu.Unlock()
	if el == nil {
		return errs.Errorf(errs.NotFound, "the server's request %s is not waiting any more (its call ended)", id)
	}
	if action != "accept" {
		content = nil
	}
	el.answer <- mcp.ElicitResponse{Action: action, Content: content}
	return nil
}

// Pending lists the requests waiting for an answer, oldest first.
func (e *Elicitations) Pending() []events.MCPElicitationEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]events.MCPElicitationEvent, 0, len(e.pending))
	for _, el := range e.pending {
		out = append(out, el.ev)
	}
	sort.Slice(out, func(i, j int) bool { return seqOf(out[i].ID) < seqOf(out[j].ID) })
	return out
}

func seqOf(id string) int {
	var n int
	_, _ = fmt.Sscanf(id, "elicit-%d", &n)
	return n
}
