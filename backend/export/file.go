package export

import (
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// Conversation renders a conversation in format (Render) and returns it with
// a file name for it (the title and the format's extension).
func Conversation(format string, meta conversation.ConversationMeta, entries []*conversation.Entry, opts Options) (fileName, content string, err error) {
	out, err := Render(format, meta, entries, opts)
	if err != nil {
		return "", "", err
	}
	return FileName(meta, format), string(out), nil
}

// Write writes an export's content to the file path (atomically; the folder
// must exist).
func Write(path, content string) error {
	if err := fsx.WriteFile(path, []byte(content), 0o644); err != nil {
		return errs.Wrap(errs.Internal, err, "the export could not be written to "+path+": "+err.Error())
	}
	return nil
}
