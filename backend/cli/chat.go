package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

const chatUsage = "chat [--conversation ID] [--mode chat|agent] [--agent ID] MESSAGE | chat --conversation ID --retry"

// chatOutput is the --json output of chat.
type chatOutput struct {
	ConversationID string             `json:"conversationId"`
	MessageID      string             `json:"messageId"`
	Text           string             `json:"text"`
	Usage          llm.Usage          `json:"usage"`
	Context        engine.ContextInfo `json:"context"`
	// Incomplete and FinishReason are set when the server cut the answer short
	// (finish_reason "length" or "content_filter").
	Incomplete   bool       `json:"incomplete,omitempty"`
	FinishReason string     `json:"finishReason,omitempty"`
	Error        *chatError `json:"error,omitempty"`
}

type chatError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func cmdChat(e *env, rest []string) error {
	if err := e.args.allowOnly("chat", "conversation", "mode", "agent", "retry"); err != nil {
		return err
	}
	retry := e.args.has("retry")
	var text string
	switch {
	case retry && (len(rest) > 0 || e.args.get("conversation") == ""):
		return errors.New("--retry answers a conversation's last message again: give --conversation ID and no message")
	case retry:
	case len(rest) == 0:
		return fmt.Errorf("usage: crewagent %s (MESSAGE '-' reads it from stdin)", chatUsage)
	default:
		text = strings.Join(rest, " ")
		if text == "-" {
			b, err := io.ReadAll(e.stdin)
			if err != nil {
				return fmt.Errorf("reading the message from stdin: %v", err)
			}
			text = strings.TrimRight(string(b), "\r\n")
		}
		if strings.TrimSpace(text) == "" {
			return errors.New("the message is empty")
		}
	}
	mode := e.args.get("mode")
	switch mode {
	case "", convlog.ModeChat, convlog.ModeAgent:
	default:
		return fmt.Errorf("--mode must be chat or agent, got %q", mode)
	}
	if e.args.has("agent") && mode == "" {
		mode = convlog.ModeAgent
	}

	w, err := e.openWorkspace(true)
	if err != nil {
		return err
	}
	defer w.close()
	if err := w.requireSettings(); err != nil {
		return err
	}
	if err := w.settings.RequireLLM(); err != nil {
		return fmt.Errorf("no LLM is configured: set CREWAGENT_LLM_BASE_URL and CREWAGENT_LLM_MODEL, or llm.baseUrl and llm.model in %s", settings.Path(w.home))
	}
	asJSON := e.args.has("json")
	var out *streamPrinter
	var em events.Emitter = events.Nop{}
	if !asJSON {
		out = &streamPrinter{w: e.stdout}
		em = out
	}
	svc, err := w.chatService(em)
	if err != nil {
		return err
	}
	convID := e.args.get("conversation")
	res, err := svc.Send(e.ctx, engine.SendRequest{ConversationID: convID, Mode: mode, AgentID: e.args.get("agent"), Text: text, Retry: retry})
	if err != nil {
		return err
	}
	if asJSON {
		o := chatOutput{ConversationID: res.ConversationID, MessageID: res.MessageID, Text: res.Text, Usage: res.Usage, Context: res.Context}
		if res.Err != nil {
			o.Error = &chatError{Code: res.Err.Code, Message: res.Err.Message}
		}
		o.FinishReason, o.Incomplete = res.FinishReason, res.FinishReason != ""
		if err := e.printJSON(o); err != nil {
			return err
		}
	} else {
		out.finish()
		if res.Err == nil && convID == "" {
			fmt.Fprintf(e.stderr, "conversation %s\n", res.ConversationID)
		}
		if res.FinishReason != "" {
			fmt.Fprintf(e.stderr, "crewagent: %s (saved in conversation %s; send \"continue\" to let the model go on, or retry with --conversation %s --retry)\n",
				incompleteNotice(res.FinishReason), res.ConversationID, res.ConversationID)
		}
	}
	if res.Err != nil {
		return &exitError{code: ExitLLMFailed, err: fmt.Errorf("%s (saved in conversation %s; send \"continue\" to resume, or retry with --conversation %s --retry)", res.Err.Error(), res.ConversationID, res.ConversationID)}
	}
	return nil
}

// incompleteNotice says why an answer is incomplete.
func incompleteNotice(finishReason string) string {
	switch finishReason {
	case llm.FinishLength:
		return "the answer is incomplete: the model reached its output limit (finish_reason length) and its tool calls were not run"
	case llm.FinishContentFilter:
		return "the answer is incomplete: the provider's content filter stopped it (finish_reason content_filter) and its tool calls were not run"
	}
	return "the answer is incomplete (finish_reason " + finishReason + ")"
}

// chatService builds the engine over the workspace: its store and settings,
// tools over the project folder (and the active package as @pkg), agents from
// the project's installed packages.
func (w *workspace) chatService(em events.Emitter) (*engine.ChatService, error) {
	roots := tools.Roots{
		Project:     w.project.Root,
		ToolResults: filepath.Join(w.project.DataDir, filepath.FromSlash(convlog.ToolResultsDir)),
		Deny:        project.RuntimePaths(w.home),
		ReadOnly:    []string{project.MetaPath(w.project.Root)},
	}
	if id := w.project.ActivePackageID; id != "" {
		if pkg, err := w.packages().Load(id); err == nil {
			roots.Package = pkg.Root
		}
	}
	return engine.New(engine.Options{
		Store:    w.store,
		Settings: engine.StaticSettings(w.settings),
		Tools:    engine.NewToolHosts(roots),
		Counter:  w.counter,
		Emitter:  em,
		Agents:   w.agents(),
	})
}

// agents resolves agent ids through the project's active package, or through
// every installed package when the project has none.
func (w *workspace) agents() engine.AgentResolver { return packageAgents{w} }

type packageAgents struct{ w *workspace }

// load returns the packages agents are looked up in.
func (a packageAgents) load() ([]*packages.Package, error) {
	mgr := a.w.packages()
	var ids []string
	if id := a.w.project.ActivePackageID; id != "" {
		ids = []string{id}
	} else {
		list, err := mgr.List()
		if err != nil {
			return nil, err
		}
		for _, p := range list {
			ids = append(ids, p.ID)
		}
	}
	pkgs := make([]*packages.Package, 0, len(ids))
	for _, id := range ids {
		pkg, err := mgr.Load(id)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, pkg)
	}
	return pkgs, nil
}

// ResolveAgent implements engine.AgentResolver.
func (a packageAgents) ResolveAgent(agentID string) (*engine.Agent, error) {
	pkgs, err := a.load()
	if err != nil {
		return nil, err
	}
	for _, pkg := range pkgs {
		if ag := pkg.Agent(agentID); ag != nil {
			return engine.AgentFromPackage(pkg, ag), nil
		}
	}
	where := "no installed package provides it (import one with 'crewagent package import FILE')"
	switch ids := agentIDs(pkgs); {
	case len(ids) > 0:
		where = "the agents here are " + strings.Join(ids, ", ")
	case len(pkgs) == 1 && pkgs[0].ID == a.w.project.ActivePackageID:
		where = "the project's package " + strconv.Quote(pkgs[0].ID) + " has no agents"
	}
	return nil, &engine.Error{Code: engine.CodeAgentNotFound, Message: "agent " + strconv.Quote(agentID) + " not found: " + where}
}

// AgentIDs implements engine.AgentLister.
func (a packageAgents) AgentIDs() ([]string, error) {
	pkgs, err := a.load()
	if err != nil {
		return nil, err
	}
	return agentIDs(pkgs), nil
}

// agentIDs lists the agents of the packages, in order.
func agentIDs(pkgs []*packages.Package) []string {
	var ids []string
	for _, pkg := range pkgs {
		for _, ag := range pkg.Agents {
			ids = append(ids, ag.ID)
		}
	}
	return ids
}

// streamPrinter writes the answer text to stdout as it streams, with a line
// break between the texts of successive LLM calls.
type streamPrinter struct {
	w     io.Writer
	mu    sync.Mutex
	wrote bool
	last  byte
}

// Emit implements events.Emitter.
func (p *streamPrinter) Emit(name string, payload any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := payload.(type) {
	case engine.StreamStartEvent:
		if p.wrote && p.last != '\n' {
			p.write("\n")
		}
	case engine.StreamChunkEvent:
		if name == events.StreamChunk && ev.Delta != "" {
			p.write(ev.Delta)
		}
	}
}

func (p *streamPrinter) write(s string) {
	_, _ = io.WriteString(p.w, s)
	p.wrote, p.last = true, s[len(s)-1]
}

// finish ends the output with a line break.
func (p *streamPrinter) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wrote && p.last != '\n' {
		p.write("\n")
	}
}
