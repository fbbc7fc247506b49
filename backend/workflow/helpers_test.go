package workflow

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tokens"
	"crewagent/backend/tools"
)

// env is a runtime home with the demo package installed, a project, and a fake LLM.
type env struct {
	t     *testing.T
	home  string
	root  string
	proj  *project.Project
	mgr   *packages.Manager
	pkgID string
	srv   *fakellm.Server
	set   settings.Settings
	rec   *events.Recorder
	store *convlog.Store
	svc   *Service
}

var counter = tokens.New()

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, home: t.TempDir(), root: t.TempDir(), rec: &events.Recorder{}}
	var err error
	if e.proj, err = project.Open(e.home, e.root); err != nil {
		t.Fatal(err)
	}
	e.mgr = packages.NewManager(e.home)
	inst, err := e.mgr.EnsureDemo()
	if err != nil {
		t.Fatal(err)
	}
	e.pkgID = inst.ID
	e.srv = fakellm.New()
	t.Cleanup(e.srv.Close)
	e.set = settings.Defaults()
	e.set.LLM.BaseURL = e.srv.URL()
	e.set.LLM.Model = "gpt-4o"
	e.set.LLM.MaxRetries = 0
	e.open()
	t.Cleanup(e.close)
	return e
}

// open starts a store and a service on the env's folders (a fresh "process").
func (e *env) open() {
	e.t.Helper()
	st, err := convlog.Open(e.proj.DataDir, convlog.Options{Counter: counter.ForModel(e.set.LLM.Model)})
	if err != nil {
		e.t.Fatal(err)
	}
	e.store = st
	e.svc = e.service(nil)
}

// roots is the sandbox of the project's tools, as the application gives it.
func (e *env) roots() tools.Roots {
	return tools.Roots{
		Project:     e.proj.Root,
		ToolResults: filepath.Join(e.proj.DataDir, filepath.FromSlash(convlog.ToolResultsDir)),
		Deny:        project.RuntimePaths(e.home),
		ReadOnly:    []string{project.MetaPath(e.proj.Root)},
	}
}

// service builds a service over the env's store with an engine of its own
// (chat: the engine, nil to build one over the env's settings).
func (e *env) service(chat *engine.ChatService) *Service {
	e.t.Helper()
	if chat == nil {
		var err error
		chat, err = engine.New(engine.Options{Store: e.store, Settings: engine.StaticSettings(e.set), Counter: counter,
			Emitter: e.rec, Tools: toolHosts(e.roots())})
		if err != nil {
			e.t.Fatal(err)
		}
	}
	svc, err := New(Config{Project: e.proj, Packages: e.mgr, Store: e.store, Settings: StaticSettings(e.set),
		Engine: chat, Roots: e.roots(), Emitter: e.rec, WatchDebounce: 20 * time.Millisecond})
	if err != nil {
		e.t.Fatal(err)
	}
	return svc
}

func (e *env) close() {
	if e.svc != nil {
		e.svc.Close()
		e.svc = nil
	}
	if e.store != nil {
		e.store.Close()
		e.store = nil
	}
}

// restart closes the service and the store and opens new ones on the same folders.
func (e *env) restart() {
	e.close()
	e.open()
}

func (e *env) withSettings(f func(*settings.Settings)) {
	f(&e.set)
	e.restart()
}

func call(name string, args any) fakellm.ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return fakellm.ToolCall{Name: name, Arguments: string(b)}
}

func tools1(name string, args any) fakellm.Response { return fakellm.Tools(call(name, args)) }

func patch(update map[string]any) fakellm.Response {
	return tools1("fs.apply_patch", map[string]any{"path": "@state/workflow.md", "operation": "updateFrontmatter", "update": update})
}

func (e *env) state(runID string) *State {
	e.t.Helper()
	b, err := os.ReadFile(e.svc.StatePath(runID))
	if err != nil {
		e.t.Fatal(err)
	}
	st, err := ParseState(b)
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

func (e *env) entries(convID string) []*conversation.Entry {
	e.t.Helper()
	es, err := e.store.Load(convID)
	if err != nil {
		e.t.Fatal(err)
	}
	return es
}

// toolResults returns the contents of the run's tool messages, in order.
func (e *env) toolResults(convID string) []*conversation.Entry {
	var out []*conversation.Entry
	for _, x := range e.entries(convID) {
		if x.Role == conversation.RoleTool {
			out = append(out, x)
		}
	}
	return out
}

// lastUserBlocks returns the run-injection blocks (RUN_DIRECTIVE, NODE_BRIEF) of a request.
func lastUserBlocks(req fakellm.RecordedRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" && (strings.HasPrefix(m.Text(), "RUN_DIRECTIVE") || strings.HasPrefix(m.Text(), "NODE_BRIEF")) {
			out = append(out, m.Text())
		}
	}
	return out
}

func systemText(req fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role == "system" {
			b.WriteString(m.Text())
			b.WriteString("\n")
		}
	}
	return b.String()
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (e *env) artifact(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// toolHosts is a factory of chat tool hosts over roots.
func toolHosts(roots tools.Roots) engine.ToolHostFactory {
	return func(scope engine.ToolScope) (engine.ToolHost, error) {
		r := roots
		r.Conversation = scope.ConversationID
		return tools.NewHost(tools.Config{Roots: r, Policy: scope.Policy, Allow: scope.Allow}), nil
	}
}

// Effective implements SettingsProvider.
func (s StaticSettings) Effective() settings.Settings { return settings.Settings(s).Clone() }

// StaticSettings is a SettingsProvider that always returns the same settings.
type StaticSettings settings.Settings
