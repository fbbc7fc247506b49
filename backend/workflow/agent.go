package workflow

import (
	"crewagent/backend/contextbuilder"
	"crewagent/backend/engine"
	"crewagent/backend/packages"
	"crewagent/backend/tools"
)

// AgentFromPackage converts an agent of an installed package to the engine's
// agent: its persona and the tool policy its tools block brings (Agent mode,
// and each step of a run speaking as its agent).
func AgentFromPackage(pkg *packages.Package, a *packages.Agent) *engine.Agent {
	out := &engine.Agent{
		ID: a.ID,
		Persona: contextbuilder.Persona{
			ID:                 a.ID,
			Name:               a.Metadata.Name,
			Title:              a.Metadata.Title,
			Role:               a.Persona.Role,
			Identity:           a.Persona.Identity,
			CommunicationStyle: a.Persona.CommunicationStyle,
			Principles:         append([]string(nil), a.Persona.Principles...),
			CriticalActions:    append([]string(nil), a.CriticalActions...),
			SystemPrompt:       a.SystemPrompt,
		},
	}
	fsOn, mcpOn, shellOn := a.Tools.FS.Enabled, a.Tools.MCP.Enabled, a.Tools.Shell.Enabled
	out.Tools = &tools.AgentTools{
		FS:    &tools.AgentFS{Enabled: &fsOn, MaxReadBytes: a.Tools.FS.MaxReadBytes, MaxWriteBytes: a.Tools.FS.MaxWriteBytes},
		MCP:   &tools.AgentMCP{Enabled: &mcpOn, AllowedServers: a.Tools.MCP.AllowedServers},
		Shell: &tools.AgentShell{Enabled: &shellOn},
	}
	if pkg != nil {
		out.PackageID, out.PackageRoot = pkg.ID, pkg.Root
	}
	return out
}
