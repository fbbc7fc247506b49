package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"crewagent/backend/fsx"
)

// stateWatcher watches runs/ and every runs/<id>/state/ folder of the project data dir and
// refreshes a run (index row, runs:progressUpdated) when its workflow.md changes, whoever
// wrote it: the model through a tool, the runtime, or an editor. Its fields are owned by
// the file watcher's goroutine.
type stateWatcher struct {
	s       *Service
	fsw     *fsx.Watcher
	root    string          // <dataDir>/runs
	pending map[string]bool // runs to refresh once the files are quiet
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
	w := &stateWatcher{s: s, root: root, pending: map[string]bool{}}
	fsw, err := fsx.NewWatcher(fsx.WatchOptions{OnEvent: w.note, OnQuiet: w.flush, Debounce: s.cfg.WatchDebounce})
	if err != nil {
		return err
	}
	w.fsw = fsw
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
	// State folders found now may have been written before the watch began.
	initial := make([]string, 0, len(w.pending))
	for id := range w.pending {
		initial = append(initial, id)
	}
	clear(w.pending)
	fsw.Start()
	if len(initial) > 0 {
		time.AfterFunc(s.cfg.WatchDebounce, func() {
			if !fsw.Closed() {
				s.refreshAll(initial)
			}
		})
	}
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
	return w.fsw.Close()
}

// addRun watches runs/<id> until its state folder exists, then the state folder. A
// state folder found is refreshed (it may have been written before the watch began).
func (w *stateWatcher) addRun(id string) bool {
	state := filepath.Join(w.root, id, "state")
	if err := w.fsw.Add(state); err == nil {
		w.pending[id] = true
		return true
	}
	_ = w.fsw.Add(filepath.Join(w.root, id))
	// The state folder may have been created between the two calls, before
	// runs/<id> was watched: no event will report it, so look once more.
	if err := w.fsw.Add(state); err == nil {
		w.pending[id] = true
		return true
	}
	return false
}

// note classifies one event: a new run folder, a new state folder, or a change of a
// state file (renames onto it included, as atomic writes do).
func (w *stateWatcher) note(ev fsnotify.Event) bool {
	rel, err := filepath.Rel(w.root, ev.Name)
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch {
	case len(parts) == 1 && ev.Has(fsnotify.Create):
		return w.addRun(parts[0])
	case len(parts) == 2 && parts[1] == "state" && ev.Has(fsnotify.Create):
		return w.addRun(parts[0])
	case len(parts) == 3 && parts[1] == "state" && parts[2] == StateFile &&
		ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Rename|fsnotify.Remove) != 0:
		w.pending[parts[0]] = true
		return true
	}
	return false
}

// flush refreshes the runs whose state files changed, once they are quiet.
func (w *stateWatcher) flush() {
	ids := make([]string, 0, len(w.pending))
	for id := range w.pending {
		ids = append(ids, id)
	}
	clear(w.pending)
	w.s.refreshAll(ids)
}

func (s *Service) refreshAll(ids []string) {
	for _, id := range ids {
		s.refresh(id)
	}
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
