package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"crewagent/backend/errs"
	"crewagent/backend/mcp/oauth"
)

// server is one configured server and its current connection, if any.
type server struct {
	m   *Manager
	cfg ServerConfig
	red atomic.Pointer[redactor] // grows with the values variables resolve to
	log *logSink                 // local servers only

	mu          sync.Mutex
	state       State // StateStopped, StateStarting, StateReady or StateFailed
	conn        *conn
	starting    chan struct{} // closed when the start under way ends
	cancelStart context.CancelFunc
	gen         int  // bumped by stop: a start that began before it must not finish it
	removed     bool // shut down for good (Close, or replaced by Reload)
	lastErr     string
	// lastKey and lastParams: the template lastErr was made from, if any.
	lastKey    string
	lastParams errs.Params
	tail       string // stderr tail of the failed run, secrets removed
	failures   int
	failedAt   time.Time
	retryAt    time.Time
	tools      []Tool
	byWire     map[string]string // wire name -> tool name
	info       *sdk.Implementation
}

// conn is one connection to a server (one process for a local server).
type conn struct {
	s       *server
	cs      *sdk.ClientSession
	proc    *process
	http    *http.Client
	ctx     context.Context // cancelled when the connection is closed or lost: ends its calls
	cancel  context.CancelFunc
	closing atomic.Bool   // we are closing it: its end is not a failure
	ended   chan struct{} // closed once the connection is over and its process gone
	// stderrDone is closed when the server's stderr has been read to its end.
	stderrDone chan struct{}
	// A tool-list refresh is running / another one is due.
	refreshing, refreshDirty atomic.Bool
	started                  chan struct{} // closed when the start has finished (tool refreshes wait for it)
	// progress routes progress notifications to the calls under way.
	progress progressSet
}

func newServer(m *Manager, c ServerConfig) *server {
	s := &server{m: m, cfg: c.Clone(), state: StateStopped}
	red := newRedactor(c)
	if r, err := c.Resolve(m.vars()); err == nil {
		red = red.with(r)
	}
	s.red.Store(&red)
	// Every server has a log: what a local server writes to stderr, and what any server
	// sends as logging notifications.
	s.log = newLogSink(s.logPath(), m.opts.MaxLogBytes)
	return s
}

func (s *server) redactor() *redactor { return s.red.Load() }

// resolve expands the variables of the configuration for a start, and hides the secrets
// they give in what the server's status shows.
func (s *server) resolve() (ServerConfig, error) {
	r, err := s.cfg.Resolve(s.m.vars())
	if err != nil {
		return r, fmt.Errorf("the configuration of %q cannot be used: %w", s.cfg.Name, err)
	}
	if r.Transport() != TransportStdio {
		if err := checkServerURL(r.URL); err != nil {
			return r, fmt.Errorf("the configuration of %q cannot be used: url: %w", s.cfg.Name, err)
		}
	}
	red := s.redactor().with(r)
	s.red.Store(&red)
	return r, nil
}

func (s *server) logPath() string { return LogPath(s.m.opts.LogDir, s.cfg.Name) }

// runnable returns nil when the server may run, else an *errs.Error saying why.
func (s *server) runnable() error {
	if s.cfg.Disabled {
		return errs.New(CodeDisabled, fmt.Sprintf("the MCP server %q is disabled in its configuration", s.cfg.Name))
	}
	if s.cfg.Source == SourceProject {
		ok := false
		if s.m.opts.Approvals != nil {
			ok, _ = s.m.opts.Approvals.IsApproved(s.cfg)
		}
		if !ok {
			return errs.New(CodeNotApproved, fmt.Sprintf("the MCP server %q comes from the project's %s and has not been approved for this project (approve it in Settings → MCP or with: %s)", s.cfg.Name, s.cfg.projectFile(), ApproveCommand(s.cfg.Name)))
		}
	}
	return nil
}

func (s *server) status() Status {
	st := Status{
		Name:      s.cfg.Name,
		Source:    s.cfg.Source,
		Transport: s.cfg.Transport(),
		Config:    s.cfg.Redacted(),
	}
	if s.log != nil {
		st.LogPath = s.logPath()
	}
	s.mu.Lock()
	st.State = s.state
	st.ToolCount = len(s.tools)
	st.Failures = s.failures
	if s.state == StateFailed {
		st.Error, st.ErrorKey, st.ErrorParams = s.lastErr, s.lastKey, s.lastParams
		st.StderrTail = s.tail
		st.GaveUp = s.failures > s.m.opts.MaxRestarts
		f := s.failedAt
		st.FailedAt = &f
		if !st.GaveUp && !s.retryAt.IsZero() {
			t := s.retryAt
			st.RetryAt = &t
		}
	}
	if s.state == StateReady && s.conn != nil && s.conn.proc != nil {
		st.PID = s.conn.proc.pid
	}
	if s.info != nil {
		st.ServerName, st.ServerVersion = s.info.Name, s.info.Version
	}
	s.mu.Unlock()
	if s.cfg.Disabled {
		st.State = StateDisabled
	} else if s.cfg.Source == SourceProject {
		approved := false
		if s.m.opts.Approvals != nil {
			approved, _ = s.m.opts.Approvals.IsApproved(s.cfg)
			if !approved {
				all, _ := s.m.opts.Approvals.All()
				_, st.ApprovalChanged = all[s.cfg.Name]
			}
		}
		if !approved {
			st.State = StatePendingApproval
		}
	}
	return st
}

func (s *server) notify() { s.m.notify(s.status()) }

// offeredTools are the tools to offer: those of a ready server, and those of a server that
// failed but will be restarted on its next use.
func (s *server) offeredTools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.state == StateReady:
	case s.state == StateFailed && s.failures <= s.m.opts.MaxRestarts:
	default:
		return nil
	}
	return append([]Tool(nil), s.tools...)
}

func (s *server) toolName(wire string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byWire[wire]
	return t, ok
}

// ensure returns the ready connection, starting the server when it is not running. A
// failed server is started again once its backoff has passed: with waitBackoff ensure
// waits for that (within ctx), without it ensure fails at once. After too many failures in
// a row it fails until Restart.
func (s *server) ensure(ctx context.Context, waitBackoff bool) (*conn, error) {
	for {
		if err := s.runnable(); err != nil {
			return nil, err
		}
		s.mu.Lock()
		if s.removed || s.m.isClosed() {
			s.mu.Unlock()
			return nil, errs.Msg(errs.MCPServerFailed, "mcp.stopped", errs.Params{"name": s.cfg.Name})
		}
		switch s.state {
		case StateReady:
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case StateStarting:
			ch := s.starting
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case StateFailed:
			if s.failures > s.m.opts.MaxRestarts {
				err := errs.Msg(errs.MCPServerFailed, "mcp.gaveUp", errs.Params{"name": s.cfg.Name, "n": s.failures, "detail": s.lastErr})
				s.mu.Unlock()
				return nil, err
			}
			if wait := time.Until(s.retryAt); wait > 0 {
				err := errs.Msg(errs.MCPServerFailed, "mcp.restartIn", errs.Params{"name": s.cfg.Name, "detail": s.lastErr, "wait": wait.Round(time.Millisecond).String()})
				s.mu.Unlock()
				if !waitBackoff {
					return nil, err
				}
				t := time.NewTimer(wait)
				select {
				case <-t.C:
					continue
				case <-ctx.Done():
					t.Stop()
					return nil, ctx.Err()
				}
			}
		}
		// Stopped, or failed and due for a restart: start it.
		if !s.m.track() {
			s.mu.Unlock()
			return nil, fmt.Errorf("the MCP server %q has been stopped", s.cfg.Name)
		}
		s.state = StateStarting
		starting := make(chan struct{}) // this start's own: a later one replaces s.starting
		s.starting = starting
		startCtx, cancelStart := context.WithCancel(s.m.ctx)
		s.cancelStart = cancelStart
		gen := s.gen
		s.mu.Unlock()
		s.notify()
		c, tools, info, err := s.start(startCtx)
		cancelStart()
		s.m.wg.Done()
		s.mu.Lock()
		if s.gen != gen || s.removed {
			// Stopped while starting: this connection is not wanted any more.
			close(starting)
			s.mu.Unlock()
			if c != nil {
				go c.watch()
				c.close(0)
			}
			return nil, errs.Msg(errs.MCPServerFailed, "mcp.stoppedStarting", errs.Params{"name": s.cfg.Name})
		}
		if err != nil {
			e := errs.From(err)
			s.setFailedLocked(e.Message, e.Key, e.Params)
			close(starting)
			s.mu.Unlock()
			s.notify()
			return nil, errs.Msg(errs.MCPServerFailed, "mcp.couldNotStart", errs.Params{"name": s.cfg.Name, "detail": s.lastErr})
		}
		s.conn, s.state, s.info, s.lastErr, s.tail = c, StateReady, info, "", ""
		s.setToolsLocked(tools)
		close(starting)
		close(c.started)
		s.mu.Unlock()
		// Watched only now that it is s.conn: an end at any moment from here is seen.
		go c.watch()
		s.notify()
		return c, nil
	}
}

// scrubbed is err as an *errs.Error of code (its own when code is "") with
// secrets removed from its message and the values of its template.
func (s *server) scrubbed(code string, err error) *errs.Error {
	e := errs.From(err)
	if code == "" {
		code = e.Code
	}
	r := s.redactor()
	out := &errs.Error{Code: code, Message: r.scrub(e.Message), Key: e.Key, Cause: err}
	if e.Key != "" {
		out.Params = errs.Params{}
		for k, v := range e.Params {
			if str, ok := v.(string); ok {
				v = r.scrub(str)
			}
			out.Params[k] = v
		}
	}
	return out
}

// setFailedLocked records a failure (msg and the values of its template,
// key and params, have secrets removed here).
func (s *server) setFailedLocked(msg, key string, params errs.Params) {
	s.state = StateFailed
	s.conn = nil
	s.failures++
	r := s.redactor()
	s.lastErr, s.lastKey, s.lastParams = r.scrub(msg), key, nil
	if key != "" {
		s.lastParams = errs.Params{}
		for k, v := range params {
			if str, ok := v.(string); ok {
				v = r.scrub(str)
			}
			s.lastParams[k] = v
		}
	}
	if s.log != nil && s.cfg.Transport() == TransportStdio {
		s.tail = s.redactor().scrub(s.log.Tail()) // a remote server's log has no stderr
	}
	s.failedAt = time.Now()
	s.retryAt = s.failedAt.Add(s.m.backoff(s.failures))
}

func (s *server) setToolsLocked(tools []Tool) {
	s.tools = tools
	s.byWire = make(map[string]string, len(tools))
	for _, t := range tools {
		s.byWire[t.WireName] = t.Name
	}
}

// stop closes the connection (if any); the server starts again when next needed.
func (s *server) stop() {
	s.mu.Lock()
	s.gen++
	c := s.conn
	s.conn = nil
	if s.state == StateReady || s.state == StateStarting {
		s.state = StateStopped
	}
	starting := s.starting
	if s.cancelStart != nil {
		s.cancelStart()
	}
	s.mu.Unlock()
	if c != nil {
		c.close(s.m.opts.StopGrace)
	}
	if starting != nil {
		<-starting // a start under way ends soon: its handshake is bounded
	}
	s.notify()
}

// shutdown stops the server for good.
func (s *server) shutdown() {
	s.mu.Lock()
	s.removed = true
	s.mu.Unlock()
	s.stop()
	if s.log != nil {
		s.log.Close()
	}
}

// start starts the server and completes the handshake and the tool list within the
// handshake timeout (or until the manager closes).
func (s *server) start(startCtx context.Context) (*conn, []Tool, *sdk.Implementation, error) {
	opts := s.m.opts
	// The handshake's timeout, paused while the user signs in to the server.
	ctx, cancelCause := context.WithCancelCause(startCtx)
	deadline := time.AfterFunc(opts.HandshakeTimeout, func() { cancelCause(context.DeadlineExceeded) })
	defer func() {
		deadline.Stop()
		cancelCause(context.Canceled)
	}()
	signingIn := func(waiting bool) {
		if waiting {
			deadline.Stop()
		} else {
			deadline.Reset(opts.HandshakeTimeout)
		}
	}
	c := &conn{s: s, ended: make(chan struct{}), started: make(chan struct{}), stderrDone: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(s.m.ctx)
	var transport sdk.Transport
	cfg, err := s.resolve()
	if err != nil {
		return nil, nil, nil, err
	}
	var signIn auth.OAuthHandler // one per attempt: a refused sign-in is not asked again
	if cfg.Transport() != TransportStdio {
		signIn = s.oauthHandler(cfg, signingIn)
	}
	switch cfg.Transport() {
	case TransportStdio:
		spec, err := s.procSpec(cfg)
		if err != nil {
			return nil, nil, nil, err
		}
		s.log.begin("starting " + s.cfg.Name)
		p, err := startProcess(spec)
		if err != nil {
			return nil, nil, nil, errs.MsgWrap(errs.MCPServerFailed, err, "mcp.cannotStart", errs.Params{"command": cfg.Command, "detail": err.Error()})
		}
		c.proc = p
		go func() {
			_, _ = io.Copy(s.log, p.stderr)
			p.stderr.Close()
			close(c.stderrDone)
		}()
		transport = &sdk.IOTransport{
			Reader:        &jsonLineFilter{r: p.stdout, divert: s.log},
			Writer:        p.stdin,
			MaxLineLength: opts.MaxMessageBytes,
		}
	case TransportSSE:
		s.log.begin("connecting to " + s.cfg.Name + " (SSE)")
		c.http = newHTTPClient(cfg.Headers)
		c.http.Transport = newAuthTransport(c.http.Transport, signIn, cfg.URL)
		// The event stream is the connection: it must outlive the handshake's context.
		transport = &lastingTransport{t: &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: c.http, MaxEventSize: opts.MaxMessageBytes}, life: c.ctx}
	default:
		s.log.begin("connecting to " + s.cfg.Name)
		c.http = newHTTPClient(cfg.Headers)
		transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: c.http, MaxRetries: 2, OAuthHandler: signIn}
	}
	copts := &sdk.ClientOptions{
		// No roots: a server such as the filesystem one would replace the folders it was
		// configured with by the roots it is given.
		Capabilities:                &sdk.ClientCapabilities{},
		Logger:                      slog.New(slog.DiscardHandler),
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { s.toolsChanged(c) },
		LoggingMessageHandler:       func(_ context.Context, r *sdk.LoggingMessageRequest) { s.logMessage(r.Params) },
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { c.progress.deliver(r.Params) },
	}
	if opts.Elicit != nil {
		copts.ElicitationHandler = func(ctx context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return s.elicit(ctx, c, r) }
		copts.Capabilities.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: opts.ClientName, Version: opts.ClientVersion}, copts)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil && cfg.AutoSSE() && ctx.Err() == nil {
		// Chosen from the URL alone: the server may speak streamable HTTP there.
		c.http.CloseIdleConnections()
		c.http = newHTTPClient(cfg.Headers)
		var err2 error
		cs, err2 = client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: c.http, MaxRetries: 2, OAuthHandler: signIn}, nil)
		if err2 != nil {
			err = fmt.Errorf("neither transport worked at this /sse URL; with the legacy SSE transport: %s; with streamable HTTP: %s (set \"type\": \"sse\" or \"type\": \"http\" in the server's entry to choose one)", describeErr(err), describeErr(err2))
		} else {
			err = nil
		}
	} else if err != nil && cfg.Transport() == TransportHTTP && ctx.Err() == nil && legacySSEHint(err) && !errors.As(err, new(*oauth.Error)) {
		err = fmt.Errorf("%s (if this server speaks the legacy SSE transport, set \"type\": \"sse\" in its entry)", describeErr(err))
	}
	if err != nil {
		return nil, nil, nil, c.abort(ctx, "the handshake failed", err)
	}
	c.cs = cs
	if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Logging != nil {
		// Logging notifications go to the server's log; without a level many servers send none.
		_ = cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"})
	}
	tools, err := listTools(ctx, s.cfg.Name, cs)
	if err != nil {
		return nil, nil, nil, c.abort(ctx, "listing the tools failed", err)
	}
	return c, tools, cs.InitializeResult().ServerInfo, nil // the caller starts c.watch
}

// abort ends a connection that failed to start and says why.
func (c *conn) abort(ctx context.Context, what string, err error) error {
	c.closing.Store(true)
	c.cancel()
	var msg string
	switch {
	case errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		msg = fmt.Sprintf("did not complete the handshake within %s", c.s.m.opts.HandshakeTimeout)
	case ctx.Err() != nil:
		msg = "stopped while starting"
	default:
		msg = what + ": " + describeErr(err)
	}
	if c.cs != nil {
		go c.cs.Close()
	}
	if p := c.proc; p != nil {
		// A server that exited on its own says more than the broken pipe.
		select {
		case <-p.exited:
		case <-time.After(300 * time.Millisecond):
		}
		if d := p.exitDescription(); d != "" {
			msg = d + " during the handshake"
		}
		p.kill()
		p.stdin.Close()
		<-p.exited
		c.awaitStderr()
	}
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	close(c.ended)
	return errors.New(msg)
}

// watch waits for the end of the connection; an end we did not ask for is a failure.
func (c *conn) watch() {
	werr := c.cs.Wait()
	c.cancel()
	var msg string
	if p := c.proc; p != nil {
		if !c.closing.Load() {
			// The server closed its side: give it a moment to exit, then make sure it did.
			select {
			case <-p.exited:
			case <-time.After(500 * time.Millisecond):
				p.kill()
			}
		}
		p.stdin.Close()
		<-p.exited
		c.awaitStderr()
		msg = p.exitDescription()
	}
	if werr != nil && !errors.Is(werr, io.EOF) && !errors.Is(werr, os.ErrClosed) {
		if msg != "" {
			msg += "; "
		}
		msg += "connection lost: " + describeErr(werr)
	}
	if msg == "" {
		msg = "the connection ended"
	}
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	if !c.closing.Load() {
		c.s.connLost(c, msg) // before ended: a call waiting on it then finds the reason
	}
	close(c.ended)
}

// awaitStderr waits (briefly: a process that escaped the group may hold it open) until
// the last of stderr is in the log, so that the tail shows why the server ended.
func (c *conn) awaitStderr() {
	select {
	case <-c.stderrDone:
	case <-time.After(time.Second):
	}
}

// connLost records that c ended without being asked to.
func (s *server) connLost(c *conn, msg string) {
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	s.setFailedLocked(errs.Text("mcp.stoppedUnexpectedly", errs.Params{"detail": msg}), "mcp.stoppedUnexpectedly", errs.Params{"detail": msg})
	s.mu.Unlock()
	s.notify()
}

// failWords marks c as failed with a message from a template of
// errs.Messages and kills it (a server that stopped answering).
func (s *server) failWords(c *conn, key string, params errs.Params) {
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	s.setFailedLocked(errs.Text(key, params), key, params)
	s.mu.Unlock()
	c.close(0)
	s.notify()
}

// close ends the connection: stdin is closed (the server should exit), then the process
// group gets SIGTERM after grace and SIGKILL a second later. It returns when the process
// is gone.
func (c *conn) close(grace time.Duration) {
	c.closing.Store(true)
	c.cancel() // ends the calls under way, so that the session can close
	if c.cs != nil {
		go c.cs.Close()
	}
	if c.proc != nil {
		c.proc.stop(grace)
	}
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	select {
	case <-c.ended:
	case <-time.After(10 * time.Second):
	}
}

func (s *server) procSpec(cfg ServerConfig) (procSpec, error) {
	dir := s.m.opts.ProjectRoot
	if cfg.Cwd != "" {
		dir = cfg.Cwd
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(s.m.opts.ProjectRoot, dir)
		}
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return procSpec{}, fmt.Errorf("the working folder %s does not exist", dir)
		}
	}
	env := serverEnv(os.Environ(), cfg.Env)
	path, err := resolveCommand(cfg.Command, dir, env)
	if err != nil {
		return procSpec{}, err
	}
	return procSpec{path: path, args: cfg.Args, env: env, dir: dir}, nil
}

// listTools lists every tool of the server (all pages).
func listTools(ctx context.Context, server string, cs *sdk.ClientSession) ([]Tool, error) {
	var raw []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		raw = append(raw, t)
	}
	names := make([]string, len(raw))
	for i, t := range raw {
		names[i] = t.Name
	}
	wires := toolWireNames(server, names)
	out := make([]Tool, 0, len(raw))
	for i, t := range raw {
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		desc, _ := cutText(t.Description, maxDescriptionBytes)
		out = append(out, Tool{Server: server, Name: t.Name, WireName: wires[i], Title: title, Description: desc, InputSchema: objectSchema(t.InputSchema)})
	}
	return out, nil
}

const maxDescriptionBytes = 8 << 10

// objectSchema returns the schema as JSON, with "type":"object" added when it is missing
// (the model's API requires an object schema for the arguments).
func objectSchema(schema any) json.RawMessage {
	b, err := json.Marshal(schema)
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
		return []byte(`{"type":"object","properties":{}}`)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
		if _, ok := m["properties"]; !ok {
			m["properties"] = map[string]any{}
		}
		b, _ = json.Marshal(m)
	}
	return b
}

// toolsChanged refreshes the tool list after the server said it changed. Notifications
// that arrive during a refresh are folded into one more refresh, so a server repeating
// them cannot pile up work.
func (s *server) toolsChanged(c *conn) {
	c.refreshDirty.Store(true)
	if !c.refreshing.CompareAndSwap(false, true) {
		return // the refresher under way sees the flag
	}
	if !s.m.track() {
		c.refreshing.Store(false)
		return
	}
	go func() {
		defer s.m.wg.Done()
		select {
		case <-c.started:
		case <-c.ctx.Done():
			c.refreshing.Store(false)
			return
		}
		for {
			for c.refreshDirty.Swap(false) {
				if !s.refreshTools(c) {
					c.refreshing.Store(false)
					return
				}
			}
			c.refreshing.Store(false)
			// A notification that came between the last check and now found the flag
			// still set and left the refresh to us.
			if !c.refreshDirty.Load() || !c.refreshing.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}

// refreshTools lists the tools again; false when the connection is no longer current or
// the listing failed (the old list stays; a lost connection is handled by watch).
func (s *server) refreshTools(c *conn) bool {
	ctx, cancel := context.WithTimeout(c.ctx, s.m.opts.HandshakeTimeout)
	tools, err := listTools(ctx, s.cfg.Name, c.cs)
	cancel()
	if err != nil {
		return false
	}
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return false
	}
	s.setToolsLocked(tools)
	s.mu.Unlock()
	s.notify()
	return true
}

// call runs one tool call on c.
func (s *server) call(ctx context.Context, c *conn, tool string, args []byte, timeout time.Duration, o *CallOptions) Result {
	name := s.cfg.Name
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The timeout starts again with each progress notification, up to MaxCallTime.
	timer := newCallTimer(timeout, s.m.opts.MaxCallTime, cancel)
	defer timer.stop()
	stopOnEnd := context.AfterFunc(c.ctx, cancel) // a closed or lost connection ends the call
	defer stopOnEnd()
	params := &sdk.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
	tok := c.progress.add(func(p Progress) {
		timer.extend()
		if o.Progress != nil {
			o.Progress(p)
		}
	}, timer)
	defer c.progress.remove(tok)
	params.SetProgressToken(tok)
	res, err := c.cs.CallTool(callCtx, params)
	if err == nil {
		s.mu.Lock()
		s.failures = 0 // it answered: it works
		s.mu.Unlock()
		return convertResult(res, name, tool, s.m.opts.MaxResultBytes, o.Save)
	}
	switch {
	case ctx.Err() != nil:
		return failed(CodeCancelled, "the call was cancelled; the server was told to stop it", name, tool)
	case c.ctx.Err() == nil && timedOutOf(timer):
		s.checkHealth(c)
		if _, progressed := timer.timedOut(); progressed {
			return failed(CodeTimeout, fmt.Sprintf("no answer and no progress within %s of the last progress notification (or the call ran longer than %s); the call was cancelled", timeout, s.m.opts.MaxCallTime), name, tool)
		}
		return failed(CodeTimeout, fmt.Sprintf("no answer within %s; the call was cancelled", timeout), name, tool)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && c.ctx.Err() == nil && !transportCode(rpcErr.Code) {
		code := CodeProtocol
		if rpcErr.Code == jsonrpc.CodeInvalidParams {
			code = CodeBadArguments
		}
		return failed(code, s.redactor().scrub(rpcErr.Message), name, tool)
	}
	// The connection ended during the call: wait (briefly) for the reason.
	select {
	case <-c.ended:
	case <-time.After(2 * time.Second):
	}
	s.mu.Lock()
	msg := s.lastErr
	tail := s.tail
	s.mu.Unlock()
	switch {
	case c.closing.Load() && s.m.isClosed():
		msg, tail = "the project was closed", ""
	case c.closing.Load() && msg == "":
		msg, tail = "the server was stopped", ""
	case msg == "":
		msg = describeErr(err)
	}
	text := fmt.Sprintf("the MCP server %q stopped during the call: %s", name, msg)
	if tail = strings.TrimSpace(tail); tail != "" {
		if len(tail) > 600 {
			tail = "…" + tail[len(tail)-600:]
		}
		text += "\nstderr: " + tail
	}
	return failed(CodeServerFailed, s.redactor().scrub(text), name, tool)
}

// transportCode reports whether a JSON-RPC error code is one the SDK uses for its own
// connection failures (client or server closing, a request the transport could not
// deliver) rather than an answer of the server.
func transportCode(code int64) bool { return code == -32003 || code == -32004 || code == -32005 }

// checkHealth pings a server after a call timed out; one that does not answer is killed
// and marked failed (it is restarted on its next use).
func (s *server) checkHealth(c *conn) {
	if !s.m.track() {
		return
	}
	go func() {
		defer s.m.wg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, s.m.opts.PingTimeout)
		defer cancel()
		err := c.cs.Ping(ctx, nil)
		if err != nil && c.ctx.Err() == nil {
			s.failWords(c, "mcp.stoppedAnswering", errs.Params{"timeout": s.m.opts.PingTimeout.String()})
		}
	}()
}

// describeErr shortens SDK errors for people.
func describeErr(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "calling \"initialize\": ")
	return msg
}

// newHTTPClient is the client of a remote server: its headers on every request, the
// environment's proxy, bounded connection set-up.
func newHTTPClient(headers map[string]string) *http.Client {
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   15 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: &headerTransport{base: base, headers: cloneMap(headers)}}
}

type headerTransport struct {
	base    *http.Transport
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

func (t *headerTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }

func jsonValid(s string) bool { return json.Valid([]byte(s)) }

func timedOutOf(t *callTimer) bool { fired, _ := t.timedOut(); return fired }

// legacySSEHint reports whether a failed streamable HTTP handshake looks like a server of
// the legacy SSE transport (which answers a POST to its event stream with 404, 405 or 400).
func legacySSEHint(err error) bool {
	msg := err.Error()
	for _, s := range []string{"404", "405", "Method Not Allowed", "Not Found", "Bad Request", "sessionid", "session id"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// lastingTransport connects t with a context that lives as long as life, not as long as
// the context given to Connect (which only bounds the connecting): the legacy SSE transport
// ties its event stream, the whole connection, to the context it connects with.
type lastingTransport struct {
	t    sdk.Transport
	life context.Context
}

func (l *lastingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	cctx, cancel := context.WithCancel(l.life)
	stop := context.AfterFunc(ctx, cancel) // until connected, the caller's bound applies
	conn, err := l.t.Connect(cctx)
	if !stop() {
		if err == nil {
			conn.Close()
		}
		cancel()
		return nil, ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return conn, nil // cancelled with life, when the connection is closed
}
