package tools

import "golang.org/x/sys/unix"

// exchange swaps two directory entries in one step (renameat2 RENAME_EXCHANGE), so the
// name a tool works on is always one of the two, never missing.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
