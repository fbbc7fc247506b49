package settings

import (
	"errors"
	"strings"

	"crewagent/backend/errs"
)

// Stable error codes callers branch on.
const (
	CodeCorrupt          = errs.SettingsCorrupt  // settings.json is not valid JSON of the right shape
	CodeInvalid          = errs.SettingsInvalid  // a value is out of range (see Error.Problems)
	CodeEnv              = errs.SettingsEnv      // an environment override has a bad value
	CodeIO               = errs.SettingsIO       // the file could not be read or written
	CodeLLMNotConfigured = errs.LLMNotConfigured // no base URL or model to talk to
)

// Problem is one invalid field, named by its JSON path ("context.tokenBudget").
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is every error this package returns.
type Error struct {
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Problems []Problem `json:"problems,omitempty"`
	Err      error     `json:"-"`
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the code (errs.Coder).
func (e *Error) ErrorCode() string { return e.Code }

// CodeOf returns the code of a settings error in err's chain, or "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func problemsError(code, prefix string, problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.Field + ": " + p.Message
	}
	return &Error{Code: code, Message: prefix + strings.Join(parts, "; "), Problems: problems}
}
