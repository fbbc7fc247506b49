package packages

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Modes of installed packages.
const (
	installedFileMode fs.FileMode = 0o444
	installedDirMode  fs.FileMode = 0o555
)

// makeReadOnly sets files to 0444 and folders to 0555 under root (root included).
func makeReadOnly(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, installedDirMode)
		}
		return os.Chmod(p, installedFileMode)
	})
}

// removeAllForce removes a tree even when its folders are read-only. A missing root is fine.
func removeAllForce(root string) error {
	if _, err := os.Lstat(root); os.IsNotExist(err) {
		return nil
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(root)
}
