// Package watcher reports changes to the conversations of a project data
// directory made on disk by others (fsnotify on conversations/, debounced).
package watcher

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"crewagent/backend/convlog"
	"crewagent/backend/events"
	"crewagent/backend/fsx"
)

// Kinds of Change (those of conversation:changed).
const (
	Created = events.Created
	Updated = events.Updated
	Deleted = events.Deleted
)

// DefaultDebounce is the quiet time after the last file event before changes are reported.
const DefaultDebounce = 150 * time.Millisecond

// Change is one conversation that changed on disk.
type Change struct {
	ConversationID string `json:"conversationId"`
	Kind           string `json:"kind"` // created | updated | deleted
}

// Options configure a Watcher. The zero value is usable.
type Options struct {
	// Debounce is how long the watcher waits for file events to settle
	// before it reports; a burst longer than 5x Debounce is reported in
	// parts. 0 means DefaultDebounce.
	Debounce time.Duration
	// Ignore reports whether a changed path is the caller's own write; a
	// conversation whose changed paths are all ignored is not reported.
	// Pass (*convlog.Store).IsOwnWrite to hear only about other writers.
	Ignore func(path string) bool
	// Logger receives watcher errors; nil means slog.Default().
	Logger *slog.Logger
}

// Watcher watches <dataDir>/conversations, the index and every conversation
// folder in it (folders are added as they appear), and calls onChange for
// each conversation that was created, updated or deleted. Kinds come from
// the folder's existence before and after the burst of events; a change of
// index.json reports the conversations whose records changed. onChange runs
// on the watcher's goroutine, one call at a time.
type Watcher struct {
	root     string // <dataDir>/conversations
	dataDir  string
	onChange func(Change)
	opts     Options
	log      *slog.Logger
	fsw      *fsx.Watcher

	// owned by the watcher's goroutine
	known   map[string]bool            // conversation folders that exist
	pending map[string]map[string]bool // id -> changed paths
	indexCh bool                       // index.json changed
	index   map[string]string          // id -> record JSON as last read
}

// New starts watching dataDir (which must exist; its conversations folder
// need not yet).
func New(dataDir string, onChange func(Change), opts Options) (*Watcher, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.Default()
	}
	w := &Watcher{
		root:     filepath.Join(abs, convlog.ConversationsDir),
		dataDir:  abs,
		onChange: onChange,
		opts:     opts,
		log:      lg.With("component", "watcher"),
		known:    map[string]bool{},
		pending:  map[string]map[string]bool{},
	}
	fsw, err := fsx.NewWatcher(fsx.WatchOptions{
		OnEvent:  w.note,
		OnQuiet:  w.flush,
		Debounce: opts.Debounce,
		OnError:  func(err error) { w.log.Warn("file watcher error", "error", err) },
	})
	if err != nil {
		return nil, err
	}
	w.fsw = fsw
	if err := fsw.Add(abs); err != nil {
		fsw.Close()
		return nil, err
	}
	w.watchRoot()
	w.index = w.readIndex()
	fsw.Start()
	return w, nil
}

// Close stops the watcher; onChange is not called after Close returns.
func (w *Watcher) Close() error { return w.fsw.Close() }

// watchRoot adds the conversations folder and the conversation folders in
// it, and records which exist. It returns the ids of folders it found.
func (w *Watcher) watchRoot() []string {
	if err := w.fsw.Add(w.root); err != nil {
		return nil
	}
	des, err := os.ReadDir(w.root)
	if err != nil {
		return nil
	}
	var found []string
	for _, de := range des {
		if de.IsDir() && convlog.IsValidID(de.Name()) {
			w.fsw.Add(filepath.Join(w.root, de.Name()))
			found = append(found, de.Name())
			if w.known != nil {
				w.known[de.Name()] = true
			}
		}
	}
	return found
}

// note records one file event and reports whether it matters.
func (w *Watcher) note(ev fsnotify.Event) bool {
	p := filepath.Clean(ev.Name)
	if p == w.root {
		if ev.Has(fsnotify.Create) {
			// the conversations folder appeared: watch it and what it holds
			for _, id := range w.watchRootFresh() {
				w.mark(id, filepath.Join(w.root, id))
			}
			w.indexCh = true
			return true
		}
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			for id := range w.known {
				w.mark(id, filepath.Join(w.root, id))
			}
			w.indexCh = true
			return true
		}
		return false
	}
	rel, err := filepath.Rel(w.root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	switch {
	case len(parts) == 1 && parts[0] == convlog.IndexFile:
		w.indexCh = true
		w.mark("", p)
		return true
	case len(parts) == 1 && convlog.IsValidID(parts[0]):
		if ev.Has(fsnotify.Create) {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				w.fsw.Add(p)
			}
		}
		if ev.Has(fsnotify.Rename) {
			w.fsw.Remove(p)
		}
		w.mark(parts[0], p)
		return true
	case len(parts) == 2 && convlog.IsValidID(parts[0]) && !strings.HasPrefix(parts[1], "."):
		w.mark(parts[0], p)
		return true
	}
	return false
}

// watchRootFresh is watchRoot for a conversations folder that appeared
// after start: the folders found are new to the watcher.
func (w *Watcher) watchRootFresh() []string {
	known := w.known
	w.known = nil
	found := w.watchRoot()
	w.known = known
	return found
}

func (w *Watcher) mark(id, path string) {
	if w.pending[id] == nil {
		w.pending[id] = map[string]bool{}
	}
	w.pending[id][path] = true
}

func (w *Watcher) ignored(path string) bool {
	return w.opts.Ignore != nil && w.opts.Ignore(path)
}

// flush turns the recorded events into changes and reports them.
func (w *Watcher) flush() {
	candidates := map[string]bool{}
	if w.indexCh {
		w.indexCh = false
		idx := w.readIndex()
		own := w.ignored(filepath.Join(w.root, convlog.IndexFile))
		if !own {
			for id, rec := range idx {
				if w.index[id] != rec {
					candidates[id] = true
				}
			}
			for id := range w.index {
				if _, ok := idx[id]; !ok {
					candidates[id] = true
				}
			}
		}
		w.index = idx
	}
	delete(w.pending, "")
	for id, paths := range w.pending {
		for p := range paths {
			if !w.ignored(p) {
				candidates[id] = true
				break
			}
		}
		if !candidates[id] {
			// only the caller's own writes: keep track of the folder quietly
			if dirExists(filepath.Join(w.root, id)) {
				w.known[id] = true
			} else {
				delete(w.known, id)
			}
		}
	}
	clear(w.pending)
	var changes []Change
	for id := range candidates {
		exists := dirExists(filepath.Join(w.root, id))
		switch {
		case exists && !w.known[id]:
			w.known[id] = true
			changes = append(changes, Change{id, Created})
		case exists:
			changes = append(changes, Change{id, Updated})
		case w.known[id]:
			delete(w.known, id)
			changes = append(changes, Change{id, Deleted})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].ConversationID < changes[j].ConversationID })
	for _, c := range changes {
		if w.fsw.Closed() {
			return
		}
		w.onChange(c)
	}
}

// readIndex reads index.json as id -> canonical record JSON; unreadable means empty.
func (w *Watcher) readIndex() map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(filepath.Join(w.root, convlog.IndexFile))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			w.log.Warn("reading index.json", "error", err)
		}
		return out
	}
	var recs []json.RawMessage
	if json.Unmarshal(data, &recs) != nil {
		return out
	}
	for _, r := range recs {
		var head struct {
			ID string `json:"id"`
		}
		var fields map[string]any
		if json.Unmarshal(r, &head) != nil || !convlog.IsValidID(head.ID) || json.Unmarshal(r, &fields) != nil {
			continue
		}
		canon, _ := json.Marshal(fields) // sorted keys: formatting and field order do not count
		out[head.ID] = string(canon)
	}
	return out
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
