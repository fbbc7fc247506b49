package conversation

import "strings"

// Names of the built-in tools, as the log, the UI and the commands show them
// (requests send the wire form, llm.WireName): the one list the tools, the
// engine, the application layer and approvals name them by.
const (
	ToolFSRead       = "fs.read"
	ToolFSList       = "fs.list"
	ToolFSSearch     = "fs.search"
	ToolFSWrite      = "fs.write"
	ToolFSApplyPatch = "fs.apply_patch"
	// ToolShellRun is the command tool. Approvals treat it as a command and
	// match their rules on the prefix of its "command" argument.
	ToolShellRun = "shell.run"
	// ToolUIAskUser asks the user through a widget.
	ToolUIAskUser = "ui.ask_user"

	// ToolConvCreate and ToolConvSend hand a turn over to another conversation.
	ToolConvCreate  = "conv.create"
	ToolConvSend    = "conv.send"
	ToolConvList    = "conv.list"
	ToolConvHistory = "conv.history"
	ToolConvDestroy = "conv.destroy"

	ToolSkillActivate   = "skill.activate"
	ToolSkillDeactivate = "skill.deactivate"

	// ToolMCPPrefix starts the wire name of every MCP server's tool:
	// mcp__<server>__<tool>.
	ToolMCPPrefix = "mcp__"
	// ToolMCPReadResource reads a resource of an MCP server the user allowed.
	ToolMCPReadResource = ToolMCPPrefix + "read_resource"
)

// Families of the built-in tools: the part of a name before its dot.
const (
	ToolFamilyFS    = "fs"
	ToolFamilyShell = "shell"
	ToolFamilyConv  = "conv"
	ToolFamilySkill = "skill"
	ToolFamilyUI    = "ui"
)

// ToolFamilies lists the families of the built-in tools.
var ToolFamilies = []string{ToolFamilyFS, ToolFamilyShell, ToolFamilyConv, ToolFamilySkill, ToolFamilyUI}

// IsMCPTool reports whether name is the wire name of an MCP server's tool.
func IsMCPTool(name string) bool { return strings.HasPrefix(name, ToolMCPPrefix) }

// ToolFamily returns the family of a built-in tool's dotted name ("fs" for
// "fs.read"), or "" for a name without a dot.
func ToolFamily(name string) string {
	family, _, ok := strings.Cut(name, ".")
	if !ok {
		return ""
	}
	return family
}

// DottedToolName returns the dotted name of a built-in tool given in either
// form: the log's ("fs.write") or the wire form of requests ("fs_write").
// Other names (an MCP server's mcp__server__tool) stay as they are.
func DottedToolName(name string) string {
	if IsMCPTool(name) || strings.Contains(name, ".") {
		return name
	}
	for _, family := range ToolFamilies {
		if rest, ok := strings.CutPrefix(name, family+"_"); ok {
			return family + "." + rest
		}
	}
	return name
}
