package main

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"sync"

	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tokens"
	"crewagent/backend/watcher"
	"crewagent/backend/workflow"
)

// appVersion is the product version; wails.json info.productVersion says the
// same (app_test.go checks).
const appVersion = "0.1.0"

// Dialogs opens native dialogs (wailsPlatform in the app, a fake in tests).
type Dialogs interface {
	// ChooseFolder returns the chosen folder, or "" when the user cancelled.
	ChooseFolder(title, defaultDir string) (string, error)
	// ChooseFile returns the chosen file, or "" when the user cancelled. The
	// filters limit what the dialog lists (all files when empty).
	ChooseFile(title, defaultDir string, filters []FileFilter) (string, error)
}

// FileFilter is one choice of a file dialog's filter: a name and patterns
// separated by semicolons ("*.bmad;*.zip").
type FileFilter struct {
	Name    string
	Pattern string
}

// App is the facade bound to the frontend (window.go.main.App). Each method
// calls into backend packages and gives failures a stable code (AppError).
// Lifecycle methods (startup, shutdown) are unexported so they are not bound.
type App struct {
	home     string
	dialogs  Dialogs
	emitter  events.Emitter
	counter  *tokens.Counter
	packages *packages.Manager
	log      *slog.Logger

	// lifetime is cancelled by shutdown; every stream runs under it.
	lifetime context.Context
	stop     context.CancelFunc

	settingsMu sync.Mutex
	settings   *settings.Store // loaded on first use

	demoMu sync.Mutex
	demo   *demoInstall // the bundled package's installation; nil until startup

	mu      sync.Mutex
	current *project.Project
	ws      *workspace // the open project's store, watcher and chat; nil when none
}

// workspace is what the App holds open for the current project.
type workspace struct {
	project *project.Project
	store   *convlog.Store
	watcher *watcher.Watcher
	engine  *engine.ChatService
	runs    *workflow.Service
	chat    *chatRunner // the replies and run turns in progress, one per conversation
}

// NewApp returns the facade for the runtime home home. Events for the
// frontend go to emitter.
func NewApp(home string, dialogs Dialogs, emitter events.Emitter) *App {
	if emitter == nil {
		emitter = events.Nop{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &App{
		home:     home,
		dialogs:  dialogs,
		emitter:  emitter,
		counter:  tokens.New(),
		packages: packages.NewManager(home),
		log:      slog.Default().With("component", "app"),
		lifetime: ctx,
		stop:     cancel,
	}
}

// startup installs the bundled demo package in the background (Wails
// OnStartup, after the platform's): the window never waits for it.
func (a *App) startup(context.Context) {
	a.installDemo()
}

// shutdown stops every stream, waits for the demo package installation
// started by startup, and closes the open project (Wails OnShutdown).
func (a *App) shutdown(context.Context) {
	a.stop()
	a.waitDemoInstall()
	if err := a.closeWorkspace(); err != nil {
		a.log.Warn("closing the project", "error", err)
	}
}

// ProjectInfo is an open project as the frontend sees it.
type ProjectInfo struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Root            string `json:"root"`
	DataDir         string `json:"dataDir"`
	ActivePackageID string `json:"activePackageId"`
}

func projectInfo(p *project.Project) ProjectInfo {
	return ProjectInfo{ID: p.ID, Name: p.Name, Root: p.Root, DataDir: p.DataDir, ActivePackageID: p.ActivePackageID}
}

// Version returns the product version.
func (a *App) Version() string { return appVersion }

// HomeDir returns the runtime home (settings, project data, recent projects).
func (a *App) HomeDir() string { return a.home }

// RecentProjects lists recently opened projects, most recent first; folders
// that no longer exist are listed with exists=false.
func (a *App) RecentProjects() ([]project.RecentProject, error) {
	list, err := project.Recent(a.home)
	if list == nil && err == nil {
		list = []project.RecentProject{}
	}
	return list, toAppError(err)
}

// ForgetRecent removes a folder from the recent projects list.
func (a *App) ForgetRecent(root string) error {
	return toAppError(project.Forget(a.home, root))
}

// OpenProject opens the project folder root, makes it the current project and
// puts it first in the recent list. Its conversation store is opened with the
// writer lock: a project open in another crewagent process fails with
// E_PROJECT_LOCKED and leaves the current project as it was.
func (a *App) OpenProject(root string) (ProjectInfo, error) {
	p, err := project.Open(a.home, root)
	if err != nil {
		return ProjectInfo{}, toAppError(err)
	}
	return a.setCurrent(p)
}

// CreateProject makes the folder parentDir/name, opens it as a project and
// makes it current.
func (a *App) CreateProject(parentDir, name string) (ProjectInfo, error) {
	p, err := project.Create(a.home, parentDir, name)
	if err != nil {
		return ProjectInfo{}, toAppError(err)
	}
	return a.setCurrent(p)
}

func (a *App) setCurrent(p *project.Project) (ProjectInfo, error) {
	a.mu.Lock()
	same := a.ws != nil && a.ws.project.ID == p.ID
	a.mu.Unlock()
	if !same {
		// Release the previous project first: reopening it must not find our own lock.
		if err := a.closeWorkspace(); err != nil {
			a.log.Warn("closing the previous project", "error", err)
		}
		ws, err := a.openWorkspace(p)
		if err != nil {
			return ProjectInfo{}, toAppError(err)
		}
		a.mu.Lock()
		a.ws = ws
		a.mu.Unlock()
	}
	a.bindDemoPackage(p)
	if err := project.Touch(a.home, p); err != nil {
		// The recent list is a convenience: the project is open all the same.
		a.log.Warn("updating the recent projects list", "error", err)
	}
	a.mu.Lock()
	a.current = p
	a.ws.project = p
	a.mu.Unlock()
	return projectInfo(p), nil
}

// openWorkspace opens the conversation store (writer lock) and the file
// watcher of a project.
func (a *App) openWorkspace(p *project.Project) (*workspace, error) {
	store, err := convlog.Open(p.DataDir, convlog.Options{Counter: liveCounter{a}})
	if err != nil {
		if errors.Is(err, convlog.ErrProjectLocked) {
			return nil, &AppError{Code: CodeProjectLocked, Message: lockedMessage(err)}
		}
		return nil, err
	}
	eng, err := a.newChatService(projectRef{root: p.Root, dataDir: p.DataDir}, store)
	if err != nil {
		store.Close()
		return nil, err
	}
	runs, err := workflow.New(workflow.Config{
		Project:  p,
		Packages: a.packages,
		Store:    store,
		Settings: settingsProvider{a},
		Counter:  a.counter,
		Emitter:  a.emitter,
		// Run turns use the chat engine: one reply or turn at a time per
		// conversation, the same streaming, context and compression.
		Engine: eng,
	})
	if err != nil {
		store.Close()
		return nil, err
	}
	if err := runs.Watch(); err != nil {
		// Runs still report their progress themselves; only edits made on
		// disk by others go unnoticed.
		a.log.Warn("cannot watch the run states for changes", "error", err)
	}
	ws := &workspace{project: p, store: store, engine: eng, runs: runs, chat: newChatRunner(a.lifetime)}
	w, err := watcher.New(p.DataDir, func(c watcher.Change) {
		a.emitter.Emit(events.ConversationChanged, conversationChange{ConversationID: c.ConversationID, Kind: c.Kind, External: true})
	}, watcher.Options{Ignore: store.IsOwnWrite})
	if err != nil {
		// Live updates are a convenience; the project still works without them.
		a.log.Warn("cannot watch the project data for changes", "error", err)
	} else {
		ws.watcher = w
	}
	return ws, nil
}

// closeWorkspace stops the streams, the watcher and the store of the open project.
func (a *App) closeWorkspace() error {
	a.mu.Lock()
	ws := a.ws
	a.ws = nil
	a.current = nil
	a.mu.Unlock()
	if ws == nil {
		return nil
	}
	ws.chat.stopAll()
	if ws.watcher != nil {
		_ = ws.watcher.Close()
	}
	if err := ws.runs.Close(); err != nil {
		a.log.Warn("stopping the run state watcher", "error", err)
	}
	return ws.store.Close()
}

// CurrentProject returns the open project, or null when none is open.
func (a *App) CurrentProject() (*ProjectInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.current == nil {
		return nil, nil
	}
	info := projectInfo(a.current)
	return &info, nil
}

// CloseProject closes the current project: running streams are stopped and
// the conversation store is closed (no error when none is open).
func (a *App) CloseProject() error {
	return toAppError(a.closeWorkspace())
}

// activePackageID returns the open project's active package ("" when none).
func (a *App) activePackageID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ws == nil {
		return ""
	}
	return a.ws.project.ActivePackageID
}

// ChooseFolder shows the native folder picker; "" means the user cancelled.
func (a *App) ChooseFolder() (string, error) {
	dir, err := a.dialogs.ChooseFolder("Choose a folder", "")
	return dir, toAppError(err)
}

// workspace returns the open project's workspace or E_NO_PROJECT.
func (a *App) workspace() (*workspace, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ws == nil {
		return nil, &AppError{Code: CodeNoProject, Message: "no project is open; open or create a project first"}
	}
	return a.ws, nil
}

// conversationChange is the payload of conversation:changed.
type conversationChange struct {
	ConversationID string `json:"conversationId"`
	Kind           string `json:"kind"` // created | updated | deleted
	// External is true when the change was made on disk by someone else.
	External bool `json:"external,omitempty"`
	// Streaming is set by SendMessage: true when a reply starts, false when
	// it has ended; Error says why it ended when nothing could be answered.
	Streaming *bool       `json:"streaming,omitempty"`
	Error     *eventError `json:"error,omitempty"`
}

func (a *App) changed(id, kind string) {
	a.emitter.Emit(events.ConversationChanged, conversationChange{ConversationID: id, Kind: kind})
}

var lockPID = regexp.MustCompile(`\(pid (\w+)\)`)

// lockedMessage says that another process holds the project, and which.
func lockedMessage(err error) string {
	who := "another CrewAgent window or command"
	if m := lockPID.FindStringSubmatch(err.Error()); m != nil && m[1] != "unknown" {
		who += " (process " + m[1] + ")"
	}
	return "This project is already open in " + who + ". Close it there, then open the project again."
}
