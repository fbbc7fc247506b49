package compression

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ToolPreviewPrefix starts every tool result rewritten as a preview.
const ToolPreviewPrefix = "TOOL_RESULT_PREVIEW"

// headRunes returns the first n runes of s.
func headRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// tailRunes returns the last n runes of s.
func tailRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// toolStatus reads the outcome of a tool result from its JSON envelope.
func toolStatus(content string) string {
	head := headRunes(content, 200)
	switch {
	case strings.HasPrefix(content, "TOOL_RESULT_INTERRUPTED"):
		return "interrupted"
	case strings.Contains(head, `"ok":false`), strings.Contains(head, `"ok": false`):
		return "error"
	case strings.Contains(head, `"ok":true`), strings.Contains(head, `"ok": true`):
		return "ok"
	}
	return "unknown"
}

// fullOutputPath finds the alias path of an externalised full output.
func fullOutputPath(content string) string {
	const marker = "@state/logs/tool-results/"
	i := strings.LastIndex(content, marker)
	if i < 0 {
		return ""
	}
	j := i
	for j < len(content) && !strings.ContainsRune(" \t\r\n\"'`,)]}", rune(content[j])) {
		j++
	}
	return content[i:j]
}

// previewTool rewrites a long tool result as a preview: tool name, status,
// original size, the first head and last tail characters, and the
// full-output alias path when the result had one. ok is false when the
// result is short enough to stay as it is.
func previewTool(toolName, content string, head, tail, minChars int) (string, bool) {
	n := utf8.RuneCountInString(content)
	if n <= minChars || n <= head+tail+200 || strings.HasPrefix(content, ToolPreviewPrefix) {
		return "", false
	}
	if toolName == "" {
		toolName = "unknown"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n- tool: %s\n- status: %s\n- original: %d chars\n", ToolPreviewPrefix, toolName, toolStatus(content), n)
	b.WriteString(headRunes(content, head))
	fmt.Fprintf(&b, "\n[… %d chars omitted …]\n", n-head-tail)
	b.WriteString(tailRunes(content, tail))
	if p := fullOutputPath(content); p != "" && !strings.Contains(tailRunes(content, tail), p) {
		b.WriteString("\nFull output: " + p)
	}
	return b.String(), true
}

// conclusionWords mark a sentence worth keeping when a long text is cut.
var conclusionWords = []string{"conclusion", "in summary", "summary", "therefore", "overall", "next step", "总结", "结论", "综上", "因此"}

// isBullet reports whether a line is a list item.
func isBullet(line string) bool {
	l := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "• ") {
		return true
	}
	d := 0
	for d < len(l) && l[d] >= '0' && l[d] <= '9' {
		d++
	}
	return d > 0 && d < 4 && d+1 < len(l) && (l[d] == '.' || l[d] == ')') && l[d+1] == ' '
}

// truncateText shortens a long user or assistant text to its first paragraph,
// its bullet lines and its conclusion (a line with a summary word, else the
// last line), with a marker saying how much was kept. ok is false when the
// text is short or the cut would not shrink it.
func truncateText(content string, minChars int) (string, bool) {
	n := utf8.RuneCountInString(content)
	if n <= minChars {
		return "", false
	}
	const (
		paraMax    = 500
		bulletMax  = 10
		lineMax    = 160
		conclusion = 300
	)
	text := strings.TrimSpace(content)
	first, rest := text, ""
	if i := strings.Index(text, "\n\n"); i >= 0 {
		first, rest = text[:i], text[i+2:]
	}
	if utf8.RuneCountInString(first) > paraMax {
		first = headRunes(first, paraMax) + "…"
	}
	var bullets []string
	var concl, last string
	for _, line := range strings.Split(rest, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		last = t
		if isBullet(line) && len(bullets) < bulletMax {
			if utf8.RuneCountInString(t) > lineMax {
				t = headRunes(t, lineMax) + "…"
			}
			bullets = append(bullets, t)
			continue
		}
		lower := strings.ToLower(t)
		for _, w := range conclusionWords {
			if strings.Contains(lower, w) {
				concl = t
				break
			}
		}
	}
	if concl == "" {
		concl = last
	}
	if utf8.RuneCountInString(concl) > conclusion {
		concl = "…" + tailRunes(concl, conclusion)
	}
	var b strings.Builder
	b.WriteString(first)
	if len(bullets) > 0 {
		b.WriteString("\n")
		for _, l := range bullets {
			b.WriteString("\n" + l)
		}
	}
	if concl != "" && !isBullet(concl) {
		b.WriteString("\n\n" + concl)
	}
	kept := utf8.RuneCountInString(b.String())
	fmt.Fprintf(&b, "\n[truncated: kept %d of %d chars]", kept, n)
	out := b.String()
	if utf8.RuneCountInString(out) >= n {
		return "", false
	}
	return out, true
}
