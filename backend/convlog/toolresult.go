package convlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Large tool output. A role=tool message whose content is larger than
// Options.LargeOutputThreshold keeps only a preview in the log:
//
//	TOOL_RESULT_PREVIEW (<N> bytes; truncated)
//	<the first Options.PreviewChars characters>
//	…
//	Full output: @state/logs/tool-results/<conversationId>/<messageId>.json
//
// and the full output goes to that file, a JSON object ToolResultFile,
// written atomically before the log line that refers to it.

// PreviewPrefix starts the content of a message whose output was moved to a file.
const PreviewPrefix = "TOOL_RESULT_PREVIEW "

// ToolResultFile is the content of logs/tool-results/<conversationId>/<messageId>.json.
type ToolResultFile struct {
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId"`
	ToolCallID     string `json:"toolCallId"`
	ToolName       string `json:"toolName"`
	Content        string `json:"content"`
}

// externalize moves the content of a large tool result to its file.
func (s *Store) externalize(convID string, e *Entry) error {
	limit := s.opts.LargeOutputThreshold
	if limit < 0 || e.Type != TypeMsg || e.Role != RoleTool || e.Content == nil || len(*e.Content) <= limit || strings.HasPrefix(*e.Content, PreviewPrefix) {
		return nil
	}
	if err := checkMsgID(e.ID); err != nil {
		return err
	}
	full := *e.Content
	rec := ToolResultFile{ConversationID: convID, MessageID: e.ID, ToolCallID: e.ToolCallID, ToolName: e.ToolName, Content: full}
	if err := s.writeToolResult(convID, e.ID, rec); err != nil {
		return err
	}
	alias := ToolResultAlias(convID, e.ID)
	e.Content = Str(preview(full, s.opts.PreviewChars, alias))
	e.FullOutputPath = alias
	return nil
}

func (s *Store) writeToolResult(convID, msgID string, rec ToolResultFile) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("convlog: encoding tool result: %w", err)
	}
	if err := os.MkdirAll(toolResultsDir(s.dir, convID), 0o755); err != nil {
		return fmt.Errorf("convlog: %w", err)
	}
	if _, err := writeFileAtomic(toolResultPath(s.dir, convID, msgID), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("convlog: writing tool result: %w", err)
	}
	return nil
}

// preview builds the content that replaces a large tool output.
func preview(full string, chars int, alias string) string {
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

// copyToolResult copies a tool-result file to another conversation, with the
// conversationId inside rewritten.
func (s *Store) copyToolResult(from, to, msgID string) error {
	data, err := os.ReadFile(toolResultPath(s.dir, from, msgID))
	if err != nil {
		return err
	}
	var rec ToolResultFile
	if json.Unmarshal(data, &rec) == nil {
		rec.ConversationID = to
		return s.writeToolResult(to, msgID, rec)
	}
	if err := os.MkdirAll(toolResultsDir(s.dir, to), 0o755); err != nil {
		return err
	}
	_, err = writeFileAtomic(toolResultPath(s.dir, to, msgID), data, 0o644)
	return err
}
