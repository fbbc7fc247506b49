package skills

import (
	"fmt"
	"strings"
	"testing"
)

// splitFrontmatterBefore is splitFrontmatter as it was before it used package
// frontmatter, kept to prove the behaviour did not change. It splits text (line ends already "\n") around a leading
// "---" block closed by a "---" or "..." line.
func splitFrontmatterBefore(text string) (front, body string, found bool, err error) {
	first, rest, ok := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", text, false, nil
	}
	if !ok {
		return "", "", true, fmt.Errorf("the frontmatter starts with --- but has no closing --- line")
	}
	pos := 0
	for pos <= len(rest) {
		line, _, _ := strings.Cut(rest[pos:], "\n")
		t := strings.TrimRight(line, " \t")
		if t == "---" || t == "..." {
			end := pos + len(line)
			if end < len(rest) {
				end++
			}
			return rest[:pos], rest[end:], true, nil
		}
		if pos+len(line) >= len(rest) {
			break
		}
		pos += len(line) + 1
	}
	return "", "", true, fmt.Errorf("the frontmatter starts with --- but has no closing --- line")
}

// splitFrontmatter behaves exactly as before it used package frontmatter, on
// the text Parse gives it (line ends normalised, no byte order mark).
func FuzzSplitFrontmatterAsBefore(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nbody\n", "---\na: 1\n...\nb", "---\n---", "---", "---\r", "--- \r \n---\r", "---\r\na\r\n---\r\nb", "\xEF\xBB\xBF---\na\n---\n", "\xEF\xBB\xBF# no", "----\n---\n", "---\na\n---\r \nb", "---\n\n", "", "x", "---\na\n ---\n...  \t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text := normalizeLineEnds([]byte(strings.TrimPrefix(string(data), "\xEF\xBB\xBF")))
		front, body, found, err := splitFrontmatter(text)
		wfront, wbody, wfound, werr := splitFrontmatterBefore(text)
		if front != wfront || body != wbody || found != wfound || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("splitFrontmatter(%q) = %q %q %v %v, before %q %q %v %v", text, front, body, found, err, wfront, wbody, wfound, werr)
		}
	})
}
