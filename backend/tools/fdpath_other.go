//go:build !linux

package tools

import "os"

// fdPath is not available on this platform: the checks made before the operation stand alone.
func fdPath(*os.File) (string, bool) { return "", false }
