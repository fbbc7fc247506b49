package app

import (
	"crewagent/backend/attach"
	"crewagent/backend/conversation"
)

// AttachmentInput is a file the window attaches to a message.
type AttachmentInput = attach.Input

// DecodeAttachments reads the window's attachments.
func DecodeAttachments(in []AttachmentInput) ([]attach.File, error) { return attach.Decode(in) }

// SaveAttachments checks files and saves them beside the conversation's
// large outputs, for a message of it (attach.Save).
func (ws *Workspace) SaveAttachments(convID string, files []attach.File) ([]conversation.Attachment, error) {
	return attach.Save(files, func(name string, data []byte) (string, error) { return ws.store.SaveAttachment(convID, name, data) })
}
