package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"crewagent/backend/fsx"
)

// now is the current time as createdAt/updatedAt fields hold it (fsx.TimeFormat).
func now() string { return fsx.Now() }

// createExclusive writes path atomically only if it does not exist yet.
// created is false when another writer got there first.
func createExclusive(path string, data []byte, perm os.FileMode) (created bool, err error) {
	tmp, err := fsx.WriteTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*", data, perm)
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
	_ = fsx.SyncDir(filepath.Dir(path))
	return true, nil
}
