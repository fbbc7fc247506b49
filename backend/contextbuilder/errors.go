package contextbuilder

import "crewagent/backend/errs"

// Error codes callers can branch on (errors.Is against the Err* values, or
// errs.CodeOf).
const (
	CodeInvalidMode         = errs.ContextInvalidMode
	CodeNoCounter           = errs.ContextNoCounter
	CodePersonaRequired     = errs.ContextPersonaRequired
	CodeRunInjectorRequired = errs.ContextRunInjectorRequired
	CodeTemplate            = errs.ContextTemplate
)

// Error is a build failure with a stable code (errs.Error; any *Error with
// the same code matches with errors.Is).
type Error = errs.Error

// Sentinels for errors.Is.
var (
	ErrInvalidMode         = &Error{Code: CodeInvalidMode, Message: "mode must be chat, agent or run"}
	ErrNoCounter           = &Error{Code: CodeNoCounter, Message: "a token counter is required"}
	ErrPersonaRequired     = &Error{Code: CodePersonaRequired, Message: "agent and run modes need a persona"}
	ErrRunInjectorRequired = &Error{Code: CodeRunInjectorRequired, Message: "run mode needs a run injector"}
)
