//go:build !linux || !cgo

package desktop

// fitFileDialogs: the native dialogs of other platforms fit their screen.
func fitFileDialogs() {}
