// Package fsx holds the small file-system helpers every store of the runtime
// shares: crash-safe file replacement, directory and data syncs, advisory
// file locks between processes, and the timestamp format of the files.
package fsx
