package packages

import (
	"errors"
	"fmt"
	"strings"

	"crewagent/backend/errs"
)

// Stable error codes callers can branch on (see Code).
const (
	CodeInvalid  = errs.PackageInvalid  // the package failed validation (*ValidationError)
	CodeNotFound = errs.PackageNotFound // no installed package has that id
	CodeRegistry = errs.PackageRegistry // packages.json cannot be read or written
)

// Sentinel errors matched with errors.Is.
var (
	ErrInvalid  = errors.New("invalid package")
	ErrNotFound = errors.New("package not installed")
	ErrRegistry = errors.New("package registry unusable")
	// ErrDemoRemoved: EnsureDemo found that the user removed the bundled demo package;
	// InstallDemo puts it back.
	ErrDemoRemoved = errors.New("the bundled demo package was removed by the user")
)

// Code returns the stable code for err, or "" when it is none of this package's errors.
func Code(err error) string {
	switch {
	case errors.Is(err, ErrInvalid):
		return CodeInvalid
	case errors.Is(err, ErrNotFound):
		return CodeNotFound
	case errors.Is(err, ErrRegistry):
		return CodeRegistry
	}
	return ""
}

// Problem is one thing wrong with a package.
type Problem struct {
	// File is the path inside the package (or the archive entry name); empty for the whole input.
	File string `json:"file,omitempty"`
	// Pointer is the JSON pointer inside File (JSON files and YAML frontmatter), if any.
	Pointer string `json:"pointer,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// String renders the problem on one line.
func (p Problem) String() string {
	var sb strings.Builder
	if p.File != "" {
		sb.WriteString(p.File)
		if p.Pointer != "" {
			sb.WriteString(" at ")
			sb.WriteString(p.Pointer)
		}
		sb.WriteString(": ")
	} else if p.Pointer != "" {
		sb.WriteString(p.Pointer)
		sb.WriteString(": ")
	}
	sb.WriteString(p.Message)
	return sb.String()
}

// ValidationError lists every problem found in a package. errors.Is(err, ErrInvalid) holds.
type ValidationError struct {
	Problems []Problem
}

// Error renders a header line followed by one indented line per problem.
func (e *ValidationError) Error() string {
	var sb strings.Builder
	n := len(e.Problems)
	if n == 1 {
		sb.WriteString("invalid package (1 problem):")
	} else {
		fmt.Fprintf(&sb, "invalid package (%d problems):", n)
	}
	for _, p := range e.Problems {
		sb.WriteString("\n  - ")
		sb.WriteString(p.String())
	}
	return sb.String()
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// ErrorCode returns CodeInvalid (errs.Coder).
func (e *ValidationError) ErrorCode() string { return CodeInvalid }

// codedError is an error with its own message that matches a sentinel.
type codedError struct {
	msg      string
	sentinel error
	cause    error
}

func (e *codedError) Error() string {
	if e.cause != nil {
		return e.msg + ": " + e.cause.Error()
	}
	return e.msg
}

func (e *codedError) Is(target error) bool { return target == e.sentinel }
func (e *codedError) Unwrap() error        { return e.cause }

// ErrorCode returns the code of the sentinel it matches (errs.Coder).
func (e *codedError) ErrorCode() string { return Code(e.sentinel) }

func notFound(id string) error {
	return &codedError{msg: fmt.Sprintf("package %q is not installed (see \"package list\")", id), sentinel: ErrNotFound}
}

func registryError(msg string, cause error) error {
	return &codedError{msg: msg, sentinel: ErrRegistry, cause: cause}
}
