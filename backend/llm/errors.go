package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// Stable error codes. Callers branch on these; they are also persisted in LLM_ERROR blocks.
const (
	CodeTimeout       = errs.LLMTimeout       // connect, first-token, idle or overall timeout
	CodeRateLimit     = errs.LLMRateLimit     // 429 (after retries) or an exhausted quota
	CodeAuth          = errs.LLMAuth          // 401 / 403
	CodeNetwork       = errs.LLMNetwork       // connection refused/reset, stream cut
	CodeBadResponse   = errs.LLMBadResponse   // malformed JSON or SSE, unexpected 4xx
	CodeContextLength = errs.LLMContextLength // the request does not fit the model's context
	CodeAborted       = errs.LLMAborted       // the caller cancelled
	CodeServer        = errs.LLMServer        // 5xx after retries
	CodeNotConfigured = errs.LLMNotConfigured // no base URL or no model
)

// CodeStreamIncomplete: the answer began to stream but ended before the server finished it
// (neither a finish_reason nor [DONE]): the connection was closed, or cut mid-chunk.
const CodeStreamIncomplete = errs.LLMStreamIncomplete

// ErrorBlockHeader is the first line of every block ErrorBlockOf gives.
const ErrorBlockHeader = conversation.ErrorBlockHeader

const (
	maxMessageLength = 600          // bytes kept of a server's message
	redacted         = "[REDACTED]" // replaces secrets in messages
)

// Error is the typed error of every Client call.
type Error struct {
	Code       string        // one of the Code* constants
	Message    string        // human-readable, one line, never contains the API key
	Provider   string        // host[:port] of the base URL
	BaseURL    string        // base URL without credentials or query
	StatusCode int           // HTTP status, 0 when there was no HTTP answer
	RetryAfter time.Duration // the server's Retry-After, 0 when absent
	Cause      error         // the underlying error (context.Canceled, net errors, ...)

	final bool   // retrying the same request cannot help (exhausted quota, 4xx)
	body  string // the start of the error response's body (redacted), for refusal checks
}

// Error implements error: "CODE: message (HTTP status) [provider]".
func (e *Error) Error() string { return e.Code + ": " + e.describe() }

// describe is the message followed by the HTTP status and the provider, when known.
func (e *Error) describe() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	}
	if e.Provider != "" {
		b.WriteString(" [")
		b.WriteString(e.Provider)
		b.WriteString("]")
	}
	return b.String()
}

// Unwrap returns the cause, so errors.Is(err, context.Canceled) works.
func (e *Error) Unwrap() error { return e.Cause }

// Is matches another *Error with the same Code: errors.Is(err, &llm.Error{Code: llm.CodeAuth}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Retryable reports whether sending the same request again later may succeed.
func (e *Error) Retryable() bool { return RetryableCode(e.Code) }

// RetryableCode reports whether an error code describes a transient failure.
func RetryableCode(code string) bool {
	switch code {
	case CodeTimeout, CodeRateLimit, CodeNetwork, CodeServer, CodeAborted, CodeStreamIncomplete:
		return true
	}
	return false
}

// AsError returns the *Error in err's chain, or wraps err: context cancellation becomes
// LLM_ABORTED, a deadline LLM_TIMEOUT, anything else LLM_NETWORK. Nil stays nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeAborted, Message: "request cancelled", Cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeTimeout, Message: "deadline exceeded", Cause: err}
	}
	return &Error{Code: CodeNetwork, Message: oneLine(err.Error(), maxMessageLength), Cause: err}
}

// ErrorBlockOf is the block persisted after a failed answer's partial text
// (conversation.ErrorContent) for err:
//
//	LLM_ERROR
//	- code: LLM_TIMEOUT
//	- message: no data for 60s
//	- retryable: true
//	- status: 429            (when there was an HTTP status)
//	- retry_after: 20s       (when the server sent Retry-After)
//	- provider: api.openai.com
func ErrorBlockOf(err error) conversation.ErrorBlock {
	e := AsError(err)
	if e == nil {
		return conversation.ErrorBlock{}
	}
	return conversation.ErrorBlock{
		Code:       e.Code,
		Message:    oneLine(e.Message, maxMessageLength),
		Retryable:  e.Retryable(),
		Status:     e.StatusCode,
		RetryAfter: e.RetryAfter,
		Provider:   e.Provider,
	}
}

// ParseRetryAfter reads a Retry-After header: delay-seconds (fractions accepted) or an
// HTTP-date relative to now. It returns 0 for an empty, invalid, negative or past value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		// ParseFloat also takes "NaN", "Inf" and hex floats; keep plain numbers only.
		if secs != secs || secs <= 0 || secs > 1e7 || strings.ContainsAny(v, "xXpPnNiI") {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// contextLengthPatterns are lower-case fragments providers use for "the prompt does not fit".
var contextLengthPatterns = []string{
	"context_length_exceeded",
	"context length",       // OpenAI, vLLM, DeepSeek: "maximum context length is ..."
	"context_length",       //
	"context window",       // "exceeds the context window"
	"context size",         // llama.cpp: "exceeds the available context size"
	"context overflow",     // LM Studio
	"maximum context",      //
	"too many tokens",      //
	"prompt is too long",   // Anthropic-compatible proxies
	"input is too long",    // Bedrock-style proxies
	"prompt too long",      //
	"reduce the length of", // "Please reduce the length of the messages"
	"maximum number of tokens allowed",
	"tokens exceeds the model", //
	"exceeds max model len",    // vLLM variants
	"maximum model length",     //
	"string_above_max_length",  //
	"request too large",        // 413-style
	"n_ctx",                    // llama.cpp
}

// IsContextLengthMessage reports whether a provider's error code, type or message says
// that the request does not fit the model's context window.
func IsContextLengthMessage(s string) bool {
	s = strings.ToLower(s)
	for _, p := range contextLengthPatterns {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

var secretPattern = regexp.MustCompile(`\b(sk-[A-Za-z0-9_\-]{6})[A-Za-z0-9_\-]{6,}`)

// redact removes the API key (and anything shaped like an OpenAI key) from s.
func redact(s, apiKey string) string {
	if apiKey != "" && len(apiKey) >= 4 {
		s = strings.ReplaceAll(s, apiKey, redacted)
	}
	return secretPattern.ReplaceAllString(s, "${1}"+redacted)
}

// oneLine collapses whitespace and cuts s to at most max bytes (on a rune boundary).
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
