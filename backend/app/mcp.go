package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"crewagent/backend/fsx"
	"crewagent/backend/mcp"
	"crewagent/backend/mcp/projectmcp"
	"crewagent/backend/settings"
)

// The MCP servers of an open project run in projectmcp (one manager per
// workspace, the window and the command line alike, closed with it); their
// tools reach every tool host through its provider, under the same policy
// as the built-in tools. Here: what the window and the command line show,
// and the use cases that delegate.

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

// ---- what the window and the command line show ----

// MCPToolView is one tool of a server.
type MCPToolView struct {
	Name        string          `json:"name"`
	WireName    string          `json:"wireName"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema" ts_type:"Record<string, unknown>"`
}

// MCPServerView is one server as Settings → MCP and `crewagent mcp list`
// show it. Secrets (env and header values, a URL's password and query) are
// masked everywhere in it.
type MCPServerView struct {
	Name   string     `json:"name"`
	Source mcp.Source `json:"source"` // settings | project
	// File is the project file a project server comes from (.mcp.json,
	// .cursor/mcp.json or .vscode/mcp.json).
	File      string `json:"file,omitempty"`
	Transport string `json:"transport"` // stdio | http | sse
	// State: disabled, pending-approval, stopped, starting, ready or failed.
	State   mcp.State `json:"state"`
	Summary string    `json:"summary"` // "ready (12 tools)", "failed: …"
	// Command is what the server runs (command and arguments) or its URL.
	Command   string `json:"command"`
	ToolCount int    `json:"toolCount"`
	// Tools are the tools it listed when it last ran (none before).
	Tools []MCPToolView `json:"tools"`
	// Error and StderrTail say why it failed (the end of its stderr).
	Error      string `json:"error,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
	LogPath    string `json:"logPath,omitempty"`
	PID        int    `json:"pid,omitempty"`
	Failures   int    `json:"failures,omitempty"`
	// RetryAt is when a failed server may start again; GaveUp: it failed too
	// often in a row and waits for a restart.
	RetryAt       string `json:"retryAt,omitempty"`
	GaveUp        bool   `json:"gaveUp,omitempty"`
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// ApprovalChanged: a pending project server whose entry changed since it
	// was approved.
	ApprovalChanged bool `json:"approvalChanged,omitempty"`
	// Offered: the model is offered its tools where MCP is on (the settings
	// enable MCP and their allowedServers include it).
	Offered bool `json:"offered"`
	// Withheld says why its tools are not offered although it is ready: they
	// are over the bounds of one server (tools.mcp.maxToolsPerServer,
	// maxToolTokensPerServer).
	Withheld string `json:"withheld,omitempty"`
	// Warnings name, for a project server, the variables of its env that make a
	// program load code (PYTHONPATH, NODE_OPTIONS, …), in words.
	Warnings []string `json:"warnings,omitempty"`
	// Config is the configuration with its secrets masked.
	Config MCPServerSpec `json:"config"`
}

// MCPServerSpec is a server's configuration as the window edits it: an entry
// of the mcpServers table with its name.
type MCPServerSpec struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// EnvFile is a dotenv file whose variables are added to Env.
	EnvFile  string            `json:"envFile,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
}

func specOf(c mcp.ServerConfig) MCPServerSpec {
	return MCPServerSpec{Name: c.Name, Command: c.Command, Args: c.Args, Env: c.Env, EnvFile: c.EnvFile, Cwd: c.Cwd, URL: c.URL, Headers: c.Headers, Disabled: c.Disabled}
}

func (s MCPServerSpec) config(src mcp.Source) mcp.ServerConfig {
	c := mcp.ServerConfig{Name: strings.TrimSpace(s.Name), Source: src, Command: strings.TrimSpace(s.Command), Args: s.Args,
		Env: s.Env, EnvFile: strings.TrimSpace(s.EnvFile), Cwd: strings.TrimSpace(s.Cwd), URL: strings.TrimSpace(s.URL), Headers: s.Headers, Disabled: s.Disabled}
	return c.Clone()
}

// MCPView is the MCP page: the switches of the settings' tools.mcp block,
// every configured server and the problems of the configuration.
type MCPView struct {
	// Enabled, AllowedServers, StartOnOpen and CallTimeoutSeconds are the
	// settings' tools.mcp.
	Enabled            bool            `json:"enabled"`
	AllowedServers     []string        `json:"allowedServers"`
	StartOnOpen        bool            `json:"startOnOpen"`
	CallTimeoutSeconds int             `json:"callTimeoutSeconds"`
	Servers            []MCPServerView `json:"servers"`
	// Problems are entries left out of the configuration, and why.
	Problems []mcp.Problem `json:"problems"`
	// Project is the open project's name ("" without one: project servers,
	// statuses and approvals need one); ProjectFile its .mcp.json.
	Project      string `json:"project"`
	ProjectFile  string `json:"projectFile,omitempty"`
	SettingsPath string `json:"settingsPath"`

	limits mcp.Limits
}

// commandLine shows what a server runs: the command and its arguments
// (quoted where needed), or its URL, secrets masked.
func commandLine(c mcp.ServerConfig) string {
	if c.Transport() == mcp.TransportHTTP {
		return c.URL
	}
	parts := []string{quoteArg(c.Command)}
	for _, a := range c.Args {
		parts = append(parts, quoteArg(a))
	}
	return strings.Join(parts, " ")
}

func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\$`") {
		return s
	}
	return strconv.Quote(s)
}

func (rt *Runtime) mcpBaseView() MCPView {
	st := rt.Effective().Tools.MCP
	allowed := slices.Clone(st.AllowedServers)
	if allowed == nil {
		allowed = []string{}
	}
	return MCPView{Enabled: st.Enabled, AllowedServers: allowed, StartOnOpen: st.StartOnOpen, CallTimeoutSeconds: st.CallTimeoutSeconds,
		Servers: []MCPServerView{}, Problems: []mcp.Problem{}, SettingsPath: settings.Path(rt.home), limits: projectmcp.Limits(st)}
}

func serverView(st mcp.Status, list []mcp.Tool, v MCPView) MCPServerView {
	out := MCPServerView{Name: st.Name, Source: st.Source, File: st.Config.File, Transport: st.Transport, State: st.State, Summary: st.Summary(),
		Command: commandLine(st.Config), ToolCount: st.ToolCount, Tools: []MCPToolView{}, Error: st.Error, StderrTail: st.StderrTail,
		LogPath: st.LogPath, PID: st.PID, Failures: st.Failures, GaveUp: st.GaveUp, ServerName: st.ServerName,
		ServerVersion: st.ServerVersion, ApprovalChanged: st.ApprovalChanged, Config: specOf(st.Config),
		Offered: projectmcp.Offered(settings.MCPTools{Enabled: v.Enabled, AllowedServers: v.AllowedServers}, st.Name)}
	out.Config.Name = st.Name
	out.Warnings = st.Config.LoaderWarnings()
	if _, w := mcp.Bound(list, v.limits); len(w) > 0 {
		out.Withheld = w[0].Reason
		out.Summary += ", not offered: over the limit of one server's tools"
	}
	if st.RetryAt != nil {
		out.RetryAt = fsx.Stamp(*st.RetryAt)
	}
	for _, t := range list {
		out.Tools = append(out.Tools, MCPToolView{Name: t.Name, WireName: t.WireName, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out
}

// MCPView lists the project's servers with their status and tools. With
// start, the enabled and approved servers that are not running are started
// first (each within the handshake timeout) so that their tools are known.
func (ws *Workspace) MCPView(ctx context.Context, start bool) MCPView {
	v := ws.rt.mcpBaseView()
	m := ws.mcp.Manager()
	if start {
		m.Tools(ctx, nil)
	}
	for _, st := range m.Statuses() {
		v.Servers = append(v.Servers, serverView(st, m.ServerTools(st.Name), v))
	}
	v.Problems = append(v.Problems, ws.mcp.Problems()...)
	p := ws.Project()
	v.Project, v.ProjectFile = p.Name, filepath.Join(p.Root, mcp.ProjectFileName)
	return v
}

// MCPView without a project: the settings' servers, none of them running.
func (rt *Runtime) MCPView() MCPView {
	v := rt.mcpBaseView()
	raw, err := settings.ReadMCPServers(rt.home)
	if err != nil {
		v.Problems = append(v.Problems, mcp.Problem{Message: "the settings' MCP servers cannot be read: " + err.Error()})
	}
	servers, problems := mcp.ParseServers(raw, mcp.SourceSettings)
	v.Problems = append(v.Problems, problems...)
	v.Servers = append(v.Servers, stoppedViews(servers, v)...)
	return v
}

// stoppedViews show servers that are not running.
func stoppedViews(servers []mcp.ServerConfig, v MCPView) []MCPServerView {
	out := []MCPServerView{}
	for _, c := range servers {
		st := mcp.Status{Name: c.Name, Source: c.Source, Transport: c.Transport(), State: mcp.StateStopped, Config: c.Redacted()}
		if c.Disabled {
			st.State = mcp.StateDisabled
		}
		out = append(out, serverView(st, nil, v))
	}
	return out
}

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
	return projectmcp.SaveServer(st, previous, spec.config(mcp.SourceSettings))
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

// MCPParsed is a pasted configuration block, read but not saved: its servers
// (secrets masked) and the problems of the entries left out.
type MCPParsed struct {
	Servers []MCPServerView `json:"servers"`
	// Replaces names the settings servers that adding the block replaces.
	Replaces []string      `json:"replaces"`
	Problems []mcp.Problem `json:"problems"`
}

// ParseMCPBlock reads a pasted Claude Desktop / Cursor configuration (a
// whole file, its mcpServers table or bare "name": {…} members).
func (rt *Runtime) ParseMCPBlock(text string) MCPParsed {
	out := MCPParsed{Replaces: []string{}, Problems: []mcp.Problem{}}
	servers, problems := mcp.ParseBlock(text, mcp.SourceSettings)
	out.Problems = append(out.Problems, problems...)
	var existing []mcp.ServerConfig
	if st, err := rt.Settings(); err == nil {
		existing, _, _ = mcp.SettingsServers(st)
	}
	out.Servers = stoppedViews(servers, rt.mcpBaseView())
	for _, c := range servers {
		if _, ok := projectmcp.Find(existing, c.Name); ok {
			out.Replaces = append(out.Replaces, c.Name)
		}
	}
	return out
}

// MCPImport is the outcome of ImportMCPBlock.
type MCPImport struct {
	// Added and Replaced name the servers saved.
	Added    []string `json:"added"`
	Replaced []string `json:"replaced"`
	// Problems are the entries left out, and why.
	Problems []mcp.Problem `json:"problems"`
}

// ImportMCPBlock saves the servers of a pasted block to the settings
// (projectmcp.ImportBlock).
func (rt *Runtime) ImportMCPBlock(text string) (MCPImport, error) {
	var out MCPImport
	var err error
	out.Added, out.Replaced, out.Problems, err = projectmcp.ImportBlock(rt.Settings, text)
	return out, err
}

// MCPOptions are the settings' tools.mcp switches the MCP page edits.
type MCPOptions struct {
	Enabled            bool `json:"enabled"`
	StartOnOpen        bool `json:"startOnOpen"`
	CallTimeoutSeconds int  `json:"callTimeoutSeconds"`
}

// SetMCPOptions saves the MCP switches (the rest of the settings as they
// are).
func (rt *Runtime) SetMCPOptions(o MCPOptions) error {
	st, err := rt.Settings()
	if err != nil {
		return err
	}
	next := st.Effective()
	next.Tools.MCP.Enabled, next.Tools.MCP.StartOnOpen, next.Tools.MCP.CallTimeoutSeconds = o.Enabled, o.StartOnOpen, o.CallTimeoutSeconds
	if err := next.Validate(); err != nil {
		return err
	}
	return st.Update(next)
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
