package workflow

import (
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

// Error is a run failure with a stable code (errs.Error). Messages are
// written for the user of the command line and the UI: they say what was
// wrong and what to do.
type Error = errs.Error

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// wrap is an *Error whose message ends with the cause's: "message: cause".
func wrap(code string, cause error, message string) *Error {
	return &Error{Code: code, Message: message + ": " + cause.Error(), Cause: cause}
}
