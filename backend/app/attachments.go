package app

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"crewagent/backend/attach"
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// AttachmentInput is a file the window attaches to a message: its name and
// its bytes in base64 (picked, pasted or dropped in the composer).
type AttachmentInput struct {
	Name string `json:"name"`
	Data string `json:"data"`
}

// DecodeAttachments reads the window's attachments.
func DecodeAttachments(in []AttachmentInput) ([]attach.File, error) {
	out := make([]attach.File, 0, len(in))
	for _, a := range in {
		data, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil {
			return nil, errs.Errorf(errs.InvalidRequest, "the attachment %q did not arrive whole (%v): attach it again", a.Name, err)
		}
		out = append(out, attach.File{Name: a.Name, Data: data})
	}
	return out, nil
}

// SaveAttachments checks files and saves them beside the conversation's
// large outputs, for a message of it; nothing is saved when one of them
// cannot be attached (the error says which and why).
func (ws *Workspace) SaveAttachments(convID string, files []attach.File) ([]conversation.Attachment, error) {
	if len(files) > attach.MaxFiles {
		return nil, errs.Errorf(errs.InvalidRequest, "%d files are attached; a message takes at most %d", len(files), attach.MaxFiles)
	}
	out := make([]conversation.Attachment, 0, len(files))
	for _, f := range files {
		a, err := attach.Describe(f)
		if err != nil {
			return nil, errs.New(errs.InvalidRequest, err.Error())
		}
		out = append(out, a)
	}
	for i, f := range files {
		sum := sha256.Sum256(f.Data)
		name := hex.EncodeToString(sum[:8]) + "-" + attach.SafeName(out[i].Name)
		alias, err := ws.store.SaveAttachment(convID, name, f.Data)
		if err != nil {
			return nil, fmt.Errorf("saving the attachment %s: %w", out[i].Name, err)
		}
		out[i].Path = alias
	}
	return out, nil
}
