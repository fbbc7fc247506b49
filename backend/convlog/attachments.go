package convlog

import (
	"fmt"
	"os"
	"strings"

	"crewagent/backend/conversation"
)

// AttachmentPrefix starts the file names of saved attachments, so they never
// meet the <messageId>.json and .txt files of large outputs in the same folder.
const AttachmentPrefix = "att-"

// SaveAttachment writes the bytes of a non-text tool result part (an image,
// audio, a resource an MCP server returned) beside the large tool outputs of
// the conversation, as logs/tool-results/<conversationId>/att-<name>, and
// returns its alias (@state/logs/tool-results/<conversationId>/att-<name>),
// which the tools read back like any large output. name must be a valid file
// name ([A-Za-z0-9_.-], see IsValidMessageID); an existing file of that name
// is replaced. Deleting the conversation removes it.
func (s *Store) SaveAttachment(id, name string, data []byte) (string, error) {
	if err := checkConvID(id); err != nil {
		return "", err
	}
	file := AttachmentPrefix + strings.TrimPrefix(name, AttachmentPrefix)
	if !IsValidMessageID(file) {
		return "", fmt.Errorf("%w: attachment name %q (want characters from [A-Za-z0-9_.-], no leading dot, no \"..\")", ErrInvalidID, name)
	}
	release, err := s.begin(true)
	if err != nil {
		return "", err
	}
	defer release()
	dir := toolResultsDir(s.dir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("convlog: %w", err)
	}
	if _, err := writeFileAtomic(dir+string(os.PathSeparator)+file, data, 0o644); err != nil {
		return "", fmt.Errorf("convlog: writing an attachment: %w", err)
	}
	return conversation.ToolResultAliasPrefix + id + "/" + file, nil
}

// ReadAttachment reads back a file saved with SaveAttachment, by the alias it
// returned. Anything but such an alias is refused with ErrInvalidID.
func (s *Store) ReadAttachment(alias string) ([]byte, error) {
	rest, ok := strings.CutPrefix(alias, conversation.ToolResultAliasPrefix)
	conv, file, cut := strings.Cut(rest, "/")
	if !ok || !cut || !strings.HasPrefix(file, AttachmentPrefix) || !IsValidMessageID(file) {
		return nil, fmt.Errorf("%w: %q is not an attachment alias (%s<conversationId>/%s<name>)", ErrInvalidID, alias, conversation.ToolResultAliasPrefix, AttachmentPrefix)
	}
	if err := checkConvID(conv); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(toolResultsDir(s.dir, conv) + string(os.PathSeparator) + file)
	if err != nil {
		return nil, fmt.Errorf("convlog: reading an attachment: %w", err)
	}
	return data, nil
}
