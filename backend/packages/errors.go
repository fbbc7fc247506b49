package packages

import (
	"errors"
	"fmt"
	"strings"

	"crewagent/backend/errs"
)

// Stable error codes callers can branch on (errs.CodeOf).
const (
	CodeInvalid  = errs.PackageInvalid  // the package failed validation (ProblemsOf)
	CodeNotFound = errs.PackageNotFound // no installed package has that id
	CodeRegistry = errs.PackageRegistry // packages.json cannot be read or written
	CodeExists   = errs.PackageExists   // a package of the same id (name and version) is installed
)

// Error is every coded error of this package (errs.Error): read its code with errs.CodeOf,
// the problems of an invalid package with ProblemsOf.
type Error = errs.Error

// Sentinel errors matched with errors.Is (any *Error with the same code matches).
var (
	ErrInvalid  = &Error{Code: CodeInvalid, Message: "invalid package"}
	ErrNotFound = &Error{Code: CodeNotFound, Message: "package not installed"}
	ErrRegistry = &Error{Code: CodeRegistry, Message: "package registry unusable"}
	// ErrDemoRemoved: EnsureDemo found that the user removed the bundled demo package;
	// InstallDemo puts it back. It is a state, not a failure: it has no code.
	ErrDemoRemoved = errors.New("the bundled demo package was removed by the user")
)

// Problem is one thing wrong with a package.
type Problem struct {
	// File is the path inside the package (or the archive entry name); empty for the whole input.
	File string `json:"file,omitempty"`
	// Pointer is the JSON pointer inside File (JSON files and YAML frontmatter), if any.
	Pointer string `json:"pointer,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
	// Key and Params: the template of errs.Messages Message was made from,
	// and the values it names (the window says it in the user's language).
	Key    string      `json:"key,omitempty"`
	Params errs.Params `json:"params,omitempty"`
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

// DetailExisting is the detail of a CodeExists error that holds the installed package (Installed).
const DetailExisting = "existing"

// existsError refuses to import name/version over the installed package inst of the same id.
func existsError(inst Installed, name, version string) *Error {
	what := fmt.Sprintf("%q %s", name, version)
	if inst.Name != name || inst.Version != version {
		what += fmt.Sprintf(" (installed as %q %s)", inst.Name, inst.Version)
	}
	msg := fmt.Sprintf("package %s is installed already with the id %s; it was not replaced", what, inst.ID)
	return &Error{Code: CodeExists, Message: msg, Details: map[string]any{DetailExisting: inst}}
}

// ExistingOf returns the installed package a CodeExists error refused to replace.
func ExistingOf(err error) (Installed, bool) {
	if errs.CodeOf(err) != CodeExists {
		return Installed{}, false
	}
	inst, ok := errs.Detail(err, DetailExisting).(Installed)
	return inst, ok
}

// DetailWarnings is the detail of a CodeInvalid error that lists the warnings found beside
// the problems ([]Problem).
const DetailWarnings = "warnings"

// WarningsOf returns the warnings found beside the problems of an invalid package.
func WarningsOf(err error) []Problem {
	if errs.CodeOf(err) != CodeInvalid {
		return nil
	}
	w, _ := errs.Detail(err, DetailWarnings).([]Problem)
	return w
}

// DetailProblems is the detail of a CodeInvalid error that lists the problems ([]Problem).
const DetailProblems = "problems"

// validationError lists every problem found in a package: one header line followed by
// one indented line per problem. errors.Is(err, ErrInvalid) holds.
func validationError(problems, warnings []Problem) *Error {
	var sb strings.Builder
	n := len(problems)
	if n == 1 {
		sb.WriteString("invalid package (1 problem):")
	} else {
		fmt.Fprintf(&sb, "invalid package (%d problems):", n)
	}
	for _, p := range problems {
		sb.WriteString("\n  - ")
		sb.WriteString(p.String())
	}
	details := map[string]any{DetailProblems: problems}
	if len(warnings) > 0 {
		details[DetailWarnings] = warnings
	}
	return &Error{Code: CodeInvalid, Message: sb.String(), Details: details}
}

// ProblemsOf returns the problems of an invalid package (nil for any other error).
func ProblemsOf(err error) []Problem {
	if errs.CodeOf(err) != CodeInvalid {
		return nil
	}
	p, _ := errs.Detail(err, DetailProblems).([]Problem)
	return p
}

// coded is an error of code with its own message ("message: cause" with a cause).
func coded(code, msg string, cause error) error {
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &Error{Code: code, Message: msg, Cause: cause}
}

func notFound(id string) error {
	return coded(CodeNotFound, fmt.Sprintf("package %q is not installed (see \"package list\")", id), nil)
}

func registryError(msg string, cause error) error {
	return coded(CodeRegistry, msg, cause)
}
