package skills

import (
	"slices"
	"strings"

	"crewagent/backend/conversation"
)

// AlwaysKept are tools NarrowTools never removes: the skill tools (a skill
// must stay deactivatable) and ui.ask_user (asking the user widens nothing).
var AlwaysKept = []string{conversation.ToolSkillActivate, conversation.ToolSkillDeactivate, conversation.ToolUIAskUser}

// claudeTools maps the tool names of Claude Code (compared ignoring case) to
// this runtime's tools. Edit maps to fs.write as well as fs.apply_patch:
// fs.apply_patch only updates frontmatter, and fs.write is how a file's text
// is changed here.
var claudeTools = map[string][]string{
	"read":            {conversation.ToolFSRead},
	"write":           {conversation.ToolFSWrite},
	"edit":            {conversation.ToolFSApplyPatch, conversation.ToolFSWrite},
	"multiedit":       {conversation.ToolFSApplyPatch, conversation.ToolFSWrite},
	"grep":            {conversation.ToolFSSearch},
	"glob":            {conversation.ToolFSList},
	"ls":              {conversation.ToolFSList},
	"askuserquestion": {conversation.ToolUIAskUser},
	"skill":           {conversation.ToolSkillActivate, conversation.ToolSkillDeactivate},
	"bash":            {ShellTool},
}

// ShellTool is the command tool Claude Code's Bash maps to.
const ShellTool = conversation.ToolShellRun

// unavailableTools are Claude Code tools without an equivalent here.
var unavailableTools = map[string]bool{
	"bashoutput": true, "killshell": true, "killbash": true,
	"webfetch": true, "websearch": true, "task": true, "agent": true,
	"todowrite": true, "todoread": true, "notebookedit": true, "notebookread": true,
	"slashcommand": true, "exitplanmode": true, "powershell": true,
}

// ourTools are this runtime's tool names, accepted as they are (dotted) or in
// their wire form ("fs_read").
var ourTools = []string{conversation.ToolFSRead, conversation.ToolFSWrite, conversation.ToolFSApplyPatch, conversation.ToolFSSearch, conversation.ToolFSList, ShellTool, conversation.ToolUIAskUser, conversation.ToolSkillActivate, conversation.ToolSkillDeactivate}

// AllowedTools is a skill's allowed-tools field mapped to this runtime's tool
// names.
type AllowedTools struct {
	// Declared is true when the skill has a non-empty allowed-tools field;
	// only then does it narrow the tools (to Tools, which may be empty when
	// nothing it names exists here).
	Declared bool `json:"declared"`
	// Tools are the tool names to keep: mapped names, this runtime's own
	// names, and unknown names kept as written (MCP tools such as
	// mcp__server__tool, or a trailing * matching a prefix).
	Tools []string `json:"tools"`
	// Unknown are the entries that are neither Claude Code tools, MCP
	// tools (mcp__server__tool) nor tools of this runtime (kept in Tools:
	// a tool of that name may appear later).
	Unknown []string `json:"unknown,omitempty"`
	// Unavailable are Claude Code tools with no equivalent here (WebFetch,
	// BashOutput, ...): they grant nothing.
	Unavailable []string `json:"unavailable,omitempty"`
	// Notes explain entries that were mapped loosely, e.g. Read(src/**):
	// path patterns are not enforced.
	Notes []string `json:"notes,omitempty"`
	// Commands are the command-prefix allow rules (approval rules such as
	// "shell.run(python)") of its Bash(...) entries: while the skill is
	// active in a conversation, the commands they match run without asking.
	Commands []string `json:"commands,omitempty"`
}

// commandGrant maps the pattern of a Bash(...) entry to an allow rule of
// the command tool: "python:*" (Claude Code's prefix form) and "python"
// allow the commands whose first words are "python"; a pattern with "*"
// elsewhere is a glob over the whole command line. It returns "" with the
// reason for a pattern that would allow every command.
func commandGrant(pattern string) (rule, why string) {
	p := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(pattern), ":*"))
	if strings.Trim(p, "* :") == "" {
		return "", "a skill cannot allow every command; it grants nothing"
	}
	if strings.ContainsAny(p, "()") {
		return "", "the pattern has parentheses; it grants nothing"
	}
	return ShellTool + "(" + p + ")", ""
}

// splitToolList splits an allowed-tools string at commas and white space
// outside parentheses ("Read, Grep Bash(git add:*)" is three entries).
func splitToolList(s string) []string {
	var out []string
	depth, start := 0, -1
	flush := func(end int) {
		if start >= 0 {
			if t := strings.TrimSpace(s[start:end]); t != "" {
				out = append(out, t)
			}
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

// ParseAllowedTools maps allowed-tools entries to this runtime's tool names.
// declared is whether the skill has the field at all; a field with no
// entries does not narrow.
func ParseAllowedTools(entries []string, declared bool) AllowedTools {
	a := AllowedTools{Declared: declared && len(entries) > 0, Tools: []string{}}
	add := func(names ...string) {
		for _, n := range names {
			if !slices.Contains(a.Tools, n) {
				a.Tools = append(a.Tools, n)
			}
		}
	}
	for _, raw := range entries {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		base, pattern, hasPattern := strings.Cut(e, "(")
		base = strings.TrimSpace(base)
		key := strings.ToLower(base)
		switch {
		case unavailableTools[key]:
			a.Unavailable = append(a.Unavailable, e)
		case claudeTools[key] != nil:
			add(claudeTools[key]...)
			switch {
			case !hasPattern || strings.TrimSuffix(strings.TrimSpace(pattern), ")") == "":
			case key == "bash":
				rule, why := commandGrant(strings.TrimSuffix(strings.TrimSpace(pattern), ")"))
				if rule == "" {
					a.Notes = append(a.Notes, e+": "+why)
					break
				}
				if !slices.Contains(a.Commands, rule) {
					a.Commands = append(a.Commands, rule)
				}
				a.Notes = append(a.Notes, e+": while the skill is active, commands matching "+rule+" run without asking; "+ShellTool+" may still run other commands, which ask as usual")
			default:
				a.Notes = append(a.Notes, e+": the pattern is not enforced; "+strings.Join(claudeTools[key], " and ")+" may be used on any path the sandbox allows")
			}
		case ourName(e) != "":
			add(ourName(e))
		case conversation.IsMCPTool(e) && strings.Count(e, "__") == 1:
			// Claude Code's "mcp__server" allows every tool of that server.
			add(e + "__*")
		case conversation.IsMCPTool(e):
			add(e) // an MCP tool: the same naming as here
		default:
			a.Unknown = append(a.Unknown, e)
			add(e)
		}
	}
	return a
}

// ourName returns the dotted name of one of this runtime's tools written
// dotted or in wire form ("fs_read"), or "".
func ourName(s string) string {
	for _, n := range ourTools {
		if s == n || s == wireName(n) {
			return n
		}
	}
	return ""
}

// wireName is a tool name as sent in requests: every character outside
// [A-Za-z0-9_-] becomes "_".
func wireName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// allows reports whether an allowed-tools name admits tool: equal, equal in
// wire form, or a prefix match when name ends with "*".
func allows(name, tool string) bool {
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		return strings.HasPrefix(tool, prefix) || strings.HasPrefix(wireName(tool), wireName(prefix))
	}
	return name == tool || wireName(name) == wireName(tool)
}

// NarrowTools returns the tools of current (in their order) that stay
// available while skills with these allowed-tools lists are active. A nil
// list is a skill without allowed-tools: it does not narrow. When no list
// narrows, current is returned unchanged. Otherwise a tool stays when any
// list allows it (the union of the lists), and AlwaysKept tools always stay
// — so the result is always a subset of current: skills only narrow.
func NarrowTools(current []string, lists ...[]string) []string {
	narrowing := false
	for _, l := range lists {
		if l != nil {
			narrowing = true
		}
	}
	if !narrowing {
		return slices.Clone(current)
	}
	out := []string{}
	for _, tool := range current {
		keep := slices.Contains(AlwaysKept, tool)
		for _, l := range lists {
			for _, name := range l {
				if keep {
					break
				}
				keep = allows(name, tool)
			}
		}
		if keep {
			out = append(out, tool)
		}
	}
	return out
}
