package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// File operations beneath a root.
//
// Resolve checks a path once; every operation afterwards opens the root folder with
// os.OpenRoot and works beneath it (openat, component by component), so a folder that is
// swapped for a symbolic link between the check and the operation can never lead the
// operation outside the root. Where the platform tells which file a descriptor names
// (Linux), the opened file is checked once more against the denied areas, which may lie
// inside a root (a project opened at the user's home contains the runtime home).

// openRoot opens r's root folder.
func openRoot(r Resolved) (*os.Root, *ToolError) {
	root, err := os.OpenRoot(r.Root)
	if err != nil {
		return nil, fileError(r, err)
	}
	return root, nil
}

// rel is the path of r beneath its root ("." for the root itself).
func (r Resolved) rel() string {
	if r.hostRel == "" {
		return "."
	}
	return r.hostRel
}

// checkOpened verifies, where the platform can tell, that the file f opened for r lies
// inside r's root and outside the denied areas.
func (s *Sandbox) checkOpened(r Resolved, f *os.File) *ToolError {
	p, ok := fdPath(f)
	if !ok {
		return nil
	}
	if !within(r.Root, p) {
		return violation("symlink_escape", "%s left %s while it was being opened", r.Display(), r.Base)
	}
	if s.denied(r.Root, p) {
		return deniedError(r.Display())
	}
	return nil
}

// hidden reports whether the entry de of the folder r lies in (or, a symbolic link, leads
// into) a denied area: listings and searches leave such entries out.
func (s *Sandbox) hidden(r Resolved, de fs.DirEntry) bool {
	if len(s.deny) == 0 {
		return false
	}
	host := filepath.Join(r.Host, de.Name())
	if s.denied(r.Root, host) {
		return true
	}
	if de.Type()&fs.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(host); err == nil && s.denied(r.Root, real) {
			return true
		}
	}
	return false
}

// statIn stats r beneath its root (following symbolic links that stay inside it).
func (h *Host) statIn(r Resolved) (fs.FileInfo, *ToolError) {
	root, terr := openRoot(r)
	if terr != nil {
		return nil, terr
	}
	defer root.Close()
	fi, err := root.Stat(r.rel())
	if err != nil {
		return nil, fileError(r, err)
	}
	return fi, nil
}

// openIn opens r for reading beneath its root: a regular file or a folder. It never blocks
// on a FIFO or a device.
func (h *Host) openIn(r Resolved) (*os.File, fs.FileInfo, *ToolError) { return h.sandbox.Open(r) }

// Open opens a path that Resolve returned for reading, beneath its root (see the top of
// this file): a regular file or a folder, never a FIFO or a device. Callers outside the
// tools (the window reading an artifact or a saved tool output) read through it, so a
// folder swapped for a symbolic link after Resolve cannot lead them outside the root.
func (s *Sandbox) Open(r Resolved) (*os.File, fs.FileInfo, *ToolError) {
	root, terr := openRoot(r)
	if terr != nil {
		return nil, nil, terr
	}
	defer root.Close()
	f, err := root.OpenFile(r.rel(), os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, fileError(r, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fileError(r, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, errf(CodeBadArguments, "%s is not a regular file", r.Display())
	}
	if terr := s.checkOpened(r, f); terr != nil {
		f.Close()
		return nil, nil, terr
	}
	return f, fi, nil
}

// writeIn replaces the file of r with data beneath its root: a temporary file in the same
// folder (named with tempPrefix), flushed, then renamed over the target, and the folder
// flushed. Parent folders are created as needed. It reports whether the file is new.
func (h *Host) writeIn(r Resolved, data []byte, perm fs.FileMode) *ToolError {
	root, terr := openRoot(r)
	if terr != nil {
		return terr
	}
	defer root.Close()
	dirRel, base := filepath.Dir(r.rel()), filepath.Base(r.rel())
	if err := root.MkdirAll(dirRel, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			err = syscall.ENOTDIR // a file where a folder of the path should be
		}
		return fileError(r, err)
	}
	dir, err := root.OpenRoot(dirRel)
	if err != nil {
		return fileError(r, err)
	}
	defer dir.Close()
	var tmp string
	var f *os.File
	for i := 0; ; i++ {
		tmp = tempPrefix + strconv.FormatInt(time.Now().UnixNano(), 36) + strconv.Itoa(i)
		f, err = dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil || !errors.Is(err, fs.ErrExist) || i > 100 {
			break
		}
	}
	if err != nil {
		return fileError(r, err)
	}
	fail := func(terr *ToolError) *ToolError {
		f.Close()
		_ = dir.Remove(tmp)
		return terr
	}
	tmpResolved := r
	tmpResolved.hostRel = filepath.Join(dirRel, tmp)
	if terr := h.sandbox.checkOpened(tmpResolved, f); terr != nil {
		return fail(deniedOrEscape(r, terr))
	}
	if _, err := f.Write(data); err != nil {
		return fail(fileError(r, err))
	}
	if err := f.Chmod(perm); err != nil {
		return fail(fileError(r, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fileError(r, err))
	}
	if err := f.Close(); err != nil {
		_ = dir.Remove(tmp)
		return fileError(r, err)
	}
	if err := dir.Rename(tmp, base); err != nil {
		_ = dir.Remove(tmp)
		return fileError(r, err)
	}
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// deniedOrEscape names r (not its temporary file) in a refusal found on the temporary file.
func deniedOrEscape(r Resolved, terr *ToolError) *ToolError {
	if terr.Details["reason"] == "runtime_data" {
		return deniedError(r.Display())
	}
	return violation("symlink_escape", "%s left %s while it was being written", r.Display(), r.Base)
}
