package workflow

import (
	"context"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/llm"
	"crewagent/backend/tools"
)

// Loop runs the model/tool loop of one run turn. It appends Turn.Input, then before each
// model request asks Turn.Prepare for the setup (persona, run blocks and tool host of the
// node the run is at now), builds the request in mode run, calls the model, persists the
// assistant message, runs its tool calls and persists each result, until the model answers
// without tool calls or a ui.ask_user call is pending.
//
// Every message it appends is tagged with mode "run", the run id, the workflow id and the
// agent id. Failures are persisted before RunTurn returns, as an assistant message with
// partType "error" (partial text, then an LLM_ERROR block), and returned: an *llm.Error for
// a failed model call, an *Error with CodeMaxTurns, CodeLoopDetected or CodeAborted for the
// loop guards. The same failing call (tool name and arguments) made three times in one turn
// is CodeLoopDetected.
//
// NewEngineLoop, the default, is the conversation tool loop of chat and agent modes
// (engine.ChatService.RunTurn); Config.Loop replaces it.
type Loop interface {
	RunTurn(ctx context.Context, t *Turn) (*TurnOutcome, error)
}

// ToolHost runs tool calls (*tools.Host implements it).
type ToolHost = engine.ToolHost

var _ ToolHost = (*tools.Host)(nil)

// Setup is what one model request of a run needs: the agent id its messages are tagged
// with, the persona, the run blocks and the tool host.
type Setup = engine.RunSetup

// Turn is one user turn of a run.
type Turn struct {
	ConversationID string
	RunID          string
	WorkflowID     string
	// Input is the user message that starts the turn (nil: none, e.g. a run started
	// without a message). RunTurn tags and appends it.
	Input *conversation.Entry
	// Prepare is called before every model request of the turn.
	Prepare func() (*Setup, error)
	// MaxTurns caps the model requests of the turn (settings engine.maxTurns).
	MaxTurns int
}

// TurnOutcome is how a turn that did not fail ended.
type TurnOutcome struct {
	// Text is the final answer (empty when the turn stopped at a pending widget).
	Text string
	// Pending is the ui.ask_user widget waiting for the user, if any.
	Pending *tools.Widget
	// Requests is the number of model requests made.
	Requests int
}

// NewEngineLoop returns the Loop that runs turns with chat's tool loop: streaming,
// compression, persistence and events are those of chat and agent sends, and a turn and a
// chat send never run at the same time in one conversation.
func NewEngineLoop(chat *engine.ChatService) Loop { return &engineLoop{chat: chat} }

type engineLoop struct{ chat *engine.ChatService }

// RunTurn implements Loop.
func (l *engineLoop) RunTurn(ctx context.Context, t *Turn) (*TurnOutcome, error) {
	res, err := l.chat.RunTurn(ctx, engine.RunTurnRequest{
		ConversationID: t.ConversationID,
		RunID:          t.RunID,
		WorkflowID:     t.WorkflowID,
		Input:          t.Input,
		Setup:          t.Prepare,
		MaxTurns:       t.MaxTurns,
	})
	out := &TurnOutcome{}
	if res != nil {
		out.Requests, out.Pending = res.Turns, res.Pending
		if res.Pending == nil && res.Err == nil {
			out.Text = res.Text
		}
	}
	if err != nil {
		return out, err
	}
	if res.Err != nil {
		return out, loopError(res.Err)
	}
	return out, nil
}

// loopError is the error of a persisted failure: the loop guards become an *Error with
// their code, a failed model call stays an *llm.Error.
func loopError(e *llm.Error) error {
	switch e.Code {
	case CodeMaxTurns, CodeLoopDetected, CodeAborted:
		return &Error{Code: e.Code, Message: e.Message, Cause: e.Cause}
	}
	return e
}
