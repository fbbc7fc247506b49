// Package memory reads a project's instruction files — AGENTS.md at the
// project root, or CLAUDE.md when there is no AGENTS.md — which every
// request of every mode carries word for word (contextbuilder.MemoryFile).
package memory

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/errs"
)

// Names are the files read, in order of preference: the first that exists
// is the project's instructions.
var Names = []string{"AGENTS.md", "CLAUDE.md"}

// MaxBytes is the most of a file a request carries; a longer file is cut
// at a line end before it, and the request says so.
const MaxBytes = 64 << 10

// Reader reads a project's instruction files, again only when one changed
// on disk (its size or modification time).
type Reader struct {
	root string

	mu    sync.Mutex
	stamp stamp
	files []contextbuilder.MemoryFile
}

type stamp struct {
	name  string
	size  int64
	mtime time.Time
}

// New returns the reader of the project at root.
func New(root string) *Reader { return &Reader{root: root} }

// Files returns the instruction files as they are now (none when the
// project has none or they cannot be read).
func (r *Reader) Files() []contextbuilder.MemoryFile {
	if r == nil || r.root == "" {
		return nil
	}
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil
	}
	defer root.Close()
	for _, name := range Names {
		fi, err := root.Stat(name)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		st := stamp{name: name, size: fi.Size(), mtime: fi.ModTime()}
		r.mu.Lock()
		if r.stamp == st && r.files != nil {
			out := r.files
			r.mu.Unlock()
			return out
		}
		r.mu.Unlock()
		f, err := read(root, name, fi.Size())
		if err != nil {
			continue
		}
		files := []contextbuilder.MemoryFile{f}
		r.mu.Lock()
		r.stamp, r.files = st, files
		r.mu.Unlock()
		return files
	}
	r.mu.Lock()
	r.stamp, r.files = stamp{}, nil
	r.mu.Unlock()
	return nil
}

// read reads name beneath root, at most MaxBytes of it (cut at the last
// line end before the limit).
func read(root *os.Root, name string, size int64) (contextbuilder.MemoryFile, error) {
	f, err := root.Open(name)
	if err != nil {
		return contextbuilder.MemoryFile{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return contextbuilder.MemoryFile{}, err
	}
	out := contextbuilder.MemoryFile{Path: "@project/" + name, Size: size}
	if len(data) > MaxBytes {
		data = data[:MaxBytes]
		for i := len(data) - 1; i > MaxBytes/2; i-- {
			if data[i] == '\n' {
				data = data[:i+1]
				break
			}
		}
		out.Truncated = true
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return contextbuilder.MemoryFile{}, errors.New("not a text file")
	}
	out.Text = strings.ToValidUTF8(string(data), "\uFFFD")
	return out, nil
}

// File is the project's instruction file as the window edits it.
type File struct {
	// Name is the file's name (AGENTS.md, or CLAUDE.md when the project
	// has only that); Path its alias path.
	Name string `json:"name"`
	Path string `json:"path"`
	// Exists is false when the project has none yet (Name is then the
	// one a save creates).
	Exists bool   `json:"exists"`
	Text   string `json:"text"`
	Size   int64  `json:"size"`
	// Truncated: the file is longer than MaxBytes; requests carry its
	// beginning and the window cannot edit it.
	Truncated bool `json:"truncated,omitempty"`
}

// ErrTooLarge refuses a text over MaxBytes.
var ErrTooLarge = errors.New("the project instructions are larger than 64 KiB; shorten them")

// ErrNotAFile refuses to edit an instruction file that is not a regular
// file of the project (a symbolic link, a folder).
var ErrNotAFile = errors.New("the project instructions are not a regular file of the project folder")

// File returns the project's instruction file (the one requests carry).
func (r *Reader) File() (File, error) {
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return File{}, err
	}
	defer root.Close()
	for _, name := range Names {
		fi, err := root.Lstat(name)
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() {
			return File{Name: name, Path: "@project/" + name, Exists: true}, ErrNotAFile
		}
		m, err := read(root, name, fi.Size())
		if err != nil {
			return File{}, err
		}
		return File{Name: name, Path: m.Path, Exists: true, Text: m.Text, Size: m.Size, Truncated: m.Truncated}, nil
	}
	return File{Name: Names[0], Path: "@project/" + Names[0]}, nil
}

// Save writes text as the project's instruction file (the one that exists,
// else AGENTS.md), atomically, beneath the project folder. An empty text
// is saved as an empty file.
func (r *Reader) Save(text string) (File, error) {
	if len(text) > MaxBytes {
		return File{}, ErrTooLarge
	}
	cur, err := r.File()
	if err != nil {
		return File{}, err
	}
	if cur.Truncated {
		return File{}, ErrTooLarge
	}
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return File{}, err
	}
	defer root.Close()
	tmp := "." + cur.Name + ".tmp-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return File{}, err
	}
	_, werr := f.WriteString(text)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Rename(tmp, cur.Name)
	}
	if werr != nil {
		_ = root.Remove(tmp)
		return File{}, werr
	}
	return r.File()
}

// Instructions is File with its failure coded for the window and the command
// line (InvalidArgument for a file that cannot be edited, ProjectIO else).
func (r *Reader) Instructions() (File, error) {
	f, err := r.File()
	return f, coded(err)
}

// SaveInstructions is Save with its failure coded as Instructions codes it.
func (r *Reader) SaveInstructions(text string) (File, error) {
	f, err := r.Save(text)
	return f, coded(err)
}

func coded(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrNotAFile):
		return errs.Wrap(errs.InvalidArgument, err, err.Error())
	}
	return errs.Wrap(errs.ProjectIO, err, "the project instructions could not be read or written: "+err.Error())
}
