package convlog

import (
	"bytes"
	"fmt"
	"strconv"

	"crewagent/backend/errs"
)

// Details of the error Open returns when another Store holds the lock.
const (
	// DetailPID is the process that holds the lock, as it wrote it in the
	// lock file (0 when unknown).
	DetailPID = "pid"
	// DetailDir is the project data directory.
	DetailDir = "dir"
)

// lockedError is returned by Open when another Store (in this or another
// process) holds the writer lock of the project data: its code is
// ErrProjectLocked's (errors.Is holds), the holder's pid is read from the
// lock file's content (LockHolder).
func lockedError(dir string, content []byte) *Error {
	pid, err := strconv.Atoi(string(bytes.TrimSpace(content)))
	if err != nil || pid <= 0 {
		pid = 0
	}
	shown := "unknown"
	if pid > 0 {
		shown = strconv.Itoa(pid)
	}
	return &Error{Code: errs.ProjectLocked, Cause: ErrProjectLocked,
		Message: fmt.Sprintf("%s (pid %s) for the project data in %s; close it there and try again", ErrProjectLocked.Message, shown, dir),
		Details: map[string]any{DetailPID: pid, DetailDir: dir}}
}

// LockHolder returns the pid of the process holding the project data when
// err says the project is locked (0 when the pid is unknown); ok is false
// for any other error.
func LockHolder(err error) (pid int, ok bool) {
	e := errs.From(err)
	if e == nil || e.Code != errs.ProjectLocked {
		return 0, false
	}
	pid, _ = e.Details[DetailPID].(int)
	return pid, true
}

// LockedForUser says that another process holds the project, and which, in the
// words the user reads when opening it; other errors are returned as they
// are.
func LockedForUser(err error) error {
	pid, locked := LockHolder(err)
	if !locked {
		return err
	}
	who := "another CrewAgent window or command"
	if pid > 0 {
		who += " (process " + strconv.Itoa(pid) + ")"
	}
	return errs.Wrap(errs.ProjectLocked, err, "This project is already open in "+who+". Close it there, then open the project again.")
}
