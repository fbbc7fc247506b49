package mcp

import (
	"context"
	"encoding/json"
	"time"

	"crewagent/backend/tools"
)

// ProviderOptions configure the tools.Provider of one tool host (Manager.Provider).
type ProviderOptions struct {
	// Servers are the servers the host may use, as the policy narrowed them (see Narrow):
	// only their tools are listed, and a call to any other server is refused without
	// contacting it. Nil: every runnable server.
	Servers []string
	// Timeout bounds each call (0: Options.CallTimeout).
	Timeout time.Duration
	// Save stores the attachments of a call (images, audio, embedded resources) and
	// returns how the model can refer to them; ctx is the call's (see
	// tools.ToolCallID). Nil: they are reported as not saved.
	Save func(ctx context.Context, a Attachment) (ref string, err error)
	// Context bounds the starts that listing the tools may cause (nil: the manager's own
	// lifetime). Each start is bounded by Options.HandshakeTimeout anyway.
	Context context.Context
}

// Provider returns the tools of the allowed servers as a tools.Provider: each tool under
// its wire name (mcp__<server>__<tool>) with its JSON schema, listed once when the host is
// built (starting the servers not running yet), and every call run through Call, so that
// each outcome is a tool result the model can react to.
func (m *Manager) Provider(o ProviderOptions) tools.Provider { return &provider{m: m, o: o} }

type provider struct {
	m *Manager
	o ProviderOptions
}

// Tools implements tools.Provider.
func (p *provider) Tools() []tools.ToolDef {
	ctx := p.o.Context
	if ctx == nil {
		ctx = p.m.ctx
	}
	list := p.m.Tools(ctx, p.o.Servers)
	defs := make([]tools.ToolDef, 0, len(list))
	for _, t := range list {
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		defs = append(defs, tools.ToolDef{Name: t.WireName, Description: desc, Parameters: t.InputSchema})
	}
	return defs
}

// Call implements tools.Provider.
func (p *provider) Call(ctx context.Context, name string, args []byte) (tools.Result, bool) {
	if !IsWireName(name) {
		return tools.Result{}, false
	}
	opts := &CallOptions{Timeout: p.o.Timeout, Servers: p.o.Servers}
	if p.o.Save != nil {
		opts.Save = func(a Attachment) (string, error) { return p.o.Save(ctx, a) }
	}
	return ToolResult(p.m.Call(ctx, name, args, opts)), true
}

// ToolResult converts the outcome of a call to the tool host's form: the same content for
// the model, and for a failure its code, message and details.
func ToolResult(r Result) tools.Result {
	out := tools.Result{OK: r.OK, Content: r.Content}
	if !r.OK {
		var body struct {
			Error struct {
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(r.Content), &body)
		out.Error = tools.NewError(r.Code, r.Message, body.Error.Details)
	}
	return out
}
