package convlog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"crewagent/backend/fsx"
)

// writeFileAtomic replaces path with data (fsx.WriteFileInfo): readers see the
// old or the new content, never a mix, also after a crash. It returns the stat
// of the written file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (os.FileInfo, error) {
	return fsx.WriteFileInfo(path, data, perm)
}

// datasync flushes a log's appended data to stable storage (fsx.Datasync).
func datasync(f *os.File) error { return fsx.Datasync(f) }

// errLockBusy: another open file holds the writer lock.
var errLockBusy = fsx.ErrLocked

// tryLock takes the writer lock on the open lock file without waiting.
func tryLock(f *os.File) error { return fsx.TryLock(f) }

// ownWrites remembers the state in which the store left each file it wrote,
// so a file watcher can tell the store's own changes from changes made by
// someone else (see Store.IsOwnWrite).
type ownWrites struct {
	mu sync.Mutex
	m  map[string]*ownRecord
}

type ownRecord struct {
	pending int         // writes in progress
	gone    bool        // the store removed the path
	fi      os.FileInfo // the state after the store's last write
}

func (o *ownWrites) rec(path string) *ownRecord {
	if o.m == nil {
		o.m = map[string]*ownRecord{}
	}
	r := o.m[path]
	if r == nil {
		r = &ownRecord{}
		o.m[path] = r
	}
	return r
}

// begin marks a write to path as in progress.
func (o *ownWrites) begin(paths ...string) {
	o.mu.Lock()
	for _, p := range paths {
		o.rec(filepath.Clean(p)).pending++
	}
	o.mu.Unlock()
}

// end records the state the store left path in: fi, or removed when fi is nil.
func (o *ownWrites) end(path string, fi os.FileInfo) {
	o.mu.Lock()
	r := o.rec(filepath.Clean(path))
	if r.pending > 0 {
		r.pending--
	}
	r.fi, r.gone = fi, fi == nil
	o.mu.Unlock()
}

// endStat is end with a fresh Lstat of path (a failed stat records nothing new).
func (o *ownWrites) endStat(path string) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil:
		o.end(path, fi)
	case errors.Is(err, fs.ErrNotExist):
		o.end(path, nil)
	default:
		o.abort(path)
	}
}

// abort ends a write whose outcome is unknown; the previous record stays.
func (o *ownWrites) abort(path string) {
	o.mu.Lock()
	if r := o.m[filepath.Clean(path)]; r != nil && r.pending > 0 {
		r.pending--
	}
	o.mu.Unlock()
}

// match reports whether path is in progress of being written by the store or
// is still exactly as the store left it.
func (o *ownWrites) match(path string) bool {
	path = filepath.Clean(path)
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.m[path]
	if r == nil {
		return false
	}
	if r.pending > 0 {
		return true
	}
	fi, err := os.Lstat(path)
	if r.gone || r.fi == nil {
		return r.gone && errors.Is(err, fs.ErrNotExist)
	}
	if err != nil {
		return false
	}
	if r.fi.IsDir() {
		return fi.IsDir() && os.SameFile(fi, r.fi)
	}
	return os.SameFile(fi, r.fi) && fi.Size() == r.fi.Size() && fi.ModTime().Equal(r.fi.ModTime())
}
