//go:build unix

package fsx

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes flock(2) on f, waiting for it when wait is set. The lock
// belongs to the open file description, so a second open of the same file
// conflicts even inside one process. The kernel drops it when the process dies.
func lockFile(f *os.File, wait bool) (release func(), err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = unix.Flock(int(fd), how)
			if lerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return nil, err
	}
	if errors.Is(lerr, unix.EWOULDBLOCK) {
		return nil, ErrLocked
	}
	if lerr != nil {
		return nil, lerr
	}
	return func() {
		_ = rc.Control(func(fd uintptr) { _ = unix.Flock(int(fd), unix.LOCK_UN) })
	}, nil
}
