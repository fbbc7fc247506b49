package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"crewagent/backend/errs"
)

// Reading files through the sandbox for the application (the window's
// read-only views, the saved outputs of tool calls), beneath its root: a
// folder swapped for a symbolic link after the path was checked cannot lead
// the read outside.

// AppError turns a refusal of the sandbox into an error of the application:
// a path that leaves its root is E_ARTIFACT_PATH, a missing one wraps
// fs.ErrNotExist.
func AppError(terr *ToolError) error {
	switch terr.Code {
	case CodeNotFound:
		return fmt.Errorf("%s: %w", terr.Message, fs.ErrNotExist)
	case CodeSandboxViolation, CodeBadArguments: // outside the root; a folder, a FIFO or a device
		return errs.New(errs.ArtifactPath, terr.Message)
	}
	return errs.New(errs.Internal, terr.Message)
}

// openRegular opens a regular file by its alias for reading.
func (s *Sandbox) openRegular(alias string) (*os.File, fs.FileInfo, Resolved, error) {
	r, terr := s.Resolve(alias, AccessRead)
	if terr != nil {
		return nil, nil, r, AppError(terr)
	}
	f, fi, terr := s.Open(r)
	if terr != nil {
		return nil, nil, r, AppError(terr)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, r, errs.Errorf(errs.ArtifactPath, "%s is not a file", r.Display())
	}
	return f, fi, r, nil
}

// ReadFile reads a file by its alias.
func (s *Sandbox) ReadFile(alias string) ([]byte, error) {
	f, _, _, err := s.openRegular(alias)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadFileAtMost is ReadFile for a file of at most max bytes: a larger one
// is refused by its size, and never read past max+1 bytes (a file that
// grows while it is read included).
func (s *Sandbox) ReadFileAtMost(alias string, max int64) ([]byte, error) {
	f, fi, r, err := s.openRegular(alias)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func() error {
		return fmt.Errorf("%s is larger than %d KB", r.Display(), max>>10)
	}
	if fi.Size() > max {
		return nil, tooLarge()
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooLarge()
	}
	return b, nil
}

// MaxViewBytes is the most ReadView reads of a file.
const MaxViewBytes = 2 << 20

// FileView is a project file shown read-only (an artifact of a run).
type FileView struct {
	// Path is project-relative, slash-separated.
	Path string `json:"path"`
	// Content is the text (the first 2 MB when Truncated; empty for Binary).
	Content    string `json:"content"`
	Size       int64  `json:"size"`
	Truncated  bool   `json:"truncated"`
	Binary     bool   `json:"binary"`
	ModifiedAt string `json:"modifiedAt"`
}

// viewError says why a file cannot be shown: it is missing, or it leads
// outside the project folder.
func viewError(err error, display string) error {
	if errors.Is(err, os.ErrNotExist) {
		return errs.Errorf(errs.NotFound, "%s does not exist in the project (it may have been moved or deleted)", display)
	}
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ArtifactPath {
		return errs.Wrap(errs.ArtifactPath, err, fmt.Sprintf("%s leads outside the project folder", display))
	}
	return err
}

// ReadView reads a file of the project by its project-relative path (as
// runs list their artifacts) for a read-only view: paths that leave the
// project folder, also through symbolic links, fail with E_ARTIFACT_PATH; a
// missing file with E_NOT_FOUND.
func (s *Sandbox) ReadView(path string) (FileView, error) {
	rel := filepath.FromSlash(strings.TrimSpace(path))
	if rel == "" || !filepath.IsLocal(rel) {
		return FileView{}, errs.Errorf(errs.ArtifactPath, "%q is not a path inside the project", path)
	}
	display := filepath.ToSlash(filepath.Clean(rel))
	r, terr := s.Resolve("@project/"+display, AccessRead)
	if terr != nil {
		return FileView{}, viewError(AppError(terr), display)
	}
	f, st, terr := s.Open(r)
	if terr != nil {
		return FileView{}, viewError(AppError(terr), display)
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		return FileView{}, errs.Errorf(errs.ArtifactPath, "%s is not a file", display)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxViewBytes+1))
	if err != nil {
		return FileView{}, err
	}
	out := FileView{Path: display, Size: st.Size(), ModifiedAt: st.ModTime().UTC().Format(time.RFC3339)}
	if len(data) > MaxViewBytes {
		data, out.Truncated = TrimPartialRune(data[:MaxViewBytes]), true
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		out.Binary = true
		return out, nil
	}
	out.Content = string(data)
	return out, nil
}

// TrimPartialRune drops an incomplete UTF-8 sequence at the end of b (where
// a cut fell inside a character).
func TrimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}
