//go:build windows

package convlog

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

var errLockBusy = errors.New("lock is held")

// tryLock takes an exclusive, non-blocking LockFileEx on a byte range far past
// the pid written at the start of the file, so other processes can still read the pid.
func tryLock(f *os.File) error {
	ol := &windows.Overlapped{Offset: 0, OffsetHigh: 1}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLockBusy
	}
	return err
}
