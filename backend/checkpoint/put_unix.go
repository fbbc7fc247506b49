//go:build unix

package checkpoint

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// writeInPlace writes data over the file at path (creating it with perm
// when missing) without replacing its inode: no new inode, no change to its
// folder, which is what makes restoring many files fast. It does not follow
// a symbolic link, and leaves a file with other hard links to writeAtomic
// (written in place, the other names would change too). A process killed
// half way leaves the file partly written: the rewind's intent file, kept
// until every file is written, has the next Open write it again.
func writeInPlace(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) { // a symbolic link: replaced, not followed
			return writeAtomic(path, data, perm)
		}
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.Mode().IsRegular() || (ok && st.Nlink > 1) {
		f.Close()
		return writeAtomic(path, data, perm)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if fi.Size() > int64(len(data)) {
		if err := f.Truncate(int64(len(data))); err != nil {
			f.Close()
			return err
		}
	}
	if fi.Mode().Perm() != perm {
		if err := f.Chmod(perm); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
