package llm

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"crewagent/backend/errs"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"5", 5 * time.Second},
		{" 12 ", 12 * time.Second},
		{"0.25", 250 * time.Millisecond},
		{"0", 0},
		{"-3", 0},
		{"abc", 0},
		{"NaN", 0},
		{"Inf", 0},
		{"0x10", 0},
		{"99999999999", 0},
		{"Sat, 01 Mar 2025 12:00:30 GMT", 30 * time.Second},
		{"Saturday, 01-Mar-25 12:01:00 GMT", time.Minute},
		{"Sat Mar  1 12:00:10 2025", 10 * time.Second},
		{"Sat, 01 Mar 2025 11:59:00 GMT", 0}, // in the past
	}
	for _, tt := range tests {
		if got := ParseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestIsContextLengthMessage(t *testing.T) {
	yes := []string{
		"context_length_exceeded",
		"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.",
		"This model's maximum context length is 65536 tokens. However, you requested 70000 tokens",                                              // DeepSeek, vLLM
		"the request exceeds the available context size, try increasing it",                                                                     // llama.cpp
		"Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens", // LM Studio
		"prompt is too long: 210000 tokens > 200000 maximum",
		"Input is too long for requested model.",
		"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
		"Please reduce the length of the messages or completion.",
		"Too many tokens in the request",
		"input tokens exceeds the model's context window",
	}
	no := []string{
		"Rate limit reached for requests",
		"Invalid value for 'tools'",
		"max_tokens is too large: 100000. This model supports at most 4096 completion tokens",
		"The model `gpt-x` does not exist",
		"",
	}
	for _, s := range yes {
		if !IsContextLengthMessage(s) {
			t.Errorf("not detected: %q", s)
		}
	}
	for _, s := range no {
		if IsContextLengthMessage(s) {
			t.Errorf("false positive: %q", s)
		}
	}
}

func TestClassifyAPI(t *testing.T) {
	tests := []struct {
		status         int
		code, typ, msg string
		want           string
		final          bool
	}{
		{401, "invalid_api_key", "", "bad key", CodeAuth, true},
		{403, "", "", "", CodeAuth, true},
		{429, "rate_limit_exceeded", "requests", "slow down", CodeRateLimit, false},
		{429, "insufficient_quota", "insufficient_quota", "quota", CodeRateLimit, true},
		{400, "context_length_exceeded", "invalid_request_error", "", CodeContextLength, true},
		{400, "", "", "maximum context length is 4096", CodeContextLength, true},
		{413, "", "", "", CodeContextLength, true},
		{400, "invalid_value", "invalid_request_error", "bad", CodeBadResponse, true},
		{404, "model_not_found", "", "", CodeBadResponse, true},
		{408, "", "", "", CodeTimeout, true},
		{500, "", "server_error", "oops", CodeServer, false},
		{503, "", "", "overloaded", CodeServer, false},
		{0, "", "server_error", "overloaded", CodeServer, false},
		{0, "rate_limit_exceeded", "", "", CodeRateLimit, false},
		{0, "", "invalid_request_error", "context length exceeded", CodeContextLength, true},
		{0, "", "invalid_request_error", "bad tool schema", CodeBadResponse, true},
		{0, "invalid_api_key", "", "", CodeAuth, true},
		{0, "", "", "something", CodeServer, false},
	}
	for _, tt := range tests {
		got, final := classifyAPI(tt.status, tt.code, tt.typ, tt.msg)
		if got != tt.want || final != tt.final {
			t.Errorf("classifyAPI(%d,%q,%q,%q) = %s,%v want %s,%v", tt.status, tt.code, tt.typ, tt.msg, got, final, tt.want, tt.final)
		}
	}
}

func TestErrorIsAndUnwrap(t *testing.T) {
	err := fmt.Errorf("turn failed: %w", &Error{Code: CodeAborted, Message: "cancelled", Cause: context.Canceled})
	if !errors.Is(err, &Error{Code: CodeAborted}) || errors.Is(err, &Error{Code: CodeTimeout}) {
		t.Fatal("Is by code")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatal("Unwrap to the cause")
	}
	if errs.CodeOf(err) != CodeAborted || errs.CodeOf(errors.New("x")) != "" {
		t.Fatal("CodeOf")
	}
	if AsError(context.Canceled).Code != CodeAborted || AsError(context.DeadlineExceeded).Code != CodeTimeout ||
		AsError(errors.New("boom")).Code != CodeNetwork || AsError(nil) != nil {
		t.Fatal("AsError")
	}
	e := &Error{Code: CodeServer, Message: "down", StatusCode: 503, Provider: "api.example.com"}
	if e.Error() != "LLM_SERVER: down (HTTP 503) [api.example.com]" {
		t.Fatalf("Error() = %q", e.Error())
	}
}

func TestErrorBlockOf(t *testing.T) {
	err := &Error{Code: CodeRateLimit, Message: "Rate limit\nreached", StatusCode: 429, RetryAfter: 20 * time.Second, Provider: "api.openai.com"}
	want := "LLM_ERROR\n- code: LLM_RATE_LIMIT\n- message: Rate limit reached\n- retryable: true\n- status: 429\n- retry_after: 20s\n- provider: api.openai.com"
	if got := ErrorBlockOf(err).Format(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := ErrorBlockOf(&Error{Code: CodeAuth, Message: "bad key"}).Format(); got != "LLM_ERROR\n- code: LLM_AUTH\n- message: bad key\n- retryable: false" {
		t.Fatalf("got:\n%s", got)
	}
	if ErrorBlockOf(nil).Code != "" {
		t.Fatal("nil error")
	}
	long := ErrorBlockOf(&Error{Code: CodeServer, Message: strings.Repeat("é", 1000)}).Format()
	if !utf8.ValidString(long) || len(long) > 800 {
		t.Fatalf("long message not cut cleanly (%d bytes)", len(long))
	}
}

func TestRedact(t *testing.T) {
	got := redact("key sk-abcdef1234567890XYZ and my-custom-key-42 end", "my-custom-key-42")
	if strings.Contains(got, "1234567890XYZ") || strings.Contains(got, "my-custom-key-42") || !strings.Contains(got, "sk-abcdef[REDACTED]") {
		t.Fatalf("redact = %q", got)
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"5", "0.5", "Sat, 01 Mar 2025 12:00:30 GMT", "-1", "1e3", "NaN", ""} {
		f.Add(s)
	}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if d := ParseRetryAfter(s, now); d < 0 {
			t.Fatalf("negative delay %v for %q", d, s)
		}
	})
}

func FuzzIsContextLengthMessage(f *testing.F) {
	f.Add("This model's maximum context length is 8192 tokens")
	f.Add("rate limit")
	f.Fuzz(func(t *testing.T, s string) {
		got := IsContextLengthMessage(s)
		if IsContextLengthMessage(strings.ToUpper(s)) != got && utf8.ValidString(s) && strings.ToLower(strings.ToUpper(s)) == strings.ToLower(s) {
			t.Fatalf("case-sensitive for %q", s)
		}
		// a detected message stays detected inside a longer provider message
		if got && !IsContextLengthMessage("error: "+s+" (request id 42)") {
			t.Fatalf("not detected when embedded: %q", s)
		}
	})
}

// An *Error converts to the runtime's one error type with its retry fields
// as details, and errs.From uses that conversion (wrapped or not).
func TestErrorConvertsToErrs(t *testing.T) {
	rate := &Error{Code: CodeRateLimit, Message: "slow down", Provider: "api.example.com", StatusCode: 429, RetryAfter: 20 * time.Second}
	tests := []struct {
		name    string
		err     error
		message string
		details map[string]any
	}{
		{"rate limited", rate, "slow down (HTTP 429) [api.example.com]",
			map[string]any{DetailStatus: 429, DetailRetryAfter: int64(20000), DetailProvider: "api.example.com", DetailRetryable: true}},
		{"no answer", &Error{Code: CodeAuth, Message: "bad key"}, "bad key", map[string]any{DetailRetryable: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := errs.From(tt.err)
			if e.Code != errs.CodeOf(tt.err) || e.Message != tt.message || !reflect.DeepEqual(e.Details, tt.details) {
				t.Fatalf("From = %s %q %v, want %q %v", e.Code, e.Message, e.Details, tt.message, tt.details)
			}
			if !errors.Is(e, tt.err) {
				t.Fatal("the conversion lost the *Error")
			}
		})
	}
	if e := errs.From(fmt.Errorf("turn: %w", rate)); e.Code != CodeRateLimit || e.Details[DetailStatus] != 429 || e.Message != "turn: "+rate.Error() {
		t.Fatalf("wrapped: %+v", e)
	}
}
