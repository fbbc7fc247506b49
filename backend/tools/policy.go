package tools

import (
	"fmt"
	"slices"
	"strings"

	"crewagent/backend/conversation"
)

// Default limits of the fs tools.
const (
	DefaultMaxReadBytes  int64 = 524288
	DefaultMaxWriteBytes int64 = 2097152
)

// FSPolicy controls the fs.* tools.
type FSPolicy struct {
	Enabled       bool  `json:"enabled"`
	MaxReadBytes  int64 `json:"maxReadBytes"`
	MaxWriteBytes int64 `json:"maxWriteBytes"`
}

// MCPPolicy controls MCP servers. The host lists no MCP tools itself (a provider adds
// them); the policy is carried so the same merged value drives every consumer.
// AllowedServers nil allows every server; a non-nil list (even an empty one) allows only
// the servers it names.
type MCPPolicy struct {
	Enabled        bool     `json:"enabled"`
	AllowedServers []string `json:"allowedServers"`
}

// SettingsMCP is the MCP policy of the settings' tools.mcp block: enabled as set, and an
// allowedServers list that is empty allows every configured server (the per-server
// "disabled" flag turns one off).
func SettingsMCP(enabled bool, allowedServers []string) MCPPolicy {
	p := MCPPolicy{Enabled: enabled}
	if len(allowedServers) > 0 {
		p.AllowedServers = slices.Clone(allowedServers)
	}
	return p
}

// Policy is the effective tool policy. Its JSON form matches settings.json "tools".
type Policy struct {
	FS  FSPolicy  `json:"fs"`
	MCP MCPPolicy `json:"mcp"`
	// Shell offers shell.run; off unless the caller turns it on (plain chat never does by
	// default, see the settings' tools.shell).
	Shell ShellPolicy `json:"shell"`
}

// DefaultPolicy is fs on with the default limits, MCP off.
func DefaultPolicy() Policy {
	return Policy{FS: FSPolicy{Enabled: true, MaxReadBytes: DefaultMaxReadBytes, MaxWriteBytes: DefaultMaxWriteBytes}}
}

// Normalized returns p with zero or negative limits replaced by the defaults.
func (p Policy) Normalized() Policy {
	if p.FS.MaxReadBytes <= 0 {
		p.FS.MaxReadBytes = DefaultMaxReadBytes
	}
	if p.FS.MaxWriteBytes <= 0 {
		p.FS.MaxWriteBytes = DefaultMaxWriteBytes
	}
	p.MCP.AllowedServers = slices.Clone(p.MCP.AllowedServers)
	return p
}

// AgentTools is an agent's "tools" block in agents.json. Absent fields take the schema
// defaults: fs.enabled true, mcp.enabled false, no limit override.
type AgentTools struct {
	FS    *AgentFS    `json:"fs,omitempty"`
	MCP   *AgentMCP   `json:"mcp,omitempty"`
	Shell *AgentShell `json:"shell,omitempty"`
}

// AgentShell is the agent's shell block: enabled false takes shell.run away from the agent
// (absent keeps what the system policy says).
type AgentShell struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// AgentFS is the agent's fs block.
type AgentFS struct {
	Enabled       *bool `json:"enabled,omitempty"`
	MaxReadBytes  int64 `json:"maxReadBytes,omitempty"`
	MaxWriteBytes int64 `json:"maxWriteBytes,omitempty"`
}

// AgentMCP is the agent's mcp block.
type AgentMCP struct {
	Enabled        *bool    `json:"enabled,omitempty"`
	AllowedServers []string `json:"allowedServers,omitempty"`
}

// Merge combines the system policy (settings) with an agent's tools block: enabled flags are
// ANDed and limits take the minimum, so an agent can only tighten. A zero or absent agent
// limit means no override. agent == nil is an agent without a tools block (fs on, mcp off);
// for a conversation without an agent use system.Normalized() directly. The allowed MCP
// servers are the system list, narrowed to the agent's list when the agent gives one (a
// system list of nil, every server, becomes the agent's list).
func Merge(system Policy, agent *AgentTools) Policy {
	p := system.Normalized()
	var afs AgentFS
	var amcp AgentMCP
	var ash AgentShell
	if agent != nil {
		if agent.Shell != nil {
			ash = *agent.Shell
		}
		if agent.FS != nil {
			afs = *agent.FS
		}
		if agent.MCP != nil {
			amcp = *agent.MCP
		}
	}
	p.FS.Enabled = p.FS.Enabled && (afs.Enabled == nil || *afs.Enabled)
	p.FS.MaxReadBytes = minLimit(p.FS.MaxReadBytes, afs.MaxReadBytes)
	p.FS.MaxWriteBytes = minLimit(p.FS.MaxWriteBytes, afs.MaxWriteBytes)
	p.MCP.Enabled = p.MCP.Enabled && amcp.Enabled != nil && *amcp.Enabled
	p.Shell.Enabled = p.Shell.Enabled && (ash.Enabled == nil || *ash.Enabled)
	switch {
	case amcp.AllowedServers == nil:
	case p.MCP.AllowedServers == nil:
		p.MCP.AllowedServers = append([]string{}, amcp.AllowedServers...)
	default:
		kept := []string{} // none left is not "every server"
		for _, s := range p.MCP.AllowedServers {
			if slices.Contains(amcp.AllowedServers, s) {
				kept = append(kept, s)
			}
		}
		p.MCP.AllowedServers = kept
	}
	return p
}

func minLimit(system, agent int64) int64 {
	if agent > 0 && agent < system {
		return agent
	}
	return system
}

// text renders the policy for the model; visible lists the enabled tool names and roots says
// which aliases exist here.
func (p Policy) text(visible []string, roots Roots) string {
	var b strings.Builder
	b.WriteString("TOOL_POLICY\n")
	b.WriteString("- tools: " + strings.Join(visible, ", ") + "\n")
	if p.FS.Enabled {
		fmt.Fprintf(&b, "- fs: enabled; maxReadBytes=%d; maxWriteBytes=%d\n", p.FS.MaxReadBytes, p.FS.MaxWriteBytes)
	} else {
		b.WriteString("- fs: disabled (no file access)\n")
	}
	if p.MCP.Enabled {
		if p.MCP.AllowedServers == nil {
			b.WriteString("- mcp: enabled; every configured server\n")
		} else if len(p.MCP.AllowedServers) == 0 {
			b.WriteString("- mcp: enabled; no servers allowed\n")
		} else {
			b.WriteString("- mcp: enabled; allowedServers=" + strings.Join(p.MCP.AllowedServers, ", ") + "\n")
		}
	} else {
		b.WriteString("- mcp: disabled\n")
	}
	if p.Shell.Enabled && slices.Contains(visible, conversation.ToolShellRun) {
		b.WriteString("- shell: " + conversation.ToolShellRun + " runs commands in the project folder inside a sandbox (project writable, rest read-only, no network unless allowed)\n")
	}
	if p.FS.Enabled {
		b.WriteString("- paths: every path starts with an alias; no \"..\", no absolute paths, symlinks may not leave their root\n")
		avail := func(root, line string) {
			if root != "" {
				b.WriteString("  - " + line + "\n")
			}
		}
		avail(roots.Project, "@project/ : the project folder (read/write)")
		avail(roots.Package, "@pkg/ : the active package (read-only)")
		avail(roots.State, "@state/ : the run state, e.g. @state/workflow.md (read/write; @state/logs/ is read-only)")
		avail(roots.ToolResults, ToolResultsAlias+"/ : full outputs of earlier tool calls (read-only)")
		if roots.Package == "" {
			b.WriteString("  - @pkg is not available (no active package)\n")
		}
		if roots.State == "" {
			b.WriteString("  - @state is not available (no active run)\n")
		}
	}
	return b.String()
}
