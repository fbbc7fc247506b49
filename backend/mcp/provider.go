package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"crewagent/backend/errs"
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
	// Limits bound what one server's tool definitions may bring into a request (see
	// Bound); a server over them is listed without its tools.
	Limits Limits
	// Withheld, when set, is told of each server whose tools were left out, and why.
	Withheld func(Withheld)
	// Progress, when set, receives the progress notifications of each call (ctx is the
	// call's, see tools.ToolCallID; tool is its wire name) and is told when the call ends
	// (done, only after a call that sent progress). It must not block.
	Progress func(ctx context.Context, tool string, p Progress, done bool)
}

// Limits bound the tool definitions of one server: how many tools, and about how many
// tokens their names, descriptions and schemas take (EstimateTokens). Zero: no bound.
type Limits struct {
	MaxTools  int
	MaxTokens int
}

// Withheld is a server whose tools are not offered because they are over Limits.
type Withheld struct {
	Server string
	Tools  int
	Tokens int
	// Reason says it in words, naming the server and the setting; Words by
	// its template (errs.Messages).
	Reason string
	Words  errs.Words
}

// EstimateTokens estimates what a tool definition costs in a request from its size: a
// token for every 4 bytes of its name, description and schema, and a little framing.
func EstimateTokens(t Tool) int {
	return 8 + (len(t.WireName)+len(t.Description)+len(t.Title)+len(t.InputSchema)+3)/4
}

// Bound keeps the tools of each server of list whose definitions are within limits, in
// order, and names the servers over them: one server with thousands of tools or a
// schema of megabytes loses its tools, the others keep theirs.
func Bound(list []Tool, limits Limits) ([]Tool, []Withheld) {
	if limits.MaxTools <= 0 && limits.MaxTokens <= 0 {
		return list, nil
	}
	type total struct{ tools, tokens int }
	totals := map[string]*total{}
	var order []string
	for _, t := range list {
		tt := totals[t.Server]
		if tt == nil {
			tt = &total{}
			totals[t.Server] = tt
			order = append(order, t.Server)
		}
		tt.tools++
		tt.tokens += EstimateTokens(t)
	}
	var withheld []Withheld
	over := map[string]bool{}
	for _, srv := range order {
		tt := totals[srv]
		w := Withheld{Server: srv, Tools: tt.tools, Tokens: tt.tokens}
		switch {
		case limits.MaxTools > 0 && tt.tools > limits.MaxTools:
			w.Words = errs.Say("mcp.withheldTools", errs.Params{"name": srv, "n": tt.tools, "limit": limits.MaxTools})
		case limits.MaxTokens > 0 && tt.tokens > limits.MaxTokens:
			w.Words = errs.Say("mcp.withheldTokens", errs.Params{"name": srv, "n": tt.tokens, "limit": limits.MaxTokens})
		default:
			continue
		}
		w.Reason = w.Words.String()
		over[srv] = true
		withheld = append(withheld, w)
	}
	if len(withheld) == 0 {
		return list, nil
	}
	kept := make([]Tool, 0, len(list))
	for _, t := range list {
		if !over[t.Server] {
			kept = append(kept, t)
		}
	}
	return kept, withheld
}

// Provider returns the tools of the allowed servers as a tools.Provider: each tool under
// its wire name (mcp__<server>__<tool>) with its JSON schema, listed once when the host is
// built (starting the servers not running yet), and every call run through Call, so that
// each outcome is a tool result the model can react to.
func (m *Manager) Provider(o ProviderOptions) tools.Provider { return &provider{m: m, o: o} }

type provider struct {
	m *Manager
	o ProviderOptions

	mu       sync.Mutex
	withheld map[string]string // the reason, by server wire name: its tools are not offered
}

// Tools implements tools.Provider.
func (p *provider) Tools() []tools.ToolDef {
	ctx := p.o.Context
	if ctx == nil {
		ctx = p.m.ctx
	}
	list, withheld := Bound(p.m.Tools(ctx, p.o.Servers), p.o.Limits)
	p.mu.Lock()
	p.withheld = map[string]string{}
	for _, w := range withheld {
		p.withheld[ServerWireName(w.Server)] = w.Reason
	}
	p.mu.Unlock()
	if p.o.Withheld != nil {
		for _, w := range withheld {
			p.o.Withheld(w)
		}
	}
	defs := make([]tools.ToolDef, 0, len(list)+1)
	for _, t := range list {
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		defs = append(defs, tools.ToolDef{Name: t.WireName, Description: desc, Parameters: t.InputSchema})
	}
	var readable []string
	for _, srv := range p.m.ResourceServers(p.o.Servers) {
		if _, out := p.withheld[ServerWireName(srv)]; !out {
			readable = append(readable, srv)
		}
	}
	if len(readable) > 0 {
		defs = append(defs, tools.ToolDef{Name: ReadResourceTool,
			Description: "Reads a resource of an MCP server: a resource link a tool returned (its server and uri), or a resource the user named. Text comes back as text; images and other binary contents are saved and referred to.",
			Parameters:  readResourceDef(readable)})
	}
	return defs
}

// Call implements tools.Provider.
func (p *provider) Call(ctx context.Context, name string, args []byte) (tools.Result, bool) {
	var save SaveFunc
	if p.o.Save != nil {
		save = func(a Attachment) (string, error) { return p.o.Save(ctx, a) }
	}
	if name == ReadResourceTool {
		return ToolResult(p.m.readResourceResult(ctx, p.o.Servers, args, save)), true
	}
	if !IsWireName(name) {
		return tools.Result{}, false
	}
	if sw, _, ok := SplitWireName(name); ok {
		p.mu.Lock()
		why, out := p.withheld[sw]
		p.mu.Unlock()
		if out {
			return ToolResult(failed(CodeToolNotAvailable, why, sw, "")), true
		}
	}
	opts := &CallOptions{Timeout: p.o.Timeout, Servers: p.o.Servers, Save: save}
	if f := p.o.Progress; f != nil {
		var sent atomic.Bool
		opts.Progress = func(pr Progress) {
			sent.Store(true)
			f(ctx, name, pr, false)
		}
		defer func() {
			if sent.Load() {
				f(ctx, name, Progress{}, true)
			}
		}()
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
