package fsx

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A burst of writes is reported once, after the quiet time; events that do
// not matter are not reported; nothing is reported after Close.
func TestWatcherDebouncesBursts(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var seen []string
	quiet := make(chan []string, 10)
	w, err := NewWatcher(WatchOptions{
		Debounce: 40 * time.Millisecond,
		OnEvent: func(ev fsnotify.Event) bool {
			if filepath.Ext(ev.Name) != ".md" {
				return false
			}
			mu.Lock()
			seen = append(seen, filepath.Base(ev.Name))
			mu.Unlock()
			return true
		},
		OnQuiet: func() {
			mu.Lock()
			quiet <- seen
			seen = nil
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	w.Start()
	for range 5 {
		if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case got := <-quiet:
		if len(got) == 0 {
			t.Fatal("OnQuiet without events")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no OnQuiet after a burst")
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-quiet:
		t.Fatalf("an event that does not matter was reported: %v", got)
	case <-time.After(200 * time.Millisecond):
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-quiet:
		t.Fatalf("reported after Close: %v", got)
	case <-time.After(150 * time.Millisecond):
	}
}
