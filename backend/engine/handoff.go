package engine

import (
	"fmt"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/tools"
)

// Handoff is the Effect (tools.Result.Effect) of a tool call that hands the
// send over to another conversation (conv.create, conv.send). The call's
// result, as the tool returned it, is persisted at once as a placeholder
// that says what the call waits for, so the log is complete at every moment;
// the work that answers the call later replaces it (an update of the same
// entry) and goes on with the send (ChatService.Continue).
type Handoff struct {
	// Start queues that work. It is called once the placeholder is persisted,
	// with its entry id, while the send's task still runs (it ends the task:
	// the send returns with SendResult.HandedOff). When it fails the error is
	// the call's result instead and the send goes on.
	Start func(resultID string) error
}

// CodeHandedOver answers the tool calls of a message after one that handed
// the send over: they were not run.
const CodeHandedOver = errs.HandedOver

// handedOff ends runTools when a call handed the send over.
type handedOff struct{}

func (handedOff) Error() string { return "the send was handed over to another conversation" }

// startHandoff runs the Handoff of the call whose placeholder result is
// entry. On failure the placeholder becomes the error and false is returned.
func (r *run) startHandoff(h *Handoff, entry *conversation.Entry) (bool, error) {
	err := h.Start(entry.ID)
	if err == nil {
		return true, nil
	}
	failed := *entry
	res := tools.Failure(tools.NewError(tools.CodeInternal, "could not hand the turn over: "+err.Error(), nil))
	failed.Content, failed.IsError = conversation.Str(res.Content), true
	if uerr := r.s.opts.Store.Update(r.convID, &failed); uerr != nil {
		return false, uerr
	}
	for i := range r.p.history {
		if r.p.history[i].ID == entry.ID {
			r.p.history[i] = failed
		}
	}
	return false, nil
}

// skipAfterHandoff answers the calls of a message that follow one that
// handed the send over, without running them.
func (r *run) skipAfterHandoff(msgID, via string, rest []conversation.ToolCall) error {
	for _, tc := range rest {
		res := tools.Failure(tools.NewError(CodeHandedOver, fmt.Sprintf(
			"not run: %s handed the turn to another conversation first; make this call again if it is still needed", via), nil))
		entry := &conversation.Entry{Role: conversation.RoleTool, Content: conversation.Str(res.Content), ToolCallID: tc.ID,
			ToolName: tc.Function.Name, PartType: conversation.PartToolResult, IsError: true}
		if err := r.append(entry); err != nil {
			return err
		}
		r.s.opts.Emitter.Emit(events.StreamToolEnd, ToolEndEvent{ConversationID: r.convID, MessageID: msgID, ToolCallID: tc.ID,
			ToolName: tc.Function.Name, ResultMessageID: entry.ID, Error: &EventError{Code: CodeHandedOver, Message: "not run"}})
	}
	return nil
}
