package tools

import (
	"encoding/json"
	"errors"
	"fmt"

	"crewagent/backend/errs"
)

// Stable error codes carried in {"ok":false,"error":{"code":...}}.
const (
	CodeNotFound           = errs.ToolNotFound
	CodeSandboxViolation   = errs.SandboxViolation
	CodeReadLimit          = errs.ReadLimit
	CodeWriteLimit         = errs.WriteLimit
	CodeSchemaValidation   = errs.SchemaValidation
	CodeInvalidTransition  = errs.InvalidTransition
	CodePreconditionFailed = errs.PreconditionFailed
	CodeInternal           = errs.Internal
	CodeToolNotAvailable   = errs.ToolNotAvailable
	CodeBadArguments       = errs.BadArguments
	// CodeTooManyCalls answers the tool calls of one model message beyond the cap
	// (settings engine.maxToolCallsPerMessage): they are not run.
	CodeTooManyCalls = errs.TooManyToolCalls
	// shell.run: a command that exited with a status other than 0 or was killed by a
	// signal, that ran out of time, that was stopped; and the sandbox that cannot start.
	CodeCommandFailed      = errs.CommandFailed
	CodeCommandTimeout     = errs.CommandTimeout
	CodeCommandStopped     = errs.CommandStopped
	CodeSandboxUnavailable = errs.SandboxUnavailable
)

// ToolError is the error part of a failed tool result: the {"code","message","details"}
// the model reads. It is also a Go error, so a StateGuard can return one to choose the code
// and details the model sees.
//
// It stays a type of its own beside errs.Error, the runtime's one error type, because it is
// protocol rather than failure: it travels as JSON to the model, its Go text is the
// "CODE: message" line the model and the run's execution log see, and only a ToolError
// returned by a guard (not any coded error passing through it) chooses what the model reads.
// It converts to an errs.Error in one place, ToError, which errs.From uses.
type ToolError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// ErrorCode returns the code (errs.Coder).
func (e *ToolError) ErrorCode() string { return e.Code }

// ToError is e as an errs.Error (errs.Converter): the same code, message and details.
func (e *ToolError) ToError() *errs.Error {
	return &errs.Error{Code: e.Code, Message: e.Message, Details: e.Details, Cause: e}
}

// NewError builds a ToolError; details may be nil.
func NewError(code, message string, details map[string]any) *ToolError {
	return &ToolError{Code: code, Message: message, Details: details}
}

func errf(code, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// withDetail returns e with one more detail set.
func (e *ToolError) withDetail(key string, v any) *ToolError {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = v
	return e
}

// AsToolError returns err as a *ToolError when it is (or wraps) one.
func AsToolError(err error) (*ToolError, bool) {
	var te *ToolError
	if errors.As(err, &te) {
		return te, true
	}
	return nil, false
}

// Result is the outcome of one tool call.
type Result struct {
	// OK is true when the tool succeeded.
	OK bool
	// Error is set when OK is false.
	Error *ToolError
	// Content is the JSON text sent back to the model as the tool message.
	Content string
	// Pending is set by ui.ask_user: the run must wait for the user's answer.
	Pending *Widget
	// Effect is what a provider's tool asks of the tool loop beyond its
	// result (nil for ordinary tools): entries to append after the results of
	// the message, another task to run first… The engine defines the effects
	// it knows and ignores any other.
	Effect any
}

// Code returns the error code, or "" for a successful result.
func (r Result) Code() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// MarshalJSON emits the same JSON as Content.
func (r Result) MarshalJSON() ([]byte, error) { return []byte(r.Content), nil }

// Failure builds an ok:false result, for a call the runtime answers without running it.
func Failure(e *ToolError) Result { return failure(e) }

// failure builds an ok:false result.
func failure(e *ToolError) Result {
	b, err := json.Marshal(struct {
		OK    bool       `json:"ok"`
		Error *ToolError `json:"error"`
	}{false, e})
	if err != nil {
		// Details that cannot be encoded are dropped rather than losing the error.
		e = &ToolError{Code: e.Code, Message: e.Message}
		b, _ = json.Marshal(map[string]any{"ok": false, "error": e})
	}
	return Result{OK: false, Error: e, Content: string(b)}
}

// Success builds an ok:true result whose other top-level fields are those of payload (a
// struct or map encoding to a JSON object; nil for none), for a provider's tool.
func Success(payload any) Result { return success(payload) }

// success builds an ok:true result whose other top-level fields are those of payload (a struct
// or map encoding to a JSON object; nil for none).
func success(payload any) Result {
	if payload == nil {
		return Result{OK: true, Content: `{"ok":true}`}
	}
	b, err := json.Marshal(payload)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return failure(errf(CodeInternal, "could not encode the tool result"))
	}
	if string(b) == "{}" {
		return Result{OK: true, Content: `{"ok":true}`}
	}
	return Result{OK: true, Content: `{"ok":true,` + string(b[1:])}
}
