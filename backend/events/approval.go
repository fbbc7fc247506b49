package events

import "crewagent/backend/conversation"

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
