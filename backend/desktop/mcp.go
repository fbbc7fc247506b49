package desktop

import "crewagent/backend/app"

// MCP is Settings → MCP (bridge/mcp.ts): the MCP servers with their status
// and tools, editing the settings' servers (also from a pasted block), the
// MCP switches, approvals of the project's servers, restarts and logs.
// Status changes arrive as mcp:status events.
type MCP struct {
	s      *app.Session
	elicit *app.Elicitations
}

// List returns the page: the open project's servers (or the settings' ones
// without a project) with their status and tools.
func (x *MCP) List() (app.MCPView, error) { return x.s.MCPView(), nil }

// Save adds a settings server (previous "") or replaces the one named
// previous; masked values keep what is stored.
func (x *MCP) Save(previous string, spec app.MCPServerSpec) (app.MCPView, error) {
	return x.s.SaveMCPServer(previous, spec)
}

// Remove deletes a settings server.
func (x *MCP) Remove(name string) (app.MCPView, error) { return x.s.RemoveMCPServer(name) }

// SetEnabled turns a settings server on or off.
func (x *MCP) SetEnabled(name string, enabled bool) (app.MCPView, error) {
	return x.s.SetMCPServerEnabled(name, enabled)
}

// ParseBlock reads a pasted configuration without saving it (secrets masked).
func (x *MCP) ParseBlock(text string) (app.MCPParsed, error) {
	return x.s.Runtime().ParseMCPBlock(text), nil
}

// ImportBlock saves the servers of a pasted configuration.
func (x *MCP) ImportBlock(text string) (app.MCPImport, error) { return x.s.ImportMCPBlock(text) }

// SetOptions saves the settings' MCP switches.
func (x *MCP) SetOptions(o app.MCPOptions) (app.MCPView, error) { return x.s.SetMCPOptions(o) }

// Approve lets a server of the project's .mcp.json run in this project.
func (x *MCP) Approve(name string) (app.MCPView, error) { return x.s.ApproveMCPServer(name) }

// Revoke withdraws a project server's approval and stops it.
func (x *MCP) Revoke(name string) (app.MCPView, error) { return x.s.RevokeMCPServer(name) }

// Restart starts a server again; it returns once the server is ready or has failed.
func (x *MCP) Restart(name string) (app.MCPView, error) { return x.s.RestartMCPServer(name) }

// Log returns the end of a server's stderr log.
func (x *MCP) Log(name string) (string, error) { return x.s.MCPLog(name) }
