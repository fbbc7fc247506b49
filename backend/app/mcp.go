package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/fsx"
	"crewagent/backend/mcp"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// The MCP servers of an open project: one mcp.Manager per workspace (the
// window and the command line alike), built from the settings' mcpServers
// table and the project's .mcp.json, closed with the workspace. Its tools
// reach every tool host through a provider, under the same policy as the
// built-in tools.

// mcpServers is the MCP side of a workspace.
type mcpServers struct {
	ws        *Workspace
	manager   *mcp.Manager
	approvals *mcp.Approvals
	// start: the window may start the servers at once when the settings say
	// so (tools.mcp.enabled and startOnOpen); commands never do.
	start bool

	mu       sync.Mutex
	problems []mcp.Problem // of the configuration as last read
	watcher  *fsx.Watcher
}

// openMCP creates the project's MCP manager (no server starts here, unless
// the window opens the project and the settings ask for it).
func (ws *Workspace) openMCP(o OpenOptions) {
	p := ws.project
	x := &mcpServers{ws: ws, approvals: mcp.NewApprovals(ws.rt.home, p.ID), start: o.StartMCP}
	servers, problems := x.load()
	x.problems = problems
	opts := ws.rt.mcpOptions()
	opts.Home, opts.ProjectID, opts.ProjectRoot = ws.rt.home, p.ID, p.Root
	opts.Servers, opts.Approvals = servers, x.approvals
	opts.OnChange = x.changed
	opts.ClientName, opts.ClientVersion = "crewagent", Version
	x.manager = mcp.NewManager(opts)
	ws.mcp = x
	ws.providers = append(ws.providers, ws.mcpProvider)
	x.startIfWanted()
	if o.Watch {
		x.watch()
	}
}

// mcpOptions are the timing options of the MCP managers and who answers what
// servers ask during a call (Options.MCP; zero fields take the package's
// defaults).
func (rt *Runtime) mcpOptions() mcp.Options {
	t := rt.opts.MCP
	return mcp.Options{HandshakeTimeout: t.HandshakeTimeout, CallTimeout: t.CallTimeout, PingTimeout: t.PingTimeout,
		MaxRestarts: t.MaxRestarts, RestartBackoff: t.RestartBackoff, MaxRestartBackoff: t.MaxRestartBackoff,
		StopGrace: t.StopGrace, MaxLogBytes: t.MaxLogBytes, MaxResultBytes: t.MaxResultBytes, MaxCallTime: t.MaxCallTime,
		Elicit: t.Elicit, OAuthConsent: t.OAuthConsent, SignInTimeout: t.SignInTimeout}
}

// SignOutMCPServer revokes and forgets the token kept for the remote server name (it
// signs in again the next time the server asks) and stops the server's connection, which
// holds it.
func (ws *Workspace) SignOutMCPServer(ctx context.Context, name string) (mcp.SignOutResult, error) {
	r, err := mcp.SignOut(ctx, ws.rt.home, name)
	if err != nil {
		return r, errs.Wrap(errs.SettingsIO, err, "cannot forget the MCP server's token: "+err.Error())
	}
	if _, known := ws.mcp.manager.Status(name); known {
		ws.mcp.manager.Stop(name)
	}
	return r, nil
}

// load reads the configured servers: the settings' table (read from the file
// each time, so edits made elsewhere count) and the project's .mcp.json.
func (x *mcpServers) load() ([]mcp.ServerConfig, []mcp.Problem) {
	raw, err := settings.ReadMCPServers(x.ws.rt.home)
	var problems []mcp.Problem
	if err != nil {
		problems = append(problems, mcp.Problem{Message: "the settings' MCP servers cannot be read: " + err.Error()})
	}
	servers, pp := mcp.LoadConfig(raw, x.ws.project.Root)
	return servers, append(problems, pp...)
}

// reload applies the configuration as it is now: unchanged servers keep
// running, changed and removed ones stop, new ones are added.
func (x *mcpServers) reload() {
	servers, problems := x.load()
	x.mu.Lock()
	x.problems = problems
	x.mu.Unlock()
	x.manager.Reload(servers)
	x.ws.emitter.Emit(events.MCPStatus, events.MCPStatusEvent{})
	x.startIfWanted()
}

// startIfWanted starts the runnable servers in the background when the
// window opened the project and the settings ask for it.
func (x *mcpServers) startIfWanted() {
	if !x.start {
		return
	}
	if st := x.ws.rt.Effective().Tools.MCP; st.Enabled && st.StartOnOpen {
		x.manager.StartAll()
	}
}

// changed announces a server's new status.
func (x *mcpServers) changed(st mcp.Status) {
	x.ws.emitter.Emit(events.MCPStatus, events.MCPStatusEvent{Server: st.Name, State: string(st.State), ToolCount: st.ToolCount, Error: st.Error})
}

// watch follows the files that configure the servers: settings.json (its
// mcpServers and tools.mcp), the project's .mcp.json, .cursor/mcp.json,
// .vscode/mcp.json and .env, and the approvals (a command may approve a
// server while the window is open).
func (x *mcpServers) watch() {
	p := x.ws.project
	want := map[string]bool{
		filepath.Clean(settings.Path(x.ws.rt.home)):                     true,
		filepath.Clean(filepath.Join(p.DataDir, mcp.ApprovalsFileName)): true,
		// the usual envFile of project servers: its content is part of their approval
		filepath.Clean(filepath.Join(p.Root, ".env")): true,
	}
	dirs := []string{x.ws.rt.home, p.Root, p.DataDir}
	for _, rel := range mcp.ProjectFiles {
		file := filepath.Clean(filepath.Join(p.Root, filepath.FromSlash(rel)))
		want[file] = true
		if dir := filepath.Dir(file); !slices.Contains(dirs, dir) {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				dirs = append(dirs, dir) // .cursor and .vscode, when the project has them
			}
		}
	}
	w, err := fsx.NewWatcher(fsx.WatchOptions{
		OnEvent:  func(ev fsnotify.Event) bool { return want[filepath.Clean(ev.Name)] },
		OnQuiet:  x.reload,
		Debounce: 150 * time.Millisecond,
	})
	if err != nil {
		x.ws.rt.log.Warn("cannot watch the MCP configuration for changes", "error", err)
		return
	}
	for _, dir := range dirs {
		if err := w.Add(dir); err != nil {
			x.ws.rt.log.Warn("cannot watch a folder for MCP configuration changes", "folder", dir, "error", err)
		}
	}
	w.Start()
	x.mu.Lock()
	x.watcher = w
	x.mu.Unlock()
}

// close stops the watcher and every server (and what they started).
func (x *mcpServers) close() {
	x.mu.Lock()
	w := x.watcher
	x.watcher = nil
	x.mu.Unlock()
	if w != nil {
		_ = w.Close()
	}
	_ = x.manager.Close()
}

// ---- the provider ----

// mcpProvider offers the tools of the MCP servers the scope's policy allows:
// MCP on (settings, and the agent in agent and run modes), narrowed by the
// settings' and the agent's allowedServers and a child conversation's
// allowlist. Calls are cancelled after tools.mcp.callTimeoutSeconds; images,
// audio and resources they return are saved beside the conversation's large
// tool outputs.
func (ws *Workspace) mcpProvider(s tools.Scope) []tools.Provider {
	if ws.mcp == nil || !s.Policy.MCP.Enabled {
		return nil
	}
	m := ws.mcp.manager
	servers := mcp.Narrow(m.Runnable(), s.Policy.MCP.AllowedServers, s.MCPAllowlist)
	if len(servers) == 0 {
		return nil
	}
	st := ws.rt.Effective().Tools.MCP
	timeout := time.Duration(st.CallTimeoutSeconds) * time.Second
	return []tools.Provider{m.Provider(mcp.ProviderOptions{Servers: servers, Timeout: timeout, Context: ws.rt.lifetime,
		Limits: mcpLimits(st),
		Withheld: func(w mcp.Withheld) {
			ws.rt.log.Warn("MCP server's tools not offered", "server", w.Server, "reason", w.Reason)
		},
		Save: func(ctx context.Context, a mcp.Attachment) (string, error) {
			return ws.store.SaveAttachment(s.ConversationID, attachmentFileName(tools.ToolCallID(ctx), a.Name), a.Data)
		},
		// Progress shows in the tool's card like a command's live output.
		Progress: func(ctx context.Context, tool string, p mcp.Progress, done bool) {
			id := tools.ToolCallID(ctx)
			if ws.output == nil || id == "" {
				return
			}
			if done {
				ws.output.Done(s.ConversationID, tool, id)
				return
			}
			ws.output.Add(s.ConversationID, tool, id, []byte("progress "+p.String()+"\n"))
		}})}
}

// mcpLimits bound one server's tool definitions (settings
// tools.mcp.maxToolsPerServer, maxToolTokensPerServer).
func mcpLimits(st settings.MCPTools) mcp.Limits {
	return mcp.Limits{MaxTools: st.ToolsPerServer(), MaxTokens: st.ToolTokensPerServer()}
}

// attachmentFileName names a saved attachment after its tool call (its id
// made file-safe) and the name the server part suggests.
func attachmentFileName(callID, name string) string {
	var b strings.Builder
	for _, r := range callID {
		if r < 0x80 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	id := b.String()
	if len(id) > 48 {
		id = id[len(id)-48:]
	}
	if id == "" {
		id = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return id + "-" + name
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
		Servers: []MCPServerView{}, Problems: []mcp.Problem{}, SettingsPath: settings.Path(rt.home), limits: mcpLimits(st)}
}

// offered reports whether the settings offer a server's tools.
func offered(v MCPView, name string) bool {
	if !v.Enabled {
		return false
	}
	return len(v.AllowedServers) == 0 || len(mcp.Narrow([]string{name}, v.AllowedServers)) == 1
}

func serverView(st mcp.Status, list []mcp.Tool, v MCPView) MCPServerView {
	out := MCPServerView{Name: st.Name, Source: st.Source, File: st.Config.File, Transport: st.Transport, State: st.State, Summary: st.Summary(),
		Command: commandLine(st.Config), ToolCount: st.ToolCount, Tools: []MCPToolView{}, Error: st.Error, StderrTail: st.StderrTail,
		LogPath: st.LogPath, PID: st.PID, Failures: st.Failures, GaveUp: st.GaveUp, ServerName: st.ServerName,
		ServerVersion: st.ServerVersion, ApprovalChanged: st.ApprovalChanged, Offered: offered(v, st.Name), Config: specOf(st.Config)}
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
	x := ws.mcp
	if start {
		x.manager.Tools(ctx, nil)
	}
	for _, st := range x.manager.Statuses() {
		v.Servers = append(v.Servers, serverView(st, x.manager.ServerTools(st.Name), v))
	}
	x.mu.Lock()
	v.Problems = append(v.Problems, x.problems...)
	x.mu.Unlock()
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
	for _, c := range servers {
		st := mcp.Status{Name: c.Name, Source: c.Source, Transport: c.Transport(), State: mcp.StateStopped, Config: c.Redacted()}
		if c.Disabled {
			st.State = mcp.StateDisabled
		}
		v.Servers = append(v.Servers, serverView(st, nil, v))
	}
	return v
}

// mcpServer returns the status of a configured server, or
// E_MCP_SERVER_NOT_FOUND.
func (ws *Workspace) mcpServer(name string) (mcp.Status, error) {
	st, ok := ws.mcp.manager.Status(name)
	if !ok {
		return st, errs.Errorf(errs.MCPServerNotFound, "there is no MCP server %q here (see 'crewagent mcp list' or Settings → MCP)", name)
	}
	return st, nil
}

// ApproveMCPServer lets a server of the project's .mcp.json run in this
// project, as it is configured now (a changed entry must be approved again).
func (ws *Workspace) ApproveMCPServer(name string) error {
	st, err := ws.mcpServer(name)
	if err != nil {
		return err
	}
	if st.Source != mcp.SourceProject {
		return errs.Errorf(errs.InvalidArgument, "the MCP server %q comes from the settings: it needs no approval", name)
	}
	if err := ws.mcp.manager.Approve(name); err != nil {
		return errs.Wrap(errs.ProjectIO, err, err.Error())
	}
	ws.mcp.startIfWanted()
	return nil
}

// RevokeMCPServer withdraws the approval of a project server and stops it.
func (ws *Workspace) RevokeMCPServer(name string) error {
	st, err := ws.mcpServer(name)
	if err != nil {
		return err
	}
	if st.Source != mcp.SourceProject {
		return errs.Errorf(errs.InvalidArgument, "the MCP server %q comes from the settings: disable or remove it there instead", name)
	}
	if err := ws.mcp.manager.Revoke(name); err != nil {
		return errs.Wrap(errs.ProjectIO, err, err.Error())
	}
	return nil
}

// RestartMCPServer starts a server again (also one that failed too often, or
// was never started) and returns once it is ready or has failed; the failure
// is in its status, not an error of the call.
func (ws *Workspace) RestartMCPServer(ctx context.Context, name string) error {
	st, err := ws.mcpServer(name)
	if err != nil {
		return err
	}
	switch st.State {
	case mcp.StateDisabled:
		return errs.Errorf(errs.MCPDisabled, "the MCP server %q is disabled: enable it first", name)
	case mcp.StatePendingApproval:
		return errs.Errorf(errs.MCPNotApproved, "the MCP server %q of the project's %s is not approved: approve it first", name, mcpFileOf(st.Config))
	}
	_ = ws.mcp.manager.Restart(ctx, name)
	return nil
}

// MCPLog returns the end of a local server's stderr log (up to maxBytes, 64
// KiB when 0).
func (ws *Workspace) MCPLog(name string, maxBytes int) (string, error) {
	if _, err := ws.mcpServer(name); err != nil {
		return "", err
	}
	if maxBytes <= 0 || maxBytes > 1<<20 {
		maxBytes = 64 << 10
	}
	s, err := ws.mcp.manager.LogTail(name, maxBytes)
	if err != nil {
		return "", errs.Wrap(errs.ProjectIO, err, "cannot read the log of the MCP server "+strconv.Quote(name)+": "+err.Error())
	}
	return s, nil
}

// MCPNotices says, one sentence each, why configured servers offer the model
// no tools: MCP tools switched off in the settings while servers are
// configured, servers that failed to start (with the reason), project
// servers waiting for an approval, and entries of the configuration left
// out. A send reports them (chat on stderr) instead of answering without
// the tools in silence. Servers never asked for their tools are not named.
func (ws *Workspace) MCPNotices() []string {
	v := ws.rt.mcpBaseView()
	x := ws.mcp
	var out []string
	statuses := x.manager.Statuses()
	enabled := 0
	for _, st := range statuses {
		if st.State != mcp.StateDisabled {
			enabled++
		}
	}
	if !v.Enabled {
		switch {
		case enabled == 1:
			out = append(out, "1 MCP server is configured but MCP tools are off in the settings (tools.mcp.enabled): the model is offered none of its tools")
		case enabled > 1:
			out = append(out, fmt.Sprintf("%d MCP servers are configured but MCP tools are off in the settings (tools.mcp.enabled): the model is offered none of their tools", enabled))
		}
		return out
	}
	for _, st := range statuses {
		if !offered(v, st.Name) {
			continue
		}
		switch st.State {
		case mcp.StateFailed:
			out = append(out, fmt.Sprintf("the MCP server %q failed to start, so its tools are not offered: %s (see 'crewagent mcp list')", st.Name, oneLineText(st.Error)))
		case mcp.StatePendingApproval:
			out = append(out, fmt.Sprintf("the MCP server %q of the project's %s is not approved, so its tools are not offered (approve it with: %s)", st.Name, mcpFileOf(st.Config), mcp.ApproveCommand(st.Name)))
		}
	}
	x.mu.Lock()
	for _, p := range x.problems {
		out = append(out, "an MCP server entry is left out: "+p.String())
	}
	x.mu.Unlock()
	return out
}

func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ReloadMCP reads the MCP configuration again and applies it.
func (ws *Workspace) ReloadMCP() { ws.mcp.reload() }

// ---- editing the settings' servers ----

func invalidMCP(problems []mcp.Problem) error {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.String()
	}
	e := errs.New(errs.MCPConfigInvalid, "the MCP server cannot be saved: "+strings.Join(msgs, "; "))
	e.Details = map[string]any{"problems": problems}
	return e
}

func (rt *Runtime) settingsServers() (*settings.Store, []mcp.ServerConfig, error) {
	st, err := rt.Settings()
	if err != nil {
		return nil, nil, err
	}
	servers, _, err := mcp.SettingsServers(st)
	return st, servers, err
}

func findServer(servers []mcp.ServerConfig, name string) (mcp.ServerConfig, bool) {
	for _, s := range servers {
		if s.Name == name {
			return s, true
		}
	}
	return mcp.ServerConfig{}, false
}

// SaveMCPServer adds a server to the settings' mcpServers (previous "") or
// replaces the one called previous (renaming it when the name changed).
// Values still masked keep what is stored. Problems fail with
// E_MCP_CONFIG_INVALID, each listed.
func (rt *Runtime) SaveMCPServer(previous string, spec MCPServerSpec) error {
	st, servers, err := rt.settingsServers()
	if err != nil {
		return err
	}
	cfg := spec.config(mcp.SourceSettings)
	if cfg.Name != previous {
		if _, taken := findServer(servers, cfg.Name); taken {
			return invalidMCP([]mcp.Problem{{Server: cfg.Name, Message: "exists already: choose another name, or edit that server"}})
		}
	}
	if previous != "" {
		old, ok := findServer(servers, previous)
		if !ok {
			return errs.Errorf(errs.MCPServerNotFound, "there is no MCP server %q in the settings", previous)
		}
		cfg = mcp.MergeSecrets(cfg, old)
		if cfg.URL != "" && cfg.Type == "" {
			cfg.Type = old.Type // the form does not show the transport a url entry names
		}
	}
	if problems, err := mcp.SaveServer(st, cfg); err != nil {
		if len(problems) > 0 {
			return invalidMCP(problems)
		}
		return err
	}
	if previous != "" && previous != cfg.Name {
		if _, err := mcp.RemoveServer(st, previous); err != nil {
			return err
		}
	}
	return nil
}

// RemoveMCPServer deletes a server from the settings' mcpServers.
func (rt *Runtime) RemoveMCPServer(name string) error {
	st, err := rt.Settings()
	if err != nil {
		return err
	}
	found, err := mcp.RemoveServer(st, name)
	if err != nil {
		return err
	}
	if !found {
		return errs.Errorf(errs.MCPServerNotFound, "there is no MCP server %q in the settings", name)
	}
	return nil
}

// SetMCPServerEnabled turns a settings server on or off (its "disabled").
func (rt *Runtime) SetMCPServerEnabled(name string, enabled bool) error {
	st, servers, err := rt.settingsServers()
	if err != nil {
		return err
	}
	cfg, ok := findServer(servers, name)
	if !ok {
		return errs.Errorf(errs.MCPServerNotFound, "there is no MCP server %q in the settings", name)
	}
	cfg.Disabled = !enabled
	if problems, err := mcp.SaveServer(st, cfg); err != nil {
		if len(problems) > 0 {
			return invalidMCP(problems)
		}
		return err
	}
	return nil
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
	out := MCPParsed{Servers: []MCPServerView{}, Replaces: []string{}, Problems: []mcp.Problem{}}
	servers, problems := mcp.ParseBlock(text, mcp.SourceSettings)
	out.Problems = append(out.Problems, problems...)
	_, existing, _ := rt.settingsServers()
	v := rt.mcpBaseView()
	for _, c := range servers {
		st := mcp.Status{Name: c.Name, Source: c.Source, Transport: c.Transport(), State: mcp.StateStopped, Config: c.Redacted()}
		if c.Disabled {
			st.State = mcp.StateDisabled
		}
		out.Servers = append(out.Servers, serverView(st, nil, v))
		if _, ok := findServer(existing, c.Name); ok {
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

// ImportMCPBlock saves the servers of a pasted block to the settings (a
// server of the same name is replaced); entries with problems are left out
// and reported. A block without any usable server fails with
// E_MCP_CONFIG_INVALID.
func (rt *Runtime) ImportMCPBlock(text string) (MCPImport, error) {
	out := MCPImport{Added: []string{}, Replaced: []string{}, Problems: []mcp.Problem{}}
	servers, problems := mcp.ParseBlock(text, mcp.SourceSettings)
	out.Problems = append(out.Problems, problems...)
	if len(servers) == 0 {
		if len(problems) == 0 {
			problems = []mcp.Problem{{Message: "the block names no server"}}
		}
		return out, invalidMCP(problems)
	}
	st, existing, err := rt.settingsServers()
	if err != nil {
		return out, err
	}
	for _, c := range servers {
		_, replaced := findServer(existing, c.Name)
		ps, err := mcp.SaveServer(st, c)
		if err != nil {
			if len(ps) == 0 {
				return out, err
			}
			out.Problems = append(out.Problems, ps...)
			continue
		}
		if replaced {
			out.Replaced = append(out.Replaced, c.Name)
		} else {
			out.Added = append(out.Added, c.Name)
		}
	}
	return out, nil
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

// mcpFileOf names the project file a project server comes from.
func mcpFileOf(c mcp.ServerConfig) string {
	if c.File != "" {
		return c.File
	}
	return mcp.ProjectFileName
}

// MCPResources lists the resources and resource templates of one server, or
// of every runnable server when name is empty (starting them as needed). A
// server that fails is reported in problems; the others are still listed.
func (ws *Workspace) MCPResources(ctx context.Context, name string) (MCPResourceList, error) {
	var out MCPResourceList
	names, err := ws.mcpTargets(name)
	if err != nil {
		return out, err
	}
	for _, n := range names {
		list, templates, err := ws.mcp.manager.Resources(ctx, n)
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

// MCPResourceList is what MCPResources found.
type MCPResourceList struct {
	Resources []mcp.Resource         `json:"resources"`
	Templates []mcp.ResourceTemplate `json:"templates"`
	Problems  []string               `json:"problems,omitempty"`
}

// ReadMCPResource reads one resource of a server.
func (ws *Workspace) ReadMCPResource(ctx context.Context, name, uri string) ([]mcp.ResourceContent, error) {
	if _, err := ws.mcpServer(name); err != nil {
		return nil, err
	}
	return ws.mcp.manager.ReadResource(ctx, name, uri)
}

// MCPPrompts lists the prompts, with their arguments, of one server or of
// every runnable server when name is empty.
func (ws *Workspace) MCPPrompts(ctx context.Context, name string) (MCPPromptList, error) {
	var out MCPPromptList
	names, err := ws.mcpTargets(name)
	if err != nil {
		return out, err
	}
	for _, n := range names {
		list, err := ws.mcp.manager.Prompts(ctx, n)
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

// MCPPromptList is what MCPPrompts found.
type MCPPromptList struct {
	Prompts  []mcp.Prompt `json:"prompts"`
	Problems []string     `json:"problems,omitempty"`
}

// MCPPrompt is a prompt of a server filled in with its arguments.
type MCPPrompt struct {
	Server      string              `json:"server"`
	Name        string              `json:"name"`
	Description string              `json:"description,omitempty"`
	Messages    []mcp.PromptMessage `json:"messages"`
}

// GetMCPPrompt fills in a prompt of a server with args.
func (ws *Workspace) GetMCPPrompt(ctx context.Context, name, prompt string, args map[string]string) (MCPPrompt, error) {
	if _, err := ws.mcpServer(name); err != nil {
		return MCPPrompt{}, err
	}
	desc, msgs, err := ws.mcp.manager.GetPrompt(ctx, name, prompt, args)
	return MCPPrompt{Server: name, Name: prompt, Description: desc, Messages: msgs}, err
}

// mcpTargets is the named server (checked to exist), or every runnable one.
func (ws *Workspace) mcpTargets(name string) ([]string, error) {
	if name == "" {
		return ws.mcp.manager.Runnable(), nil
	}
	if _, err := ws.mcpServer(name); err != nil {
		return nil, err
	}
	return []string{name}, nil
}
