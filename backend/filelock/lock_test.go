package filelock

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// A second Lock of the same file waits until the first is released, even in one process.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		u, err := Lock(path)
		if err != nil {
			t.Error(err)
			return
		}
		got.Store(true)
		u()
	}()
	time.Sleep(50 * time.Millisecond)
	if got.Load() {
		t.Fatal("the second Lock did not wait for the first")
	}
	unlock()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the second Lock was not granted after the release")
	}
	if !got.Load() {
		t.Fatal("the second Lock failed")
	}
}

func TestLockReportsAnUnusablePath(t *testing.T) {
	if _, err := Lock(filepath.Join(t.TempDir(), "missing", "x.lock")); err == nil {
		t.Fatal("a lock in a missing folder was taken")
	}
}
