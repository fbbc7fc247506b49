package engine

import (
	"fmt"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/errs"
	"crewagent/backend/llm"
)

// Stable error codes.
const (
	// CodeMaxTurnsExceeded is the code of the persisted failure of a tool loop
	// that reached settings engine.maxTurns LLM calls.
	CodeMaxTurnsExceeded = errs.MaxTurnsExceeded
	// CodeBusy: a send is already running in the conversation.
	CodeBusy = errs.Busy
	// CodeInvalidRequest: an empty message, an unknown mode, a missing agent.
	CodeInvalidRequest = errs.InvalidRequest
	// CodeAgentNotFound: agent mode names an agent no resolver knows.
	CodeAgentNotFound = errs.AgentNotFound
	// CodeUnsupportedMode: the operation does not support the mode (run mode
	// belongs to workflow runs).
	CodeUnsupportedMode = errs.UnsupportedMode
	// CodeLoopDetected is the code of the persisted failure of a tool loop in
	// which the model made the same failing tool call (same name, same
	// arguments) LoopFailThreshold times.
	CodeLoopDetected = errs.LoopDetected
	// CodeAborted is the code of the persisted failure of a run turn that was
	// stopped (chat and agent sends keep llm.CodeAborted, LLM_ABORTED).
	CodeAborted = errs.Aborted
)

// LoopFailThreshold is how many times one failing tool call may be made in a
// send or run turn: the last time ends it with CodeLoopDetected.
const LoopFailThreshold = 3

// Error is an engine error with a stable code (errs.Error). Compare with
// errors.Is against the sentinels below (any *Error with the same code matches).
type Error = errs.Error

// Sentinels.
var (
	ErrConversationBusy = &Error{Code: CodeBusy, Message: "a message is already being answered in this conversation; wait for it or stop it"}
	ErrInvalidRequest   = &Error{Code: CodeInvalidRequest, Message: "invalid request"}
	ErrAgentNotFound    = &Error{Code: CodeAgentNotFound, Message: "agent not found"}
	ErrUnsupportedMode  = &Error{Code: CodeUnsupportedMode, Message: "mode not supported here"}
)

func invalid(msg string) error { return &Error{Code: CodeInvalidRequest, Message: msg} }

// maxTurnsError is the persisted failure of a loop that ran out of turns. It is
// an *llm.Error so that it renders and travels like the other failures.
func maxTurnsError(n int) *llm.Error {
	return &llm.Error{Code: CodeMaxTurnsExceeded, Message: "the tool loop reached the limit of " + itoa(n) +
		" model calls (settings engine.maxTurns) without a final answer; send \"continue\" to go on"}
}

// abortedError is the failure recorded when the send is cancelled outside an
// LLM call (while a tool runs, or between calls).
func abortedError(cause error) *llm.Error {
	return &llm.Error{Code: llm.CodeAborted, Message: "stopped before the answer was complete", Cause: cause}
}

// runAbortedError is the failure recorded when a run turn is stopped, during
// an LLM call or outside one.
func runAbortedError(cause error) *llm.Error {
	return &llm.Error{Code: CodeAborted, Message: "the run was stopped before the answer was complete; send a message to continue", Cause: cause}
}

// loopDetectedError is the failure of a loop that repeats a failing call.
func loopDetectedError(tool string, n int, lastCode string) *llm.Error {
	last := ""
	if lastCode != "" {
		last = " (last error " + lastCode + ")"
	}
	return &llm.Error{Code: CodeLoopDetected, Message: "the model made the same failing " + tool + " call " + itoa(n) +
		" times" + last + " and was stopped; check the error, then send a message to continue"}
}

// Context errors.
const (
	// CodeContextTooLarge is the code of the persisted failure of a turn
	// whose request cannot fit the token limit even after compaction and
	// previews: nothing over the budget is ever sent.
	CodeContextTooLarge = errs.ContextTooLarge
	// CodeInputTooLarge: a message that can never fit the request limit is
	// refused before anything is written or sent.
	CodeInputTooLarge = errs.InputTooLarge
)

// tooLargeError is the failure persisted when the request built for the
// next call does not fit limit.
func tooLargeError(req *contextbuilder.Result, limit int) *llm.Error {
	d := &req.Debug
	return &llm.Error{Code: CodeContextTooLarge, Message: fmt.Sprintf(
		"the next request needs %d tokens, over the limit of %d, even after compacting the history and shortening tool results to previews "+
			"(the newest message and this turn's tool results alone do not fit); nothing was sent. Raise context.tokenBudget, or send \"continue\" "+
			"with a smaller step (read files in ranges with startLine/endLine)", d.UsedTokens, limit)}
}

// stillTooLargeAfter is the failure persisted when a request refused for
// its length cannot be made smaller.
func stillTooLargeAfter(cause error, sent int, next *contextbuilder.Result, limit int) *llm.Error {
	return &llm.Error{Code: CodeContextTooLarge, Cause: cause, Message: fmt.Sprintf(
		"the provider refused a request of %d tokens as too long, and the request cannot be made smaller than %d tokens (limit now %d): "+
			"nothing more was sent. Lower context.tokenBudget to the model's real window, or send a shorter message", sent, next.Debug.UsedTokens, limit)}
}
