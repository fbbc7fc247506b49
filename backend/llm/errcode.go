package llm

import "crewagent/backend/errs"

// ErrorCode returns the code (errs.Coder).
func (e *Error) ErrorCode() string { return e.Code }

// Details of the errs.Error an *Error converts to.
const (
	DetailStatus     = "status"     // the HTTP status (int), when there was an answer
	DetailRetryAfter = "retryAfter" // the server's Retry-After in milliseconds (int64)
	DetailProvider   = "provider"   // host[:port] of the base URL
	DetailRetryable  = "retryable"  // whether sending the same request later may succeed
)

// ToError is e as an errs.Error (errs.Converter): the code, the message with the HTTP
// status and provider it names (as Error does, without the code), the fields a retry
// reads as Details, and e as the cause.
func (e *Error) ToError() *errs.Error {
	d := map[string]any{DetailRetryable: e.Retryable()}
	if e.StatusCode != 0 {
		d[DetailStatus] = e.StatusCode
	}
	if e.RetryAfter > 0 {
		d[DetailRetryAfter] = e.RetryAfter.Milliseconds()
	}
	if e.Provider != "" {
		d[DetailProvider] = e.Provider
	}
	return &errs.Error{Code: e.Code, Message: e.describe(), Details: d, Cause: e}
}
