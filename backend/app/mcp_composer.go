package app

import (
	"context"

	"crewagent/backend/mcp"
	"crewagent/backend/mcp/projectmcp"
)

// What the window's composer takes from the MCP servers (projectmcp's composer): their
// prompts as slash commands, their resources attached with "@", and the sign-outs of
// Settings → MCP.
type (
	ComposerMCP    = projectmcp.ComposerOffer
	ComposedPrompt = projectmcp.ComposedPrompt
)

// ReadyMCPServers are the runnable servers of the workspace that are ready now.
func (ws *Workspace) ReadyMCPServers() []string { return ws.mcp.Ready() }

// ComposerMCP lists the prompts and resources of the ready servers.
func (ws *Workspace) ComposerMCP(ctx context.Context) ComposerMCP { return ws.mcp.Composer(ctx) }

// ComposePrompt fills in a prompt of a server with args for the composer.
func (ws *Workspace) ComposePrompt(ctx context.Context, server, name string, args map[string]string) (ComposedPrompt, error) {
	return ws.mcp.ComposePrompt(ctx, server, name, args)
}

// ResourceAttachment reads a resource of a server as a file to attach to a message.
func (ws *Workspace) ResourceAttachment(ctx context.Context, server, uri string) (AttachmentInput, error) {
	return ws.mcp.ResourceAttachment(ctx, server, uri)
}

// SignedInMCPServers are the servers a token is kept for.
func (rt *Runtime) SignedInMCPServers() []string { return projectmcp.SignedIn(rt.home) }

// ComposerMCP lists what the open project's ready servers offer the composer (nothing
// without a project).
func (s *Session) ComposerMCP() ComposerMCP {
	ws, err := s.Current()
	if err != nil {
		return projectmcp.EmptyOffer()
	}
	return ws.ComposerMCP(s.rt.lifetime)
}

// ComposePrompt fills in a prompt of the open project's server for the composer.
func (s *Session) ComposePrompt(server, name string, args map[string]string) (ComposedPrompt, error) {
	ws, err := s.Current()
	if err != nil {
		return ComposedPrompt{}, err
	}
	return ws.ComposePrompt(s.rt.lifetime, server, name, args)
}

// ResourceAttachment reads a resource of the open project's server as an attachment.
func (s *Session) ResourceAttachment(server, uri string) (AttachmentInput, error) {
	ws, err := s.Current()
	if err != nil {
		return AttachmentInput{}, err
	}
	return ws.ResourceAttachment(s.rt.lifetime, server, uri)
}

// SignOutMCPServer forgets (after asking to revoke it) the token kept for a remote
// server, and returns the page; the open project's connection to it stops.
func (s *Session) SignOutMCPServer(name string) (mcp.SignOutResult, error) {
	if ws, err := s.Current(); err == nil {
		return ws.SignOutMCPServer(s.rt.lifetime, name)
	}
	return projectmcp.SignOut(s.rt.lifetime, s.rt.home, name)
}
