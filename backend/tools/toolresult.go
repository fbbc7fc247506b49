package tools

import (
	"encoding/json"
	"errors"
	"io/fs"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/errs"
)

// maxToolResultBytes caps what ReadToolResult returns; the file itself is
// never changed.
const maxToolResultBytes = 2 << 20

// ToolResultView is the full output of a tool result that the log keeps as a
// preview.
type ToolResultView struct {
	conversation.ToolResultFile
	// Size is the length of the full output in bytes; Truncated is true when
	// Content holds only its first 2 MB.
	Size      int  `json:"size"`
	Truncated bool `json:"truncated"`
}

// ReadToolResult reads the full output of a tool-result message of a
// conversation through the sandbox of that conversation's tools over roots
// (@state/logs/tool-results/...): it sees only its own outputs.
func ReadToolResult(roots Roots, conversationID, messageID string) (ToolResultView, error) {
	if !convlog.IsValidID(conversationID) || !convlog.IsValidMessageID(messageID) {
		return ToolResultView{}, errs.Errorf(errs.InvalidID, "%q / %q is not a conversation and message id", conversationID, messageID)
	}
	roots.Conversation = conversationID
	data, err := NewSandbox(roots).ReadFile(convlog.ToolResultAlias(conversationID, messageID))
	if errors.Is(err, fs.ErrNotExist) {
		return ToolResultView{}, errs.Errorf(errs.NotFound, "the full output of message %s is no longer on disk", messageID)
	}
	if err != nil {
		return ToolResultView{}, err
	}
	var rec conversation.ToolResultFile
	if err := json.Unmarshal(data, &rec); err != nil {
		return ToolResultView{}, errs.Errorf(errs.Internal, "the full output of message %s is not valid JSON: %v", messageID, err)
	}
	v := ToolResultView{ToolResultFile: rec, Size: len(rec.Content)}
	if len(v.Content) > maxToolResultBytes {
		v.Content, v.Truncated = string(TrimPartialRune([]byte(v.Content[:maxToolResultBytes]))), true
	}
	return v, nil
}
