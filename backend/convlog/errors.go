package convlog

import "crewagent/backend/errs"

// Error is the store's error: an errs.Error with one of the codes below.
// The sentinel values are wrapped with context; compare with errors.Is (any
// *Error with the same code matches) and read the code with errs.CodeOf.
type Error = errs.Error

// Sentinel errors. Their codes are part of the store's API.
var (
	// ErrProjectLocked: another Store (in this or another process) holds the
	// writer lock of the project data directory (see Locked).
	ErrProjectLocked = &Error{Code: errs.ProjectLocked, Message: "project is open in another crewagent process"}
	// ErrReadOnly: a mutating method was called on a store opened with OpenReadOnly.
	ErrReadOnly = &Error{Code: errs.ReadOnly, Message: "conversation store is read-only"}
	// ErrClosed: the store was closed.
	ErrClosed = &Error{Code: errs.Closed, Message: "conversation store is closed"}
	// ErrInvalidID: a conversation id that is not a canonical UUID, or a message
	// id that is not safe to use in a file name.
	ErrInvalidID = &Error{Code: errs.InvalidID, Message: "invalid id"}
	// ErrNotFound: the conversation, message or checkpoint does not exist.
	ErrNotFound = &Error{Code: errs.NotFound, Message: "not found"}
	// ErrCheckpointExists: a checkpoint with that name already exists in the conversation.
	ErrCheckpointExists = &Error{Code: errs.CheckpointExists, Message: "checkpoint already exists"}
	// ErrInvalidArgument: a malformed entry, title, checkpoint name or option.
	ErrInvalidArgument = &Error{Code: errs.InvalidArgument, Message: "invalid argument"}
)
