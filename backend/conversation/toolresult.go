package conversation

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Large tool output. A role=tool message whose output is too large for the
// log keeps only a preview of it as its content:
//
//	TOOL_RESULT_PREVIEW (<N> bytes; truncated)
//	<the first characters of the output>
//	…
//	Full output: @state/logs/tool-results/<conversationId>/<messageId>.json
//	Read it in parts: fs.read @state/logs/tool-results/<conversationId>/<messageId>.txt with startLine/endLine (<L> lines; about <K> lines per read), or fs.search it.
//
// and the full output goes to a file, a ToolResultFile, named by that alias
// (the store adds the last line, about a readable copy of the output beside
// it, <messageId>.txt, that fs.read pages through by lines).

// PreviewPrefix starts the content of a message whose output was moved to a file.
const PreviewPrefix = "TOOL_RESULT_PREVIEW "

// ToolResultAliasPrefix is the alias under which tools see externalised tool
// output: <prefix><conversationId>/<messageId>.json (and .txt, the readable copy).
const ToolResultAliasPrefix = "@state/logs/tool-results/"

// ToolResultFile is the file that holds the full output of a large tool result.
type ToolResultFile struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"`
	ToolCallID     string `json:"toolCallId"`
	ToolName       string `json:"toolName"`
	Content        string `json:"content"`
}

// ToolResultPreview builds the content that replaces a large output full: its
// first chars characters (invalid UTF-8 replaced) and the alias of its file.
func ToolResultPreview(full string, chars int, alias string) string {
	cut := len(full)
	n := 0
	for i := range full {
		if n == chars {
			cut = i
			break
		}
		n++
	}
	head := strings.ToValidUTF8(full[:cut], string(utf8.RuneError))
	var b strings.Builder
	b.Grow(len(head) + len(alias) + 64)
	b.WriteString(PreviewPrefix)
	b.WriteString("(" + strconv.Itoa(len(full)) + " bytes; truncated)\n")
	b.WriteString(head)
	if !strings.HasSuffix(head, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("…\nFull output: ")
	b.WriteString(alias)
	return b.String()
}

// ParseToolResultPreview reads a preview ToolResultPreview wrote (with or
// without the store's line about reading it in parts): the size of the full
// output in bytes, its first characters, and the alias of the file that
// holds it. ok is false for content that is not a preview.
func ParseToolResultPreview(content string) (head string, size int, alias string, ok bool) {
	rest, found := strings.CutPrefix(content, PreviewPrefix+"(")
	if !found {
		return "", 0, "", false
	}
	n, rest, found := strings.Cut(rest, " bytes")
	if !found {
		return "", 0, "", false
	}
	size, err := strconv.Atoi(n)
	if err != nil || size < 0 {
		return "", 0, "", false
	}
	_, body, found := strings.Cut(rest, "\n")
	if !found {
		return "", 0, "", false
	}
	if i := strings.LastIndex(body, "\nFull output: "); i >= 0 {
		alias, _, _ = strings.Cut(body[i+len("\nFull output: "):], "\n")
		alias = strings.TrimSpace(alias)
		body = body[:i]
	}
	body = strings.TrimSuffix(strings.TrimSuffix(body, "…"), "\n")
	return body, size, alias, true
}
