package convlog

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"crewagent/backend/conversation"
)

// CommandOutputPrefix starts the names of the files where the command tool saves a
// command's whole output, beside the large tool outputs of its conversation
// (logs/tool-results/<conversationId>/cmd-<callId>.txt); its result refers to the file by
// its alias.
const CommandOutputPrefix = "cmd-"

// copyCommandOutputs copies to the fork to the saved command outputs a tool message of from
// refers to, and points the message at the copies. A file that cannot be copied is left
// out (the message keeps the parent's alias, which the fork's tools cannot read).
func (s *Store) copyCommandOutputs(from, to string, c *conversation.Entry) {
	if c.Content == nil || c.Role != conversation.RoleTool {
		return
	}
	oldPrefix := conversation.ToolResultAliasPrefix + from + "/"
	content := *c.Content
	if !strings.Contains(content, oldPrefix+CommandOutputPrefix) {
		return
	}
	ref := regexp.MustCompile(regexp.QuoteMeta(oldPrefix) + `(` + CommandOutputPrefix + `[A-Za-z0-9_-][A-Za-z0-9_.-]*\.txt)`)
	newPrefix := conversation.ToolResultAliasPrefix + to + "/"
	for _, m := range ref.FindAllStringSubmatch(content, -1) {
		name := m[1]
		if !IsValidMessageID(name) {
			continue
		}
		if err := copyFileInto(filepath.Join(toolResultsDir(s.dir, from), name), toolResultsDir(s.dir, to), name); err != nil {
			s.log.Warn("cannot copy a command's output to the fork", "conversation", from, "file", name, "error", err)
			continue
		}
		content = strings.ReplaceAll(content, oldPrefix+name, newPrefix+name)
	}
	c.Content = conversation.Str(content)
}

// copyFileInto copies src into dir as name: a hard link where it can, a streamed copy
// otherwise (a command's output may be large).
func copyFileInto(src, dir, name string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	dst := filepath.Join(dir, name)
	if err := os.Link(src, dst); err == nil || os.IsExist(err) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
