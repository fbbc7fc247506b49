package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"crewagent/backend/errs"
	"crewagent/backend/mcp/oauth"
	"crewagent/backend/project"
)

// State is where a server is in its life.
type State string

const (
	StateDisabled        State = "disabled"         // disabled in its configuration
	StatePendingApproval State = "pending-approval" // a project server not approved (as it is now)
	StateStopped         State = "stopped"          // not started yet, or stopped
	StateStarting        State = "starting"         // started, handshake under way
	StateReady           State = "ready"            // running; its tools are known
	StateFailed          State = "failed"           // could not start, crashed or stopped answering
)

// Defaults of Options.
const (
	DefaultHandshakeTimeout  = 30 * time.Second
	DefaultSignInTimeout     = 5 * time.Minute
	DefaultCallTimeout       = 2 * time.Minute
	DefaultMaxCallTime       = 30 * time.Minute
	DefaultPingTimeout       = 5 * time.Second
	DefaultMaxRestarts       = 5
	DefaultRestartBackoff    = time.Second
	DefaultMaxRestartBackoff = 30 * time.Second
	DefaultStopGrace         = 2 * time.Second
	DefaultMaxMessageBytes   = 16 << 20
)

// Options configure a Manager. Servers and Home are required; zero values take the
// defaults above.
type Options struct {
	// Home is the runtime home; ProjectID names the project (its data folder holds the
	// logs). ProjectRoot is the folder servers run in when their cwd is not given (and what
	// a relative cwd is relative to).
	Home        string
	ProjectID   string
	ProjectRoot string
	// Servers are the configured servers, settings and project ones together (see
	// LoadConfig); names must be unique.
	Servers []ServerConfig
	// Approvals decide which project servers may run; nil approves none.
	Approvals *Approvals
	// LogDir holds the servers' logs; default <home>/projects/<projectID>/logs/mcp.
	LogDir string
	// StartOnOpen starts every enabled, approved server in the background at once instead
	// of when it is first needed.
	StartOnOpen bool

	HandshakeTimeout time.Duration // start to ready, tool list included
	CallTimeout      time.Duration // per call, unless the call gives its own
	// MaxCallTime bounds a call that keeps sending progress notifications (each starts
	// the call's timeout again); default DefaultMaxCallTime.
	MaxCallTime time.Duration
	PingTimeout time.Duration // health check after a call timed out
	// MaxRestarts is how many failures in a row are restarted (after RestartBackoff,
	// doubling up to MaxRestartBackoff) before the server stays failed until Restart.
	MaxRestarts       int
	RestartBackoff    time.Duration
	MaxRestartBackoff time.Duration
	StopGrace         time.Duration // after stdin is closed, before SIGTERM
	MaxLogBytes       int64         // cap of each log file (DefaultMaxLogBytes)
	MaxMessageBytes   int           // longest protocol message a server may send
	MaxResultBytes    int           // text of a result (DefaultMaxResultBytes)

	// OnChange receives every status change. It is called without locks held, from
	// whichever goroutine made the change, and must not block for long.
	OnChange func(Status)

	// ClientName and ClientVersion are sent in the handshake.
	ClientName    string
	ClientVersion string

	// Elicit asks the user what a server asks for while it works (elicitation/create).
	// Nil: servers are told this client cannot ask (the capability is not announced).
	Elicit ElicitFunc

	// OAuthConsent gets the user's consent when a remote server requires signing in
	// (OAuth); nil opens the system browser with a loopback redirect (oauth.Browser).
	OAuthConsent oauth.Consent
	// SignInTimeout bounds the wait for that consent (DefaultSignInTimeout); the
	// handshake's timeout is paused meanwhile.
	SignInTimeout time.Duration

	// LookupEnv reads the environment variables configurations refer to (Vars);
	// os.LookupEnv when nil.
	LookupEnv func(name string) (string, bool)
}

func (o *Options) fill() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.HandshakeTimeout, DefaultHandshakeTimeout)
	def(&o.SignInTimeout, DefaultSignInTimeout)
	def(&o.CallTimeout, DefaultCallTimeout)
	def(&o.MaxCallTime, DefaultMaxCallTime)
	def(&o.PingTimeout, DefaultPingTimeout)
	def(&o.RestartBackoff, DefaultRestartBackoff)
	def(&o.MaxRestartBackoff, DefaultMaxRestartBackoff)
	def(&o.StopGrace, DefaultStopGrace)
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = DefaultMaxRestarts
	}
	if o.MaxLogBytes <= 0 {
		o.MaxLogBytes = DefaultMaxLogBytes
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.LogDir == "" {
		o.LogDir = LogDir(o.Home, o.ProjectID)
	}
	if o.ClientName == "" {
		o.ClientName = "crewagent"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "1"
	}
}

// LogDir is where the logs of a project's servers go: <home>/projects/<projectID>/logs/mcp.
func LogDir(home, projectID string) string {
	return filepath.Join(project.DataDir(home, projectID), "logs", "mcp")
}

// LogPath is the log file of a server in dir.
func LogPath(dir, server string) string { return filepath.Join(dir, ServerWireName(server)+".log") }

// Tool is one tool of a server, ready to offer to the model under WireName.
type Tool struct {
	Server      string `json:"server"`
	Name        string `json:"name"`     // the tool's name on its server
	WireName    string `json:"wireName"` // mcp__<server>__<tool>, unique, at most 64 characters
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// InputSchema is the tool's JSON schema for its arguments (always an object schema).
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Status is what the UI and the command line show for a server.
type Status struct {
	Name      string `json:"name"`
	Source    Source `json:"source"`
	Transport string `json:"transport"`
	State     State  `json:"state"`
	// ToolCount is the number of tools while ready (and the last known number otherwise).
	ToolCount int `json:"toolCount"`
	// Error says why the server failed; StderrTail is the end of what it wrote to stderr
	// in its last run. Both have secrets removed.
	Error      string `json:"error,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
	// ErrorKey and ErrorParams: the template of errs.Messages Error was made
	// from, and the values it names (the window says it in the user's language).
	ErrorKey    string      `json:"errorKey,omitempty"`
	ErrorParams errs.Params `json:"errorParams,omitempty"`
	LogPath     string      `json:"logPath,omitempty"`
	PID         int         `json:"pid,omitempty"`
	// Failures counts failures in a row; FailedAt is when the last one happened and
	// RetryAt when the next start may happen.
	Failures int        `json:"failures,omitempty"`
	FailedAt *time.Time `json:"failedAt,omitempty"`
	RetryAt  *time.Time `json:"retryAt,omitempty"`
	GaveUp   bool       `json:"gaveUp,omitempty"` // failed too often: Restart to try again
	// ServerName and ServerVersion are what the server said in the handshake.
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// ApprovalChanged is set on a pending project server whose configuration changed
	// since it was approved.
	ApprovalChanged bool `json:"approvalChanged,omitempty"`
	// Config is the configuration with its secrets masked (ServerConfig.Redacted).
	Config ServerConfig `json:"config"`
}

// Summary is a one-line description: "ready (12 tools)", "failed: exited with status 1".
func (s Status) Summary() string {
	switch s.State {
	case StateReady:
		if s.ToolCount == 1 {
			return "ready (1 tool)"
		}
		return fmt.Sprintf("ready (%d tools)", s.ToolCount)
	case StateFailed:
		return "failed: " + s.Error
	case StatePendingApproval:
		if s.ApprovalChanged {
			return "pending approval (changed since it was approved)"
		}
		return "pending approval"
	}
	return string(s.State)
}

// Manager runs the MCP servers of one open project: it starts them when needed, lists and
// calls their tools, restarts crashed ones and stops them all on Close. It is safe for
// concurrent use.
type Manager struct {
	opts   Options
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
	wg      sync.WaitGroup // starts, health checks and refreshes under way
}

// NewManager creates the manager of a project. No server starts here unless
// opts.StartOnOpen is set (then they start in the background).
func NewManager(opts Options) *Manager {
	opts.fill()
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, servers: map[string]*server{}}
	for _, c := range opts.Servers {
		m.servers[c.Name] = newServer(m, c)
	}
	if opts.StartOnOpen {
		m.startAllInBackground()
	}
	return m
}

// StartAll starts, in the background, every enabled and approved server that is not
// running yet (what Options.StartOnOpen does when the manager is created); a failed server
// waiting for its backoff is left alone.
func (m *Manager) StartAll() { m.startAllInBackground() }

// vars resolves the variables of the servers' configurations: ${workspaceFolder} is the
// project root.
func (m *Manager) vars() Vars {
	return Vars{WorkspaceFolder: m.opts.ProjectRoot, Lookup: m.opts.LookupEnv}
}

func (m *Manager) startAllInBackground() {
	for _, s := range m.list() {
		if !m.track() {
			return
		}
		go func() {
			defer m.wg.Done()
			_, _ = s.ensure(m.ctx, false)
		}()
	}
}

// track registers background work; false once the manager is closed.
func (m *Manager) track() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	return true
}

func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].cfg.Name < out[j].cfg.Name })
	return out
}

func (m *Manager) get(name string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[name]
}

func (m *Manager) byWire(serverWire string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if ServerWireName(s.cfg.Name) == serverWire {
			return s
		}
	}
	return nil
}

func (m *Manager) notify(st Status) {
	if m.opts.OnChange != nil {
		m.opts.OnChange(st)
	}
}

// Statuses returns the status of every configured server, sorted by name.
func (m *Manager) Statuses() []Status {
	ss := m.list()
	out := make([]Status, len(ss))
	for i, s := range ss {
		out[i] = s.status()
	}
	return out
}

// Status returns the status of one server.
func (m *Manager) Status(name string) (Status, bool) {
	s := m.get(name)
	if s == nil {
		return Status{}, false
	}
	return s.status(), true
}

// Runnable returns the servers that may run: enabled, and approved when they come from the
// project. It is the base list for Narrow.
func (m *Manager) Runnable() []string {
	var out []string
	for _, s := range m.list() {
		if s.runnable() == nil {
			out = append(out, s.cfg.Name)
		}
	}
	return out
}

// Tools returns the tools of the named servers (all runnable ones when servers is nil),
// starting those not running yet and waiting for their handshakes. Servers that are
// disabled, not approved, failing or waiting to be restarted give no tools (their status
// says why), except that a server which crashed and will be restarted on its next use keeps
// offering the tools it had. The order is by server, then as the server lists its tools.
func (m *Manager) Tools(ctx context.Context, servers []string) []Tool {
	var want []*server
	if servers == nil {
		servers = m.Runnable()
	}
	for _, name := range Narrow(m.names(), servers) {
		if s := m.get(name); s != nil && s.runnable() == nil {
			want = append(want, s)
		}
	}
	var wg sync.WaitGroup
	for _, s := range want {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = s.ensure(ctx, false)
		}()
	}
	wg.Wait()
	var out []Tool
	for _, s := range want {
		out = append(out, s.offeredTools()...)
	}
	return out
}

func (m *Manager) names() []string {
	ss := m.list()
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.cfg.Name
	}
	return out
}

// ServerTools returns the tools last listed by a server, without starting it.
func (m *Manager) ServerTools(name string) []Tool {
	s := m.get(name)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Tool(nil), s.tools...)
}

// CallOptions refine one call.
type CallOptions struct {
	// Timeout replaces Options.CallTimeout for this call.
	Timeout time.Duration
	// Save stores the attachments of the result; without it they are only returned.
	Save SaveFunc
	// Servers, when not nil, are the servers the caller's policy allows (see Narrow); a
	// tool of any other server is refused without contacting it.
	Servers []string
	// Progress receives the progress notifications of the call (each also starts its
	// timeout again). It is called from the connection's goroutine and must not block.
	Progress func(Progress)
}

// Call calls the tool with the given wire name with args (a JSON object; empty means {}).
// Every failure is an ok:false Result, never a Go error: an unknown tool, a refused,
// disabled or unapproved server, a server that cannot start or dies during the call, a
// timeout (the call is cancelled on the server), the caller's cancellation, and the tool's
// own errors (isError).
func (m *Manager) Call(ctx context.Context, wireName string, args []byte, opts *CallOptions) Result {
	if opts == nil {
		opts = &CallOptions{}
	}
	sw, _, ok := SplitWireName(wireName)
	if !ok {
		return failed(CodeToolNotAvailable, fmt.Sprintf("%q is not the name of an MCP tool (mcp__<server>__<tool>)", wireName), "", "")
	}
	s := m.byWire(sw)
	if s == nil {
		return failed(CodeToolNotAvailable, fmt.Sprintf("there is no MCP server %q", sw), "", "")
	}
	name := s.cfg.Name
	if opts.Servers != nil && !ToolAllowed(wireName, opts.Servers) {
		return failed(CodeToolNotAvailable, fmt.Sprintf("the tool policy does not allow the MCP server %q here", name), name, "")
	}
	if err := s.runnable(); err != nil {
		e := errs.From(err)
		return failed(e.Code, e.Message, name, "")
	}
	argsObj, bad := checkArgs(args)
	if bad != "" {
		return failed(CodeBadArguments, bad, name, "")
	}
	c, err := s.ensure(ctx, true)
	if err != nil {
		if ctx.Err() != nil {
			return failed(CodeCancelled, "the call was cancelled before the server was ready", name, "")
		}
		return failed(CodeServerFailed, s.redactor().scrub(err.Error()), name, "")
	}
	tool, ok := s.toolName(wireName)
	if !ok {
		return failed(CodeToolNotAvailable, fmt.Sprintf("the MCP server %q has no tool %q", name, wireName), name, "")
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = m.opts.CallTimeout
	}
	return s.call(ctx, c, tool, argsObj, timeout, opts)
}

// checkArgs checks that args is a JSON object ("" means {}).
func checkArgs(args []byte) ([]byte, string) {
	t := strings.TrimSpace(string(args))
	if t == "" {
		return []byte("{}"), ""
	}
	if !jsonValid(t) {
		return nil, "the arguments are not valid JSON"
	}
	if t[0] != '{' {
		return nil, "the arguments must be a JSON object"
	}
	return []byte(t), ""
}

// Reload replaces the configured servers: servers whose configuration is unchanged keep
// running, changed and removed ones are stopped, new ones are added (and started in the
// background with StartOnOpen).
func (m *Manager) Reload(servers []ServerConfig) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	next := map[string]*server{}
	var stop []*server
	var added []*server
	for _, c := range servers {
		if old, ok := m.servers[c.Name]; ok && old.cfg.Hash() == c.Hash() && old.cfg.Disabled == c.Disabled && old.cfg.Source == c.Source {
			next[c.Name] = old
			continue
		}
		s := newServer(m, c)
		next[c.Name] = s
		added = append(added, s)
	}
	for name, old := range m.servers {
		if next[name] != old {
			stop = append(stop, old)
		}
	}
	m.servers = next
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range stop {
		wg.Add(1)
		go func() { defer wg.Done(); s.shutdown() }()
	}
	wg.Wait()
	for _, s := range added {
		m.notify(s.status())
		if m.opts.StartOnOpen && s.runnable() == nil && m.track() {
			go func() { defer m.wg.Done(); _, _ = s.ensure(m.ctx, false) }()
		}
	}
}

// Approve approves the named project server as it is configured now. The server can then
// start (on its next use, or now with StartOnOpen).
func (m *Manager) Approve(name string) error {
	s := m.get(name)
	if s == nil {
		return fmt.Errorf("there is no MCP server %q", name)
	}
	if s.cfg.Source != SourceProject {
		return fmt.Errorf("the MCP server %q comes from the settings and needs no approval", name)
	}
	if m.opts.Approvals == nil {
		return errors.New("approvals are not available for this project")
	}
	if err := m.opts.Approvals.Approve(s.cfg); err != nil {
		return err
	}
	m.notify(s.status())
	if m.opts.StartOnOpen && m.track() {
		go func() { defer m.wg.Done(); _, _ = s.ensure(m.ctx, false) }()
	}
	return nil
}

// Revoke withdraws the approval of a project server and stops it.
func (m *Manager) Revoke(name string) error {
	s := m.get(name)
	if s == nil {
		return fmt.Errorf("there is no MCP server %q", name)
	}
	if m.opts.Approvals == nil || s.cfg.Source != SourceProject {
		return fmt.Errorf("the MCP server %q is not a project server", name)
	}
	if err := m.opts.Approvals.Revoke(name); err != nil {
		return err
	}
	s.stop()
	m.notify(s.status())
	return nil
}

// Restart stops a server if it runs, forgets its failures and starts it again; it returns
// when the server is ready or has failed (the error says why).
func (m *Manager) Restart(ctx context.Context, name string) error {
	s := m.get(name)
	if s == nil {
		return fmt.Errorf("there is no MCP server %q", name)
	}
	if err := s.runnable(); err != nil {
		return err
	}
	s.stop()
	s.mu.Lock()
	s.failures, s.retryAt, s.lastErr = 0, time.Time{}, ""
	s.mu.Unlock()
	_, err := s.ensure(ctx, false)
	if err != nil {
		return s.scrubbed(errs.CodeOf(err), err)
	}
	return nil
}

// Stop stops a server; it starts again when next needed.
func (m *Manager) Stop(name string) {
	if s := m.get(name); s != nil {
		s.stop()
	}
}

// LogTail returns up to maxBytes from the end of a server's log file.
func (m *Manager) LogTail(name string, maxBytes int) (string, error) {
	s := m.get(name)
	if s == nil {
		return "", fmt.Errorf("there is no MCP server %q", name)
	}
	if maxBytes <= 0 {
		maxBytes = 64 << 10
	}
	return readLogTail(s.logPath(), maxBytes)
}

// Close stops every server and returns once their processes (and everything they started)
// are gone. Calls under way end with an error. Close is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		m.wg.Wait()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.list() {
		wg.Add(1)
		go func() { defer wg.Done(); s.shutdown() }()
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// backoff is the wait before the start that follows the n-th failure in a row.
func (m *Manager) backoff(n int) time.Duration {
	d := m.opts.RestartBackoff
	for i := 1; i < n && d < m.opts.MaxRestartBackoff; i++ {
		d *= 2
	}
	if d > m.opts.MaxRestartBackoff {
		d = m.opts.MaxRestartBackoff
	}
	return d
}
