package app

import (
	"path/filepath"
	"sync"

	"crewagent/backend/approval/projectapproval"
	"crewagent/backend/checkpoint"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/convpage"
	"crewagent/backend/coordinator"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/mcp/projectmcp"
	"crewagent/backend/memory"
	"crewagent/backend/project"
	"crewagent/backend/skills/projectskills"
	"crewagent/backend/tasks"
	"crewagent/backend/tools"
	"crewagent/backend/watcher"
	"crewagent/backend/workflow"
)

// OpenOptions choose how a project is opened.
type OpenOptions struct {
	// ReadOnly opens the conversation store without the writer lock: for
	// commands that only read (everything that writes then fails).
	ReadOnly bool
	// Watch reports changes made on disk by others (conversations and run
	// states) as events.
	Watch bool
	// Emitter receives the events of this project instead of the runtime's.
	Emitter events.Emitter
	// StartMCP lets the project's MCP servers start as soon as it is open
	// when the settings ask for it (tools.mcp.startOnOpen; the window).
	StartMCP bool
	// Moved answers the question of a folder that looks like a project moved
	// from another path (project.OpenOptions); Open fails with
	// E_PROJECT_MOVED, the question in words, when it is not answered.
	Moved project.Moved
}

// Workspace is an open project: its conversation store, engine, workflow
// runs and task scheduler, wired once, the same way for the window and the
// command line.
type Workspace struct {
	rt      *Runtime
	emitter events.Emitter
	own     bool // Close also shuts the runtime down (Open)

	mu      sync.Mutex // guards project.ActivePackageID
	project *project.Project

	store   *convlog.Publishing
	engine  *engine.ChatService
	runs    *workflow.Service
	tasks   *tasks.Scheduler
	sandbox *tools.Sandbox // reads the user's files for the window (artifacts)
	watcher *watcher.Watcher
	roots   tools.Roots
	// providers build the tools beyond the built-in ones of every tool host
	// of the project, in chat, agent and run modes alike, in this order
	// (joined by provide).
	providers []tools.ProviderFactory
	// mcp runs the project's MCP servers.
	mcp *projectmcp.Servers
	// coord hands turns from conversation to conversation (the
	// conversation tools) and runs the chains of tasks that follow.
	coord *coordinator.Coordinator
	// skills are the project's skills (found, watched in the window).
	skills *projectskills.Set
	// memory reads the project's instruction files (AGENTS.md).
	memory *memory.Reader
	// approvals decide which tool calls wait for the user.
	approvals *projectapproval.Approvals
	// output passes the live output of running commands on as tool:output events.
	output *events.ToolOutputBatcher
	// pages read the conversations as the screen shows them.
	pages *convpage.Reader
	// checkpoints keep what the tools changed in the project's files (nil
	// when opened read-only).
	checkpoints *checkpoint.Store
}

// Open opens the project folder root (writing its identity file the first
// time) and everything that works on it.
func (rt *Runtime) Open(root string, o OpenOptions) (*Workspace, error) {
	p, err := project.OpenWith(rt.home, root, project.OpenOptions{Moved: o.Moved})
	if err != nil {
		return nil, err
	}
	return rt.OpenProject(p, o)
}

// OpenProject is Open for a project already identified. It is the one place
// where the runtime of a project is put together.
func (rt *Runtime) OpenProject(p *project.Project, o OpenOptions) (*Workspace, error) {
	ws := &Workspace{rt: rt, project: p, emitter: o.Emitter}
	if ws.emitter == nil {
		ws.emitter = rt.emitter
	}
	ws.output = events.NewToolOutputBatcher(ws.emitter, 0, 0, 0)
	opts := convlog.Options{Counter: rt, Logger: rt.opts.Logger}
	var (
		st  *convlog.Store
		err error
	)
	if o.ReadOnly {
		st, err = convlog.OpenReadOnly(p.DataDir, opts)
	} else {
		st, err = convlog.Open(p.DataDir, opts)
	}
	if err != nil {
		return nil, convlog.LockedForUser(err)
	}
	ws.store = convlog.NewPublishing(st, ws.storeChanged)
	ws.pages = convpage.New(convpage.Config{Store: ws.store, Busy: func(id string) bool { return ws.tasks.Busy(id) },
		Views:    func(e []*conversation.Entry) []conversation.EntryView { return ws.runs.Views(e) },
		Packages: rt.packages, Active: ws.activePackageID})
	// One task at a time in the whole project: the conversation tools hand
	// turns from conversation to conversation, which needs a single line.
	ws.tasks = tasks.New(rt.lifetime, tasks.Options{Serial: true, OnEvent: ws.taskEvent})
	ws.providers = append(ws.providers, func(s tools.Scope) []tools.Provider { return ws.coord.Providers(s) })
	// The one sandbox of the project's tools, for chat, agent and run turns
	// alike: the runtime's own data (settings, packages, every project's data)
	// is out of reach whatever the project folder is, and the project's
	// identity file is read-only. Each send and turn adds its conversation
	// (only its own tool outputs) and its package.
	ws.roots = tools.Roots{
		Project:     p.Root,
		ToolResults: filepath.Join(p.DataDir, filepath.FromSlash(convlog.ToolResultsDir)),
		Deny:        project.RuntimePaths(rt.home),
		ReadOnly:    []string{project.MetaPath(p.Root)},
	}
	ws.openSkills(o.Watch)
	ws.roots.Skills = ws.skills.Dir
	ws.providers = append(ws.providers, ws.skills.Providers)
	ws.sandbox = tools.NewSandbox(ws.roots)
	ws.memory = memory.New(p.Root)
	ws.openMCP(o)
	ws.approvals = projectapproval.New(projectapproval.Config{Home: rt.home, ProjectID: p.ID, Root: p.Root, Store: ws.store, Settings: rt.Effective})
	ws.engine, err = engine.New(engine.Options{
		Approvals: ws.approvals,
		Store:     ws.store,
		Settings:  rt,
		LLM:       coordinator.BudgetedLLM(rt.opts.LLM, rt.Effective),
		Tools:     ws.toolHost,
		Counter:   rt.counter,
		Emitter:   ws.emitter,
		Usage:     ws.publishUsage,
		Agents:    ws.agents(),
		Tasks:     ws.tasks,
		Skills:    ws.SkillCatalog,
		Memory:    ws.memory.Files,
	})
	if err != nil {
		ws.mcp.Close()
		st.Close()
		return nil, err
	}
	ws.coord = coordinator.New(coordinator.Config{Store: ws.store, Engine: ws.engine, Tasks: ws.tasks, Settings: rt.Effective,
		Counter: rt.counter, Log: rt.log, Delete: ws.DeleteConversation, AfterTask: ws.emitNextUsage,
		ReadFile: func(alias string, max int64) ([]byte, error) { return ws.sandbox.ReadFileAtMost(alias, max) }})
	ws.runs, err = workflow.New(workflow.Config{
		Project:  p,
		Packages: rt.packages,
		Store:    ws.store,
		Settings: rt,
		Emitter:  ws.emitter,
		// Run turns use the same engine: one reply or turn at a time per
		// conversation, the same streaming, context and compression.
		Engine: ws.engine,
		Tasks:  ws.tasks,
		Roots:  ws.roots,
		// The same providers as every other tool host of the project.
		Providers:         ws.provide,
		Changes:           changeRecorder{ws},
		RunWithoutSandbox: ws.runWithoutSandbox,
		OnToolOutput:      ws.liveOutput,
	})
	if err != nil {
		ws.mcp.Close()
		st.Close()
		return nil, err
	}
	if !o.ReadOnly {
		if err := ws.openCheckpoints(); err != nil {
			// The project stays usable; its files' changes go unrecorded
			// and rewind says the checkpoints are not open.
			ws.rt.log.Warn("cannot open the project's checkpoints", "error", err)
		}
		ws.coord.RecoverWaits()
	}
	if o.Watch {
		ws.watch()
	}
	return ws, nil
}

// watch reports changes made on disk by others. Watching is a convenience:
// the project works without it.
func (ws *Workspace) watch() {
	ws.skills.Refresh() // watched from now on
	if err := ws.runs.Watch(); err != nil {
		// Runs still report their progress themselves; only edits made on
		// disk by others go unnoticed.
		ws.rt.log.Warn("cannot watch the run states for changes", "error", err)
	}
	w, err := watcher.New(ws.project.DataDir, func(c watcher.Change) {
		ws.emitter.Emit(events.ConversationChanged, events.ChangeEvent{ConversationID: c.ConversationID, Kind: c.Kind, External: true})
	}, watcher.Options{Ignore: ws.store.IsOwnWrite, Logger: ws.rt.opts.Logger})
	if err != nil {
		ws.rt.log.Warn("cannot watch the project data for changes", "error", err)
		return
	}
	ws.watcher = w
}

// Close stops the tasks, the watchers and the store of the project.
func (ws *Workspace) Close() error {
	ws.tasks.Close()
	if ws.watcher != nil {
		_ = ws.watcher.Close()
	}
	if err := ws.runs.Close(); err != nil {
		ws.rt.log.Warn("stopping the run state watcher", "error", err)
	}
	ws.mcp.Close() // every server, and what they started, is gone when it returns
	ws.skills.Close()
	err := ws.store.Close()
	if ws.own {
		ws.rt.Shutdown()
	}
	return err
}

// provide builds the providers of one tool host: those of every factory, in
// order.
func (ws *Workspace) provide(s tools.Scope) []tools.Provider {
	return tools.Providers(ws.providers...)(s)
}

// Project returns the project (a copy: the active package may change).
func (ws *Workspace) Project() project.Project {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return *ws.project
}

// Runtime returns the runtime the project was opened from.
func (ws *Workspace) Runtime() *Runtime { return ws.rt }

// Store returns the project's conversation store (it announces its changes).
func (ws *Workspace) Store() *convlog.Publishing { return ws.store }

// Runs returns the project's workflow runs.
func (ws *Workspace) Runs() *workflow.Service { return ws.runs }

// Tasks returns the project's task scheduler.
func (ws *Workspace) Tasks() *tasks.Scheduler { return ws.tasks }

// activePackageID returns the project's active package ("" when none).
func (ws *Workspace) activePackageID() string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.project.ActivePackageID
}

// storeChanged announces a change of the store, and what it wrote.
func (ws *Workspace) storeChanged(c convlog.Change) {
	ws.emitter.Emit(events.ConversationChanged, events.ChangeEvent{ConversationID: c.ConversationID, Kind: c.Kind})
	if c.Kind == convlog.ChangeUpdated {
		ws.publishEntries(c.ConversationID, c.Entries, ws.tasks.Busy(c.ConversationID))
	}
}

// taskEvent announces that a reply or run turn started or ended in a
// conversation: conversation:changed with streaming true, then false with
// the failure the conversation does not show, if any.
func (ws *Workspace) taskEvent(ev tasks.Event) {
	name, te := ev.Announcement()
	if m, err := ws.store.Get(ev.Task.ConversationID); err == nil {
		te.Title = m.Title
	}
	ch := events.ChangeEvent{ConversationID: ev.Task.ConversationID, Kind: events.Updated, Streaming: boolPtr(ev.Phase == tasks.Started), Error: te.Error}
	ws.emitter.Emit(events.ConversationChanged, ch)
	if ev.Phase == tasks.Ended {
		// How the conversation ends now; the one waiting for it, if any,
		// sees that it no longer answers.
		ws.publishEntries(ev.Task.ConversationID, nil, false)
	}
	if ev.Task.For != "" {
		ws.publishEntries(ev.Task.For, nil, ws.tasks.Busy(ev.Task.For))
	}
	ws.emitter.Emit(name, te)
	if ev.Phase == tasks.Ended {
		ws.coord.TaskEnded(ev.Task.Chain)
	}
}

func boolPtr(b bool) *bool { return &b }
