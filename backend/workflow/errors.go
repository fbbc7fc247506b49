package workflow

import (
	"errors"
	"fmt"

	"crewagent/backend/errs"
)

// Stable error codes callers branch on (Error.Code, CodeOf).
const (
	// CodeMaxTurns: the tool loop reached engine.maxTurns model requests in one turn.
	CodeMaxTurns = errs.MaxTurnsExceeded
	// CodeLoopDetected: the model made the same failing tool call three times in one turn.
	CodeLoopDetected = errs.LoopDetected
	// CodeAborted: the turn was stopped (context cancelled, Abort).
	CodeAborted = errs.Aborted
	// CodeRunNotFound: no run with that id in runsIndex.json.
	CodeRunNotFound = errs.RunNotFound
	// CodeRunBusy: a turn of the run is already in progress.
	CodeRunBusy = errs.Busy
	// CodeWorkflowNotFound: the package has no workflow with that id.
	CodeWorkflowNotFound = errs.WorkflowNotFound
	// CodeGraphMissing: the workflow has no usable graph.
	CodeGraphMissing = errs.GraphMissing
	// CodeAgentNotFound: the package has no agent with that id.
	CodeAgentNotFound = errs.AgentNotFound
	// CodeConversationNotFound: the conversation named for the run does not exist.
	CodeConversationNotFound = errs.ConversationNotFound
	// CodeStateCorrupt: the run's state file cannot be read as a workflow state.
	CodeStateCorrupt = errs.StateCorrupt
	// CodeIndexCorrupt: runsIndex.json is not valid.
	CodeIndexCorrupt = errs.IndexCorrupt
	// CodeNoWidget: AnswerWidget named a widget that is not pending.
	CodeNoWidget = errs.NoWidget
	// CodeBadAnswer: the answer does not fit the pending widget.
	CodeBadAnswer = errs.BadAnswer
	// CodeNoPackage: no package could be chosen for a run.
	CodeNoPackage = errs.NoPackage
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

// ErrorCode returns the code (errs.Coder).
func (e *Error) ErrorCode() string { return e.Code }

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
