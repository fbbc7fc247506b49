// Package frontmatter finds the YAML frontmatter at the top of a markdown
// text and decodes YAML without letting the decoder's panics through: the one
// splitter of package files (packages), SKILL.md files (skills) and the run
// state the tools edit (tools).
package frontmatter

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// BOM is the UTF-8 byte order mark a text may start with.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// Block is a text split around its leading frontmatter. Open, YAML, Close
// and Body concatenated are the input, byte for byte.
type Block struct {
	// Open is the optional byte order mark and the opening "---" line with
	// its line end.
	Open []byte
	// YAML is the text between the delimiter lines.
	YAML []byte
	// Close is the closing "---" or "..." line with its line end, if any.
	Close []byte
	// Body is everything after the closing line; the whole input when the
	// text has no complete block (Open, YAML and Close are then nil).
	Body []byte
	// Found is true when the text starts with an opening line and a closing
	// line follows.
	Found bool
	// Unclosed is true when the text starts with an opening line but no
	// closing line follows.
	Unclosed bool
}

// CRLF reports whether the block's opening line ends with "\r\n".
func (b Block) CRLF() bool { return bytes.HasSuffix(b.Open, []byte("\r\n")) }

// LineEnds says what may follow the "---" or "..." of a delimiter line.
type LineEnds int

const (
	// Strict: spaces and tabs, then "\n", "\r\n" or the end of the text.
	Strict LineEnds = iota
	// Lax: spaces, tabs and carriage returns in any order, then "\n" or the
	// end of the text.
	Lax
)

// Split finds the frontmatter of b: after an optional byte order mark, a
// first line "---", up to the next line that is "---" or "..." (what may
// follow them on their line: ends).
func Split(b []byte, ends LineEnds) Block {
	i := 0
	if bytes.HasPrefix(b, BOM) {
		i = len(BOM)
	}
	openEnd, ok := delimiter(b, i, "---", ends)
	if !ok {
		return Block{Body: b}
	}
	for pos := openEnd; pos < len(b); {
		lineEnd := len(b)
		if nl := bytes.IndexByte(b[pos:], '\n'); nl >= 0 {
			lineEnd = pos + nl + 1
		}
		e, ok := delimiter(b, pos, "---", ends)
		if !ok {
			e, ok = delimiter(b, pos, "...", ends)
		}
		if ok {
			return Block{Open: b[:openEnd], YAML: b[openEnd:pos], Close: b[pos:e], Body: b[e:], Found: true}
		}
		pos = lineEnd
	}
	return Block{Body: b, Unclosed: true}
}

// delimiter reports whether the line at pos is delim followed by what ends
// allows, and returns the offset after the line.
func delimiter(b []byte, pos int, delim string, ends LineEnds) (int, bool) {
	if !bytes.HasPrefix(b[pos:], []byte(delim)) {
		return 0, false
	}
	j := pos + len(delim)
	for j < len(b) && (b[j] == ' ' || b[j] == '\t' || (ends == Lax && b[j] == '\r')) {
		j++
	}
	switch {
	case j == len(b):
		return j, true
	case b[j] == '\n':
		return j + 1, true
	case ends == Strict && b[j] == '\r' && j+1 < len(b) && b[j+1] == '\n':
		return j + 2, true
	}
	return 0, false
}

// Unmarshal decodes YAML into v (yaml.Unmarshal), turning a panic of the
// decoder into an error ("yaml: …").
func Unmarshal(b []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(b, v)
}
