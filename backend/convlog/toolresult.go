package convlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"crewagent/backend/conversation"
)

// Large tool output: a role=tool message whose content is larger than
// Options.LargeOutputThreshold keeps only a preview in the log
// (conversation.ToolResultPreview, followed by a line saying how to page
// through the readable copy, see pagingHint) and the full output goes to
// logs/tool-results/<conversationId>/<messageId>.json, a ToolResultFile, with
// a readable copy in <messageId>.txt that line ranges page through (see
// ReadableOutput), both written atomically before the log line that refers
// to them.

// externalize moves the content of a large tool result to its file.
func (s *Store) externalize(convID string, e *conversation.Entry) error {
	limit := s.opts.LargeOutputThreshold
	if limit < 0 || e.Type != conversation.TypeMsg || e.Role != conversation.RoleTool || e.Content == nil || len(*e.Content) <= limit || strings.HasPrefix(*e.Content, conversation.PreviewPrefix) {
		return nil
	}
	if err := checkMsgID(e.ID); err != nil {
		return err
	}
	full := *e.Content
	rec := conversation.ToolResultFile{ConversationID: convID, MessageID: e.ID, ToolCallID: e.ToolCallID, ToolName: e.ToolName, Content: full}
	readable := ReadableOutput(full)
	if err := s.writeToolResult(convID, e.ID, rec, readable); err != nil {
		return err
	}
	alias := ToolResultAlias(convID, e.ID)
	e.Content = conversation.Str(preview(full, s.opts.PreviewChars, alias) + pagingHint(ToolResultTextAlias(convID, e.ID), readable))
	e.FullOutputPath = alias
	return nil
}

// ToolResultTextAlias returns the alias path of the readable, line by line copy of a large
// tool result's full output (<messageId>.txt beside <messageId>.json).
func ToolResultTextAlias(conversationID, messageID string) string {
	return conversation.ToolResultAliasPrefix + conversationID + "/" + messageID + ".txt"
}

// pageBytes is about how much of the readable copy one read should take: a page must stay
// under the large-output threshold, or reading it would be moved to a file again.
const pageBytes = 32 << 10

// pagingHint tells the model how to read the readable copy in parts.
func pagingHint(textAlias, readable string) string {
	lines := strings.Count(readable, "\n")
	if !strings.HasSuffix(readable, "\n") {
		lines++
	}
	if len(readable) <= pageBytes {
		return "\nRead it whole: fs.read " + textAlias + " (" + plural(lines, "line") + "), or fs.search it."
	}
	per := max(1, lines*pageBytes/len(readable))
	return "\nRead it in parts: fs.read " + textAlias + " with startLine/endLine (" + plural(lines, "line") +
		"; about " + plural(per, "line") + " per read), or fs.search it."
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Readable copies. ReadableOutput turns a tool's output into text whose lines fs.read can
// page through: JSON is pretty-printed (two-space indent), and a long string value that
// holds line breaks (a file's content in an fs.read result) is written out after the JSON,
// line by line, under a header naming it ("--- /content (N lines) ---"), its place in the
// JSON saying where it went. Anything else is kept as it is. The .json record stays the
// exact output.
func ReadableOutput(content string) string {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return withNewline(content)
	}
	var blocks []unfolded
	v = unfold(v, "", &blocks)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return withNewline(content)
	}
	for _, u := range blocks {
		n := strings.Count(u.text, "\n")
		if !strings.HasSuffix(u.text, "\n") {
			n++
		}
		fmt.Fprintf(&b, "\n--- %s (%d lines) ---\n", u.pointer, n)
		b.WriteString(withNewline(u.text))
	}
	return b.String()
}

// unfoldMin is the size from which a string value with line breaks is written out.
const unfoldMin = 512

type unfolded struct{ pointer, text string }

// unfold replaces the long multi-line strings of v by a note and collects them.
func unfold(v any, pointer string, out *[]unfolded) any {
	switch t := v.(type) {
	case string:
		if len(t) >= unfoldMin && strings.Contains(t, "\n") {
			*out = append(*out, unfolded{pointer: orRoot(pointer), text: t})
			return fmt.Sprintf("(%d bytes, written out below: --- %s)", len(t), orRoot(pointer))
		}
	case map[string]any:
		for k, x := range t {
			t[k] = unfold(x, pointer+"/"+escapePointer(k), out)
		}
	case []any:
		for i, x := range t {
			t[i] = unfold(x, pointer+"/"+strconv.Itoa(i), out)
		}
	}
	return v
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func (s *Store) writeToolResult(convID, msgID string, rec conversation.ToolResultFile, readable string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("convlog: encoding tool result: %w", err)
	}
	if err := os.MkdirAll(toolResultsDir(s.dir, convID), 0o755); err != nil {
		return fmt.Errorf("convlog: %w", err)
	}
	if _, err := writeFileAtomic(toolResultTextPath(s.dir, convID, msgID), []byte(readable), 0o644); err != nil {
		return fmt.Errorf("convlog: writing tool result: %w", err)
	}
	if _, err := writeFileAtomic(toolResultPath(s.dir, convID, msgID), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("convlog: writing tool result: %w", err)
	}
	return nil
}

// preview builds the content that replaces a large tool output.
func preview(full string, chars int, alias string) string {
	return conversation.ToolResultPreview(full, chars, alias)
}

// copyToolResult copies a tool-result file to another conversation, with the
// conversationId inside rewritten.
func (s *Store) copyToolResult(from, to, msgID string) error {
	data, err := os.ReadFile(toolResultPath(s.dir, from, msgID))
	if err != nil {
		return err
	}
	var rec conversation.ToolResultFile
	if json.Unmarshal(data, &rec) == nil {
		rec.ConversationID = to
		return s.writeToolResult(to, msgID, rec, ReadableOutput(rec.Content))
	}
	if err := os.MkdirAll(toolResultsDir(s.dir, to), 0o755); err != nil {
		return err
	}
	_, err = writeFileAtomic(toolResultPath(s.dir, to, msgID), data, 0o644)
	return err
}
