package convlog

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
)

// File and folder names of the on-disk layout (contracts.md, "Where data lives").
const (
	ConversationsDir = "conversations"
	IndexFile        = "index.json"
	LogFile          = "messages.jsonl"
	LegacyFile       = "messages.json"
	MigratedFile     = "messages.json.migrated"
	ToolResultsDir   = "logs/tool-results"
	LockFile         = ".lock"

	maxMessageIDLen = 128
)

// IsValidID reports whether id is a conversation id: a UUID in canonical
// lower-case form (8-4-4-4-12 hex digits).
func IsValidID(id string) bool {
	if len(id) != 36 {
		return false
	}
	u, err := uuid.Parse(id)
	return err == nil && u.String() == id
}

func checkConvID(id string) error {
	if !IsValidID(id) {
		return fmt.Errorf("%w: conversation id %q is not a canonical UUID", ErrInvalidID, id)
	}
	return nil
}

// IsValidMessageID reports whether id may be used as an entry id and as a file
// name: 1-128 characters from [A-Za-z0-9_.-], not starting with a dot and
// without "..".
func IsValidMessageID(id string) bool {
	if id == "" || len(id) > maxMessageIDLen || id[0] == '.' || strings.Contains(id, "..") {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return true
}

func checkMsgID(id string) error {
	if !IsValidMessageID(id) {
		return fmt.Errorf("%w: message id %q (want 1-%d characters from [A-Za-z0-9_.-], no leading dot, no \"..\")", ErrInvalidID, id, maxMessageIDLen)
	}
	return nil
}

// ToolResultAlias returns the alias path of the full output of a large tool result.
func ToolResultAlias(conversationID, messageID string) string {
	return conversation.ToolResultAliasPrefix + conversationID + "/" + messageID + ".json"
}

func conversationsDir(dataDir string) string { return filepath.Join(dataDir, ConversationsDir) }
func indexPath(dataDir string) string        { return filepath.Join(dataDir, ConversationsDir, IndexFile) }
func convDir(dataDir, id string) string      { return filepath.Join(dataDir, ConversationsDir, id) }
func logPath(dataDir, id string) string      { return filepath.Join(dataDir, ConversationsDir, id, LogFile) }
func legacyPath(dataDir, id string) string {
	return filepath.Join(dataDir, ConversationsDir, id, LegacyFile)
}
func toolResultsRoot(dataDir string) string {
	return filepath.Join(dataDir, filepath.FromSlash(ToolResultsDir))
}
func toolResultsDir(dataDir, id string) string {
	return filepath.Join(toolResultsRoot(dataDir), id)
}
func toolResultPath(dataDir, conv, msg string) string {
	return filepath.Join(toolResultsRoot(dataDir), conv, msg+".json")
}
func toolResultTextPath(dataDir, conv, msg string) string {
	return filepath.Join(toolResultsRoot(dataDir), conv, msg+".txt")
}
