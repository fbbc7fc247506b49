package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"crewagent/backend/approval"
	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/events"
	"crewagent/backend/fsx"
	"crewagent/backend/llm"
	"crewagent/backend/recall"
	"crewagent/backend/settings"
	"crewagent/backend/skills"
	"crewagent/backend/tasks"
	"crewagent/backend/tools"
)

// Options are the dependencies of a ChatService. Store, Settings, Counter and
// Tools are required.
type Options struct {
	Store    Store
	Settings SettingsProvider
	// LLM builds the client for the current settings (default DefaultLLMFactory).
	LLM     LLMFactory
	Tools   ToolHostFactory
	Counter Counter
	// Emitter receives the events (default: dropped).
	Emitter events.Emitter
	// Usage receives the context usage of each request as it is built and
	// while a compaction runs (status compressing), the application's one
	// publisher of context:usage (default: sent to Emitter).
	Usage func(UsageEvent)
	// Agents resolves SendRequest.AgentID in agent mode when no Agent is given.
	Agents AgentResolver
	// Now and NewID default to time.Now and uuid.NewString.
	Now   func() time.Time
	NewID func() string
	// FlushInterval and FlushChars coalesce llm:stream-chunk events (defaults
	// DefaultFlushInterval and DefaultFlushChars).
	FlushInterval time.Duration
	FlushChars    int
	// Tasks is the project's task registry: a send or run turn is a task of
	// its conversation, Stop cancels it (default: a registry of its own).
	Tasks *tasks.Scheduler
	// Skills returns the project's skills as they are now (nil, or a nil
	// catalog: none are listed to the model; the skills a log activated
	// still apply). See skills.go.
	Skills func() *skills.Catalog
	// Memory returns the project's instruction files as they are now
	// (AGENTS.md; nil: none), carried by every request word for word.
	Memory func() []contextbuilder.MemoryFile
	// Approvals decide the calls that write, run commands or call MCP tools
	// (approve.go). nil: every call runs.
	Approvals Approver
}

// ChatService runs chat and agent mode sends and the turns of workflow runs
// (RunTurn). It is safe for concurrent use: each send or turn is a task of
// its conversation in Options.Tasks (one at a time per conversation there).
type ChatService struct {
	opts Options

	history historyLoader // how a request's history is read from the log
	counter *recountCache // opts.Counter with recounts cached
	recall  recall.Cache  // recall indexes loaded in this process

	mu        sync.Mutex
	llmKey    string
	llmClient LLM
	// the client of a separate embeddings endpoint (llm.embeddingsBaseUrl)
	embedKey    string
	embedClient LLM

	windowMu sync.Mutex
	windows  map[string]int // request limits learned from context-length errors, by model

	refillMu sync.Mutex
	refills  map[string]string // conversation -> first compacted message its last request sent word for word
}

// New returns a ChatService for opts.
func New(opts Options) (*ChatService, error) {
	switch {
	case opts.Store == nil:
		return nil, errors.New("engine: a store is required")
	case opts.Settings == nil:
		return nil, errors.New("engine: a settings provider is required")
	case opts.Counter == nil:
		return nil, errors.New("engine: a token counter is required")
	case opts.Tools == nil:
		return nil, errors.New("engine: a tool host factory is required")
	}
	if opts.LLM == nil {
		opts.LLM = DefaultLLMFactory
	}
	if opts.Emitter == nil {
		opts.Emitter = events.Nop{}
	}
	if opts.Usage == nil {
		em := opts.Emitter
		opts.Usage = func(u UsageEvent) { em.Emit(events.ContextUsage, u) }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = uuid.NewString
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	if opts.FlushChars <= 0 {
		opts.FlushChars = DefaultFlushChars
	}
	if opts.Tasks == nil {
		opts.Tasks = tasks.New(context.Background(), tasks.Options{})
	}
	return &ChatService{opts: opts, history: loadHistory, counter: &recountCache{Counter: opts.Counter}}, nil
}

// SendRequest is one user message.
type SendRequest struct {
	// ConversationID is the conversation to continue; empty creates one (its
	// title is taken from the message).
	ConversationID string
	// Mode is chat or agent; empty takes the conversation's active mode
	// (chat for a new conversation).
	Mode string
	// AgentID names the agent of agent mode (resolved through Options.Agents
	// unless Agent is given; empty takes the conversation's selected agent).
	// In chat mode it only tags the messages.
	AgentID string
	Agent   *Agent
	Text    string
	// resume goes on from where the log stands, without a new message (Text
	// empty): the continuation of a send that handed over to another
	// conversation, once that conversation's answer is the result of its
	// call (Continue).
	resume bool
	// turnsUsed are the LLM calls the conversation already made in the work
	// a continuation goes on with (the sends before it handed over): they
	// count against settings engine.maxTurns, so handing over again and
	// again cannot go on without end.
	turnsUsed int
	// Retry answers the conversation's newest user message again instead of
	// sending a new one (Text must then be empty): its failed answers leave
	// the context (they stay in the log, includeInContext false) and the
	// loop runs from where the log stands, so a reply that failed or never
	// finished is retried without the message appearing twice.
	Retry bool
	// resolve answers a request a send that ended left waiting in the log:
	// the send goes on from where the log stands (like a continuation) once
	// the call ran or was refused (ResolveRequest).
	resolve *Resolution
	// Approve is the approval mode of this send ("" = the conversation's).
	Approve approval.Mode
	// NoAsk, when set, says why nobody can be asked for an approval (the
	// model reads it): a call that would wait for one is refused instead.
	NoAsk string
	// Endpoint and Model choose where the conversation's answers come from,
	// from this send on (recorded in it): "" keeps its choice; a model alone
	// stays on its endpoint; settings.DefaultEndpoint goes back to the
	// settings' endpoint.
	Endpoint string
	Model    string
	// Attachments are files attached to the message (saved already: see
	// Store.SaveAttachment and backend/attach); not with Retry.
	Attachments []conversation.Attachment
}

// ContextInfo is the context usage of the last request of a send.
type ContextInfo struct {
	UsedTokens   int     `json:"usedTokens"`
	TotalBudget  int     `json:"totalBudget"`
	UsagePercent float64 `json:"usagePercent"`
	// Compressed is true when the send compressed the context.
	Compressed bool `json:"compressed"`
}

// SendResult is the outcome of a send. When the LLM (or the loop) failed, Err
// is set and the failure has been persisted as an error message; Text then
// holds the partial answer.
type SendResult struct {
	ConversationID string `json:"conversationId"`
	UserMessageID  string `json:"userMessageId"`
	// MessageID is the final assistant message: the answer, or the error message.
	MessageID string      `json:"messageId"`
	Text      string      `json:"text"`
	Usage     llm.Usage   `json:"usage"`
	Context   ContextInfo `json:"context"`
	// Turns is the number of LLM calls made.
	Turns int `json:"turns"`
	// Pending is the ui.ask_user widget the loop stopped for: the user's answer
	// is the next message.
	Pending *tools.Widget `json:"pending,omitempty"`
	// FinishReason is set when the server cut the final answer short ("length" or
	// "content_filter"): it is persisted as an incomplete answer (Text is partial, its
	// tool calls did not run) that "continue" or a retry picks up.
	FinishReason string `json:"finishReason,omitempty"`
	// HandedOff is set when a tool call handed the send over to another
	// conversation (see Handoff): the send goes on later, in a continuation.
	HandedOff bool       `json:"handedOff,omitempty"`
	Err       *llm.Error `json:"-"`
}

// Send persists the user message and answers it (see the package doc). The
// error is non-nil only when nothing could be answered for another reason
// than the LLM: invalid request, LLM not configured (nothing is written then),
// busy conversation, store failure. LLM failures come back in SendResult.Err
// after they are persisted.
func (s *ChatService) Send(ctx context.Context, req SendRequest) (*SendResult, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	mode, agentID := req.Mode, req.AgentID
	convID := req.ConversationID
	var meta conversation.ConversationMeta
	if convID != "" {
		var err error
		if meta, err = s.opts.Store.Get(convID); err != nil {
			return nil, err
		}
	}
	chosen := choice(meta, req.Endpoint, req.Model)
	st, err := settingsFor(s.opts.Settings.Effective(), chosen)
	if err != nil {
		return nil, err
	}
	if err := st.RequireLLM(); err != nil {
		return nil, err
	}
	st = s.withWindow(st)
	if convID != "" {
		if mode == "" && meta.ActiveType == conversation.ActiveAgent {
			mode = conversation.ModeAgent
		}
		if mode == conversation.ModeAgent && agentID == "" && req.Agent == nil {
			agentID = meta.SelectedAgentID
		}
	}
	if mode == "" {
		mode = conversation.ModeChat
	}
	if mode != conversation.ModeChat && mode != conversation.ModeAgent {
		return nil, invalid("mode must be chat or agent, got " + strconv.Quote(mode))
	}
	agent, err := s.agentFor(mode, agentID, req.Agent)
	if err != nil {
		return nil, err
	}
	if agent != nil {
		agentID = agent.ID
	}
	var user *conversation.Entry
	if !req.Retry && !req.resume {
		user = s.userEntry(req.Text, mode, agentID)
		user.Attachments = req.Attachments
		if len(user.RequestText())+conversation.ImageTokens*len(user.Images()) > budgetOf(st.Context).TokenLimit()/4 { // shorter always fits: a token is at least a byte
			p, err := s.frame(convID, mode, agent, st)
			if err != nil {
				return nil, err
			}
			if err := s.checkInput(convID, p, user); err != nil {
				return nil, err
			}
		}
	}
	var userID string
	if convID == "" {
		// The conversation is created with the user's message: a crash cannot leave it empty.
		if meta, err = s.opts.Store.CreateWith("", activeType(mode), user); err != nil {
			return nil, err
		}
		convID, userID = meta.ID, user.ID
	}
	ctx, release, err := s.acquire(ctx, tasks.Task{ConversationID: convID, Kind: mode})
	if err != nil {
		return nil, err
	}
	defer release()

	if meta.ActiveType != activeType(mode) || (mode == conversation.ModeAgent && meta.SelectedAgentID != agentID) {
		if err := s.opts.Store.UpdateMeta(convID, func(m *conversation.ConversationMeta) {
			m.ActiveType = activeType(mode)
			if mode == conversation.ModeAgent {
				m.SelectedAgentID = agentID
			}
		}); err != nil {
			return nil, err
		}
	}
	if err := s.recordChoice(meta, chosen); err != nil {
		return nil, err
	}
	switch {
	case req.resume:
	case req.Retry:
		if userID, err = s.prepareRetry(convID); err != nil {
			return nil, err
		}
	case userID == "":
		if err := s.opts.Store.Append(convID, user); err != nil {
			return nil, err
		}
		userID = user.ID
	}

	turnMsg := userID
	if req.resume {
		if entries, err := s.opts.Store.LoadTail(convID, retryWindow); err == nil {
			if at := newestUserMessage(entries); at >= 0 {
				turnMsg = entries[at].ID
			}
		}
	}
	// The tools record the changes they make with the turn's message.
	ctx = tools.WithTurn(ctx, tools.Turn{ConversationID: convID, MessageID: turnMsg})
	r := &run{s: s, ctx: ctx, convID: convID, mode: mode, agent: agent, agentID: agentID, st: st, turnsUsed: req.turnsUsed,
		res: &SendResult{ConversationID: convID, UserMessageID: userID}}
	r.approve, r.noAsk = approvalsOf(ctx, req.Approve, req.NoAsk)
	r.resolve = req.resolve
	return r.execute()
}

// userEntry is the log entry of a message the user sends.
func (s *ChatService) userEntry(text, mode, agentID string) *conversation.Entry {
	return &conversation.Entry{Type: conversation.TypeMsg, ID: s.opts.NewID(), CreatedAt: s.now(), Role: conversation.RoleUser,
		Content: conversation.Str(text), Mode: mode, AgentID: agentID, PartType: conversation.PartContent}
}

// retryWindow is how many of the newest entries a retry looks through for
// the user message it answers again before it reads the whole log.
const retryWindow = 400

// prepareRetry finds the newest user message of the conversation, checks that
// it has no answer yet, and takes the failed answers after it out of the
// context. It returns the message's id.
func (s *ChatService) prepareRetry(convID string) (string, error) {
	entries, err := s.opts.Store.LoadTail(convID, retryWindow)
	if err != nil {
		return "", err
	}
	at := newestUserMessage(entries)
	if at < 0 && len(entries) >= retryWindow {
		if entries, err = s.opts.Store.Load(convID); err != nil {
			return "", err
		}
		at = newestUserMessage(entries)
	}
	if at < 0 {
		return "", invalid("there is nothing to retry: the conversation has no message of yours")
	}
	var failed []*conversation.Entry
	for _, e := range entries[at+1:] {
		if !e.IsMessage() || e.Role != conversation.RoleAssistant || !e.InContext() || e.IsMeta {
			continue
		}
		if e.PartType == conversation.PartError || e.Incomplete() {
			failed = append(failed, e)
		} else if e.PartType != conversation.PartThinking && len(e.ToolCalls) == 0 {
			return "", invalid("your last message already has an answer: send a new message instead")
		}
	}
	for _, e := range failed {
		out := *e
		out.IncludeInContext = conversation.Bool(false)
		if err := s.opts.Store.Update(convID, &out); err != nil {
			return "", err
		}
	}
	return entries[at].ID, nil
}

// newestUserMessage is the index of the newest message the user wrote (not a
// meta message) that is in the context, or -1. Messages out of the context
// belong to versions of the conversation that are not shown (branches): an
// edit or a regeneration answers the message on the version shown.
func newestUserMessage(entries []*conversation.Entry) int {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.IsMessage() && e.Role == conversation.RoleUser && !e.IsMeta && e.InContext() {
			return i
		}
	}
	return -1
}

// SetMode switches the conversation's active mode (chat, agent, or run, which
// is recorded as activeType "workflow") and, when agentID is given, its
// selected agent. Only the index record changes: the history stays as it is
// and the next request is built with the new mode's system prompt.
func (s *ChatService) SetMode(conversationID, mode, agentID string) error {
	var active string
	switch mode {
	case conversation.ModeChat, conversation.ModeAgent:
		active = mode
	case conversation.ModeRun, conversation.ActiveWorkflow:
		active = conversation.ActiveWorkflow
	default:
		return invalid("mode must be chat, agent or run, got " + strconv.Quote(mode))
	}
	meta, err := s.opts.Store.Get(conversationID)
	if err != nil {
		return err
	}
	if mode == conversation.ModeAgent && agentID == "" && meta.SelectedAgentID == "" {
		return invalid("agent mode needs an agent: choose one")
	}
	if agentID != "" && s.opts.Agents != nil {
		if _, err := s.resolve(agentID); err != nil {
			return err
		}
	}
	if err := s.opts.Store.UpdateMeta(conversationID, func(m *conversation.ConversationMeta) {
		m.ActiveType = active
		if agentID != "" {
			m.SelectedAgentID = agentID
		}
	}); err != nil {
		return err
	}
	return nil
}

// Stop cancels the send or run turn running in the conversation (the Stop
// button); the partial answer is persisted with an LLM_ABORTED block
// (ENGINE_ABORTED for a run turn). It reports whether one was running.
func (s *ChatService) Stop(conversationID string) bool { return s.opts.Tasks.Stop(conversationID) }

// Busy reports whether a send or run turn is running in the conversation.
func (s *ChatService) Busy(conversationID string) bool { return s.opts.Tasks.Busy(conversationID) }

// Tasks returns the task registry the service runs its sends and turns in.
func (s *ChatService) Tasks() *tasks.Scheduler { return s.opts.Tasks }

// acquire runs the send or turn as task t of the registry (joining the task
// the caller runs in, if any) and returns a context that Stop cancels.
func (s *ChatService) acquire(ctx context.Context, t tasks.Task) (context.Context, func(), error) {
	ctx, release, err := s.opts.Tasks.Enter(ctx, t)
	if errors.Is(err, tasks.ErrBusy) {
		return nil, nil, ErrConversationBusy
	}
	return ctx, release, err
}

// NoAgent is the refusal of agent mode without an agent: it names the
// agents there are.
func (s *ChatService) NoAgent() error {
	msg := "agent mode needs an agent id"
	if l, ok := s.opts.Agents.(AgentLister); ok {
		if ids, err := l.AgentIDs(); err == nil && len(ids) > 0 {
			msg += "; the agents here are " + strings.Join(ids, ", ")
		}
	}
	return invalid(msg)
}

// agentFor returns the agent of a send: required in agent mode, nil in chat mode.
func (s *ChatService) agentFor(mode, agentID string, given *Agent) (*Agent, error) {
	if mode != conversation.ModeAgent {
		return nil, nil
	}
	if given != nil {
		a := *given
		if a.ID == "" {
			a.ID = a.Persona.ID
		}
		if a.ID == "" {
			return nil, invalid("the agent has no id")
		}
		if a.Persona.ID == "" {
			a.Persona.ID = a.ID
		}
		return &a, nil
	}
	if agentID == "" {
		return nil, s.NoAgent()
	}
	return s.resolve(agentID)
}

func (s *ChatService) resolve(agentID string) (*Agent, error) {
	if s.opts.Agents == nil {
		return nil, &Error{Code: CodeAgentNotFound, Message: "agent " + strconv.Quote(agentID) + " is not available: no installed package provides agents here"}
	}
	a, err := s.opts.Agents.ResolveAgent(agentID)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, &Error{Code: CodeAgentNotFound, Message: "agent " + strconv.Quote(agentID) + " not found"}
	}
	if a.ID == "" {
		a.ID = agentID
	}
	if a.Persona.ID == "" {
		a.Persona.ID = a.ID
	}
	return a, nil
}

// client returns the LLM client for the settings, reusing the last one while
// they do not change.
func (s *ChatService) client(l settings.LLM) LLM {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key := clientKey(l); s.llmClient == nil || s.llmKey != key {
		s.llmClient, s.llmKey = s.opts.LLM(l), key
	}
	return s.llmClient
}

// clientKey says whether two LLM settings make the same client.
func clientKey(l settings.LLM) string {
	l.Endpoints = nil // the choices: only the chosen one is in the fields
	b, _ := json.Marshal(l)
	return l.EndpointName + "\x00" + string(b)
}

// now returns the current time in the log's createdAt format.
func (s *ChatService) now() string {
	return fsx.Stamp(s.opts.Now())
}

func activeType(mode string) string {
	if mode == conversation.ModeAgent {
		return conversation.ActiveAgent
	}
	return conversation.ActiveChat
}

func itoa(n int) string { return strconv.Itoa(n) }
