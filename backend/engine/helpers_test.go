package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/memory"
	"crewagent/backend/settings"
	"crewagent/backend/tokens"
	"crewagent/backend/tools"
)

const testModel = "fake-model"

// counter is the real tokenizer (encoders are built once per process).
var counter = tokens.New()

// fixture is a runtime home with a project, its conversation store, a fake
// OpenAI server and a ChatService wired to them.
type fixture struct {
	t       *testing.T
	root    string // the project folder (@project)
	dataDir string
	srv     *fakellm.Server
	store   *convlog.Store
	rec     *events.Recorder
	st      settings.Settings
	agents  AgentResolver
	hosts   ToolHostFactory // nil: tools.Host over the project
	// approvals decide the calls that need approval (nil: every call runs).
	approvals Approver
	svc       *ChatService
}

// newFixture starts the fake server and opens a store; mutate adjusts the
// settings (LLM endpoint already pointing at the fake server).
func newFixture(t *testing.T, mutate func(*settings.Settings)) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir(), dataDir: filepath.Join(t.TempDir(), "projects", "p1"), srv: fakellm.New()}
	t.Cleanup(f.srv.Close)
	for name, body := range map[string]string{"notes.md": "# Notes\nship on friday\n", "todo.txt": "buy milk\n"} {
		if err := os.WriteFile(filepath.Join(f.root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.st = settings.Defaults()
	f.st.LLM.BaseURL, f.st.LLM.Model = f.srv.URL(), testModel
	if mutate != nil {
		mutate(&f.st)
	}
	f.agents = AgentResolverFunc(func(id string) (*Agent, error) {
		if id != "analyst" {
			return nil, nil
		}
		return &Agent{ID: "analyst", Persona: contextbuilder.Persona{ID: "analyst", Name: "Mary", Title: "Business Analyst",
			Role: "Strategic analyst", Identity: "Finds the real requirement", Principles: []string{"Ask why"}}}, nil
	})
	f.open()
	t.Cleanup(func() { f.store.Close() })
	return f
}

// open opens the store (again) and builds a new ChatService over it.
func (f *fixture) open() {
	f.t.Helper()
	st, err := convlog.Open(f.dataDir, convlog.Options{Counter: counter.ForModel(testModel), IndexFlushDelay: -1})
	if err != nil {
		f.t.Fatal(err)
	}
	f.store = st
	f.rec = &events.Recorder{}
	hosts := f.hosts
	if hosts == nil {
		hosts = NewToolHosts(toolsRoots(f))
	}
	// The store announces its changes, as the application layer's does.
	rec := f.rec
	published := convlog.NewPublishing(st, func(c convlog.Change) {
		rec.Emit(events.ConversationChanged, ChangeEvent{ConversationID: c.ConversationID, Kind: c.Kind})
	})
	svc, err := New(Options{Store: published, Settings: StaticSettings(f.st), LLM: testLLM, Tools: hosts, Counter: counter,
		Emitter: f.rec, Agents: f.agents, Memory: memory.New(f.root).Files, Approvals: f.approvals})
	if err != nil {
		f.t.Fatal(err)
	}
	f.svc = svc
}

// reopen closes the store and opens a new instance, as after a restart.
func (f *fixture) reopen() {
	f.t.Helper()
	if err := f.store.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.open()
}

// testLLM is the client of the tests: the settings' endpoint with fast
// retries and short stall timeouts.
func testLLM(s settings.LLM) LLM {
	cfg := LLMConfig(s)
	cfg.RetryBaseDelay, cfg.MaxRetryDelay = time.Millisecond, 5*time.Millisecond
	cfg.IdleTimeout, cfg.FirstTokenTimeout = 300*time.Millisecond, 5*time.Second
	cfg.Endpoints = llm.NewEndpointMemory("") // what a test's server refused stays with its client
	return llm.New(cfg)
}

func (f *fixture) send(req SendRequest) *SendResult {
	f.t.Helper()
	res, err := f.svc.Send(context.Background(), req)
	if err != nil {
		f.t.Fatalf("send %q: %v", req.Text, err)
	}
	return res
}

func (f *fixture) load(convID string) []*conversation.Entry {
	f.t.Helper()
	entries, err := f.store.Load(convID)
	if err != nil {
		f.t.Fatal(err)
	}
	return entries
}

// messages returns the message entries of the log.
func (f *fixture) messages(convID string) []*conversation.Entry {
	var out []*conversation.Entry
	for _, e := range f.load(convID) {
		if e.IsMessage() {
			out = append(out, e)
		}
	}
	return out
}

// seed appends a finished exchange of n user/assistant pairs with texts of
// about words words each.
func (f *fixture) seed(convID string, n, words int) []*conversation.Entry {
	f.t.Helper()
	var entries []*conversation.Entry
	for i := 0; i < n; i++ {
		u := &conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(filler("question", i, words)), Mode: conversation.ModeChat}
		a := &conversation.Entry{Role: conversation.RoleAssistant, Content: conversation.Str(filler("answer", i, words)), Mode: conversation.ModeChat, PartType: conversation.PartContent}
		entries = append(entries, u, a)
	}
	if err := f.store.Append(convID, entries...); err != nil {
		f.t.Fatal(err)
	}
	return entries
}

func (f *fixture) create() string {
	f.t.Helper()
	m, err := f.store.Create("", "")
	if err != nil {
		f.t.Fatal(err)
	}
	return m.ID
}

func filler(kind string, i, words int) string {
	var b strings.Builder
	b.WriteString(kind + " " + itoa(i) + ":")
	for w := 0; w < words; w++ {
		b.WriteString(" word" + itoa((i*7+w)%50))
	}
	return b.String()
}

// texts returns "role: content" of each recorded request message.
func texts(r fakellm.RecordedRequest) []string {
	out := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.Role + ": " + m.Text()
		for _, tc := range m.ToolCalls {
			out[i] += " [call " + tc.ID + " " + tc.Name + " " + tc.Arguments + "]"
		}
		if m.ToolCallID != "" {
			out[i] += " [result of " + m.ToolCallID + "]"
		}
	}
	return out
}

func systemText(r fakellm.RecordedRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == conversation.RoleSystem {
			b.WriteString(m.Text() + "\n")
		}
	}
	return b.String()
}

// cancelHost wraps a tool host and runs a hook before each call.
type cancelHost struct {
	ToolHost
	mu     sync.Mutex
	calls  int
	before func(n int)
}

func (h *cancelHost) Call(ctx context.Context, name, args string) tools.Result {
	h.mu.Lock()
	h.calls++
	n := h.calls
	h.mu.Unlock()
	if h.before != nil {
		h.before(n)
	}
	return h.ToolHost.Call(ctx, name, args)
}

// toolsRoots are the roots of the fixture's tool hosts.
func toolsRoots(f *fixture) tools.Roots {
	return tools.Roots{Project: f.root, ToolResults: filepath.Join(f.dataDir, "logs", "tool-results")}
}

// truncateLog keeps the first keep lines of a conversation's log and reopens
// the store: what a process killed mid-reply leaves behind.
func (f *fixture) truncateLog(convID string, keep int) {
	f.t.Helper()
	if err := f.store.Close(); err != nil {
		f.t.Fatal(err)
	}
	path := filepath.Join(f.dataDir, "conversations", convID, "messages.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		f.t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:keep], "")), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.open()
}

// ResolveAgent calls f.
func (f AgentResolverFunc) ResolveAgent(agentID string) (*Agent, error) { return f(agentID) }

// AgentResolverFunc adapts a function to AgentResolver.
type AgentResolverFunc func(agentID string) (*Agent, error)

// NewToolHosts returns a factory of *tools.Host over roots. An agent that
// comes from a package gets that package as @pkg; otherwise roots.Package is
// used as given.
func NewToolHosts(roots tools.Roots) ToolHostFactory {
	return func(scope ToolScope) (ToolHost, error) {
		r := roots
		r.Conversation = scope.ConversationID // its own tool outputs only
		if scope.Agent != nil && scope.Agent.PackageRoot != "" {
			r.Package = scope.Agent.PackageRoot
		}
		return tools.NewHost(tools.Config{Roots: r, Policy: scope.Policy, Allow: scope.Allow}), nil
	}
}

// emitFunc adapts a function to events.Emitter.
type emitFunc func(name string, payload any)

// Emit calls f.
func (f emitFunc) Emit(name string, payload any) { f(name, payload) }

// toolResultHostPath is where the store keeps the full output behind a
// tool-result alias (@state/logs/tool-results/<conversationId>/<messageId>.json).
func toolResultHostPath(dataDir, alias string) (string, error) {
	rest, ok := strings.CutPrefix(alias, conversation.ToolResultAliasPrefix)
	if !ok || strings.Contains(rest, "..") {
		return "", fmt.Errorf("not a tool-result alias: %q", alias)
	}
	return filepath.Join(dataDir, filepath.FromSlash(convlog.ToolResultsDir), filepath.FromSlash(rest)), nil
}
