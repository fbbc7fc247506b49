package tools

import (
	"bytes"
	"testing"

	"crewagent/backend/frontmatter"
)

var utf8BOMBefore = []byte{0xEF, 0xBB, 0xBF}

// splitFrontmatterBefore is SplitFrontmatter as it was before it used package
// frontmatter, kept to prove the behaviour did not change. It finds a YAML frontmatter block: the file starts (after an optional BOM) with
// a "---" line and a later line is "---" or "..." (trailing spaces allowed, "\n" or "\r\n").
func splitFrontmatterBefore(b []byte) frontmatter.Block {
	i := 0
	if bytes.HasPrefix(b, utf8BOMBefore) {
		i = len(utf8BOMBefore)
	}
	openEnd, ok := delimiterLineBefore(b, i, "---")
	if !ok {
		return frontmatter.Block{Body: b}
	}
	for pos := openEnd; pos < len(b); {
		end := bytes.IndexByte(b[pos:], '\n')
		lineEnd := len(b)
		if end >= 0 {
			lineEnd = pos + end + 1
		}
		e, ok := delimiterLineBefore(b, pos, "---")
		if !ok {
			e, ok = delimiterLineBefore(b, pos, "...")
		}
		if ok {
			return frontmatter.Block{Open: b[:openEnd], YAML: b[openEnd:pos], Close: b[pos:e], Body: b[e:], Found: true}
		}
		pos = lineEnd
	}
	return frontmatter.Block{Body: b}
}

// delimiterLine reports whether the line at pos is delim followed by optional spaces/tabs
// and a line end (or the end of input), and returns the offset after the line.
func delimiterLineBefore(b []byte, pos int, delim string) (int, bool) {
	if !bytes.HasPrefix(b[pos:], []byte(delim)) {
		return 0, false
	}
	j := pos + len(delim)
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	switch {
	case j == len(b):
		return j, true
	case b[j] == '\n':
		return j + 1, true
	case b[j] == '\r' && j+1 < len(b) && b[j+1] == '\n':
		return j + 2, true
	}
	return 0, false
}

// Frontmatter update operations (one per key of the update object).

// SplitFrontmatter behaves exactly as before it used package frontmatter.
func FuzzSplitFrontmatterAsBefore(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nbody\n", "---\na: 1\n...\nb", "---\n---", "---", "---\r", "--- \r \n---\r", "---\r\na\r\n---\r\nb", "\xEF\xBB\xBF---\na\n---\n", "\xEF\xBB\xBF# no", "----\n---\n", "---\na\n---\r \nb", "---\n\n", "", "x", "---\na\n ---\n...  \t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, want := SplitFrontmatter(b), splitFrontmatterBefore(b)
		if got.Found != want.Found || !bytes.Equal(got.Open, want.Open) || !bytes.Equal(got.YAML, want.YAML) || !bytes.Equal(got.Close, want.Close) || !bytes.Equal(got.Body, want.Body) {
			t.Fatalf("SplitFrontmatter(%q) = %+v, before %+v", b, got, want)
		}
	})
}
