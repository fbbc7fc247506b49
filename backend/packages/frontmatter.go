package packages

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"crewagent/backend/frontmatter"
)

// ErrNoFrontmatter is returned by ParseFrontmatter when the text does not start with a "---" line.
var ErrNoFrontmatter = errors.New("no YAML frontmatter (the file must start with a --- line)")

// SplitFrontmatter separates a leading YAML frontmatter block from the rest of a markdown
// text. The block starts with a first line "---" (after an optional UTF-8 byte order mark)
// and ends with the next line that is "---" or "..."; trailing spaces and CR are ignored on
// both (frontmatter.Lax). found is false (and body is src) when there is no opening line; an
// opening line without a closing one is an error. front and body are sub-slices of src.
func SplitFrontmatter(src []byte) (front, body []byte, found bool, err error) {
	blk := frontmatter.Split(src, frontmatter.Lax)
	switch {
	case blk.Unclosed:
		return nil, nil, true, errors.New("frontmatter starts with --- but has no closing --- line")
	case !blk.Found:
		return nil, src, false, nil
	}
	return blk.YAML, blk.Body, true, nil
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// ParseFrontmatter parses the YAML frontmatter of a markdown text into a mapping whose values
// are JSON-compatible (maps with string keys, slices, strings, bools, numbers, nil) and
// returns the body after it. Text without frontmatter gives ErrNoFrontmatter. Line numbers in
// YAML errors are those of the whole file.
func ParseFrontmatter(src []byte) (fm map[string]any, body []byte, err error) {
	front, body, found, err := SplitFrontmatter(src)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, ErrNoFrontmatter
	}
	v, err := decodeYAML(front)
	if err != nil {
		// The YAML block starts on the second line of the file.
		msg := yamlLineRe.ReplaceAllStringFunc(err.Error(), func(s string) string {
			n, _ := strconv.Atoi(s[len("line "):])
			return "line " + strconv.Itoa(n+1)
		})
		msg = strings.Join(strings.Fields(msg), " ") // one line, even for yaml's multi-error lists
		return nil, nil, fmt.Errorf("frontmatter is not valid YAML: %s", msg)
	}
	if v == nil {
		return map[string]any{}, body, nil
	}
	n, err := frontmatter.ToJSON(v, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("frontmatter: %w", err)
	}
	m, ok := n.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("frontmatter must be a YAML mapping (key: value lines), not %s", describeValue(n))
	}
	return m, body, nil
}

// decodeYAML decodes one YAML document, turning a panic of the decoder into an error.
func decodeYAML(b []byte) (v any, err error) {
	if err := frontmatter.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func describeValue(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return "a number"
	}
}
