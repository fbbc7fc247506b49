package projectmcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"crewagent/backend/errs"
	"crewagent/backend/fsx"
	"crewagent/backend/mcp"
	"crewagent/backend/settings"
)

// What the window's MCP page and `crewagent mcp list` show.

// ToolView is one tool of a server.
type ToolView struct {
	Name        string          `json:"name"`
	WireName    string          `json:"wireName"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema" ts_type:"Record<string, unknown>"`
}

// ServerView is one server as Settings → MCP and `crewagent mcp list` show
// it. Secrets (env and header values, a URL's password and query) are
// masked everywhere in it.
type ServerView struct {
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
	Tools []ToolView `json:"tools"`
	// Error and StderrTail say why it failed (the end of its stderr).
	Error      string `json:"error,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
	// ErrorKey and ErrorParams: the template Error was made from (mcp.Status).
	ErrorKey    string      `json:"errorKey,omitempty"`
	ErrorParams errs.Params `json:"errorParams,omitempty"`
	LogPath     string      `json:"logPath,omitempty"`
	PID         int         `json:"pid,omitempty"`
	Failures    int         `json:"failures,omitempty"`
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
	// WithheldWords are Withheld by its template (errs.Messages).
	WithheldWords *errs.Words `json:"withheldWords,omitempty"`
	// Warnings name, for a project server, the variables of its env that make a
	// program load code (PYTHONPATH, NODE_OPTIONS, …), in words.
	Warnings []string `json:"warnings,omitempty"`
	// Config is the configuration with its secrets masked.
	Config ServerSpec `json:"config"`
}

// ServerSpec is a server's configuration as the window edits it: an entry
// of the mcpServers table (mcp.ServerConfig, in the table's JSON) with its
// name, which the table holds as the entry's key.
type ServerSpec struct {
	Name string `json:"name"`
	mcp.ServerConfig
}

func specOf(c mcp.ServerConfig) ServerSpec { return ServerSpec{Name: c.Name, ServerConfig: c} }

// Config is the server's configuration from source src, its strings trimmed.
func (s ServerSpec) Config(src mcp.Source) mcp.ServerConfig {
	c := s.ServerConfig.Clone()
	c.Name, c.Source, c.File = strings.TrimSpace(s.Name), src, ""
	for _, v := range []*string{&c.Command, &c.EnvFile, &c.Cwd, &c.URL} {
		*v = strings.TrimSpace(*v)
	}
	return c
}

// View is the MCP page: the switches of the settings' tools.mcp block,
// every configured server and the problems of the configuration.
type View struct {
	// Enabled, AllowedServers, StartOnOpen and CallTimeoutSeconds are the
	// settings' tools.mcp.
	Enabled            bool         `json:"enabled"`
	AllowedServers     []string     `json:"allowedServers"`
	StartOnOpen        bool         `json:"startOnOpen"`
	CallTimeoutSeconds int          `json:"callTimeoutSeconds"`
	Servers            []ServerView `json:"servers"`
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

// baseView is the page without servers: the settings' switches.
func baseView(home string, eff settings.Settings) View {
	st := eff.Tools.MCP
	allowed := slices.Clone(st.AllowedServers)
	if allowed == nil {
		allowed = []string{}
	}
	return View{Enabled: st.Enabled, AllowedServers: allowed, StartOnOpen: st.StartOnOpen, CallTimeoutSeconds: st.CallTimeoutSeconds,
		Servers: []ServerView{}, Problems: []mcp.Problem{}, SettingsPath: settings.Path(home), limits: Limits(st)}
}

func serverView(st mcp.Status, list []mcp.Tool, v View) ServerView {
	out := ServerView{Name: st.Name, Source: st.Source, File: st.Config.File, Transport: st.Transport, State: st.State, Summary: st.Summary(),
		Command: commandLine(st.Config), ToolCount: st.ToolCount, Tools: []ToolView{}, Error: st.Error, StderrTail: st.StderrTail,
		ErrorKey: st.ErrorKey, ErrorParams: st.ErrorParams,
		LogPath: st.LogPath, PID: st.PID, Failures: st.Failures, GaveUp: st.GaveUp, ServerName: st.ServerName,
		ServerVersion: st.ServerVersion, ApprovalChanged: st.ApprovalChanged, Config: specOf(st.Config),
		Offered: Offered(settings.MCPTools{Enabled: v.Enabled, AllowedServers: v.AllowedServers}, st.Name)}
	out.Config.Name = st.Name
	out.Warnings = st.Config.LoaderWarnings()
	if _, w := mcp.Bound(list, v.limits); len(w) > 0 {
		out.Withheld, out.WithheldWords = w[0].Reason, &w[0].Words
		out.Summary += ", not offered: over the limit of one server's tools"
	}
	if st.RetryAt != nil {
		out.RetryAt = fsx.Stamp(*st.RetryAt)
	}
	for _, t := range list {
		out.Tools = append(out.Tools, ToolView{Name: t.Name, WireName: t.WireName, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out
}

// stoppedViews show servers that are not running.
func stoppedViews(servers []mcp.ServerConfig, v View) []ServerView {
	out := []ServerView{}
	for _, c := range servers {
		st := mcp.Status{Name: c.Name, Source: c.Source, Transport: c.Transport(), State: mcp.StateStopped, Config: c.Redacted()}
		if c.Disabled {
			st.State = mcp.StateDisabled
		}
		out = append(out, serverView(st, nil, v))
	}
	return out
}

// View lists the project's servers with their status and tools. With
// start, the enabled and approved servers that are not running are started
// first (each within the handshake timeout) so that their tools are known.
// project is the project's name.
func (x *Servers) View(ctx context.Context, start bool, project string) View {
	v := baseView(x.c.Home, x.c.Settings())
	if start {
		x.manager.Tools(ctx, nil)
	}
	for _, st := range x.manager.Statuses() {
		v.Servers = append(v.Servers, serverView(st, x.manager.ServerTools(st.Name), v))
	}
	v.Problems = append(v.Problems, x.Problems()...)
	v.Project, v.ProjectFile = project, filepath.Join(x.c.Root, mcp.ProjectFileName)
	return v
}

// SettingsView is the page without a project: the settings' servers, none
// of them running.
func SettingsView(home string, eff settings.Settings) View {
	v := baseView(home, eff)
	raw, err := settings.ReadMCPServers(home)
	if err != nil {
		v.Problems = append(v.Problems, mcp.Problem{Message: "the settings' MCP servers cannot be read: " + err.Error()})
	}
	servers, problems := mcp.ParseServers(raw, mcp.SourceSettings)
	v.Problems = append(v.Problems, problems...)
	v.Servers = append(v.Servers, stoppedViews(servers, v)...)
	return v
}

// Parsed is a pasted configuration block, read but not saved: its servers
// (secrets masked) and the problems of the entries left out.
type Parsed struct {
	Servers []ServerView `json:"servers"`
	// Replaces names the settings servers that adding the block replaces.
	Replaces []string      `json:"replaces"`
	Problems []mcp.Problem `json:"problems"`
}

// ParseBlock reads a pasted Claude Desktop / Cursor configuration (a whole
// file, its mcpServers table or bare "name": {…} members); st is the
// settings (nil when they cannot be read: nothing is replaced then).
func ParseBlock(home string, eff settings.Settings, st *settings.Store, text string) Parsed {
	out := Parsed{Replaces: []string{}, Problems: []mcp.Problem{}}
	servers, problems := mcp.ParseBlock(text, mcp.SourceSettings)
	out.Problems = append(out.Problems, problems...)
	var existing []mcp.ServerConfig
	if st != nil {
		existing, _, _ = mcp.SettingsServers(st)
	}
	out.Servers = stoppedViews(servers, baseView(home, eff))
	for _, c := range servers {
		if _, ok := Find(existing, c.Name); ok {
			out.Replaces = append(out.Replaces, c.Name)
		}
	}
	return out
}

// Switches are the settings' tools.mcp switches the MCP page edits.
type Switches struct {
	Enabled            bool `json:"enabled"`
	StartOnOpen        bool `json:"startOnOpen"`
	CallTimeoutSeconds int  `json:"callTimeoutSeconds"`
}

// SetSwitches saves the MCP switches (the rest of the settings as they
// are).
func SetSwitches(st *settings.Store, o Switches) error {
	next := st.Effective()
	next.Tools.MCP.Enabled, next.Tools.MCP.StartOnOpen, next.Tools.MCP.CallTimeoutSeconds = o.Enabled, o.StartOnOpen, o.CallTimeoutSeconds
	if err := next.Validate(); err != nil {
		return err
	}
	return st.Update(next)
}
