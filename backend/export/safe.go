package export

import (
	"regexp"
	"strings"
)

// Text from the model, the user, servers and titles goes into the Markdown
// export as Markdown, and a viewer that renders it may render HTML and
// follow links. Outside code (fenced blocks and code spans, which no viewer
// runs), safeMarkdown therefore escapes "<" (no tag, comment or autolink
// can start), "&" where it would start a character reference (so no
// reference can spell a "<" or a scheme), and gives link destinations with
// an unsafe scheme (javascript:, vbscript:, data:, also written with
// backslash escapes) the harmless scheme "unsafe:". Code keeps every
// character; a fenced block left open is closed.

// safeMarkdown makes Markdown text safe to render (see above).
func safeMarkdown(s string) string {
	if !strings.ContainsAny(s, "<&:") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	lines := strings.SplitAfter(s, "\n")
	var prose []string // lines outside fenced blocks, not yet written
	flush := func() {
		if len(prose) > 0 {
			b.WriteString(safeProse(strings.Join(prose, "")))
			prose = prose[:0]
		}
	}
	fenceChar, fenceLen := byte(0), 0
	for _, line := range lines {
		c, n, rest := fenceOf(line)
		switch {
		case fenceLen == 0 && n >= 3 && !(c == '`' && strings.ContainsRune(rest, '`')):
			flush()
			fenceChar, fenceLen = c, n
			b.WriteString(line)
		case fenceLen > 0:
			b.WriteString(line)
			if c == fenceChar && n >= fenceLen && strings.TrimSpace(rest) == "" {
				fenceChar, fenceLen = 0, 0
			}
		default:
			prose = append(prose, line)
		}
	}
	flush()
	if fenceLen > 0 {
		// A block left open would take in what the export writes after it.
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString(strings.Repeat(string(fenceChar), fenceLen))
	}
	return b.String()
}

// fenceOf reads a code fence at the start of line (at most three spaces of
// indentation): its character, its length (0 when it is not one) and what
// follows it.
func fenceOf(line string) (byte, int, string) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, ""
	}
	c, j := line[i], i
	for j < len(line) && line[j] == c {
		j++
	}
	if j-i < 3 {
		return 0, 0, ""
	}
	return c, j - i, line[j:]
}

// safeProse is safeMarkdown for text without fenced blocks: code spans are
// kept, the rest is made safe.
func safeProse(s string) string {
	var b strings.Builder
	last := 0 // what is written up to
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := run(s, i, '`')
		end := closingRun(s, i+n, n)
		if end < 0 {
			i += n // literal backticks
			continue
		}
		b.WriteString(safeText(s[last:i]))
		b.WriteString(s[i : end+n])
		i, last = end+n, end+n
	}
	b.WriteString(safeText(s[last:]))
	return b.String()
}

// run is the length of the run of c at s[i:].
func run(s string, i int, c byte) int {
	j := i
	for j < len(s) && s[j] == c {
		j++
	}
	return j - i
}

// closingRun finds a run of exactly n backticks from s[i:] (-1 if none).
func closingRun(s string, i, n int) int {
	for i < len(s) {
		if s[i] != '`' {
			i++
			continue
		}
		m := run(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

var (
	charRef = regexp.MustCompile(`&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});`)
	// linkStart matches where a link destination starts: after "](" of an
	// inline link or image, or after the label of a reference definition.
	linkStart = regexp.MustCompile(`(?m)(\]\([ \t]*\n?[ \t]*|^[ ]{0,3}\[[^\]\n]+\]:[ \t]*\n?[ \t]*)`)
	// scheme is a URL scheme, letters possibly escaped with backslashes.
	scheme = regexp.MustCompile(`^(?:\\?[A-Za-z0-9+.\-])+\\?:`)
)

// unsafeSchemes are the schemes whose links run code or carry documents.
var unsafeSchemes = map[string]bool{"javascript": true, "vbscript": true, "data": true}

// safeText makes prose (no code) safe: "<" and character references
// escaped, unsafe link schemes neutralised.
func safeText(s string) string {
	s = charRef.ReplaceAllString(s, "&amp;$1;")
	s = strings.ReplaceAll(s, "<", "&lt;")
	if !strings.Contains(s, ":") {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range linkStart.FindAllStringIndex(s, -1) {
		at := m[1]
		sch := scheme.FindString(s[at:])
		if sch == "" {
			continue
		}
		name := strings.ToLower(strings.TrimSuffix(strings.ReplaceAll(sch, `\`, ""), ":"))
		if !unsafeSchemes[name] {
			continue
		}
		b.WriteString(s[last:at])
		b.WriteString("unsafe:")
		last = at
	}
	b.WriteString(s[last:])
	return b.String()
}
