package convlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/fsx"
)

// The legacy format: conversations/<id>/messages.json holds a JSON array of
// messages {id, role, content, createdAt, partType?, toolName?, duration?,
// isCollapsed?, widget?, …} without "type" and mostly without tool-call
// fields. It loads as a log of "msg" entries; includeInContext stays unset,
// which means true. The first write to such a conversation migrates it (see
// Store.migrate).

type legacyMessage struct {
	ID               string                  `json:"id"`
	Type             string                  `json:"type"`
	Role             string                  `json:"role"`
	Content          json.RawMessage         `json:"content"`
	CreatedAt        json.RawMessage         `json:"createdAt"`
	PartType         string                  `json:"partType"`
	ToolName         string                  `json:"toolName"`
	ToolNameSnake    string                  `json:"tool_name"`
	Duration         json.Number             `json:"duration"`
	IsCollapsed      bool                    `json:"isCollapsed"`
	Widget           json.RawMessage         `json:"widget"`
	Mode             string                  `json:"mode"`
	RunID            string                  `json:"runId"`
	WorkflowID       string                  `json:"workflowId"`
	AgentID          string                  `json:"agentId"`
	IncludeInContext *bool                   `json:"includeInContext"`
	FullOutputPath   string                  `json:"fullOutputPath"`
	ToolCalls        []conversation.ToolCall `json:"tool_calls"`
	ToolCallID       string                  `json:"tool_call_id"`
	IsError          bool                    `json:"is_error"`
}

// parseLegacy decodes a legacy messages.json. Elements that do not decode are
// skipped and reported; a truncated array keeps the elements before the cut.
// Duplicate ids keep the first position and the last content, as in the log.
func parseLegacy(data []byte, report func(badLine)) ([]*conversation.Entry, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("legacy messages.json: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("legacy messages.json: not a JSON array")
	}
	var set effectiveSet
	for i := 0; dec.More(); i++ {
		off := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			report(badLine{line: i + 1, off: off, err: err, torn: true})
			break
		}
		var m legacyMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			report(badLine{line: i + 1, off: off, err: err})
			continue
		}
		set.add(m.entry(i))
	}
	return set.out, nil
}

// entry converts the i-th legacy message.
func (m *legacyMessage) entry(i int) *conversation.Entry {
	e := &conversation.Entry{
		Type:             m.Type,
		ID:               m.ID,
		Role:             m.Role,
		PartType:         m.PartType,
		ToolName:         m.ToolName,
		IsCollapsed:      m.IsCollapsed,
		Mode:             m.Mode,
		RunID:            m.RunID,
		WorkflowID:       m.WorkflowID,
		AgentID:          m.AgentID,
		IncludeInContext: m.IncludeInContext,
		FullOutputPath:   m.FullOutputPath,
		ToolCalls:        m.ToolCalls,
		ToolCallID:       m.ToolCallID,
		IsError:          m.IsError,
	}
	if e.Type == "" {
		e.Type = conversation.TypeMsg
	}
	if e.ID == "" {
		e.ID = "legacy-" + strconv.Itoa(i+1)
	}
	if e.ToolName == "" {
		e.ToolName = m.ToolNameSnake
	}
	if e.Role == "" {
		e.Role = conversation.RoleAssistant
	}
	if d, err := m.Duration.Int64(); err == nil {
		e.DurationMs = d
	} else if f, err := m.Duration.Float64(); err == nil {
		e.DurationMs = int64(f)
	}
	if len(m.Widget) > 0 && !bytes.Equal(m.Widget, []byte("null")) {
		e.Widget = m.Widget
	}
	e.Content = legacyContent(m.Content)
	e.CreatedAt = legacyTime(m.CreatedAt)
	return e
}

// legacyContent keeps string content as is, null/absent as nil, and any other
// JSON value as its JSON text.
func legacyContent(raw json.RawMessage) *string {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &s
	}
	return conversation.Str(string(raw))
}

// legacyTime accepts an RFC 3339 string or epoch milliseconds.
func legacyTime(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if ms, err := n.Int64(); err == nil {
			return fsx.Stamp(time.UnixMilli(ms))
		}
	}
	return ""
}
