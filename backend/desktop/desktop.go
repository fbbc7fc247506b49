// Package desktop is what the window binds: one small struct per domain,
// mirroring frontend/src/bridge/* (System, Projects, Conversations, Chat,
// Runs, Packages, Settings, MCP, Skills, Context, Setup), each method a call
// into backend/app. It is the only package that imports the Wails runtime
// (platform.go, signals.go); the program's app.go runs its Window.
package desktop

import (
	"context"
	"encoding/json"
	"strings"

	"crewagent/backend/app"
	"crewagent/backend/errs"
	"crewagent/backend/events"
)

// Dialogs opens native dialogs (the Wails platform in the window, a fake in tests).
type Dialogs interface {
	// ChooseFolder returns the chosen folder, or "" when the user cancelled.
	ChooseFolder(title, defaultDir string) (string, error)
	// ChooseFile returns the chosen file, or "" when the user cancelled. The
	// filters limit what the dialog lists (all files when empty).
	ChooseFile(title, defaultDir string, filters []FileFilter) (string, error)
	// SaveFile returns where to save a new file (proposed as defaultName),
	// or "" when the user cancelled.
	SaveFile(title, defaultName string, filters []FileFilter) (string, error)
}

// FileFilter is one choice of a file dialog's filter: a name and patterns
// separated by semicolons ("*.bmad;*.zip").
type FileFilter struct {
	Name    string
	Pattern string
}

// App is the window's application: the session over the runtime home and
// the bound structs (every exported field; the program's app.go binds them).
type App struct {
	session  *app.Session
	dialogs  Dialogs
	stopTrim context.CancelFunc

	System        *System
	Projects      *Projects
	Conversations *Conversations
	Chat          *Chat
	Runs          *Runs
	Packages      *Packages
	Settings      *Settings
	MCP           *MCP
	Skills        *Skills
	Context       *Context
	Setup         *Setup
}

// NewApp returns the window's application for the runtime home home; events
// go to emitter.
func NewApp(home string, dialogs Dialogs, emitter events.Emitter) *App {
	// What MCP servers ask during a call is answered in the window (a form card).
	elicit := app.NewElicitations(emitter)
	opts := app.Options{Emitter: emitter, Demo: app.DemoAtStartup}
	opts.MCP.Elicit = elicit.Ask
	s := app.NewSession(app.New(home, opts))
	a := &App{session: s, dialogs: dialogs}
	a.System = &System{s}
	a.Projects = &Projects{s, dialogs}
	a.Conversations = &Conversations{s, dialogs}
	a.Chat = &Chat{s}
	a.Runs = &Runs{s}
	a.Packages = &Packages{s, dialogs}
	a.Settings = &Settings{s}
	a.MCP = &MCP{s, elicit}
	a.Skills = &Skills{s}
	a.Context = &Context{s}
	a.Setup = &Setup{s}
	return a
}

// startup installs the bundled demo package in the background (Wails
// OnStartup, after the platform's): the window never waits for it; and
// starts returning the memory the window no longer uses (trimMemory).
func (a *App) startup(context.Context) {
	a.session.Runtime().StartDemo()
	ctx, cancel := context.WithCancel(context.Background())
	a.stopTrim = cancel
	go trimMemory(ctx)
}

// shutdown stops every task, waits for the demo installation and closes the
// open project (Wails OnShutdown).
func (a *App) shutdown(context.Context) {
	if a.stopTrim != nil {
		a.stopTrim()
	}
	a.session.Shutdown()
}

// FormatError is the window's ErrorFormatter. The desktop runtime rejects a call
// with new Error(value), so the value must be a string: "CODE: message",
// which src/bridge/errors.ts parses; a message made from a template is
// followed by WireSeparator and {"key","params"} in JSON, for the window to
// say it in the user's language.
func FormatError(err error) any {
	e := errs.From(err)
	s := e.Code + ": " + e.Message
	if e.Key != "" {
		if b, jerr := json.Marshal(struct {
			Key    string      `json:"key"`
			Params errs.Params `json:"params,omitempty"`
		}{e.Key, e.Params}); jerr == nil {
			s += WireSeparator + string(b)
		}
	}
	return s
}

// WireSeparator parts a failed call's "CODE: message" from its template
// (the ASCII record separator, which no message holds).
const WireSeparator = "\x1e"

// current calls fn with the open project's workspace (E_NO_PROJECT without one).
func current[T any](s *app.Session, fn func(ws *app.Workspace) (T, error)) (T, error) {
	ws, err := s.Current()
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(ws)
}

// currentDo is current for calls that return only an error.
func currentDo(s *app.Session, fn func(ws *app.Workspace) error) error {
	ws, err := s.Current()
	if err != nil {
		return err
	}
	return fn(ws)
}

// exportToFile asks where to save an export of a conversation (proposing a
// name from its title) and writes it; "" when the user cancelled.
func exportToFile(ws *app.Workspace, dialogs Dialogs, id, format string) (string, error) {
	x, err := ws.ExportConversation(id, format)
	if err != nil {
		return "", err
	}
	filters := []FileFilter{{Name: "Markdown (*.md)", Pattern: "*.md"}}
	if strings.HasSuffix(x.FileName, ".json") {
		filters = []FileFilter{{Name: "JSON (*.json)", Pattern: "*.json"}}
	}
	path, err := dialogs.SaveFile("Export the conversation", x.FileName, filters)
	if err != nil || path == "" {
		return "", err
	}
	return path, app.WriteExport(path, x)
}
