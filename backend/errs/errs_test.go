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
