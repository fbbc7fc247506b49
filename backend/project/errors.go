package project

import (
	"errors"

	"crewagent/backend/errs"
)

// Stable error codes callers branch on.
const (
	CodeHome          = errs.Home               // the runtime home cannot be resolved or created
	CodeNotFound      = errs.ProjectNotFound    // the project folder does not exist
	CodeNotDir        = errs.ProjectNotDir      // the project path is not a folder
	CodeMetaCorrupt   = errs.ProjectMetaCorrupt // .crewagent.json is not a JSON object
	CodeMetaInvalid   = errs.ProjectMetaInvalid // .crewagent.json has a value that cannot be used
	CodeIDChanged     = errs.ProjectIDChanged   // .crewagent.json now holds another projectId
	CodeNameInvalid   = errs.ProjectNameInvalid // a new project's name cannot be a folder name
	CodeExists        = errs.ProjectExists      // the folder for a new project already exists
	CodeRecentCorrupt = errs.RecentCorrupt      // recent-projects.json is not valid
	CodeIO            = errs.ProjectIO          // a file could not be read or written
)

// Error is every error this package returns. Message is one line that says what
// is wrong and, where it helps, what to do.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
	Err     error  `json:"-"`
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the code (errs.Coder).
func (e *Error) ErrorCode() string { return e.Code }

// CodeOf returns the code of a project error in err's chain, or "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
