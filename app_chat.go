package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
	"crewagent/backend/watcher"
)

// settingsProvider gives the engine the settings in effect at each send
// (defaults when settings.json cannot be read; sends then fail on RequireLLM
// with a clear message unless the environment configures the LLM).
type settingsProvider struct{ a *App }

func (p settingsProvider) Effective() settings.Settings {
	if st, err := p.a.settingsStore(); err == nil {
		return st.Effective()
	}
	return settings.Defaults()
}

// liveCounter counts each appended entry for the model in effect when it is
// appended, so a model changed in Settings applies without reopening the project.
type liveCounter struct{ a *App }

func (c liveCounter) CountEntry(e *convlog.Entry) (int, string) {
	return c.a.counter.ForModel(settingsProvider{c.a}.Effective().LLM.Model).CountEntry(e)
}

// newChatService builds the engine of an open project.
func (a *App) newChatService(p projectRef, store *convlog.Store) (*engine.ChatService, error) {
	return engine.New(engine.Options{
		Store:    store,
		Settings: settingsProvider{a},
		Counter:  a.counter,
		Emitter:  a.emitter,
		Tools: engine.NewToolHosts(tools.Roots{
			Project:     p.root,
			ToolResults: filepath.Join(p.dataDir, filepath.FromSlash(convlog.ToolResultsDir)),
			Deny:        project.RuntimePaths(a.home),
			ReadOnly:    []string{project.MetaPath(p.root)},
		}),
		// The active package is read at each send: the user may change it
		// while the project is open.
		Agents: engine.AgentResolverFunc(func(agentID string) (*engine.Agent, error) {
			return a.resolveAgent(a.activePackageID(), agentID)
		}),
	})
}

// projectRef is what the engine needs to know about the project.
type projectRef struct {
	root, dataDir string
}

// resolveAgent finds an agent of the project's active package.
func (a *App) resolveAgent(packageID, agentID string) (*engine.Agent, error) {
	if packageID == "" {
		return nil, &engine.Error{Code: engine.CodeAgentNotFound, Message: "agent " + agentID + " is not available: this project has no active package"}
	}
	pkg, err := a.packages.Load(packageID)
	if err != nil {
		return nil, err
	}
	ag := pkg.Agent(agentID)
	if ag == nil {
		return nil, &engine.Error{Code: engine.CodeAgentNotFound, Message: "package " + packageID + " has no agent " + agentID}
	}
	return engine.AgentFromPackage(pkg, ag), nil
}

// SendMessageRequest is one message typed in the conversation view.
type SendMessageRequest struct {
	ConversationID string `json:"conversationId"`
	Text           string `json:"text"`
	Mode           string `json:"mode"` // chat | agent | run
	AgentID        string `json:"agentId"`
	// Retry answers the newest user message again instead of sending Text
	// (chat and agent mode; see engine.SendRequest.Retry).
	Retry bool `json:"retry,omitempty"`
}

// SendMessage starts answering a message in the background and returns at
// once. Progress arrives as events (llm:stream-*, context:usage,
// conversation:changed); the App adds conversation:changed with
// streaming=true when the reply starts and streaming=false (and the error, if
// one stopped it before anything was answered) when it has ended. In run
// mode the message goes to the conversation's latest workflow run (its next
// turn; see StartRun). Problems found before starting (no LLM configured,
// empty text, a reply already running, run mode without a run) fail the call
// itself.
func (a *App) SendMessage(req SendMessageRequest) error {
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	if !req.Retry && strings.TrimSpace(req.Text) == "" {
		return &AppError{Code: engine.CodeInvalidRequest, Message: "the message is empty"}
	}
	mode := req.Mode
	if mode == "" {
		mode = convlog.ModeChat
	}
	if mode != convlog.ModeChat && mode != convlog.ModeAgent && mode != convlog.ModeRun {
		return &AppError{Code: CodeInvalidMode, Message: fmt.Sprintf("unknown mode %q: messages are sent in chat, agent or run mode", mode)}
	}
	if mode == convlog.ModeAgent && req.AgentID == "" {
		return &AppError{Code: engine.CodeInvalidRequest, Message: "agent mode needs an agent: choose one first"}
	}
	if err := (settingsProvider{a}).Effective().RequireLLM(); err != nil {
		return toAppError(err)
	}
	if _, err := ws.store.Get(req.ConversationID); err != nil {
		return toAppError(err)
	}
	id := req.ConversationID
	if mode == convlog.ModeRun {
		if req.Retry {
			return &AppError{Code: engine.CodeInvalidRequest, Message: "a run takes its input again as a new message: send it"}
		}
		return a.continueRun(ws, id, req.Text)
	}
	ereq := engine.SendRequest{ConversationID: id, Mode: mode, AgentID: req.AgentID, Text: req.Text, Retry: req.Retry}
	var failure *eventError
	started := ws.chat.start(id, func(ctx context.Context) {
		if _, err := ws.engine.Send(ctx, ereq); err != nil {
			a.log.Warn("send failed", "conversation", id, "error", err)
			failure = &eventError{Code: codeOf(err), Message: err.Error()}
		}
	}, func() {
		a.emitter.Emit(events.ConversationChanged, conversationChange{ConversationID: id, Kind: watcher.Updated, Streaming: boolPtr(false), Error: failure})
	})
	if !started {
		return busyError()
	}
	a.emitter.Emit(events.ConversationChanged, conversationChange{ConversationID: id, Kind: watcher.Updated, Streaming: boolPtr(true)})
	return nil
}

// eventError is a failure carried by an event payload.
type eventError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func boolPtr(b bool) *bool { return &b }

// StopStreaming cancels the reply being generated in a conversation, or the
// turn of its workflow run (which then waits for the user); the partial
// answer is kept with an LLM_ABORTED (ENGINE_ABORTED for a run) block. It
// reports whether something was running.
func (a *App) StopStreaming(conversationID string) (bool, error) {
	ws, err := a.workspace()
	if err != nil {
		return false, err
	}
	stopped := ws.chat.stop(conversationID)
	if ws.engine.Stop(conversationID) {
		stopped = true
	}
	if run, err := ws.runs.LatestRun(conversationID); err == nil && ws.runs.Abort(run.RunID) {
		stopped = true
	}
	return stopped, nil
}

// StreamingConversations lists the conversations with a reply in progress.
func (a *App) StreamingConversations() ([]string, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	return ws.chat.active(), nil
}

// SetMode switches a conversation's active mode (chat, agent or run) and,
// when agentID is given, its agent. The history is kept; only the mode the
// next request is built for changes.
func (a *App) SetMode(conversationID, mode, agentID string) (convlog.ConversationMeta, error) {
	ws, err := a.workspace()
	if err != nil {
		return convlog.ConversationMeta{}, err
	}
	if err := ws.engine.SetMode(conversationID, mode, agentID); err != nil {
		return convlog.ConversationMeta{}, toAppError(err)
	}
	m, err := ws.store.Get(conversationID)
	return m, toAppError(err)
}

// PreviewContext returns exactly what the next request of a conversation
// would send, token by token, and why (the same data as the `context`
// command), without calling the LLM. In run mode it is the next request of
// the conversation's latest workflow run (RUN_NOT_FOUND when it has none).
func (a *App) PreviewContext(conversationID, mode, agentID string) (*engine.Preview, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	if mode == "" {
		meta, err := ws.store.Get(conversationID)
		if err != nil {
			return nil, toAppError(err)
		}
		if meta.ActiveType == convlog.ActiveWorkflow {
			mode = convlog.ModeRun
		}
	}
	var p *engine.Preview
	if mode == convlog.ModeRun {
		p, err = a.previewRun(ws, conversationID, agentID)
	} else {
		p, err = ws.engine.Preview(a.lifetime, engine.PreviewRequest{ConversationID: conversationID, Mode: mode, AgentID: agentID})
	}
	if err != nil {
		var ee *engine.Error
		if errors.As(err, &ee) {
			return nil, &AppError{Code: ee.Code, Message: ee.Message}
		}
		return nil, toAppError(err)
	}
	return p, nil
}
