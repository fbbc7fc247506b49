// Package projectmcp runs the MCP servers of one open project: its manager built from the
// settings' mcpServers and the project's files, watched and reloaded, offered to the tool
// hosts as a provider, and the edits of the settings' servers.
package projectmcp

import (
	"context"
	"log/slog"
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

// Config is what the servers of one project are built from.
type Config struct {
	// Home is the runtime home (settings.json, tokens); ProjectID, Root and
	// DataDir are the project's.
	Home, ProjectID, Root, DataDir string
	// Options set the timing of the servers and who answers what they ask
	// during a call; zero fields take the package's defaults, the other
	// fields are ignored.
	Options mcp.Options
	// ClientName and ClientVersion are how the client introduces itself.
	ClientName, ClientVersion string
	// Settings returns the settings in effect now.
	Settings func() settings.Settings
	// Emitter receives mcp:status events.
	Emitter events.Emitter
	Log     *slog.Logger
	// Context bounds every tool call (the runtime's lifetime).
	Context context.Context
	// Start lets the servers start as soon as the project is open when the
	// settings ask for it (tools.mcp.enabled and startOnOpen; the window);
	// commands never do.
	Start bool
	// SaveAttachment keeps an image, audio or resource a tool returned
	// beside the conversation's large tool outputs and returns its path.
	SaveAttachment func(conversationID, name string, data []byte) (string, error)
	// Output shows a call's progress in its tool card (nil: not shown).
	Output *events.ToolOutputBatcher
}

// Servers are the MCP servers of an open project: one mcp.Manager per
// project (the window and the command line alike), closed with it.
type Servers struct {
	c         Config
	manager   *mcp.Manager
	approvals *mcp.Approvals

	mu       sync.Mutex
	problems []mcp.Problem // of the configuration as last read
	watcher  *fsx.Watcher
}

// Open creates the project's MCP manager (no server starts here, unless
// c.Start and the settings ask for it).
func Open(c Config) *Servers {
	x := &Servers{c: c, approvals: mcp.NewApprovals(c.Home, c.ProjectID)}
	servers, problems := x.load()
	x.problems = problems
	t := c.Options
	opts := mcp.Options{HandshakeTimeout: t.HandshakeTimeout, CallTimeout: t.CallTimeout, PingTimeout: t.PingTimeout,
		MaxRestarts: t.MaxRestarts, RestartBackoff: t.RestartBackoff, MaxRestartBackoff: t.MaxRestartBackoff,
		StopGrace: t.StopGrace, MaxLogBytes: t.MaxLogBytes, MaxResultBytes: t.MaxResultBytes, MaxCallTime: t.MaxCallTime,
		Elicit: t.Elicit, OAuthConsent: t.OAuthConsent, SignInTimeout: t.SignInTimeout}
	opts.Home, opts.ProjectID, opts.ProjectRoot = c.Home, c.ProjectID, c.Root
	opts.Servers, opts.Approvals = servers, x.approvals
	opts.OnChange = x.changed
	opts.ClientName, opts.ClientVersion = c.ClientName, c.ClientVersion
	x.manager = mcp.NewManager(opts)
	x.startIfWanted()
	return x
}

// Manager returns the project's manager.
func (x *Servers) Manager() *mcp.Manager { return x.manager }

// Problems are the entries left out of the configuration as last read.
func (x *Servers) Problems() []mcp.Problem {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.problems)
}

// load reads the configured servers: the settings' table (read from the file
// each time, so edits made elsewhere count) and the project's .mcp.json.
func (x *Servers) load() ([]mcp.ServerConfig, []mcp.Problem) {
	raw, err := settings.ReadMCPServers(x.c.Home)
	var problems []mcp.Problem
	if err != nil {
		problems = append(problems, mcp.Problem{Message: "the settings' MCP servers cannot be read: " + err.Error()})
	}
	servers, pp := mcp.LoadConfig(raw, x.c.Root)
	return servers, append(problems, pp...)
}

// Reload applies the configuration as it is now: unchanged servers keep
// running, changed and removed ones stop, new ones are added.
func (x *Servers) Reload() {
	servers, problems := x.load()
	x.mu.Lock()
	x.problems = problems
	x.mu.Unlock()
	x.manager.Reload(servers)
	x.c.Emitter.Emit(events.MCPStatus, events.MCPStatusEvent{})
	x.startIfWanted()
}

// startIfWanted starts the runnable servers in the background when the
// window opened the project and the settings ask for it.
func (x *Servers) startIfWanted() {
	if !x.c.Start {
		return
	}
	if st := x.c.Settings().Tools.MCP; st.Enabled && st.StartOnOpen {
		x.manager.StartAll()
	}
}

// changed announces a server's new status.
func (x *Servers) changed(st mcp.Status) {
	x.c.Emitter.Emit(events.MCPStatus, events.MCPStatusEvent{Server: st.Name, State: string(st.State), ToolCount: st.ToolCount, Error: st.Error})
}

// Watch follows the files that configure the servers: settings.json (its
// mcpServers and tools.mcp), the project's .mcp.json, .cursor/mcp.json,
// .vscode/mcp.json and .env, and the approvals (a command may approve a
// server while the window is open).
func (x *Servers) Watch() {
	want := map[string]bool{
		filepath.Clean(settings.Path(x.c.Home)):                           true,
		filepath.Clean(filepath.Join(x.c.DataDir, mcp.ApprovalsFileName)): true,
		// the usual envFile of project servers: its content is part of their approval
		filepath.Clean(filepath.Join(x.c.Root, ".env")): true,
	}
	dirs := []string{x.c.Home, x.c.Root, x.c.DataDir}
	for _, rel := range mcp.ProjectFiles {
		file := filepath.Clean(filepath.Join(x.c.Root, filepath.FromSlash(rel)))
		want[file] = true
		if dir := filepath.Dir(file); !slices.Contains(dirs, dir) {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				dirs = append(dirs, dir) // .cursor and .vscode, when the project has them
			}
		}
	}
	w, err := fsx.NewWatcher(fsx.WatchOptions{
		OnEvent:  func(ev fsnotify.Event) bool { return want[filepath.Clean(ev.Name)] },
		OnQuiet:  x.Reload,
		Debounce: 150 * time.Millisecond,
	})
	if err != nil {
		x.c.Log.Warn("cannot watch the MCP configuration for changes", "error", err)
		return
	}
	for _, dir := range dirs {
		if err := w.Add(dir); err != nil {
			x.c.Log.Warn("cannot watch a folder for MCP configuration changes", "folder", dir, "error", err)
		}
	}
	w.Start()
	x.mu.Lock()
	x.watcher = w
	x.mu.Unlock()
}

// Close stops the watcher and every server (and what they started).
func (x *Servers) Close() {
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

// Provider offers the tools of the MCP servers the scope's policy allows:
// MCP on (settings, and the agent in agent and run modes), narrowed by the
// settings' and the agent's allowedServers and a child conversation's
// allowlist. Calls are cancelled after tools.mcp.callTimeoutSeconds; images,
// audio and resources they return are saved beside the conversation's large
// tool outputs.
func (x *Servers) Provider(s tools.Scope) []tools.Provider {
	if x == nil || !s.Policy.MCP.Enabled {
		return nil
	}
	m := x.manager
	servers := mcp.Narrow(m.Runnable(), s.Policy.MCP.AllowedServers, s.MCPAllowlist)
	if len(servers) == 0 {
		return nil
	}
	st := x.c.Settings().Tools.MCP
	timeout := time.Duration(st.CallTimeoutSeconds) * time.Second
	return []tools.Provider{m.Provider(mcp.ProviderOptions{Servers: servers, Timeout: timeout, Context: x.c.Context,
		Limits: Limits(st),
		Withheld: func(w mcp.Withheld) {
			x.c.Log.Warn("MCP server's tools not offered", "server", w.Server, "reason", w.Reason)
		},
		Save: func(ctx context.Context, a mcp.Attachment) (string, error) {
			return x.c.SaveAttachment(s.ConversationID, attachmentFileName(tools.ToolCallID(ctx), a.Name), a.Data)
		},
		// Progress shows in the tool's card like a command's live output.
		Progress: func(ctx context.Context, tool string, p mcp.Progress, done bool) {
			id := tools.ToolCallID(ctx)
			if x.c.Output == nil || id == "" {
				return
			}
			if done {
				x.c.Output.Done(s.ConversationID, tool, id)
				return
			}
			x.c.Output.Add(s.ConversationID, tool, id, []byte("progress "+p.String()+"\n"))
		}})}
}

// Limits bound one server's tool definitions (settings
// tools.mcp.maxToolsPerServer, maxToolTokensPerServer).
func Limits(st settings.MCPTools) mcp.Limits {
	return mcp.Limits{MaxTools: st.ToolsPerServer(), MaxTokens: st.ToolTokensPerServer()}
}

// Offered reports whether the settings offer a server's tools.
func Offered(st settings.MCPTools, name string) bool {
	if !st.Enabled {
		return false
	}
	return len(st.AllowedServers) == 0 || len(mcp.Narrow([]string{name}, st.AllowedServers)) == 1
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

// Server returns the status of a configured server, or
// E_MCP_SERVER_NOT_FOUND.
func (x *Servers) Server(name string) (mcp.Status, error) {
	st, ok := x.manager.Status(name)
	if !ok {
		return st, errs.Msg(errs.MCPServerNotFound, "mcp.noServer", errs.Params{"name": name})
	}
	return st, nil
}
