package convlog

import "errors"

// Error is a store error with a stable code callers (and the UI) can branch on.
// The sentinel values below are wrapped with context; compare with errors.Is
// and read the code with ErrorCode.
type Error struct {
	Code string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Sentinel errors. Their codes are part of the store's API.
var (
	// ErrProjectLocked: another Store (in this or another process) holds the
	// writer lock of the project data directory.
	ErrProjectLocked = &Error{"E_PROJECT_LOCKED", "project is open in another crewagent process"}
	// ErrReadOnly: a mutating method was called on a store opened with OpenReadOnly.
	ErrReadOnly = &Error{"E_READ_ONLY", "conversation store is read-only"}
	// ErrClosed: the store was closed.
	ErrClosed = &Error{"E_CLOSED", "conversation store is closed"}
	// ErrInvalidID: a conversation id that is not a canonical UUID, or a message
	// id that is not safe to use in a file name.
	ErrInvalidID = &Error{"E_INVALID_ID", "invalid id"}
	// ErrNotFound: the conversation, message or checkpoint does not exist.
	ErrNotFound = &Error{"E_NOT_FOUND", "not found"}
	// ErrCheckpointExists: a checkpoint with that name already exists in the conversation.
	ErrCheckpointExists = &Error{"E_CHECKPOINT_EXISTS", "checkpoint already exists"}
	// ErrInvalidArgument: a malformed entry, title, checkpoint name or option.
	ErrInvalidArgument = &Error{"E_INVALID_ARGUMENT", "invalid argument"}
)

// ErrorCode returns the stable code of the first *Error in err's chain, or "" when there is none.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
