package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// stateWatcher watches runs/ and every runs/<id>/state/ folder of the project data dir and
// refreshes a run (index row, runs:progressUpdated) when its workflow.md changes, whoever
// wrote it: the model through a tool, the runtime, or an editor.
type stateWatcher struct {
	s     *Service
	fsw   *fsnotify.Watcher
	root  string // <dataDir>/runs
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	timer map[string]*time.Timer // run id -> pending refresh
}

// Watch starts reporting state changes made on disk (idempotent). Close stops it.
func (s *Service) Watch() error {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watch != nil {
		return nil
	}
	root := filepath.Join(s.cfg.Project.DataDir, RunsDir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	w := &stateWatcher{s: s, fsw: fsw, root: root, done: make(chan struct{}), timer: map[string]*time.Timer{}}
	if err := fsw.Add(root); err != nil {
		fsw.Close()
		return err
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() {
			w.addRun(e.Name())
		}
	}
	w.wg.Add(1)
	go w.loop()
	s.watch = w
	return nil
}

// Close stops the watcher started by Watch.
func (s *Service) Close() error {
	s.watchMu.Lock()
	w := s.watch
	s.watch = nil
	s.watchMu.Unlock()
	if w == nil {
		return nil
	}
	close(w.done)
	err := w.fsw.Close()
	w.wg.Wait()
	w.mu.Lock()
	for _, t := range w.timer {
		t.Stop()
	}
	w.mu.Unlock()
	return err
}

// addRun watches runs/<id> until its state folder exists, then the state folder.
func (w *stateWatcher) addRun(id string) {
	state := filepath.Join(w.root, id, "state")
	if err := w.fsw.Add(state); err == nil {
		w.schedule(id) // it may have been written before the watch began
		return
	}
	_ = w.fsw.Add(filepath.Join(w.root, id))
	// The state folder may have been created between the two calls, before
	// runs/<id> was watched: no event will report it, so look once more.
	if err := w.fsw.Add(state); err == nil {
		w.schedule(id)
	}
}

func (w *stateWatcher) loop() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.note(ev)
		case _, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
		}
	}
}

// note classifies one event: a new run folder, a new state folder, or a change of a
// state file (renames onto it included, as atomic writes do).
func (w *stateWatcher) note(ev fsnotify.Event) {
	rel, err := filepath.Rel(w.root, ev.Name)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch {
	case len(parts) == 1 && ev.Has(fsnotify.Create):
		w.addRun(parts[0])
	case len(parts) == 2 && parts[1] == "state" && ev.Has(fsnotify.Create):
		w.addRun(parts[0])
	case len(parts) == 3 && parts[1] == "state" && parts[2] == StateFile &&
		ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Rename|fsnotify.Remove) != 0:
		w.schedule(parts[0])
	}
}

// schedule refreshes a run once its state file has been quiet for the debounce time.
func (w *stateWatcher) schedule(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t := w.timer[id]; t != nil {
		t.Reset(w.s.cfg.WatchDebounce)
		return
	}
	w.timer[id] = time.AfterFunc(w.s.cfg.WatchDebounce, func() {
		w.mu.Lock()
		delete(w.timer, id)
		w.mu.Unlock()
		select {
		case <-w.done:
			return
		default:
		}
		w.s.refresh(id)
	})
}

// refresh reads a run's state and, when its progress differs from the index row, updates
// the row and reports progress. Unknown runs (not yet in the index) are ignored.
func (s *Service) refresh(runID string) {
	rc, err := s.open(runID)
	if err != nil {
		return
	}
	st, err := s.readState(runID)
	if err != nil {
		return
	}
	s.syncMirror(rc, st)
}
