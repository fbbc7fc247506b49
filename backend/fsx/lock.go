package fsx

import (
	"errors"
	"os"
)

// ErrLocked is returned by TryLock when another open file (in this process or
// another one) holds the lock.
var ErrLocked = errors.New("lock is held")

// Lock takes an exclusive lock on path (created if needed), waiting for it,
// and returns the function that releases it. The lock excludes other
// processes and other callers in this process alike.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	release, err := lockFile(f, true)
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		release()
		f.Close()
	}, nil
}

// TryLock takes an exclusive lock on the open file f without waiting: it
// returns ErrLocked when the lock is held elsewhere. The lock belongs to the
// open file and lasts until f is closed (or the process ends). On Windows it
// covers a byte range far past the start of the file, so others can still
// read what the holder wrote there (its pid, say).
func TryLock(f *os.File) error {
	_, err := lockFile(f, false)
	return err
}
