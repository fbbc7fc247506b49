package workflow

import (
	"errors"
	"fmt"
)

// Stable error codes callers branch on (Error.Code, CodeOf).
const (
	// CodeMaxTurns: the tool loop reached engine.maxTurns model requests in one turn.
	CodeMaxTurns = "ENGINE_MAX_TURNS_EXCEEDED"
	// CodeLoopDetected: the model made the same failing tool call three times in one turn.
	CodeLoopDetected = "ENGINE_LOOP_DETECTED"
	// CodeAborted: the turn was stopped (context cancelled, Abort).
	CodeAborted = "ENGINE_ABORTED"
	// CodeRunNotFound: no run with that id in runsIndex.json.
	CodeRunNotFound = "RUN_NOT_FOUND"
	// CodeRunBusy: a turn of the run is already in progress.
	CodeRunBusy = "RUN_BUSY"
	// CodeWorkflowNotFound: the package has no workflow with that id.
	CodeWorkflowNotFound = "RUN_WORKFLOW_NOT_FOUND"
	// CodeGraphMissing: the workflow has no usable graph.
	CodeGraphMissing = "RUN_GRAPH_MISSING"
	// CodeAgentNotFound: the package has no agent with that id.
	CodeAgentNotFound = "RUN_AGENT_NOT_FOUND"
	// CodeConversationNotFound: the conversation named for the run does not exist.
	CodeConversationNotFound = "RUN_CONVERSATION_NOT_FOUND"
	// CodeStateCorrupt: the run's state file cannot be read as a workflow state.
	CodeStateCorrupt = "RUN_STATE_CORRUPT"
	// CodeIndexCorrupt: runsIndex.json is not valid.
	CodeIndexCorrupt = "RUN_INDEX_CORRUPT"
	// CodeNoWidget: AnswerWidget named a widget that is not pending.
	CodeNoWidget = "RUN_NO_PENDING_WIDGET"
	// CodeBadAnswer: the answer does not fit the pending widget.
	CodeBadAnswer = "RUN_BAD_ANSWER"
	// CodeNoPackage: no package could be chosen for a run.
	CodeNoPackage = "RUN_NO_PACKAGE"
)

// Error is a run failure with a stable code. Messages are written for the user of the
// command line and the UI: they say what was wrong and what to do.
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of the *Error in err's chain, or "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
