package main

import (
	"errors"

	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/workflow"
)

// Codes the facade itself produces; backend packages bring their own
// (project.CodeNotFound, ...), passed through unchanged.
const (
	CodeNoProject = "E_NO_PROJECT" // the call needs an open project
	CodeDialog    = "E_DIALOG"     // the native dialog failed
	CodeInternal  = "E_INTERNAL"   // anything without a more specific code
	// CodeProjectLocked: the project's conversations are open for writing in
	// another crewagent process (the same code as convlog.ErrProjectLocked).
	CodeProjectLocked = "E_PROJECT_LOCKED"
	CodeBusy          = "E_BUSY"         // a reply is already being generated in that conversation
	CodeInvalidMode   = "E_INVALID_MODE" // not chat, agent or run
	// CodePackageOpen: the package file or folder to import cannot be read.
	CodePackageOpen = "PKG_OPEN"
	// CodeArtifactPath: an artifact path that is not a file inside the project.
	CodeArtifactPath = "E_ARTIFACT_PATH"
)

// AppError is what every bound method fails with. The frontend receives it as
// the string "CODE: message" (see formatError), which src/bridge/errors.ts parses.
type AppError struct {
	Code    string
	Message string
}

func (e *AppError) Error() string { return e.Code + ": " + e.Message }

// codeOf finds the stable code of a backend error.
func codeOf(err error) string {
	for _, code := range []func(error) string{project.CodeOf, convlog.ErrorCode, settings.CodeOf, workflow.CodeOf, engine.CodeOf, packages.Code} {
		if c := code(err); c != "" {
			return c
		}
	}
	return CodeInternal
}

// toAppError gives err a stable code; nil stays nil.
func toAppError(err error) error {
	if err == nil {
		return nil
	}
	var ae *AppError
	if errors.As(err, &ae) {
		return ae
	}
	return &AppError{Code: codeOf(err), Message: err.Error()}
}

// formatError is the Wails ErrorFormatter. The desktop runtime rejects a call
// with new Error(value), so the value must be a string: "CODE: message".
func formatError(err error) any {
	return toAppError(err).Error()
}
