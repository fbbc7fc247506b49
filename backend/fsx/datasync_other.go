//go:build !linux

package fsx

import "os"

// Datasync flushes the file to stable storage (File.Sync: fsync, or
// F_FULLFSYNC on macOS).
func Datasync(f *os.File) error { return f.Sync() }
