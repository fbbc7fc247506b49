package conversation

import "encoding/json"

// Child conversations: a conversation the model created with conv.create
// runs under its parent. Its index record says where it comes from
// (ParentID, Origin) and what it was created with (Instructions), so it
// works the same after a restart. A conversation whose tool call waits for
// another conversation's answer (conv.create, conv.send) records it in
// Waiting until the answer is its call's result.

// Origin is the tool call that created a child conversation.
type Origin struct {
	// ConversationID is the parent conversation, ToolCallID its conv.create call.
	ConversationID string `json:"conversationId"`
	ToolCallID     string `json:"toolCallId"`
	// UserWroteAt is when the user first wrote in it (sent, edited or
	// regenerated a message): from then on it is the user's as well, and
	// conv.destroy no longer deletes it.
	UserWroteAt string `json:"userWroteAt,omitempty"`
}

// Instructions are what a child conversation was created with.
type Instructions struct {
	// Base is the base instruction of the conversation: the text given, or
	// read from BaseFile (a project path) when it was created.
	Base     string `json:"base,omitempty"`
	BaseFile string `json:"baseFile,omitempty"`
	// Tools lists the tools the conversation may call; nil allows those of
	// its mode (MCP tools aside: see MCPServers).
	Tools []string `json:"tools"`
	// MCPServers lists the MCP servers whose tools it may call; nil allows
	// those of its mode.
	MCPServers []string `json:"mcpServers"`
	// Ignored names what the creator asked for that the runtime has no
	// counterpart of (internal tools of other runtimes).
	Ignored []string `json:"ignored,omitempty"`
}

// Clone returns a deep copy (nil for nil).
func (in *Instructions) Clone() *Instructions {
	if in == nil {
		return nil
	}
	c := *in
	c.Tools = cloneList(in.Tools)
	c.MCPServers = cloneList(in.MCPServers)
	c.Ignored = cloneList(in.Ignored)
	return &c
}

// cloneList copies a list keeping nil apart from empty.
func cloneList(in []string) []string {
	if in == nil {
		return nil
	}
	return append([]string{}, in...)
}

// Waiting is a tool call of the conversation that waits for another
// conversation's task: its result entry (ResultID) says so until the
// answer replaces it.
type Waiting struct {
	// ConversationID is the conversation whose answer the call waits for.
	ConversationID string `json:"conversationId"`
	ToolCallID     string `json:"toolCallId"`
	ResultID       string `json:"resultId"`
	// InputID is the message the other conversation answers.
	InputID string `json:"inputId,omitempty"`
	// Tool is conv.create or conv.send; Since when the wait began.
	Tool  string `json:"tool"`
	Since string `json:"since"`
}

// IsChild reports whether the conversation was created by another one
// (conv.create); a conversation that is not is a root.
func (m *ConversationMeta) IsChild() bool { return m.Origin != nil && m.Origin.ConversationID != "" }

// IsHandoverTool reports whether a tool (dotted, or in its wire form) hands
// a turn to another conversation.
func IsHandoverTool(name string) bool {
	switch DottedToolName(name) {
	case ToolConvCreate, ToolConvSend:
		return true
	}
	return false
}

// States of a handover (HandoverView.Status), those of the call's result.
const (
	HandoverWaiting     = "waiting"
	HandoverCompleted   = "completed"
	HandoverFailed      = "failed"
	HandoverStopped     = "stopped"
	HandoverInterrupted = "interrupted"
)

// HandoverView is the result of a conv.create or conv.send call as the
// screen shows it: the conversation the turn went to, whether it answered,
// and its answer.
type HandoverView struct {
	ConversationID string `json:"conversationId"`
	Title          string `json:"title,omitempty"`
	Status         string `json:"status"`
	// Answer is its last answer (partial when it failed).
	Answer string `json:"answer,omitempty"`
	// Message says what happened in words (why it has no answer, …).
	Message string `json:"message,omitempty"`
}

// ParseHandover reads the result of a conv.create or conv.send call (ok is
// false for other content: a refusal, an error of its arguments).
func ParseHandover(content string) (HandoverView, bool) {
	var r struct {
		ConversationID string `json:"conversation_id"`
		Title          string `json:"title"`
		Status         string `json:"status"`
		Answer         string `json:"last_assistant_message"`
		Message        string `json:"message"`
		Error          *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(content), &r) != nil || r.ConversationID == "" || r.Status == "" {
		return HandoverView{}, false
	}
	v := HandoverView{ConversationID: r.ConversationID, Title: r.Title, Status: r.Status, Answer: r.Answer, Message: r.Message}
	if v.Message == "" && r.Error != nil {
		v.Message = r.Error.Message
	}
	return v, true
}
