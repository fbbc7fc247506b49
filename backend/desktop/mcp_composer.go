package desktop

import (
	"crewagent/backend/app"
	"crewagent/backend/events"
	"crewagent/backend/mcp"
)

// The composer's MCP side (bridge/mcp.ts): the ready servers' prompts (slash
// commands) and resources ("@"), the forms servers ask the user to fill in
// during a call, and signing out of a remote server.

// Composer lists the prompts and resources of the open project's ready servers.
func (x *MCP) Composer() (app.ComposerMCP, error) { return x.s.ComposerMCP(), nil }

// Prompt fills in a server's prompt with its arguments for the composer.
func (x *MCP) Prompt(server, name string, args map[string]string) (app.ComposedPrompt, error) {
	return x.s.ComposePrompt(server, name, args)
}

// AttachResource reads a server's resource as a file to attach to the message.
func (x *MCP) AttachResource(server, uri string) (app.AttachmentInput, error) {
	return x.s.ResourceAttachment(server, uri)
}

// Elicitations lists the forms servers wait for (mcp:elicitation events announce new ones).
func (x *MCP) Elicitations() ([]events.MCPElicitationEvent, error) { return x.elicit.Pending(), nil }

// AnswerElicitation answers a server's form: accept (with the fields), decline or cancel.
func (x *MCP) AnswerElicitation(id, action string, content map[string]any) error {
	return x.elicit.Answer(id, action, content)
}

// SignedIn lists the remote servers a token is kept for.
func (x *MCP) SignedIn() ([]string, error) { return x.s.Runtime().SignedInMCPServers(), nil }

// SignOut forgets the token kept for a remote server (asking its authorization server to
// revoke it first).
func (x *MCP) SignOut(name string) (mcp.SignOutResult, error) { return x.s.SignOutMCPServer(name) }
