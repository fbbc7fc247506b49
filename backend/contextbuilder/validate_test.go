package contextbuilder

import (
	"fmt"

	"crewagent/backend/conversation"
)

// Validate checks msgs against the ordering rules of the OpenAI chat API that
// Build guarantees: system messages first (and only there), known roles,
// system, user and tool messages with non-empty content (clients omit an empty
// content field, which the API rejects), assistant messages with content or
// tool calls, every tool call id non-empty and unique in the request, and each
// assistant message with tool calls immediately followed by exactly one tool
// message per call (no other tool messages anywhere).
func Validate(msgs []Message) error {
	if len(msgs) == 0 {
		return fmt.Errorf("empty request")
	}
	if msgs[0].Role != conversation.RoleSystem {
		return fmt.Errorf("message 0: first message is %s, want system", msgs[0].Role)
	}
	seen := make(map[string]bool)
	prefix := true
	for i := 0; i < len(msgs); i++ {
		m := &msgs[i]
		if m.Role != conversation.RoleSystem {
			prefix = false
		}
		switch m.Role {
		case conversation.RoleSystem:
			if !prefix {
				return fmt.Errorf("message %d: system message after the first non-system message", i)
			}
			if m.Text() == "" {
				return fmt.Errorf("message %d: system message without content", i)
			}
		case conversation.RoleUser:
			if m.Text() == "" {
				return fmt.Errorf("message %d: user message without content", i)
			}
		case conversation.RoleTool:
			return fmt.Errorf("message %d: tool message %q does not follow its assistant tool call", i, m.ToolCallID)
		case conversation.RoleAssistant:
			if m.Content == nil && len(m.ToolCalls) == 0 {
				return fmt.Errorf("message %d: assistant message without content or tool calls", i)
			}
			want := make(map[string]bool, len(m.ToolCalls))
			for _, tc := range m.ToolCalls {
				if tc.ID == "" {
					return fmt.Errorf("message %d: tool call without id", i)
				}
				if tc.Type != "function" {
					return fmt.Errorf("message %d: tool call %s has type %q", i, tc.ID, tc.Type)
				}
				if seen[tc.ID] {
					return fmt.Errorf("message %d: duplicate tool call id %s", i, tc.ID)
				}
				seen[tc.ID] = true
				want[tc.ID] = true
			}
			for range m.ToolCalls {
				i++
				if i >= len(msgs) || msgs[i].Role != conversation.RoleTool {
					return fmt.Errorf("message %d: tool call of message %d is not answered right after it", i, i-1)
				}
				t := &msgs[i]
				if !want[t.ToolCallID] {
					return fmt.Errorf("message %d: tool result %q answers no pending call", i, t.ToolCallID)
				}
				if t.Text() == "" {
					return fmt.Errorf("message %d: tool message without content", i)
				}
				delete(want, t.ToolCallID)
			}
		default:
			return fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return nil
}
