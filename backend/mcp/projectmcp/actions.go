package projectmcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"crewagent/backend/errs"
	"crewagent/backend/mcp"
)

// SignOut revokes and forgets the token kept for the remote server name (it
// signs in again the next time the server asks) and stops the server's
// connection, which holds it.
func (x *Servers) SignOut(ctx context.Context, name string) (mcp.SignOutResult, error) {
	r, err := SignOut(ctx, x.c.Home, name)
	if err != nil {
		return r, err
	}
	if _, known := x.manager.Status(name); known {
		x.manager.Stop(name)
	}
	return r, nil
}

// Approve lets a server of the project's .mcp.json run in this project, as
// it is configured now (a changed entry must be approved again).
func (x *Servers) Approve(name string) error {
	st, err := x.Server(name)
	if err != nil {
		return err
	}
	if st.Source != mcp.SourceProject {
		return errs.Msg(errs.InvalidArgument, "mcp.settingsNoApproval", errs.Params{"name": name})
	}
	if err := x.manager.Approve(name); err != nil {
		return errs.Wrap(errs.ProjectIO, err, err.Error())
	}
	x.startIfWanted()
	return nil
}

// Revoke withdraws the approval of a project server and stops it.
func (x *Servers) Revoke(name string) error {
	st, err := x.Server(name)
	if err != nil {
		return err
	}
	if st.Source != mcp.SourceProject {
		return errs.Msg(errs.InvalidArgument, "mcp.settingsServer", errs.Params{"name": name})
	}
	if err := x.manager.Revoke(name); err != nil {
		return errs.Wrap(errs.ProjectIO, err, err.Error())
	}
	return nil
}

// Restart starts a server again (also one that failed too often, or was
// never started) and returns once it is ready or has failed; the failure is
// in its status, not an error of the call.
func (x *Servers) Restart(ctx context.Context, name string) error {
	st, err := x.Server(name)
	if err != nil {
		return err
	}
	switch st.State {
	case mcp.StateDisabled:
		return errs.Msg(errs.MCPDisabled, "mcp.disabled", errs.Params{"name": name})
	case mcp.StatePendingApproval:
		return errs.Msg(errs.MCPNotApproved, "mcp.notApproved", errs.Params{"name": name, "file": fileOf(st.Config)})
	}
	_ = x.manager.Restart(ctx, name)
	return nil
}

// Log returns the end of a local server's stderr log (up to maxBytes, 64
// KiB when 0).
func (x *Servers) Log(name string, maxBytes int) (string, error) {
	if _, err := x.Server(name); err != nil {
		return "", err
	}
	if maxBytes <= 0 || maxBytes > 1<<20 {
		maxBytes = 64 << 10
	}
	s, err := x.manager.LogTail(name, maxBytes)
	if err != nil {
		return "", errs.Wrap(errs.ProjectIO, err, "cannot read the log of the MCP server "+strconv.Quote(name)+": "+err.Error())
	}
	return s, nil
}

// Notices say, one sentence each, why configured servers offer the model no
// tools: MCP tools switched off in the settings while servers are
// configured, servers that failed to start (with the reason), project
// servers waiting for an approval, and entries of the configuration left
// out. A send reports them (chat on stderr) instead of answering without
// the tools in silence. Servers never asked for their tools are not named.
func (x *Servers) Notices() []string {
	set := x.c.Settings().Tools.MCP
	var out []string
	statuses := x.manager.Statuses()
	enabled := 0
	for _, st := range statuses {
		if st.State != mcp.StateDisabled {
			enabled++
		}
	}
	if !set.Enabled {
		switch {
		case enabled == 1:
			out = append(out, "1 MCP server is configured but MCP tools are off in the settings (tools.mcp.enabled): the model is offered none of its tools")
		case enabled > 1:
			out = append(out, fmt.Sprintf("%d MCP servers are configured but MCP tools are off in the settings (tools.mcp.enabled): the model is offered none of their tools", enabled))
		}
		return out
	}
	for _, st := range statuses {
		if !Offered(set, st.Name) {
			continue
		}
		switch st.State {
		case mcp.StateFailed:
			out = append(out, fmt.Sprintf("the MCP server %q failed to start, so its tools are not offered: %s (see 'crewagent mcp list')", st.Name, strings.Join(strings.Fields(st.Error), " ")))
		case mcp.StatePendingApproval:
			out = append(out, fmt.Sprintf("the MCP server %q of the project's %s is not approved, so its tools are not offered (approve it with: %s)", st.Name, fileOf(st.Config), mcp.ApproveCommand(st.Name)))
		}
	}
	for _, p := range x.Problems() {
		out = append(out, "an MCP server entry is left out: "+p.String())
	}
	return out
}

// fileOf names the project file a project server comes from.
func fileOf(c mcp.ServerConfig) string {
	if c.File != "" {
		return c.File
	}
	return mcp.ProjectFileName
}

// ResourceList is what Resources found.
type ResourceList struct {
	Resources []mcp.Resource         `json:"resources"`
	Templates []mcp.ResourceTemplate `json:"templates"`
	Problems  []string               `json:"problems,omitempty"`
}

// Resources lists the resources and resource templates of one server, or of
// every runnable server when name is empty (starting them as needed). A
// server that fails is reported in problems; the others are still listed.
func (x *Servers) Resources(ctx context.Context, name string) (ResourceList, error) {
	var out ResourceList
	names, err := x.targets(name)
	if err != nil {
		return out, err
	}
	for _, n := range names {
		list, templates, err := x.manager.Resources(ctx, n)
		if err != nil {
			if name != "" {
				return out, err
			}
			out.Problems = append(out.Problems, err.Error())
			continue
		}
		out.Resources = append(out.Resources, list...)
		out.Templates = append(out.Templates, templates...)
	}
	return out, nil
}

// ReadResource reads one resource of a server.
func (x *Servers) ReadResource(ctx context.Context, name, uri string) ([]mcp.ResourceContent, error) {
	if _, err := x.Server(name); err != nil {
		return nil, err
	}
	return x.manager.ReadResource(ctx, name, uri)
}

// PromptList is what Prompts found.
type PromptList struct {
	Prompts  []mcp.Prompt `json:"prompts"`
	Problems []string     `json:"problems,omitempty"`
}

// Prompts lists the prompts, with their arguments, of one server or of
// every runnable server when name is empty.
func (x *Servers) Prompts(ctx context.Context, name string) (PromptList, error) {
	var out PromptList
	names, err := x.targets(name)
	if err != nil {
		return out, err
	}
	for _, n := range names {
		list, err := x.manager.Prompts(ctx, n)
		if err != nil {
			if name != "" {
				return out, err
			}
			out.Problems = append(out.Problems, err.Error())
			continue
		}
		out.Prompts = append(out.Prompts, list...)
	}
	return out, nil
}

// Prompt is a prompt of a server filled in with its arguments.
type Prompt struct {
	Server      string              `json:"server"`
	Name        string              `json:"name"`
	Description string              `json:"description,omitempty"`
	Messages    []mcp.PromptMessage `json:"messages"`
}

// GetPrompt fills in a prompt of a server with args.
func (x *Servers) GetPrompt(ctx context.Context, name, prompt string, args map[string]string) (Prompt, error) {
	if _, err := x.Server(name); err != nil {
		return Prompt{}, err
	}
	desc, msgs, err := x.manager.GetPrompt(ctx, name, prompt, args)
	return Prompt{Server: name, Name: prompt, Description: desc, Messages: msgs}, err
}

// targets is the named server (checked to exist), or every runnable one.
func (x *Servers) targets(name string) ([]string, error) {
	if name == "" {
		return x.manager.Runnable(), nil
	}
	if _, err := x.Server(name); err != nil {
		return nil, err
	}
	return []string{name}, nil
}
