package errs

import (
	"errors"
	"fmt"
	"testing"
)

type domainError struct{ code string }

func (e *domainError) Error() string     { return "domain failure" }
func (e *domainError) ErrorCode() string { return e.code }

func TestCodeOfAndFrom(t *testing.T) {
	busy := New(Busy, "a reply is running")
	tests := []struct {
		name     string
		err      error
		wantCode string
		wantText string
	}{
		{"an *Error", busy, Busy, "a reply is running"},
		{"a wrapped *Error", fmt.Errorf("sending: %w", busy), Busy, "sending: a reply is running"},
		{"a domain error", &domainError{ProjectIO}, ProjectIO, "domain failure"},
		{"a wrapped domain error", fmt.Errorf("saving: %w", &domainError{ProjectIO}), ProjectIO, "saving: domain failure"},
		{"an error without a code", errors.New("boom"), Internal, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := From(tt.err)
			if got.Code != tt.wantCode || got.Error() != tt.wantText {
				t.Fatalf("From = %s: %s, want %s: %s", got.Code, got.Error(), tt.wantCode, tt.wantText)
			}
			if tt.wantCode != Internal && CodeOf(tt.err) != tt.wantCode {
				t.Fatalf("CodeOf = %q", CodeOf(tt.err))
			}
		})
	}
	if From(busy) != busy || From(nil) != nil || CodeOf(errors.New("x")) != "" || CodeOf(nil) != "" {
		t.Fatal("From keeps an *Error, nil stays nil, uncoded errors have no code")
	}
}

func TestIsMatchesTheCode(t *testing.T) {
	sentinel := New(NotFound, "not found")
	err := fmt.Errorf("conversation x: %w", Errorf(NotFound, "entry %s is gone", "m1"))
	if !errors.Is(err, sentinel) || errors.Is(err, New(Busy, "")) {
		t.Fatal("errors.Is must match by code")
	}
	cause := errors.New("disk full")
	if w := Wrap(ProjectIO, cause, "saving"); !errors.Is(w, cause) || w.Error() != "saving" {
		t.Fatalf("Wrap: %v", w)
	}
}

// converted stands for the types that keep fields of their own and convert.
type converted struct{ status int }

func (c *converted) Error() string     { return "LLM_SERVER: overloaded (HTTP 503)" }
func (c *converted) ErrorCode() string { return LLMServer }
func (c *converted) ToError() *Error {
	return &Error{Code: LLMServer, Message: "overloaded (HTTP 503)", Details: map[string]any{"status": c.status}, Cause: c}
}

func TestFromConvertsAndKeepsDetails(t *testing.T) {
	c := &converted{status: 503}
	problems := Errorf(SettingsInvalid, "invalid settings: x: too big")
	problems.Details = map[string]any{"problems": []string{"x"}}
	tests := []struct {
		name        string
		err         error
		wantCode    string
		wantMessage string
		detail      string
		wantDetail  any
	}{
		{"a converter", c, LLMServer, "overloaded (HTTP 503)", "status", 503},
		{"a wrapped converter", fmt.Errorf("run r1: %w", c), LLMServer, "run r1: LLM_SERVER: overloaded (HTTP 503)", "status", 503},
		{"an *Error with details", problems, SettingsInvalid, "invalid settings: x: too big", "problems", []string{"x"}},
		{"a wrapped *Error with details", fmt.Errorf("saving: %w", problems), SettingsInvalid, "saving: invalid settings: x: too big", "problems", []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := From(tt.err)
			if got.Code != tt.wantCode || got.Message != tt.wantMessage {
				t.Fatalf("From = %s: %s, want %s: %s", got.Code, got.Message, tt.wantCode, tt.wantMessage)
			}
			if d := Detail(tt.err, tt.detail); fmt.Sprint(d) != fmt.Sprint(tt.wantDetail) || fmt.Sprint(got.Details[tt.detail]) != fmt.Sprint(tt.wantDetail) {
				t.Fatalf("detail %s = %v / %v, want %v", tt.detail, d, got.Details[tt.detail], tt.wantDetail)
			}
			if !errors.Is(got, tt.err) && !errors.Is(tt.err, got) {
				t.Fatalf("the converted error lost its chain")
			}
		})
	}
	if Detail(errors.New("plain"), "status") != nil || Detail(nil, "status") != nil {
		t.Fatal("an error without details has none")
	}
}
