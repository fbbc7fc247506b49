package packages

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"crewagent/backend/errs"
)

// Limits bounds what an import may unpack. Every violation is reported as a problem.
type Limits struct {
	MaxFiles     int   // files in the package
	MaxFileSize  int64 // bytes per file, uncompressed
	MaxTotalSize int64 // bytes of all files, uncompressed
	MaxRatio     int64 // largest uncompressed/compressed ratio of one archive entry
	RatioMinSize int64 // entries up to this many uncompressed bytes skip the ratio check
}

// DefaultLimits are the limits NewManager uses: 5000 files, 20 MiB per file, 100 MiB in
// total, and a compression ratio of at most 100:1 for entries over 1 MiB.
func DefaultLimits() Limits {
	return Limits{
		MaxFiles:     5000,
		MaxFileSize:  20 << 20,
		MaxTotalSize: 100 << 20,
		MaxRatio:     100,
		RatioMinSize: 1 << 20,
	}
}

// entry is one file or folder of an import source.
type entry struct {
	raw  string // name as in the source (used in problems)
	name string // clean package-relative slash path
	dir  bool
	size int64 // declared uncompressed size
	open func() (io.ReadCloser, error)
}

// source is an opened archive or folder whose entries passed the safety checks.
type source struct {
	entries []entry
	close   func() error
}

// problemList collects problems in order.
type problemList []Problem

func (l *problemList) add(file, pointer, format string, args ...any) {
	*l = append(*l, Problem{File: file, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// say adds a problem whose message is a template of errs.Messages.
func (l *problemList) say(file, pointer, key string, params errs.Params) {
	*l = append(*l, Problem{File: file, Pointer: pointer, Message: errs.Text(key, params), Key: key, Params: params})
}

// openSource opens path as a folder or as a .bmad/.zip archive and runs the safety checks.
// Problems with the input come back as a CodeInvalid error (ProblemsOf); other failures (the path cannot be
// opened) as plain errors.
func openSource(p string, lim Limits) (*source, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("cannot open package %s: %w", p, err)
	}
	if st.IsDir() {
		return openFS(os.DirFS(p), lim)
	}
	return openZip(p, st.Size(), lim)
}

func openZip(p string, size int64, lim Limits) (*source, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("cannot open package %s: %w", p, err)
	}
	zr, err := zip.NewReader(f, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		f.Close()
		return nil, validationError([]Problem{{
			File:    filepath.Base(p),
			Message: fmt.Sprintf("not a valid .bmad/.zip archive (%v)", err),
		}}, nil)
	}
	var probs problemList
	var entries []entry
	for _, zf := range zr.File {
		raw := zf.Name
		name, msg := cleanEntryName(raw)
		if msg != "" {
			probs.add(raw, "", "%s", msg)
			continue
		}
		mode := zf.Mode()
		isDir := strings.HasSuffix(strings.ReplaceAll(raw, `\`, "/"), "/") || mode.IsDir()
		switch {
		case mode&fs.ModeSymlink != 0:
			probs.say(raw, "", "pkg.symlink", nil)
			continue
		case !isDir && !mode.IsRegular():
			probs.add(raw, "", "only regular files and folders are allowed (this entry is a %s)", modeKind(mode))
			continue
		}
		if name == "" {
			continue // the archive root itself
		}
		if isDir {
			entries = append(entries, entry{raw: raw, name: name, dir: true})
			continue
		}
		bad := false
		if zf.Flags&0x1 != 0 {
			probs.say(raw, "", "pkg.encrypted", nil)
			bad = true
		}
		if zf.Method != zip.Store && zf.Method != zip.Deflate {
			probs.add(raw, "", "unsupported compression method %d (use deflate or store)", zf.Method)
			bad = true
		}
		usize, csize := zf.UncompressedSize64, zf.CompressedSize64
		if usize > uint64(lim.MaxFileSize) {
			probs.say(raw, "", "pkg.fileTooLargeUncompressed", errs.Params{"size": usize, "limit": lim.MaxFileSize})
			bad = true
		}
		if usize > uint64(lim.RatioMinSize) && (csize == 0 || usize/csize > uint64(lim.MaxRatio)) {
			ratio := "unbounded"
			if csize > 0 {
				ratio = fmt.Sprintf("%d:1", usize/csize)
			}
			probs.add(raw, "", "compression ratio %s exceeds the limit of %d:1 (possible zip bomb)", ratio, lim.MaxRatio)
			bad = true
		}
		if bad {
			continue
		}
		zf := zf
		entries = append(entries, entry{
			raw:  raw,
			name: name,
			size: int64(usize),
			open: func() (io.ReadCloser, error) { return zf.Open() },
		})
	}
	entries = checkEntries(entries, lim, &probs)
	if len(probs) > 0 {
		f.Close()
		return nil, validationError(probs, nil)
	}
	return &source{entries: entries, close: f.Close}, nil
}

// openFS reads a folder (or an embedded tree). Symbolic links and special files are refused.
func openFS(fsys fs.FS, lim Limits) (*source, error) {
	var probs problemList
	var entries []entry
	files := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			probs.add(p, "", "cannot read: %v", err)
			if d != nil && d.IsDir() && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		if p == "." {
			return nil
		}
		t := d.Type()
		switch {
		case t&fs.ModeSymlink != 0:
			probs.say(p, "", "pkg.symlink", nil)
			return nil
		case d.IsDir():
			entries = append(entries, entry{raw: p, name: p, dir: true})
			return nil
		case !t.IsRegular():
			probs.add(p, "", "only regular files and folders are allowed (this entry is a %s)", modeKind(t))
			return nil
		}
		files++
		if files > lim.MaxFiles {
			// checkEntries reports the count; stop walking a folder that is far too big.
			return fs.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			probs.add(p, "", "cannot read: %v", err)
			return nil
		}
		if info.Size() > lim.MaxFileSize {
			probs.say(p, "", "pkg.fileTooLarge", errs.Params{"size": info.Size(), "limit": lim.MaxFileSize})
			return nil
		}
		name := p
		entries = append(entries, entry{
			raw:  p,
			name: p,
			size: info.Size(),
			open: func() (io.ReadCloser, error) { return fsys.Open(name) },
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if files > lim.MaxFiles {
		probs.say("", "", "pkg.tooManyFiles", errs.Params{"limit": lim.MaxFiles})
	}
	entries = checkEntries(entries, lim, &probs)
	if len(probs) > 0 {
		return nil, validationError(probs, nil)
	}
	return &source{entries: entries, close: func() error { return nil }}, nil
}

// checkEntries drops ignorable entries, strips a single top-level folder and reports
// duplicates, file/folder clashes and limit violations.
func checkEntries(entries []entry, lim Limits, probs *problemList) []entry {
	kept := entries[:0]
	for _, e := range entries {
		if ignorable(e.name) {
			continue
		}
		kept = append(kept, e)
	}
	entries = stripTopFolder(kept)

	seen := map[string]entry{}
	dirs := map[string]bool{}
	files := map[string]string{}
	var total int64
	count := 0
	for _, e := range entries {
		key := strings.ToLower(e.name)
		if prev, dup := seen[key]; dup {
			if !(prev.dir && e.dir) {
				if prev.name == e.name {
					probs.say(e.raw, "", "pkg.duplicateEntry", nil)
				} else {
					probs.say(e.raw, "", "pkg.duplicateEntryCase", errs.Params{"other": prev.raw})
				}
			}
			continue
		}
		seen[key] = e
		if e.dir {
			dirs[key] = true
			continue
		}
		files[key] = e.raw
		count++
		total += e.size
	}
	// A file cannot also be a folder (e.g. "steps" and "steps/a.md").
	for _, e := range entries {
		key := strings.ToLower(e.name)
		for dir := path.Dir(key); dir != "."; dir = path.Dir(dir) {
			if raw, ok := files[dir]; ok {
				probs.add(e.raw, "", "its parent folder %q is also a file in the package", raw)
				break
			}
		}
	}
	if count > lim.MaxFiles {
		probs.add("", "", "the package has %d files; the limit is %d", count, lim.MaxFiles)
	}
	if total > lim.MaxTotalSize {
		probs.add("", "", "the package is %d bytes uncompressed; the limit is %d bytes", total, lim.MaxTotalSize)
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	return entries
}

// ignorable reports entries that archivers add and packages never need.
func ignorable(name string) bool {
	return name == "__MACOSX" || strings.HasPrefix(name, "__MACOSX/") || path.Base(name) == ".DS_Store"
}

// stripTopFolder removes a single top-level folder that holds everything (an archive made by
// compressing the package folder itself), unless bmad.json is already at the root.
func stripTopFolder(entries []entry) []entry {
	top := ""
	for _, e := range entries {
		if e.name == "bmad.json" {
			return entries
		}
		first, _, nested := strings.Cut(e.name, "/")
		if !nested && !e.dir {
			return entries
		}
		if top == "" {
			top = first
		} else if top != first {
			return entries
		}
	}
	if top == "" {
		return entries
	}
	out := entries[:0]
	for _, e := range entries {
		if e.name == top {
			continue
		}
		e.name = strings.TrimPrefix(e.name, top+"/")
		out = append(out, e)
	}
	return out
}

// cleanEntryName turns an archive entry name into a clean relative slash path, or says why
// it is unsafe. Backslashes count as separators. The archive root gives "".
func cleanEntryName(raw string) (string, string) {
	if raw == "" {
		return "", "empty entry name"
	}
	for _, r := range raw {
		if r < 0x20 || r == 0x7f {
			return "", "entry name contains control characters"
		}
	}
	s := strings.ReplaceAll(raw, `\`, "/")
	if strings.HasPrefix(s, "/") {
		return "", "absolute paths are not allowed in a package"
	}
	if len(s) >= 2 && s[1] == ':' && (s[0]|0x20) >= 'a' && (s[0]|0x20) <= 'z' {
		return "", "absolute paths (drive letters) are not allowed in a package"
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			return "", "path escapes the package (contains \"..\")"
		}
	}
	c := path.Clean(s)
	if c == "." {
		return "", ""
	}
	return c, ""
}

func modeKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	default:
		return "special file"
	}
}

// extract writes the entries under dst. Content problems (corrupt or oversized data) come back
// as a CodeInvalid error (ProblemsOf); failures to write as plain errors.
func extract(src *source, dst string, lim Limits) error {
	var probs problemList
	var total int64
	for _, e := range src.entries {
		target := filepath.Join(dst, filepath.FromSlash(e.name))
		if rel, err := filepath.Rel(dst, target); err != nil || !filepath.IsLocal(rel) {
			probs.say(e.raw, "", "pkg.escapes", nil)
			continue
		}
		if e.dir {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("unpacking %s: %w", e.raw, err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("unpacking %s: %w", e.raw, err)
		}
		limit := lim.MaxFileSize
		if rest := lim.MaxTotalSize - total; rest < limit {
			limit = rest
		}
		n, msg, err := copyEntry(e, target, limit)
		if err != nil {
			return err
		}
		total += n
		switch {
		case msg != "":
			probs.add(e.raw, "", "%s", msg)
		case n > limit && limit == lim.MaxFileSize:
			probs.add(e.raw, "", "file is larger than %d bytes, the limit per file", lim.MaxFileSize)
		case n > limit:
			probs.add(e.raw, "", "the package is larger than %d bytes uncompressed, the limit", lim.MaxTotalSize)
		}
		if n > limit {
			break
		}
	}
	if len(probs) > 0 {
		return validationError(probs, nil)
	}
	return nil
}

// copyEntry copies at most limit+1 bytes of e to a new file at target. msg describes a read
// failure of the entry; err a failure to write.
func copyEntry(e entry, target string, limit int64) (n int64, msg string, err error) {
	rc, err := e.open()
	if err != nil {
		return 0, fmt.Sprintf("cannot read entry: %v", err), nil
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, "", fmt.Errorf("unpacking %s: %w", e.raw, err)
	}
	w := &errWriter{w: out}
	n, rerr := io.Copy(w, io.LimitReader(rc, limit+1))
	if cerr := out.Close(); cerr != nil && w.err == nil {
		w.err = cerr
	}
	if w.err != nil {
		return n, "", fmt.Errorf("unpacking %s: %w", e.raw, w.err)
	}
	if rerr != nil {
		if errors.Is(rerr, zip.ErrFormat) {
			return n, "entry holds more data than its header declares, or is corrupt (possible zip bomb)", nil
		}
		return n, fmt.Sprintf("cannot read entry: %v", rerr), nil
	}
	return n, "", nil
}

// errWriter remembers the first write error so it can be told apart from read errors.
type errWriter struct {
	w   io.Writer
	err error
}

func (ew *errWriter) Write(p []byte) (int, error) {
	n, err := ew.w.Write(p)
	if err != nil && ew.err == nil {
		ew.err = err
	}
	return n, err
}
