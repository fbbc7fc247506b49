package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// Resource is a resource a server lists.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// ResourceTemplate is a family of resources a server can read (an RFC 6570 URI template).
type ResourceTemplate struct {
	Server      string `json:"server"`
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// ResourceContent is one part of a resource that was read: Text, or the bytes of Blob.
type ResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// Prompt is a prompt template a server offers, with the arguments it takes.
type Prompt struct {
	Server      string           `json:"server"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt filled in by its server: Text, and the
// non-text part (an image, audio or embedded resource) when there is one.
type PromptMessage struct {
	Role       string        `json:"role"`
	Text       string        `json:"text,omitempty"`
	Attachment *Attachment   `json:"attachment,omitempty"`
	Link       *ResourceLink `json:"link,omitempty"`
}

// session returns the ready connection of a runnable server, starting it if need be.
func (m *Manager) session(ctx context.Context, name string) (*server, *conn, error) {
	s := m.get(name)
	if s == nil {
		return nil, nil, errs.New(CodeToolNotAvailable, fmt.Sprintf("there is no MCP server %q", name))
	}
	if err := s.runnable(); err != nil {
		return nil, nil, err
	}
	c, err := s.ensure(ctx, true)
	if err != nil {
		return nil, nil, s.scrubbed(CodeServerFailed, err)
	}
	return s, c, nil
}

func (c *conn) capabilities() *sdk.ServerCapabilities {
	if ir := c.cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
		return ir.Capabilities
	}
	return &sdk.ServerCapabilities{}
}

// requestErr turns the error of a request other than a tool call into an *errs.Error.
func (s *server) requestErr(what string, err error) error {
	return errs.New(CodeProtocol, fmt.Sprintf("the MCP server %q: %s failed: %s", s.cfg.Name, what, s.redactor().scrub(describeErr(err))))
}

// Resources lists the resources and resource templates of a server (starting it if
// need be). A server that does not offer resources has none.
func (m *Manager) Resources(ctx context.Context, name string) ([]Resource, []ResourceTemplate, error) {
	s, c, err := m.session(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if c.capabilities().Resources == nil {
		return nil, nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	var list []Resource
	for r, err := range c.cs.Resources(ctx, nil) {
		if err != nil {
			return nil, nil, s.requestErr("listing the resources", err)
		}
		list = append(list, Resource{Server: name, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size})
	}
	var templates []ResourceTemplate
	for t, err := range c.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			break // optional: a server with resources but no templates may refuse the method
		}
		templates = append(templates, ResourceTemplate{Server: name, URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})
	}
	return list, templates, nil
}

// ResourceServers are the servers among names (nil: every runnable one) that are ready and
// offer resources.
func (m *Manager) ResourceServers(names []string) []string {
	if names == nil {
		names = m.Runnable()
	}
	var out []string
	for _, n := range names {
		s := m.get(n)
		if s == nil {
			continue
		}
		s.mu.Lock()
		c := s.conn
		ready := s.state == StateReady
		s.mu.Unlock()
		if ready && c != nil && c.capabilities().Resources != nil {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// ReadResource reads one resource of a server.
func (m *Manager) ReadResource(ctx context.Context, name, uri string) ([]ResourceContent, error) {
	s, c, err := m.session(ctx, name)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(uri) == "" {
		return nil, errs.New(CodeBadArguments, "no resource URI given")
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	res, err := c.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, s.requestErr(fmt.Sprintf("reading %s", uri), err)
	}
	out := make([]ResourceContent, 0, len(res.Contents))
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		out = append(out, ResourceContent{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob})
	}
	return out, nil
}

// Prompts lists the prompts of a server with their arguments. A server that does not
// offer prompts has none.
func (m *Manager) Prompts(ctx context.Context, name string) ([]Prompt, error) {
	s, c, err := m.session(ctx, name)
	if err != nil {
		return nil, err
	}
	if c.capabilities().Prompts == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	var out []Prompt
	for p, err := range c.cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, s.requestErr("listing the prompts", err)
		}
		pr := Prompt{Server: name, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, pr)
	}
	return out, nil
}

// GetPrompt fills in a prompt of a server with args and returns its description and
// messages.
func (m *Manager) GetPrompt(ctx context.Context, name, prompt string, args map[string]string) (string, []PromptMessage, error) {
	s, c, err := m.session(ctx, name)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	res, err := c.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: prompt, Arguments: args})
	if err != nil {
		return "", nil, s.requestErr(fmt.Sprintf("getting the prompt %q", prompt), err)
	}
	var out []PromptMessage
	for i, pm := range res.Messages {
		if pm == nil {
			continue
		}
		msg := PromptMessage{Role: string(pm.Role)}
		switch ct := pm.Content.(type) {
		case *sdk.TextContent:
			msg.Text = ct.Text
		case *sdk.ImageContent:
			msg.Attachment = &Attachment{Kind: "image", MIMEType: ct.MIMEType, Data: ct.Data, Name: attachmentName(prompt, i+1, ct.MIMEType, "")}
		case *sdk.AudioContent:
			msg.Attachment = &Attachment{Kind: "audio", MIMEType: ct.MIMEType, Data: ct.Data, Name: attachmentName(prompt, i+1, ct.MIMEType, "")}
		case *sdk.EmbeddedResource:
			if ct.Resource != nil {
				if ct.Resource.Blob == nil {
					msg.Text = ct.Resource.Text
				} else {
					msg.Attachment = &Attachment{Kind: "resource", MIMEType: ct.Resource.MIMEType, URI: ct.Resource.URI, Data: ct.Resource.Blob, Name: attachmentName(prompt, i+1, ct.Resource.MIMEType, ct.Resource.URI)}
				}
			}
		case *sdk.ResourceLink:
			msg.Link = &ResourceLink{URI: ct.URI, Name: ct.Name, Description: ct.Description, MIMEType: ct.MIMEType}
		}
		out = append(out, msg)
	}
	return res.Description, out, nil
}

// ReadResourceTool is the tool through which the model reads a resource of an MCP server
// (a resource link a tool returned, or one it was told of).
const ReadResourceTool = conversation.ToolMCPReadResource

// readResourceDef is the definition of ReadResourceTool for the given servers.
func readResourceDef(servers []string) json.RawMessage {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"server": map[string]any{"type": "string", "enum": servers, "description": "the MCP server that has the resource"},
			"uri":    map[string]any{"type": "string", "description": "the resource's URI, as the server gave it"},
		},
		"required":             []string{"server", "uri"},
		"additionalProperties": false,
	}
	b, _ := json.Marshal(schema)
	return b
}

// readResourceResult reads a resource for the model: text parts become the text, other
// parts attachments saved through save.
func (m *Manager) readResourceResult(ctx context.Context, allowed []string, args []byte, save SaveFunc) Result {
	var a struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Server == "" || a.URI == "" {
		return failed(CodeBadArguments, `the arguments must be {"server": "...", "uri": "..."}`, "", ReadResourceTool)
	}
	if allowed != nil && !contains(allowed, a.Server) {
		return failed(CodeToolNotAvailable, fmt.Sprintf("the tool policy does not allow the MCP server %q here", a.Server), a.Server, ReadResourceTool)
	}
	contents, err := m.ReadResource(ctx, a.Server, a.URI)
	if err != nil {
		e := errs.From(err)
		return failed(e.Code, e.Message, a.Server, ReadResourceTool)
	}
	res := &sdk.CallToolResult{}
	for _, rc := range contents {
		if rc.Blob == nil {
			res.Content = append(res.Content, &sdk.TextContent{Text: rc.Text})
			continue
		}
		if textType(rc.MIMEType) && utf8.Valid(rc.Blob) {
			res.Content = append(res.Content, &sdk.TextContent{Text: string(rc.Blob)})
			continue
		}
		res.Content = append(res.Content, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: rc.URI, MIMEType: rc.MIMEType, Blob: rc.Blob}})
	}
	return convertResult(res, a.Server, "resource", m.opts.MaxResultBytes, save)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// textType reports whether contents of this MIME type are text the model can read as is.
func textType(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/yaml"
}
