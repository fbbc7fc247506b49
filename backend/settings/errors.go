package settings

import (
	"strings"

	"crewagent/backend/errs"
)

// Stable error codes callers branch on.
const (
	CodeCorrupt          = errs.SettingsCorrupt  // settings.json is not valid JSON of the right shape
	CodeInvalid          = errs.SettingsInvalid  // a value is out of range (see ProblemsOf)
	CodeEnv              = errs.SettingsEnv      // an environment override has a bad value
	CodeIO               = errs.SettingsIO       // the file could not be read or written
	CodeLLMNotConfigured = errs.LLMNotConfigured // no base URL or model to talk to
)

// Problem is one invalid field, named by its JSON path ("context.tokenBudget").
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	// Key and Params: the template of errs.Messages Message was made from,
	// and the values it names (the window says it in the user's language).
	Key    string      `json:"key,omitempty"`
	Params errs.Params `json:"params,omitempty"`
}

// Error is every error this package returns (errs.Error): read its code
// with errs.CodeOf, the invalid fields of CodeInvalid with ProblemsOf.
type Error = errs.Error

// DetailProblems is the detail that lists the invalid fields ([]Problem).
const DetailProblems = "problems"

// ProblemsOf returns the invalid fields an error of this package lists.
func ProblemsOf(err error) []Problem {
	p, _ := errs.Detail(err, DetailProblems).([]Problem)
	return p
}

func problemsError(code, prefix string, problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.Field + ": " + p.Message
	}
	return withProblems(&Error{Code: code, Message: prefix + strings.Join(parts, "; ")}, problems)
}

// withProblems sets the problems of e.
func withProblems(e *Error, problems []Problem) *Error {
	e.Details = map[string]any{DetailProblems: problems}
	return e
}
