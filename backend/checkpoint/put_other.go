//go:build !unix

package checkpoint

import "io/fs"

// writeInPlace replaces the file through a temporary file renamed over it
// (writing in place, which needs a link count and a no-follow open, is done
// on Unix only).
func writeInPlace(path string, data []byte, perm fs.FileMode) error {
	return writeAtomic(path, data, perm)
}
