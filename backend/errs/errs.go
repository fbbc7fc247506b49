// Package errs is the one error type of the application layer and the
// catalogue of every stable error code the runtime produces (codes.go).
// The window receives a failed call as "CODE: message"; the TypeScript list
// of codes, frontend/src/bridge/codes.gen.ts, is generated from the
// catalogue (go generate ./backend/errs).
package errs

//go:generate go run ./gen -out ../../frontend/src/bridge/codes.gen.ts

import (
	"errors"
	"fmt"
)

// Error is a failure with a stable code (one of the catalogue's), a message
// that says what was wrong and what to do, optional details and the cause.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	Cause   error          `json:"-"`
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// ErrorCode returns the code (Coder).
func (e *Error) ErrorCode() string { return e.Code }

// Is matches another *Error with the same code, so errors.Is works against
// sentinel values.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// New returns an *Error.
func New(code, message string) *Error { return &Error{Code: code, Message: message} }

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with a message and the cause it stands for.
func Wrap(code string, cause error, message string) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

// Coder is implemented by every error type of the runtime that carries a
// code (the domain packages' own error types and *Error).
type Coder interface {
	ErrorCode() string
}

// CodeOf returns the code of the first coded error in err's chain, or "".
func CodeOf(err error) string {
	var c Coder
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// From returns err as an *Error: err itself when it is one, else an *Error
// with err's code (Internal when it has none), its message and err as the
// cause. Nil stays nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e == err {
		return e
	}
	code := CodeOf(err)
	if code == "" {
		code = Internal
	}
	return &Error{Code: code, Message: err.Error(), Cause: err}
}
