package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"crewagent/backend/conversation"
)

// Limits of fs.search.
const (
	defaultMaxMatches  = 50
	maxMaxMatches      = 500
	maxContextLines    = 20
	maxFilesScanned    = 5000
	searchMaxFileBytes = 8 << 20
	maxMatchLineBytes  = 400
	maxPatternLen      = 1000
)

// FSSearchParams are the arguments of fs.search.
type FSSearchParams struct {
	Path       string `json:"path"`
	Pattern    string `json:"pattern"`
	Before     *int   `json:"before,omitempty"`
	After      *int   `json:"after,omitempty"`
	MaxMatches *int   `json:"maxMatches,omitempty"`
}

const fsSearchDescription = "Search a file, or every text file under a folder (recursively; .git " +
	"and binary files are skipped), for lines matching a regular expression (RE2 syntax, e.g. " +
	"\"(?i)todo\"). Returns matches with path, line number and text, plus before/after context lines."

const fsSearchSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File or folder to search, e.g. \"@project\"."},
    "pattern": {"type": "string", "description": "Regular expression (RE2 syntax) matched against each line."},
    "before": {"type": "integer", "minimum": 0, "maximum": 20, "description": "Context lines before each match (default 0)."},
    "after": {"type": "integer", "minimum": 0, "maximum": 20, "description": "Context lines after each match (default 0)."},
    "maxMatches": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Most matches to return (default 50)."}
  },
  "required": ["path", "pattern"],
  "additionalProperties": false
}`

// SearchMatch is one matching line.
type SearchMatch struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

type fsSearchResult struct {
	Path          string        `json:"path"`
	Pattern       string        `json:"pattern"`
	Matches       []SearchMatch `json:"matches"`
	MatchCount    int           `json:"matchCount"`
	FilesScanned  int           `json:"filesScanned"`
	Truncated     bool          `json:"truncated"`
	SkippedBinary int           `json:"skippedBinary,omitempty"`
	SkippedLarge  int           `json:"skippedLarge,omitempty"`
	Hint          string        `json:"hint,omitempty"`
}

func fsSearchTool() toolSpec {
	return toolSpec{name: conversation.ToolFSSearch, family: "fs", description: fsSearchDescription, schema: fsSearchSchema, run: runFSSearch}
}

// errSearchDone stops the walk once a limit is reached.
var errSearchDone = errors.New("search limit reached")

type searcher struct {
	h    *Host
	r    Resolved // the searched path
	root *os.Root // its root, open

	re            *regexp.Regexp
	before, after int
	maxMatches    int
	outBudget     int64
	outBytes      int64
	res           fsSearchResult
}

func intArg(p *int, dflt, lo, hi int, name string) (int, *ToolError) {
	if p == nil {
		return dflt, nil
	}
	if *p < lo || *p > hi {
		return 0, errf(CodeBadArguments, "%s must be between %d and %d", name, lo, hi)
	}
	return *p, nil
}

func runFSSearch(ctx context.Context, h *Host, raw json.RawMessage) Result {
	var p FSSearchParams
	if terr := decodePathArgs(raw, &p, &p.Path); terr != nil {
		return failure(terr)
	}
	if p.Pattern == "" {
		return failure(errf(CodeBadArguments, `"pattern" is required`))
	}
	if len(p.Pattern) > maxPatternLen {
		return failure(errf(CodeBadArguments, "pattern is longer than %d bytes", maxPatternLen))
	}
	re, err := regexp.Compile(p.Pattern)
	if err != nil {
		return failure(errf(CodeBadArguments, "invalid pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: ")).
			withDetail("syntax", "RE2 (https://github.com/google/re2/wiki/Syntax)"))
	}
	s := &searcher{re: re, outBudget: h.policy.FS.MaxReadBytes}
	var terr *ToolError
	if s.before, terr = intArg(p.Before, 0, 0, maxContextLines, "before"); terr != nil {
		return failure(terr)
	}
	if s.after, terr = intArg(p.After, 0, 0, maxContextLines, "after"); terr != nil {
		return failure(terr)
	}
	if s.maxMatches, terr = intArg(p.MaxMatches, defaultMaxMatches, 1, maxMaxMatches, "maxMatches"); terr != nil {
		return failure(terr)
	}
	r, fi, terr := h.statRead(p.Path)
	if terr != nil {
		return failure(terr)
	}
	s.res = fsSearchResult{Path: r.Display(), Pattern: p.Pattern, Matches: []SearchMatch{}}
	root, terr := openRoot(r)
	if terr != nil {
		return failure(terr)
	}
	defer root.Close()
	s.h, s.r, s.root = h, r, root
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return failure(errf(CodeBadArguments, "%s is not a regular file", r.Display()))
		}
		if err := s.searchFile(r.rel(), r.Display(), fi.Size()); err != nil && !errors.Is(err, errSearchDone) {
			return failure(fileError(r, err))
		}
		return success(s.finish())
	}
	// The walk goes beneath the root (fs.WalkDir over os.Root's FS): it never follows a
	// folder swapped for a symbolic link out of the root.
	start := filepath.ToSlash(r.rel())
	walkErr := fs.WalkDir(root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == start {
				return err
			}
			return nil // unreadable entries below the root are skipped
		}
		host := filepath.Join(r.Root, filepath.FromSlash(p))
		if p != start && h.sandbox.denied(r.Root, host) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != start {
				return fs.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, start), "/")
		if start == "." {
			rel = p
		}
		display := r.Display() + "/" + rel
		if d.Type()&fs.ModeSymlink != 0 {
			// Followed only when it stays inside the root (os.Root refuses the rest) and
			// is a file; folders are not followed (no cycles).
			if real, err := filepath.EvalSymlinks(host); err != nil || !within(r.Root, real) || h.sandbox.denied(r.Root, real) {
				return nil
			}
		}
		info, err := root.Stat(filepath.FromSlash(p))
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		if s.res.FilesScanned >= maxFilesScanned {
			s.res.Truncated = true
			s.res.Hint = "stopped after scanning the file limit: search a narrower folder"
			return errSearchDone
		}
		return s.searchFile(filepath.FromSlash(p), display, info.Size())
	})
	if walkErr != nil && !errors.Is(walkErr, errSearchDone) {
		if ctx.Err() != nil {
			return failure(errf(CodeInternal, "the search was cancelled"))
		}
		return failure(fileError(r, walkErr))
	}
	return success(s.finish())
}

// read reads a file beneath the root (at most searchMaxFileBytes), checking the opened file
// against the denied areas.
func (s *searcher) read(rel string) ([]byte, bool) {
	f, err := s.root.OpenFile(rel, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	fr := s.r
	fr.hostRel = rel
	if s.h.sandbox.checkOpened(fr, f) != nil {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, searchMaxFileBytes+1))
	if err != nil || len(data) > searchMaxFileBytes {
		return nil, false
	}
	return data, true
}

func (s *searcher) finish() fsSearchResult {
	s.res.MatchCount = len(s.res.Matches)
	if s.res.Truncated && s.res.Hint == "" {
		s.res.Hint = "more matches exist: narrow the path or the pattern, or raise maxMatches"
	}
	return s.res
}

// searchFile scans one file (rel beneath the root); it returns errSearchDone when a limit
// is reached.
func (s *searcher) searchFile(rel, display string, size int64) error {
	if size > searchMaxFileBytes {
		s.res.SkippedLarge++
		return nil
	}
	data, ok := s.read(rel)
	if !ok {
		return nil
	}
	s.res.FilesScanned++
	if isBinary(data) {
		s.res.SkippedBinary++
		return nil
	}
	lines := splitLines(data)
	for i, line := range lines {
		if !s.re.Match(line) {
			continue
		}
		if len(s.res.Matches) >= s.maxMatches {
			s.res.Truncated = true
			return errSearchDone
		}
		m := SearchMatch{Path: display, Line: i + 1, Text: clipLine(line)}
		for j := max(0, i-s.before); j < i; j++ {
			m.Before = append(m.Before, clipLine(lines[j]))
		}
		for j := i + 1; j <= min(len(lines)-1, i+s.after); j++ {
			m.After = append(m.After, clipLine(lines[j]))
		}
		cost := int64(len(m.Path) + len(m.Text) + 32)
		for _, c := range m.Before {
			cost += int64(len(c))
		}
		for _, c := range m.After {
			cost += int64(len(c))
		}
		if s.outBytes+cost > s.outBudget {
			s.res.Truncated = true
			s.res.Hint = "the matches reached the read limit: narrow the path or the pattern"
			return errSearchDone
		}
		s.outBytes += cost
		s.res.Matches = append(s.res.Matches, m)
	}
	return nil
}

// splitLines splits on "\n", dropping the line terminators ("\n" or "\r\n"); a final
// terminator does not start an extra empty line.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte{'\r'})
	}
	return lines
}

func clipLine(b []byte) string {
	s := string(b)
	if len(s) <= maxMatchLineBytes {
		return s
	}
	return s[:runeBoundary(s, maxMatchLineBytes)] + "…"
}
