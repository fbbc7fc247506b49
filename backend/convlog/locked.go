package convlog

import (
	"bytes"
	"fmt"
	"strconv"
)

// LockedError is returned by Open when another Store (in this or another
// process) holds the writer lock of the project data. errors.Is(err,
// ErrProjectLocked) holds; its code is ErrProjectLocked's.
type LockedError struct {
	// PID is the process that holds the lock, as it wrote it in the lock
	// file (0 when unknown).
	PID int
	// Dir is the project data directory.
	Dir string
}

func (e *LockedError) Error() string {
	pid := "unknown"
	if e.PID > 0 {
		pid = strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("%s (pid %s) for the project data in %s; close it there and try again", ErrProjectLocked.Msg, pid, e.Dir)
}

// Unwrap returns ErrProjectLocked.
func (e *LockedError) Unwrap() error { return ErrProjectLocked }

// ErrorCode returns ErrProjectLocked's code (errs.Coder).
func (e *LockedError) ErrorCode() string { return ErrProjectLocked.Code }

// lockedError reads the holder's pid from the lock file's content.
func lockedError(dir string, content []byte) *LockedError {
	pid, err := strconv.Atoi(string(bytes.TrimSpace(content)))
	if err != nil || pid <= 0 {
		pid = 0
	}
	return &LockedError{PID: pid, Dir: dir}
}
