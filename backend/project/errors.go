package project

import "crewagent/backend/errs"

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
	CodeMoved         = errs.ProjectMoved       // the folder looks like a project moved from another path (OpenOptions.Moved)
	CodeRecentCorrupt = errs.RecentCorrupt      // recent-projects.json is not valid
	CodeIO            = errs.ProjectIO          // a file could not be read or written
)

// Error is every error this package returns (errs.Error). Message is one
// line that says what is wrong and, where it helps, what to do; the file or
// folder concerned, when there is one, is its DetailPath.
type Error = errs.Error

// DetailPath is the detail naming the file or folder an error is about.
const DetailPath = "path"

// withPath sets the path of e.
func withPath(e *Error, path string) *Error {
	e.Details = map[string]any{DetailPath: path}
	return e
}
