package convlog

import (
	"errors"

	"crewagent/backend/errs"
)

// Error is a store error with a stable code callers (and the UI) can branch on.
// The sentinel values below are wrapped with context; compare with errors.Is
// and read the code with ErrorCode.
type Error struct {
	Code string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// ErrorCode returns the code (errs.Coder).
func (e *Error) ErrorCode() string { return e.Code }

// Sentinel errors. Their codes are part of the store's API.
var (
	// ErrProjectLocked: another Store (in this or another process) holds the
	// writer lock of the project data directory.
	ErrProjectLocked = &Error{errs.ProjectLocked, "project is open in another crewagent process"}
	// ErrReadOnly: a mutating method was called on a store opened with OpenReadOnly.
	ErrReadOnly = &Error{errs.ReadOnly, "conversation store is read-only"}
	// ErrClosed: the store was closed.
	ErrClosed = &Error{errs.Closed, "conversation store is closed"}
	// ErrInvalidID: a conversation id that is not a canonical UUID, or a message
	// id that is not safe to use in a file name.
	ErrInvalidID = &Error{errs.InvalidID, "invalid id"}
	// ErrNotFound: the conversation, message or checkpoint does not exist.
	ErrNotFound = &Error{errs.NotFound, "not found"}
	// ErrCheckpointExists: a checkpoint with that name already exists in the conversation.
	ErrCheckpointExists = &Error{errs.CheckpointExists, "checkpoint already exists"}
	// ErrInvalidArgument: a malformed entry, title, checkpoint name or option.
	ErrInvalidArgument = &Error{errs.InvalidArgument, "invalid argument"}
)

// ErrorCode returns the stable code of the first *Error in err's chain, or "" when there is none.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
