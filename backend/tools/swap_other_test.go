//go:build !linux

package tools

import "os"

// exchange swaps two directory entries with three renames (not atomic here).
func exchange(a, b string) error {
	tmp := a + ".swap"
	if err := os.Rename(a, tmp); err != nil {
		return err
	}
	if err := os.Rename(b, a); err != nil {
		return err
	}
	return os.Rename(tmp, b)
}
