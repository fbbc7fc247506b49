package approval

import (
	"fmt"
	"strings"

	"crewagent/backend/conversation"
)

// Mode is a conversation's approval mode.
type Mode string

// The approval modes.
const (
	ReadOnly Mode = "read-only"
	Ask      Mode = "ask"
	AutoEdit Mode = "auto-edit"
	FullAuto Mode = "full-auto"
)

// DefaultMode is the mode of a conversation that chose none, in a project and
// settings that choose none either.
const DefaultMode = Ask

// Modes lists the modes, most restrictive first.
var Modes = []Mode{ReadOnly, Ask, AutoEdit, FullAuto}

// ParseMode reads a mode name ("" is not one). Underscores and upper case
// are accepted ("FULL_AUTO").
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-"))
	for _, k := range Modes {
		if m == k {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown approval mode %q: it is one of read-only, ask, auto-edit, full-auto", s)
}

// Describe says what the mode lets run, in words.
func (m Mode) Describe() string {
	switch m {
	case ReadOnly:
		return "read only: nothing is written and no command runs"
	case Ask:
		return "ask: every write and every command waits for your approval"
	case AutoEdit:
		return "auto-edit: writes inside the project run; commands wait for your approval"
	case FullAuto:
		return "full auto: writes and commands run without asking"
	}
	return string(m)
}

// Kind is what a tool does, as far as approvals are concerned.
type Kind string

// The kinds of tools.
const (
	// KindFree tools are never gated: the conversation tools, skills, questions to the user.
	KindFree Kind = ""
	KindRead Kind = "read"
	// KindWrite tools change files (write, patch, delete, rename).
	KindWrite Kind = "write"
	// KindCommand tools run a command line.
	KindCommand Kind = "command"
	// KindExternal tools are an MCP server's: what they do is not known.
	KindExternal Kind = "external"
)

// Canonical returns the dotted name of a tool given in either form: the log's
// ("fs.write") or the wire form of requests ("fs_write"). MCP tools
// (mcp__server__tool) stay as they are.
func Canonical(name string) string { return conversation.DottedToolName(name) }

// Classify returns the kind of a tool (dotted or wire name). Unknown tools
// outside the known families are treated as external: they ask.
func Classify(tool string) Kind {
	name := Canonical(tool)
	switch name {
	case conversation.ToolFSRead, conversation.ToolFSList, conversation.ToolFSSearch:
		return KindRead
	case conversation.ToolMCPReadResource:
		// Reads a resource of a server the user allowed: resources are read, never run.
		return KindRead
	}
	switch conversation.ToolFamily(name) {
	case conversation.ToolFamilyConv, conversation.ToolFamilySkill, conversation.ToolFamilyUI:
		return KindFree
	case conversation.ToolFamilyFS:
		// Every other file tool (fs.write, fs.apply_patch, any later one): it may write.
		return KindWrite
	case conversation.ToolFamilyShell:
		return KindCommand
	}
	return KindExternal
}
