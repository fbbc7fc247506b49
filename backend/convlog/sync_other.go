//go:build !linux

package convlog

import "os"

// datasync flushes the file to stable storage (File.Sync: fsync, or
// F_FULLFSYNC on macOS).
func datasync(f *os.File) error { return f.Sync() }
