//go:build linux

package convlog

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync flushes the file's data (and the metadata needed to read it back,
// such as its size) to stable storage: fdatasync(2).
func datasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = unix.Fdatasync(int(fd))
			if serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}
