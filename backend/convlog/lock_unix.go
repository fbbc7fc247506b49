//go:build unix

package convlog

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errLockBusy = errors.New("lock is held")

// tryLock takes an exclusive, non-blocking flock(2) on f. The lock belongs to
// the open file description, so a second open of the same file conflicts even
// inside one process. The kernel drops it when the process dies.
func tryLock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
			if lerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(lerr, unix.EWOULDBLOCK) {
		return errLockBusy
	}
	return lerr
}
