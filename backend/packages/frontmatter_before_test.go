package packages

import (
	"bytes"
	"errors"
	"testing"
)

var utf8BOMBefore = []byte("\xEF\xBB\xBF")

// splitFrontmatterBefore is SplitFrontmatter as it was before it used package
// frontmatter, kept to prove the behaviour did not change. It separates a leading YAML frontmatter block from the rest of a markdown
// text. The block starts with a first line "---" (after an optional UTF-8 byte order mark)
// and ends with the next line that is "---" or "..."; trailing spaces and CR are ignored on
// both. found is false (and body is src) when there is no opening line; an opening line
// without a closing one is an error. front and body are sub-slices of src.
func splitFrontmatterBefore(src []byte) (front, body []byte, found bool, err error) {
	rest := bytes.TrimPrefix(src, utf8BOMBefore)
	line, after, ok := cutLineBefore(rest)
	if !isFenceBefore(line, false) {
		return nil, src, false, nil
	}
	if !ok {
		return nil, nil, true, errors.New("frontmatter starts with --- but has no closing --- line")
	}
	start := after
	cur := after
	for len(cur) > 0 {
		line, next, _ := cutLineBefore(cur)
		if isFenceBefore(line, true) {
			front = start[:len(start)-len(cur)]
			return front, next, true, nil
		}
		cur = next
	}
	return nil, nil, true, errors.New("frontmatter starts with --- but has no closing --- line")
}

// cutLine returns the first line of b (without its newline), the rest after the newline, and
// whether a newline was found.
func cutLineBefore(b []byte) (line, rest []byte, ok bool) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:], true
	}
	return b, nil, false
}

func isFenceBefore(line []byte, closing bool) bool {
	t := bytes.TrimRight(line, " \t\r")
	if string(t) == "---" {
		return true
	}
	return closing && string(t) == "..."
}

// SplitFrontmatter behaves exactly as before it used package frontmatter.
func FuzzSplitFrontmatterAsBefore(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nbody\n", "---\na: 1\n...\nb", "---\n---", "---", "---\r", "--- \r \n---\r", "---\r\na\r\n---\r\nb", "\xEF\xBB\xBF---\na\n---\n", "\xEF\xBB\xBF# no", "----\n---\n", "---\na\n---\r \nb", "---\n\n", "", "x", "---\na\n ---\n...  \t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		front, body, found, err := SplitFrontmatter(src)
		wfront, wbody, wfound, werr := splitFrontmatterBefore(src)
		if !bytes.Equal(front, wfront) || !bytes.Equal(body, wbody) || found != wfound || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("SplitFrontmatter(%q) = %q %q %v %v, before %q %q %v %v", src, front, body, found, err, wfront, wbody, wfound, werr)
		}
	})
}
