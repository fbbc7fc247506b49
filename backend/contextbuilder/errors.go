package contextbuilder

// Error codes callers can branch on (errors.Is against the Err* values, or
// read Code).
const (
	CodeInvalidMode         = "CONTEXT_INVALID_MODE"
	CodeNoCounter           = "CONTEXT_NO_COUNTER"
	CodePersonaRequired     = "CONTEXT_PERSONA_REQUIRED"
	CodeRunInjectorRequired = "CONTEXT_RUN_INJECTOR_REQUIRED"
	CodeTemplate            = "CONTEXT_TEMPLATE"
)

// Error is a build failure with a stable code.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is matches any *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrInvalidMode         = &Error{Code: CodeInvalidMode, Message: "mode must be chat, agent or run"}
	ErrNoCounter           = &Error{Code: CodeNoCounter, Message: "a token counter is required"}
	ErrPersonaRequired     = &Error{Code: CodePersonaRequired, Message: "agent and run modes need a persona"}
	ErrRunInjectorRequired = &Error{Code: CodeRunInjectorRequired, Message: "run mode needs a run injector"}
)
