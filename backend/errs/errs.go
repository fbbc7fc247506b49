// Package errs is the one error type of the runtime and the catalogue of
// every stable error code it produces (codes.go). The domain packages alias
// Error (type Error = errs.Error) or build it, and keep their Code* names as
// aliases of the catalogue's; what one of their errors carries beyond a code
// and a message goes into Details (a package's problems, the holder of a
// lock, the path that failed), read back with the package's accessor. Two
// types stay apart because they are more than an error, and convert to an
// *Error in one place (Converter, used by From): llm.Error, whose HTTP status,
// Retry-After and provider drive the client's retries, and tools.ToolError,
// the JSON part of a tool result the model reads.
//
// Read the code of any error with CodeOf and turn any error into an *Error
// with From (errors.As works for *Error too). The window receives a failed
// call as "CODE: message" (followed by its key and params, messages.go); the TypeScript list of codes,
// frontend/src/bridge/codes.gen.ts, is generated from the catalogue
// (go generate ./backend/errs).
package errs

//go:generate go run ./gen -out ../../frontend/src/bridge/codes.gen.ts -locale ../../frontend/src/i18n/locales/backend.en.gen.json

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
	// Key names the template of Messages the message was made from, and
	// Params the values it names (Msg); empty for a message in words only.
	Key    string `json:"key,omitempty"`
	Params Params `json:"params,omitempty"`
	Cause  error  `json:"-"`
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
// code: *Error and the two types that convert to it.
type Coder interface {
	ErrorCode() string
}

// Converter is implemented by the error types that keep fields of their own
// beside an *Error's (see the package doc): ToError is their *Error, with
// those fields in Details.
type Converter interface {
	ToError() *Error
}

// Detail returns the detail key of the first *Error (or Converter) in err's
// chain, or nil.
func Detail(err error, key string) any {
	if e := first(err); e != nil {
		return e.Details[key]
	}
	return nil
}

// first returns the first *Error in err's chain, converting a Converter.
func first(err error) *Error {
	for err != nil {
		switch x := err.(type) {
		case *Error:
			return x
		case Converter:
			return x.ToError()
		}
		err = errors.Unwrap(err)
	}
	return nil
}

// CodeOf returns the code of the first coded error in err's chain, or "".
func CodeOf(err error) string {
	var c Coder
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// From returns err as an *Error: err itself when it is one, a Converter's
// ToError, else an *Error with err's code (Internal when it has none), its
// message and err as the cause; an error wrapped with more text keeps that
// text as its message and the details of the *Error it wraps. Nil stays nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	switch x := err.(type) {
	case *Error:
		return x
	case Converter:
		return x.ToError()
	}
	code := CodeOf(err)
	if code == "" {
		code = Internal
	}
	out := &Error{Code: code, Message: err.Error(), Cause: err}
	if e := first(err); e != nil {
		out.Details = e.Details
		if e.Message == out.Message { // wrapped without words of its own
			out.Key, out.Params = e.Key, e.Params
		}
	}
	return out
}
