package settings

import (
	"errors"
	"strings"
)

// Stable error codes callers branch on.
const (
	CodeCorrupt          = "E_SETTINGS_CORRUPT"   // settings.json is not valid JSON of the right shape
	CodeInvalid          = "E_SETTINGS_INVALID"   // a value is out of range (see Error.Problems)
	CodeEnv              = "E_SETTINGS_ENV"       // an environment override has a bad value
	CodeIO               = "E_SETTINGS_IO"        // the file could not be read or written
	CodeLLMNotConfigured = "E_LLM_NOT_CONFIGURED" // no base URL or model to talk to
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
