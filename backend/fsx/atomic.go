package fsx

// Files are replaced so that readers, and the disk after a crash, hold the old or the new
// content, never a mix: a synced temporary file renamed over the target, then the folder
// synced.

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WriteFile replaces path with data and mode perm through a temporary file named
// "."+base+".tmp-*" in path's folder (see WriteFileTemp).
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return WriteFileTemp(path, data, perm, "."+filepath.Base(path)+".tmp-*")
}

// WriteFileTemp replaces path with data and mode perm: it writes a synced temporary file in
// path's folder, named by pattern as in os.CreateTemp, renames it over path and syncs the
// folder (a folder that cannot be synced is not an error). On failure the temporary file is
// removed and path is left as it was.
func WriteFileTemp(path string, data []byte, perm fs.FileMode, pattern string) error {
	dir := filepath.Dir(path)
	tmp, err := WriteTemp(dir, pattern, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	_ = SyncDir(dir)
	return nil
}

// WriteFileInfo replaces path like WriteFile, but reports a folder that cannot be synced,
// and returns the stat of the new file (for callers that remember the state they left a
// file in, to tell their own writes from others').
func WriteFileInfo(path string, data []byte, perm fs.FileMode) (fs.FileInfo, error) {
	dir := filepath.Dir(path)
	tmp, err := WriteTemp(dir, "."+filepath.Base(path)+".tmp-*", data, perm)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return fi, SyncDir(dir)
}

// WriteTemp writes data with mode perm to a new file in dir named by pattern as in
// os.CreateTemp, syncs it and returns its name. On failure no file is left behind. On
// Windows, where a mode is only the read-only attribute, failing to set it is ignored.
func WriteTemp(dir, pattern string, data []byte, perm fs.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := f.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}
