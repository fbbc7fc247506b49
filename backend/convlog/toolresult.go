package convlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"crewagent/backend/conversation"
)

// Large tool output: a role=tool message whose content is larger than
// Options.LargeOutputThreshold keeps only a preview in the log
// (conversation.ToolResultPreview) and the full output goes to
// logs/tool-results/<conversationId>/<messageId>.json, a ToolResultFile,
// written atomically before the log line that refers to it.

// PreviewPrefix starts the content of a message whose output was moved to a
// file (conversation.PreviewPrefix).
const PreviewPrefix = conversation.PreviewPrefix

// ToolResultFile is the content of logs/tool-results/<conversationId>/<messageId>.json.
type ToolResultFile = conversation.ToolResultFile

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
	return conversation.ToolResultPreview(full, chars, alias)
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
