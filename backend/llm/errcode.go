package llm

// ErrorCode returns the code (errs.Coder).
func (e *Error) ErrorCode() string { return e.Code }
