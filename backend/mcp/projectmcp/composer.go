package projectmcp

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

// Ready are the runnable servers of the project that are ready now (the composer lists
// what they offer without starting any).
func (x *Servers) Ready() []string {
	var out []string
	for _, n := range x.manager.Runnable() {
		if st, ok := x.manager.Status(n); ok && st.State == mcp.StateReady {
			out = append(out, n)
		}
	}
	return out
}

// ComposerOffer is what the ready servers offer the composer: their prompts and
// resources, and the servers that could not say (in words).
type ComposerOffer struct {
	Prompts   []mcp.Prompt   `json:"prompts"`
	Resources []mcp.Resource `json:"resources"`
	Problems  []string       `json:"problems,omitempty"`
}

// EmptyOffer is the offer of no server (nothing without a project).
func EmptyOffer() ComposerOffer {
	return ComposerOffer{Prompts: []mcp.Prompt{}, Resources: []mcp.Resource{}}
}

// Composer lists the prompts and resources of the ready servers.
func (x *Servers) Composer(ctx context.Context) ComposerOffer {
	out := EmptyOffer()
	for _, n := range x.Ready() {
		prompts, err := x.manager.Prompts(ctx, n)
		if err != nil {
			out.Problems = append(out.Problems, err.Error())
		}
		out.Prompts = append(out.Prompts, prompts...)
		list, _, err := x.manager.Resources(ctx, n)
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
	Text        string         `json:"text"`
	Attachments []attach.Input `json:"attachments"`
	Description string         `json:"description,omitempty"`
	// Links are the resources the prompt refers to without content (their URIs).
	Links []string `json:"links,omitempty"`
}

// ComposePrompt fills in a prompt of a server with args for the composer.
func (x *Servers) ComposePrompt(ctx context.Context, server, name string, args map[string]string) (ComposedPrompt, error) {
	p, err := x.GetPrompt(ctx, server, name, args)
	if err != nil {
		return ComposedPrompt{}, err
	}
	out := ComposedPrompt{Description: p.Description, Attachments: []attach.Input{}}
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
			out.Attachments = append(out.Attachments, attach.Input{Name: m.Attachment.Name, Data: base64.StdEncoding.EncodeToString(m.Attachment.Data)})
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
func (x *Servers) ResourceAttachment(ctx context.Context, server, uri string) (attach.Input, error) {
	contents, err := x.ReadResource(ctx, server, uri)
	if err != nil {
		return attach.Input{}, err
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
			return attach.Input{}, errs.Errorf(errs.InvalidRequest, "%s has %d parts, one of them binary: it cannot be attached as one file", uri, len(contents))
		default:
			if len(data) > 0 {
				data = append(data, "\n\n"...)
			}
			data = append(data, c.Text...)
		}
	}
	f := attach.File{Name: resourceFileName(uri, mimeType), Data: data}
	if _, err := attach.Describe(f); err != nil {
		return attach.Input{}, errs.Errorf(errs.InvalidRequest, "%s", err.Error())
	}
	return attach.Input{Name: f.Name, Data: base64.StdEncoding.EncodeToString(f.Data)}, nil
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

// SignedIn are the servers a token is kept for in the runtime home (Settings → MCP
// offers to sign out of them).
func SignedIn(home string) []string {
	names := oauth.NewStore(home).Names()
	if names == nil {
		names = []string{}
	}
	return names
}

// SignOut revokes and forgets the token kept in the runtime home for the remote
// server name, without a project open.
func SignOut(ctx context.Context, home, name string) (mcp.SignOutResult, error) {
	r, err := mcp.SignOut(ctx, home, name)
	if err != nil {
		return r, errs.Wrap(errs.SettingsIO, err, "cannot forget the MCP server's token: "+err.Error())
	}
	return r, nil
}
