package app

import (
	"context"
	"encoding/base64"
	"mime"
	"path"
	"strings"

	"crewagent/backend/attach"
	"crewagent/backend/errs"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/oauth"
)

// What the window's composer takes from the MCP servers: their prompts as slash
// commands (filled in, a prompt becomes the text and attachments of the message being
// written, for the user to read and send), their resources attached with "@" (read
// now, attached like a file), and the sign-outs of Settings → MCP.

// ReadyMCPServers are the runnable servers of the workspace that are ready now (the
// composer lists what they offer without starting any).
func (ws *Workspace) ReadyMCPServers() []string {
	var out []string
	for _, n := range ws.mcp.Manager().Runnable() {
		if st, ok := ws.mcp.Manager().Status(n); ok && st.State == mcp.StateReady {
			out = append(out, n)
		}
	}
	return out
}

// ComposerMCP is what the ready servers offer the composer: their prompts and
// resources, and the servers that could not say (in words).
type ComposerMCP struct {
	Prompts   []mcp.Prompt   `json:"prompts"`
	Resources []mcp.Resource `json:"resources"`
	Problems  []string       `json:"problems,omitempty"`
}

// ComposerMCP lists the prompts and resources of the ready servers.
func (ws *Workspace) ComposerMCP(ctx context.Context) ComposerMCP {
	out := ComposerMCP{Prompts: []mcp.Prompt{}, Resources: []mcp.Resource{}}
	for _, n := range ws.ReadyMCPServers() {
		prompts, err := ws.mcp.Manager().Prompts(ctx, n)
		if err != nil {
			out.Problems = append(out.Problems, err.Error())
		}
		out.Prompts = append(out.Prompts, prompts...)
		list, _, err := ws.mcp.Manager().Resources(ctx, n)
		if err != nil {
			out.Problems = append(out.Problems, err.Error())
		}
		out.Resources = append(out.Resources, list...)
	}
	return out
}

// ComposedPrompt is a prompt filled in for the composer: Text, its messages in order
// (a message of another role than the user's is quoted with its role), and the
// attachments its messages carry (images, embedded binary resources).
type ComposedPrompt struct {
	Text        string            `json:"text"`
	Attachments []AttachmentInput `json:"attachments"`
	Description string            `json:"description,omitempty"`
	// Links are the resources the prompt refers to without content (their URIs).
	Links []string `json:"links,omitempty"`
}

// ComposePrompt fills in a prompt of a server with args for the composer.
func (ws *Workspace) ComposePrompt(ctx context.Context, server, name string, args map[string]string) (ComposedPrompt, error) {
	p, err := ws.GetMCPPrompt(ctx, server, name, args)
	if err != nil {
		return ComposedPrompt{}, err
	}
	out := ComposedPrompt{Description: p.Description, Attachments: []AttachmentInput{}}
	var parts []string
	for _, m := range p.Messages {
		text := strings.TrimSpace(m.Text)
		if m.Link != nil {
			out.Links = append(out.Links, m.Link.URI)
			if text == "" {
				text = m.Link.URI
			}
		}
		if m.Attachment != nil && len(m.Attachment.Data) > 0 {
			out.Attachments = append(out.Attachments, AttachmentInput{Name: m.Attachment.Name, Data: base64.StdEncoding.EncodeToString(m.Attachment.Data)})
		}
		if text == "" {
			continue
		}
		if m.Role != "" && m.Role != "user" {
			text = m.Role + ": " + text
		}
		parts = append(parts, text)
	}
	out.Text = strings.Join(parts, "\n\n")
	return out, nil
}

// ResourceAttachment reads a resource of a server and returns it as a file to attach
// to a message (its text, or its bytes): the message then carries it like any
// attached file, counted in the context budget. A resource the model could not read
// (neither text nor an image) is refused with the reason.
func (ws *Workspace) ResourceAttachment(ctx context.Context, server, uri string) (AttachmentInput, error) {
	contents, err := ws.ReadMCPResource(ctx, server, uri)
	if err != nil {
		return AttachmentInput{}, err
	}
	var data []byte
	mimeType := ""
	for _, c := range contents {
		if mimeType == "" {
			mimeType = c.MIMEType
		}
		switch {
		case c.Blob != nil && len(contents) == 1:
			data = c.Blob
		case c.Blob != nil:
			return AttachmentInput{}, errs.Errorf(errs.InvalidRequest, "%s has %d parts, one of them binary: it cannot be attached as one file", uri, len(contents))
		default:
			if len(data) > 0 {
				data = append(data, "\n\n"...)
			}
			data = append(data, c.Text...)
		}
	}
	f := attach.File{Name: resourceFileName(uri, mimeType), Data: data}
	if _, err := attach.Describe(f); err != nil {
		return AttachmentInput{}, errs.Errorf(errs.InvalidRequest, "%s", err.Error())
	}
	return AttachmentInput{Name: f.Name, Data: base64.StdEncoding.EncodeToString(f.Data)}, nil
}

// resourceFileName is the file name a resource is attached under: the last segment of
// its URI, with an extension of its MIME type when it has none.
func resourceFileName(uri, mimeType string) string {
	u := strings.TrimRight(uri, "/")
	if i := strings.Index(u, "?"); i >= 0 {
		u = u[:i]
	}
	name := path.Base(u)
	if i := strings.LastIndex(name, ":"); i >= 0 {
		name = name[i+1:]
	}
	name = attach.SafeName(name)
	if name == "" || name == "." || name == "attachment" {
		name = "resource"
	}
	if path.Ext(name) == "" {
		ext := ".txt"
		switch mt, _, _ := mime.ParseMediaType(mimeType); mt {
		case "", "text/plain":
		case "text/markdown":
			ext = ".md"
		case "application/json":
			ext = ".json"
		default:
			if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
				ext = exts[0]
			}
		}
		name += ext
	}
	return name
}

// SignedInMCPServers are the servers a token is kept for (Settings → MCP offers to sign
// out of them).
func (rt *Runtime) SignedInMCPServers() []string {
	names := oauth.NewStore(rt.home).Names()
	if names == nil {
		names = []string{}
	}
	return names
}

// ComposerMCP lists what the open project's ready servers offer the composer (nothing
// without a project).
func (s *Session) ComposerMCP() ComposerMCP {
	ws, err := s.Current()
	if err != nil {
		return ComposerMCP{Prompts: []mcp.Prompt{}, Resources: []mcp.Resource{}}
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
	r, err := mcp.SignOut(s.rt.lifetime, s.rt.home, name)
	if err != nil {
		return r, errs.Wrap(errs.SettingsIO, err, "cannot forget the MCP server's token: "+err.Error())
	}
	return r, nil
}
