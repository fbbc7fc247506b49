package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"crewagent/backend/atomicfile"
)

// now is the timestamp format of createdAt/updatedAt fields (RFC 3339, UTC, ms).
func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// createExclusive writes path atomically only if it does not exist yet.
// created is false when another writer got there first.
func createExclusive(path string, data []byte, perm os.FileMode) (created bool, err error) {
	tmp, err := atomicfile.WriteTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*", data, perm)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	switch err := os.Link(tmp, path); {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return false, nil
	default:
		// No hard links on this file system: fall back to an exclusive create.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		_, werr := f.Write(data)
		serr := f.Sync()
		cerr := f.Close()
		if err := errors.Join(werr, serr, cerr); err != nil {
			return false, err
		}
	}
	_ = atomicfile.SyncDir(filepath.Dir(path))
	return true, nil
}
