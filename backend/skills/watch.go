package skills

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"crewagent/backend/fsx"
)

// DefaultDebounce is how long the watcher waits after the last file event
// before it scans again.
const DefaultDebounce = 200 * time.Millisecond

// WatchOptions configure a Watcher. The zero value is usable.
type WatchOptions struct {
	// Debounce is the quiet time after the last event before a scan; a
	// burst longer than 5x Debounce is scanned in parts. 0 means
	// DefaultDebounce.
	Debounce time.Duration
	// Logger receives watcher errors; nil means slog.Default().
	Logger *slog.Logger
}

// Watcher keeps a Catalog up to date with the disk. It watches every
// location folder, each skill folder in it (SKILL.md and top-level files),
// and, for a location that does not exist yet, the folders on the way to it
// from its Root, so a skills folder created later is picked up. After a
// burst of events it scans again and, when what it finds differs (skills
// added, removed or edited, problems changed), calls onChange with the new
// catalog, on its own goroutine, one call at a time. Changes deeper than
// the top level of a skill folder are seen at the next scan. Close stops
// it: no goroutine is left and onChange is not called after Close returns.
type Watcher struct {
	locs     []Location
	onChange func(*Catalog)
	opts     WatchOptions
	log      *slog.Logger
	fsw      *fsx.Watcher

	mu  sync.Mutex
	cat *Catalog

	// owned by the watcher's goroutine (and by NewWatcher before it starts)
	watched map[string]bool
	chains  []chain
	sig     string
}

// chain is one location: its folder and the folders above it, up to Root.
type chain struct {
	dir  string
	dirs []string // Root ... dir (absolute, clean)
}

// NewWatcher discovers the skills of locs (Catalog returns them) and starts
// watching.
func NewWatcher(locs []Location, onChange func(*Catalog), opts WatchOptions) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.Default()
	}
	w := &Watcher{
		locs: append([]Location(nil), locs...), onChange: onChange, opts: opts,
		log: lg.With("component", "skills-watcher"), watched: map[string]bool{},
	}
	fsw, err := fsx.NewWatcher(fsx.WatchOptions{
		OnEvent:  func(ev fsnotify.Event) bool { return w.relevant(ev.Name) },
		OnQuiet:  w.rescan,
		Debounce: opts.Debounce,
		MaxDelay: 5 * opts.Debounce,
		OnError:  func(err error) { w.log.Warn("skills watcher error", "error", err) },
	})
	if err != nil {
		return nil, fmt.Errorf("skills: cannot watch for changes: %w", err)
	}
	w.fsw = fsw
	for _, l := range locs {
		w.chains = append(w.chains, newChain(l))
	}
	// Watch first, then scan: whatever appears in between is both seen by
	// the scan and reported by an event.
	w.rewatch()
	w.cat = Discover(w.locs)
	w.sig = signature(w.cat)
	fsw.Start()
	return w, nil
}

func newChain(l Location) chain {
	dir := absClean(l.Dir)
	root := absClean(l.Root)
	if root == "" || !within(root, dir) {
		root = filepath.Dir(dir)
	}
	var dirs []string
	for p := dir; ; p = filepath.Dir(p) {
		dirs = append(dirs, p)
		if p == root || filepath.Dir(p) == p {
			break
		}
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return chain{dir: dir, dirs: dirs}
}

func absClean(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// Catalog returns the newest catalog.
func (w *Watcher) Catalog() *Catalog {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cat
}

// Close stops the watcher and waits for its goroutine to end.
func (w *Watcher) Close() error { return w.fsw.Close() }

// relevant reports whether an event path can change what discovery finds:
// a folder of a chain, the next folder down a chain, or anything inside a
// location folder.
func (w *Watcher) relevant(p string) bool {
	p = filepath.Clean(p)
	for _, c := range w.chains {
		if p == c.dir || within(c.dir, p) {
			return true
		}
		for _, d := range c.dirs {
			if p == d {
				return true
			}
		}
	}
	return false
}

func (w *Watcher) rescan() {
	w.rewatch()
	cat := Discover(w.locs)
	sig := signature(cat)
	if sig == w.sig {
		return
	}
	w.sig = sig
	w.mu.Lock()
	w.cat = cat
	w.mu.Unlock()
	if w.fsw.Closed() {
		return
	}
	if w.onChange != nil {
		w.onChange(cat)
	}
}

// rewatch makes the watch list match the disk: for each location, its
// folder and its skill folders when it exists, else the deepest existing
// folder of its chain (and those above it, so a removal is seen too).
func (w *Watcher) rewatch() {
	want := map[string]bool{}
	for _, c := range w.chains {
		for _, d := range c.dirs {
			if isDir(d) {
				want[d] = true
			} else {
				break
			}
		}
		if !isDir(c.dir) {
			continue
		}
		des, err := os.ReadDir(c.dir)
		if err != nil {
			continue
		}
		n := 0
		for _, de := range des {
			if strings.HasPrefix(de.Name(), ".") {
				continue
			}
			p := filepath.Join(c.dir, de.Name())
			if de.IsDir() || (de.Type()&os.ModeSymlink != 0 && isDir(p)) {
				if n++; n > MaxSkillsPerLocation {
					break
				}
				want[p] = true
			}
		}
	}
	for p := range w.watched {
		if !want[p] {
			w.fsw.Remove(p)
			delete(w.watched, p)
		}
	}
	for p := range want {
		if w.watched[p] {
			continue
		}
		if err := w.fsw.Add(p); err != nil {
			w.log.Debug("cannot watch a skills folder", "path", p, "error", err)
			continue
		}
		w.watched[p] = true
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// signature sums up a catalog: two catalogs with the same signature list
// the same skills from the same files, with the same problems.
func signature(c *Catalog) string {
	var b strings.Builder
	for _, it := range c.List() {
		fmt.Fprintf(&b, "%s|%s|%s|%s|%s\n", it.Status, it.Name, it.Source, it.Path, it.ShadowedBy)
		for _, p := range it.Problems {
			fmt.Fprintf(&b, "  %s %s %s\n", p.Severity, p.File, p.Message)
		}
	}
	for _, s := range c.skills {
		fmt.Fprintf(&b, "%s %d %d %s %d\n", s.Name, s.Size, s.ModTime.UnixNano(), strings.Join(s.Files, ","), s.MoreFiles)
	}
	for _, s := range c.shadowed {
		fmt.Fprintf(&b, "shadowed %s %d %d\n", s.Path, s.Size, s.ModTime.UnixNano())
	}
	return b.String()
}
