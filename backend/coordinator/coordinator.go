// Package coordinator hands turns from conversation to conversation: the
// conversation tools (conv.create, conv.send, conv.list, conv.history,
// conv.destroy), the chains of tasks a user's message leads to when they
// hand turns over (one at a time in the project's scheduler, stopped
// together), the waits they leave in the conversations' records and their
// recovery after a crash, and the budgets of one message. It is built from
// the project's store, engine and scheduler; the application layer asks it
// to answer a message and to stop.
package coordinator

import (
	"context"
	"log/slog"

	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/settings"
	"crewagent/backend/tasks"
	"crewagent/backend/tokens"
	"crewagent/backend/tools"
)

// Config is what a Coordinator is built from. Every field is required.
type Config struct {
	Store  *convlog.Publishing
	Engine *engine.ChatService
	Tasks  *tasks.Scheduler
	// Settings returns the settings in effect now.
	Settings func() settings.Settings
	Counter  *tokens.Counter
	// ReadFile reads a project file (an @project alias) of at most max
	// bytes through the tools' sandbox (base_instruction_file).
	ReadFile func(alias string, max int64) ([]byte, error)
	// Delete deletes a conversation the way the user does (conv.destroy).
	Delete func(id string) ([]string, error)
	// AfterTask runs after each answer of a chain (the application reports
	// the conversation's next context usage).
	AfterTask func(ctx context.Context, conversationID string)
	Log       *slog.Logger
}

// Coordinator hands turns over between the conversations of one project.
type Coordinator struct {
	store     *convlog.Publishing
	engine    *engine.ChatService
	tasks     *tasks.Scheduler
	settings  func() settings.Settings
	counter   *tokens.Counter
	readFile  func(alias string, max int64) ([]byte, error)
	delete    func(id string) ([]string, error)
	afterTask func(ctx context.Context, conversationID string)
	log       *slog.Logger
	chains    chains
}

// New returns the coordinator of a project.
func New(cfg Config) *Coordinator {
	return &Coordinator{store: cfg.Store, engine: cfg.Engine, tasks: cfg.Tasks, settings: cfg.Settings, counter: cfg.Counter,
		readFile: cfg.ReadFile, delete: cfg.Delete, afterTask: cfg.AfterTask, log: cfg.Log}
}

// Reply runs an engine send as the conversation's task in the background;
// prepare, when given, runs first within the task (so no other reply can
// start in between) and ends it when it fails. The error is the
// scheduler's when the task cannot start.
//
// The reply is the first task of a chain: when the conversation tools hand
// its turn to other conversations, their answers and the continuation run
// after it, in the background too. The handle waits for all of it.
func (co *Coordinator) Reply(req engine.SendRequest, prepare func() error) (*Handle, error) {
	c := co.chains.start(req.ConversationID)
	c.approve, c.noAsk = req.Approve, req.NoAsk
	_, err := co.tasks.Start(tasks.Task{ConversationID: req.ConversationID, Kind: req.Mode, Chain: c.id}, func(ctx context.Context) error {
		if prepare != nil {
			if err := prepare(); err != nil {
				c.fail(err)
				return err
			}
		}
		res, err := co.engine.Send(withChain(ctx, c), req)
		co.report(c, req.ConversationID, "", false, 0, res, err)
		co.afterTask(ctx, req.ConversationID)
		if err != nil {
			c.fail(err)
			co.log.Warn("send failed", "conversation", req.ConversationID, "error", err)
			return err
		}
		return nil
	})
	if err != nil {
		co.chains.end(c)
		return nil, err
	}
	return &Handle{co: co, c: c}, nil
}

// Handle is a message on its way: its answer and every task it led to.
type Handle struct {
	co *Coordinator
	c  *chain
}

// Wait returns what the message did once its answer and every task it led
// to are done, or the error that kept it from being answered at all. When
// ctx ends first, that work stops (Wait still returns once it has).
func (h *Handle) Wait(ctx context.Context) (*ChainResult, error) {
	select {
	case <-h.c.done:
	case <-ctx.Done():
		h.co.stopChain(h.c)
		<-h.c.done
	}
	res := h.c.result()
	if err := h.c.failure(); err != nil && res.Result == nil {
		return nil, err
	}
	return res, nil
}

// Stop cancels the reply or run turn running in a conversation. When the
// conversation takes part in work handed from conversation to conversation
// (it answers for another one, or waits for one), all of that work stops:
// the conversations that wait get a result that says so. It reports whether
// something was running.
func (co *Coordinator) Stop(conversationID string) bool {
	if c := co.chainOf(conversationID); c != nil {
		return co.stopChain(c)
	}
	return co.tasks.Stop(conversationID)
}

// chainOf returns the chain a conversation answers or waits in, or nil.
func (co *Coordinator) chainOf(conversationID string) *chain {
	if t, ok := co.tasks.Running(conversationID); ok && t.Chain != "" {
		if c := co.chains.get(t.Chain); c != nil {
			return c
		}
	}
	return co.chains.waitingIn(conversationID)
}

// stopChain stops the work of a chain: the queued tasks are dropped (the
// waiting calls get their results), then the running task is cancelled.
func (co *Coordinator) stopChain(c *chain) bool {
	co.tasks.Drop(func(p tasks.Plan) bool { return p.Task.Chain == c.id })
	stopped := false
	for _, t := range co.tasks.All() {
		if t.Chain == c.id || (t.Chain == "" && t.ConversationID == c.rootID()) {
			c.markStopped(t.ConversationID)
			stopped = co.tasks.Stop(t.ConversationID) || stopped
		}
	}
	return stopped
}

// TaskEnded closes a task of a chain (the scheduler's event of a task that
// ended, chain its Task.Chain).
func (co *Coordinator) TaskEnded(chainID string) {
	if chainID == "" {
		return
	}
	if c := co.chains.get(chainID); c != nil {
		co.chains.end(c)
	}
}

// Deleting prepares the deletion of a conversation: the work it waits in
// stops, and it is gone for the conversation it answers for from now on.
// The returned func ends that once the conversation is deleted.
func (co *Coordinator) Deleting(id string) (done func()) {
	if c := co.chains.waitingIn(id); c != nil {
		co.stopChain(c)
	}
	co.chains.deleting(id, true)
	return func() { co.chains.deleting(id, false) }
}

// TurnFor returns the turn the changes a tool makes in ctx belong to: in a
// chain, the first turn of its root conversation (see chain.turnFor); else
// t.
func TurnFor(ctx context.Context, t tools.Turn) tools.Turn {
	if c := chainFromContext(ctx); c != nil {
		return c.turnFor(t)
	}
	return t
}

// turnFor returns the turn the changes made in a task of the chain belong
// to: the first turn of its root conversation seen, else t. (The root of a
// new conversation is known only once its task ends, but the first turn a
// chain sees is its root's: the others start when the root hands over.)
func (c *chain) turnFor(t tools.Turn) tools.Turn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.turn.ConversationID == "" && (c.root == "" || t.ConversationID == c.root) && t.MessageID != "" {
		c.turn = t
	}
	if c.turn.ConversationID != "" {
		return c.turn
	}
	return t
}
