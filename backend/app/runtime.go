package app

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/mcp"
	"crewagent/backend/packages"
	"crewagent/backend/settings"
	"crewagent/backend/tokens"
)

// Version is the product version; wails.json info.productVersion says the
// same (a test checks).
const Version = "0.1.0"

// DemoPolicy says how the bundled demo package is provided.
type DemoPolicy int

const (
	// DemoOnDemand installs the demo when a run needs a package and none is
	// installed (the command line), unless the user removed it.
	DemoOnDemand DemoPolicy = iota
	// DemoAtStartup installs the demo in the background once (StartDemo, the
	// window) and uses that installation; nothing is installed on demand.
	DemoAtStartup
)

// Options configure a Runtime.
type Options struct {
	// Emitter receives every event (nil: dropped).
	Emitter events.Emitter
	// Logger receives warnings (nil: slog.Default()).
	Logger *slog.Logger
	// LLM builds the model client (nil: the engine's default).
	LLM engine.LLMFactory
	// Demo says how the bundled demo package is provided.
	Demo DemoPolicy
	// MCP sets the timing of the projects' MCP servers (handshake, call and
	// ping timeouts, restarts, stop grace, log and result sizes); zero fields
	// take the defaults, the other fields are ignored.
	MCP mcp.Options
	// LocalCandidates are where DetectLocalServers looks (nil: DefaultLocalCandidates).
	LocalCandidates []LocalCandidate
}

// Runtime is a runtime home: its settings, installed packages and token
// counter, shared by the projects opened from it.
type Runtime struct {
	home     string
	opts     Options
	emitter  events.Emitter
	log      *slog.Logger
	counter  *tokens.Counter
	packages *packages.Manager

	// lifetime is cancelled by Shutdown; every task runs under it.
	lifetime context.Context
	stop     context.CancelFunc

	settingsMu sync.Mutex
	settings   *settings.Store // loaded on first use

	demo *packages.BackgroundDemo // the background installation (DemoAtStartup)
}

// EndpointsFile, in the runtime home, remembers what each LLM endpoint refused.
const EndpointsFile = "llm-endpoints.json"

// New returns the runtime of home.
func New(home string, opts Options) *Runtime {
	em := opts.Emitter
	if em == nil {
		em = events.Nop{}
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	if home != "" {
		// What endpoints refused (request fields, schema keywords) is remembered
		// across restarts.
		llm.UseEndpointFile(filepath.Join(home, EndpointsFile))
	}
	rt := &Runtime{
		home:     home,
		opts:     opts,
		emitter:  em,
		log:      lg.With("component", "app"),
		counter:  tokens.New(),
		packages: packages.NewManager(home),
		lifetime: ctx,
		stop:     cancel,
	}
	rt.demo = packages.NewBackgroundDemo(rt.packages, func(err error) { rt.log.Warn("installing the bundled demo package", "error", err) })
	return rt
}

// Home returns the runtime home.
func (rt *Runtime) Home() string { return rt.home }

// Packages returns the installed packages of the home.
func (rt *Runtime) Packages() *packages.Manager { return rt.packages }

// Shutdown stops every task of the runtime's projects and waits for the
// demo installation started by StartDemo.
func (rt *Runtime) Shutdown() {
	rt.stop()
	rt.demo.Wait()
}

// Settings loads <home>/settings.json on first use. A file that cannot be
// read is reported each time until it is fixed.
func (rt *Runtime) Settings() (*settings.Store, error) {
	rt.settingsMu.Lock()
	defer rt.settingsMu.Unlock()
	if rt.settings != nil {
		return rt.settings, nil
	}
	st, err := settings.Load(rt.home)
	if err != nil {
		return nil, err
	}
	rt.settings = st
	return st, nil
}

// Effective returns the settings in effect now: when settings.json is not
// valid, the defaults with the environment's overrides (settings.LoadForReading;
// sends then fail on RequireLLM with a clear message unless the environment
// configures the LLM); the defaults when it cannot be read at all. It
// implements engine.SettingsProvider.
func (rt *Runtime) Effective() settings.Settings {
	if st, err := rt.Settings(); err == nil {
		return st.Effective()
	}
	if st, _, err := settings.LoadForReading(rt.home); err == nil {
		return st.Effective()
	}
	return settings.Defaults()
}

// CountEntry counts an appended entry for the model in effect when it is
// appended, so a model changed in Settings applies without reopening a
// project (the store's counter).
func (rt *Runtime) CountEntry(e *conversation.Entry) (int, string) {
	return rt.counter.ForModel(rt.Effective().LLM.Model).CountEntry(e)
}

// ---- the bundled demo package ----

// StartDemo installs the bundled demo package in the background unless a
// package of its name is installed (packages.BackgroundDemo). Calling it
// again does nothing.
func (rt *Runtime) StartDemo() { rt.demo.Start() }

// Demo returns the bundled demo package as the runtime provides it: the
// background installation (DemoAtStartup) or one made now (DemoOnDemand).
// packages.ErrDemoRemoved when the user removed it.
func (rt *Runtime) Demo() (*packages.Installed, error) {
	if rt.opts.Demo == DemoAtStartup {
		return rt.demo.Result()
	}
	return rt.packages.EnsureDemo()
}
