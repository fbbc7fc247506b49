package approval

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"
)

// MaxDiffBytes bounds a request's diff; a longer one is cut with a line that
// says how much was left out.
const MaxDiffBytes = 256 << 10

// IsBinary reports whether content is not text (a NUL byte, or not UTF-8).
func IsBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

// Diff returns the unified diff (three lines of context) that turns old into
// new for the file at path; existed is false for a new file, which is shown
// whole. binary is set (and the diff empty) when either side is not text.
func Diff(path string, old, new []byte, existed bool) (diff string, binary bool) {
	if IsBinary(old) || IsBinary(new) {
		return "", true
	}
	from := path
	if !existed {
		from = "/dev/null"
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(string(old)), B: splitLines(string(new)),
		FromFile: from, ToFile: path, Context: 3,
	})
	if err != nil {
		return "", false
	}
	if len(d) > MaxDiffBytes {
		cut := strings.LastIndexByte(d[:MaxDiffBytes], '\n') + 1
		d = d[:cut] + fmt.Sprintf("… %d more bytes of diff not shown\n", len(d)-cut)
	}
	return d, false
}

// splitLines splits text into lines that keep their line ends; a last line
// without one gets the marker diff tools print.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}
