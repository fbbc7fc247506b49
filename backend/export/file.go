package export

import (
	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// File is a conversation rendered for outside the app.
type File struct {
	// FileName is a file name for it (the title and the format's extension).
	FileName string `json:"fileName"`
	Content  string `json:"content"`
}

// Conversation renders a conversation in format (Render) with its file name.
func Conversation(format string, meta conversation.ConversationMeta, entries []*conversation.Entry, opts Options) (File, error) {
	out, err := Render(format, meta, entries, opts)
	if err != nil {
		return File{}, err
	}
	return File{FileName: FileName(meta, format), Content: string(out)}, nil
}

// Write writes an export to the file path (atomically; the folder must
// exist).
func Write(path string, f File) error {
	if err := fsx.WriteFile(path, []byte(f.Content), 0o644); err != nil {
		return errs.Wrap(errs.Internal, err, "the export could not be written to "+path+": "+err.Error())
	}
	return nil
}
