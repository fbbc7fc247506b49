package convtools

import (
	"encoding/json"

	"crewagent/backend/conversation"
	"crewagent/backend/tools"
)

// Statuses of the result of conv.create and conv.send (those the screen
// reads, conversation.ParseHandover).
const (
	// StatusWaiting: the other conversation has not answered yet (the
	// result is a placeholder that its answer replaces).
	StatusWaiting = conversation.HandoverWaiting
	// StatusCompleted: it answered; LastAssistantMessage is its answer.
	StatusCompleted = conversation.HandoverCompleted
	// StatusFailed: its reply failed (Error says why; LastAssistantMessage
	// holds what it had written).
	StatusFailed = conversation.HandoverFailed
	// StatusStopped: the user stopped the work before it answered.
	StatusStopped = conversation.HandoverStopped
	// StatusInterrupted: the app stopped (closed or crashed) before it answered.
	StatusInterrupted = conversation.HandoverInterrupted
)

// Handover is the result of conv.create and conv.send, as the model gets it
// (with "ok" first) and as the screen reads it (Decode).
type Handover struct {
	OK             bool   `json:"ok"`
	Status         string `json:"status"`
	ConversationID string `json:"conversation_id"`
	Title          string `json:"title,omitempty"`
	// FirstUserMessage and FirstItemsCount: conv.create only.
	FirstUserMessage string `json:"first_user_message,omitempty"`
	FirstItemsCount  int    `json:"first_items_count,omitempty"`
	// LastAssistantMessage is the other conversation's last answer.
	LastAssistantMessage string `json:"last_assistant_message"`
	// Message says in words what happened (waiting, stopped, …).
	Message string           `json:"message,omitempty"`
	Error   *tools.ToolError `json:"error,omitempty"`
	// Ignored names what the call asked for that could not be honoured.
	Ignored []string `json:"ignored,omitempty"`
}

// Result is h as a tool result.
func (h Handover) Result() tools.Result {
	b, err := json.Marshal(h)
	if err != nil {
		return tools.Failure(tools.NewError(tools.CodeInternal, "could not encode the result", nil))
	}
	return tools.Result{OK: h.OK, Error: h.Error, Content: string(b)}
}

// Decode reads the result of a conv.create or conv.send call; ok is false
// when content is not such a result.
func Decode(content string) (Handover, bool) {
	var h Handover
	if json.Unmarshal([]byte(content), &h) != nil || h.ConversationID == "" || h.Status == "" {
		return Handover{}, false
	}
	return h, true
}

// Refusal is a failed result of the conversation tools: the usual
// {"ok":false,"error":{code,message}} with the reason repeated as "reason".
func Refusal(code, reason string) tools.Result {
	e := tools.NewError(code, reason, nil)
	b, _ := json.Marshal(struct {
		OK     bool             `json:"ok"`
		Reason string           `json:"reason"`
		Error  *tools.ToolError `json:"error"`
	}{false, reason, e})
	return tools.Result{OK: false, Error: e, Content: string(b)}
}

// ListEntry is one conversation of conv.list.
type ListEntry struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	ParentID     string `json:"parent_id,omitempty"`
	MessageCount int    `json:"message_count"`
	LastActiveAt string `json:"last_active_at"`
	// Status is "answering", "waiting" (for another conversation) or "idle".
	Status string `json:"status"`
	// Current marks the conversation the call was made in.
	Current bool `json:"current,omitempty"`
}

// HistoryEntry is one message of conv.history.
type HistoryEntry struct {
	Role string `json:"role"`
	Text string `json:"text,omitempty"`
}
