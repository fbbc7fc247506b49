package events

import "crewagent/backend/conversation"

// Approval events: a tool call waits for the user's approval, and the
// request was answered (or the reply stopped while it waited).
const (
	ApprovalRequested = "approval:requested"
	ApprovalResolved  = "approval:resolved"
)

// ApprovalEvent is the payload of both approval events: the call, the
// result entry that holds the request, and the request as the log keeps it.
type ApprovalEvent struct {
	ConversationID  string                 `json:"conversationId"`
	MessageID       string                 `json:"messageId"`
	ToolCallID      string                 `json:"toolCallId"`
	ToolName        string                 `json:"toolName"`
	ResultMessageID string                 `json:"resultMessageId"`
	Approval        *conversation.Approval `json:"approval"`
}
