package project

import "errors"

// Stable error codes callers branch on.
const (
	CodeHome          = "E_HOME"                 // the runtime home cannot be resolved or created
	CodeNotFound      = "E_PROJECT_NOT_FOUND"    // the project folder does not exist
	CodeNotDir        = "E_PROJECT_NOT_DIR"      // the project path is not a folder
	CodeMetaCorrupt   = "E_PROJECT_META_CORRUPT" // .crewagent.json is not a JSON object
	CodeMetaInvalid   = "E_PROJECT_META_INVALID" // .crewagent.json has a value that cannot be used
	CodeIDChanged     = "E_PROJECT_ID_CHANGED"   // .crewagent.json now holds another projectId
	CodeNameInvalid   = "E_PROJECT_NAME_INVALID" // a new project's name cannot be a folder name
	CodeExists        = "E_PROJECT_EXISTS"       // the folder for a new project already exists
	CodeRecentCorrupt = "E_RECENT_CORRUPT"       // recent-projects.json is not valid
	CodeIO            = "E_PROJECT_IO"           // a file could not be read or written
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

// CodeOf returns the code of a project error in err's chain, or "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
