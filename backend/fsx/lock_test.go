package fsx

import (
	"errors"
	"os"
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

// TryLock fails at once while another open file holds the lock, and succeeds
// once that file is closed.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := open()
	if err := TryLock(first); err != nil {
		t.Fatal(err)
	}
	second := open()
	defer second.Close()
	if err := TryLock(second); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock while held = %v, want ErrLocked", err)
	}
	unlock, err := func() (func(), error) {
		done := make(chan struct{})
		var u func()
		var err error
		go func() { u, err = Lock(path); close(done) }()
		select {
		case <-done:
			return u, errors.New("Lock did not wait for the held lock")
		case <-time.After(50 * time.Millisecond):
		}
		first.Close()
		<-done
		return u, err
	}()
	if err != nil {
		t.Fatal(err)
	}
	if err := TryLock(second); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock while Lock holds it = %v, want ErrLocked", err)
	}
	unlock()
	if err := TryLock(second); err != nil {
		t.Fatalf("TryLock after the release: %v", err)
	}
}
