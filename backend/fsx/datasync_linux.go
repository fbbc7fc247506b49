//go:build linux

package fsx

import (
	"os"

	"golang.org/x/sys/unix"
)

// Datasync flushes the file's data (and the metadata needed to read it back,
// such as its size) to stable storage: fdatasync(2).
func Datasync(f *os.File) error {
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
