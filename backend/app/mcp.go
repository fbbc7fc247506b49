package app

import (
	"context"

	"crewagent/backend/mcp"
	"crewagent/backend/mcp/projectmcp"
)

// The MCP servers of an open project run in projectmcp (one manager per
// workspace, the window and the command line alike, closed with it); their
// tools reach every tool host through its provider, under the same policy
// as the built-in tools. Here, the use cases that delegate to it.

// The MCP page as the window and the command line show it.
type (
	MCPView       = projectmcp.View
	MCPServerView = projectmcp.ServerView
	MCPToolView   = projectmcp.ToolView
	MCPServerSpec = projectmcp.ServerSpec
	MCPParsed     = projectmcp.Parsed
	MCPImport     = projectmcp.ImportResult
	MCPOptions    = projectmcp.Switches
)

// openMCP creates the project's MCP servers (no server starts here, unless
// the window opens the project and the settings ask for it).
func (ws *Workspace) openMCP(o OpenOptions) {
	p := ws.project
	ws.mcp = projectmcp.Open(projectmcp.Config{Home: ws.rt.home, ProjectID: p.ID, Root: p.Root, DataDir: p.DataDir,
		Options: ws.rt.opts.MCP, ClientName: "crewagent", ClientVersion: Version, Settings: ws.rt.Effective,
		Emitter: ws.emitter, Log: ws.rt.log, Context: ws.rt.lifetime, Start: o.StartMCP,
		SaveAttachment: ws.store.SaveAttachment, Output: ws.output})
	ws.providers = append(ws.providers, ws.mcp.Provider)
	if o.Watch {
		ws.mcp.Watch()
	}
}

// SignOutMCPServer revokes and forgets the token kept for the remote server name (it
// signs in again the next time the server asks) and stops the server's connection, which
// holds it.
func (ws *Workspace) SignOutMCPServer(ctx context.Context, name string) (mcp.SignOutResult, error) {
	return ws.mcp.SignOut(ctx, name)
}

// MCPView lists the project's servers with their status and tools. With
// start, the enabled and approved servers that are not running are started
// first (each within the handshake timeout) so that their tools are known.
func (ws *Workspace) MCPView(ctx context.Context, start bool) MCPView {
	return ws.mcp.View(ctx, start, ws.Project().Name)
}

// MCPView without a project: the settings' servers, none of them running.
func (rt *Runtime) MCPView() MCPView { return projectmcp.SettingsView(rt.home, rt.Effective()) }

// ApproveMCPServer lets a server of the project's .mcp.json run in this
// project, as it is configured now (a changed entry must be approved again).
func (ws *Workspace) ApproveMCPServer(name string) error { return ws.mcp.Approve(name) }

// RevokeMCPServer withdraws the approval of a project server and stops it.
func (ws *Workspace) RevokeMCPServer(name string) error { return ws.mcp.Revoke(name) }

// RestartMCPServer starts a server again and returns once it is ready or
// has failed (projectmcp.Servers.Restart).
func (ws *Workspace) RestartMCPServer(ctx context.Context, name string) error {
	return ws.mcp.Restart(ctx, name)
}

// MCPLog returns the end of a local server's stderr log (up to maxBytes, 64
// KiB when 0).
func (ws *Workspace) MCPLog(name string, maxBytes int) (string, error) {
	return ws.mcp.Log(name, maxBytes)
}

// MCPNotices say why configured servers offer the model no tools
// (projectmcp.Servers.Notices).
func (ws *Workspace) MCPNotices() []string { return ws.mcp.Notices() }

// ReloadMCP reads the MCP configuration again and applies it.
func (ws *Workspace) ReloadMCP() { ws.mcp.Reload() }

// ---- editing the settings' servers ----

// SaveMCPServer adds a server to the settings' mcpServers (previous "") or
// replaces the one called previous (projectmcp.SaveServer).
func (rt *Runtime) SaveMCPServer(previous string, spec MCPServerSpec) error {
	st, err := rt.Settings()
	if err != nil {
		return err
	}
	return projectmcp.SaveServer(st, previous, spec.Config(mcp.SourceSettings))
}

// RemoveMCPServer deletes a server from the settings' mcpServers.
func (rt *Runtime) RemoveMCPServer(name string) error {
	st, err := rt.Settings()
	if err != nil {
		return err
	}
	return projectmcp.RemoveServer(st, name)
}

// SetMCPServerEnabled turns a settings server on or off (its "disabled").
func (rt *Runtime) SetMCPServerEnabled(name string, enabled bool) error {
	st, err := rt.Settings()
	if err != nil {
		return err
	}
	return projectmcp.SetEnabled(st, name, enabled)
}

// ParseMCPBlock reads a pasted Claude Desktop / Cursor configuration (a
// whole file, its mcpServers table or bare "name": {…} members).
func (rt *Runtime) ParseMCPBlock(text string) MCPParsed {
	st, _ := rt.Settings()
	return projectmcp.ParseBlock(rt.home, rt.Effective(), st, text)
}

// ImportMCPBlock saves the servers of a pasted block to the settings
// (projectmcp.ImportBlock).
func (rt *Runtime) ImportMCPBlock(text string) (MCPImport, error) {
	return projectmcp.ImportBlock(rt.Settings, text)
}

// SetMCPOptions saves the MCP switches (the rest of the settings as they
// are).
func (rt *Runtime) SetMCPOptions(o MCPOptions) error {
	st, err := rt.Settings()
	if err != nil {
		return err
	}
	return projectmcp.SetSwitches(st, o)
}

// MCPResourceList is what MCPResources found.
type MCPResourceList = projectmcp.ResourceList

// MCPResources lists the resources and resource templates of one server, or
// of every runnable server when name is empty (starting them as needed).
func (ws *Workspace) MCPResources(ctx context.Context, name string) (MCPResourceList, error) {
	return ws.mcp.Resources(ctx, name)
}

// ReadMCPResource reads one resource of a server.
func (ws *Workspace) ReadMCPResource(ctx context.Context, name, uri string) ([]mcp.ResourceContent, error) {
	return ws.mcp.ReadResource(ctx, name, uri)
}

// MCPPromptList is what MCPPrompts found.
type MCPPromptList = projectmcp.PromptList

// MCPPrompt is a prompt of a server filled in with its arguments.
type MCPPrompt = projectmcp.Prompt

// MCPPrompts lists the prompts, with their arguments, of one server or of
// every runnable server when name is empty.
func (ws *Workspace) MCPPrompts(ctx context.Context, name string) (MCPPromptList, error) {
	return ws.mcp.Prompts(ctx, name)
}

// GetMCPPrompt fills in a prompt of a server with args.
func (ws *Workspace) GetMCPPrompt(ctx context.Context, name, prompt string, args map[string]string) (MCPPrompt, error) {
	return ws.mcp.GetPrompt(ctx, name, prompt, args)
}
