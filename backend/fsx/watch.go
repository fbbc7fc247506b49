package fsx

import (
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchOptions configure a Watcher.
type WatchOptions struct {
	// OnEvent records one file event; it reports whether the event matters.
	// It runs on the watcher's goroutine and may add or remove watched paths.
	OnEvent func(ev fsnotify.Event) bool
	// OnQuiet runs on the watcher's goroutine once Debounce has passed since
	// the last event that mattered (and at least every MaxDelay during a
	// longer burst). Nil: nothing is debounced.
	OnQuiet func()
	// Debounce is the quiet time before OnQuiet (default 100ms).
	Debounce time.Duration
	// MaxDelay bounds how long a burst of events postpones OnQuiet (default
	// 5x Debounce).
	MaxDelay time.Duration
	// OnError receives the errors of the file watcher (default: ignored).
	OnError func(error)
}

// Watcher watches files and folders (not recursively) and hands every event
// to its callbacks, one at a time, on its own goroutine: callers keep their
// state without locks. Start it after the first paths are added; Close stops
// it, and no callback runs after Close returns.
type Watcher struct {
	opts  WatchOptions
	fsw   *fsnotify.Watcher
	done  chan struct{}
	wg    sync.WaitGroup
	start sync.Once
	close sync.Once
}

// NewWatcher returns a watcher that watches nothing yet.
func NewWatcher(opts WatchOptions) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = 5 * opts.Debounce
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &Watcher{opts: opts, fsw: fsw, done: make(chan struct{})}, nil
}

// Add watches path (a file or a folder and the entries directly in it).
func (w *Watcher) Add(path string) error { return w.fsw.Add(path) }

// Remove stops watching path.
func (w *Watcher) Remove(path string) error { return w.fsw.Remove(path) }

// Closed reports whether Close has been called (callbacks that start slow work
// check it).
func (w *Watcher) Closed() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// Start begins delivering events (once).
func (w *Watcher) Start() {
	w.start.Do(func() {
		w.wg.Add(1)
		go w.loop()
	})
}

// Close stops the watcher and waits for its goroutine.
func (w *Watcher) Close() error {
	var err error
	w.close.Do(func() {
		close(w.done)
		err = w.fsw.Close()
		w.wg.Wait()
	})
	return err
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var first time.Time // the first event of the burst OnQuiet has not seen yet
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if w.opts.OnEvent == nil || !w.opts.OnEvent(ev) || w.opts.OnQuiet == nil {
				continue
			}
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			if now.Sub(first) < w.opts.MaxDelay {
				timer.Reset(w.opts.Debounce)
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if w.opts.OnError != nil {
				w.opts.OnError(err)
			}
		case <-timer.C:
			first = time.Time{}
			if !w.Closed() {
				w.opts.OnQuiet()
			}
		}
	}
}
