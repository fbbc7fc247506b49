package coordinator

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"crewagent/backend/approval"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// A chain is one piece of work that the conversation tools hand from
// conversation to conversation: the user's message (or retry) and its
// reply, the replies of the conversations it handed a turn to
// (conv.create, conv.send), and the continuations of those that waited. Its
// tasks run one at a time in the project's scheduler; the chain knows which
// conversations wait for which, so that Stop ends all of it and the command
// line can wait for its end.
type chain struct {
	id string

	mu   sync.Mutex
	root string // the conversation of the first task
	// open counts the tasks of the chain that are queued or running (the
	// first one included); done is closed when it reaches 0.
	open    int
	waiting []string    // conversations whose call waits, outermost first
	first   *TaskReport // the first task's report (recorded after the tasks it handed over may have started)
	reports []TaskReport
	turns   map[string]int     // LLM calls made, by conversation
	final   *engine.SendResult // the root conversation's latest result
	stopped string             // the conversation the user stopped, if any
	failed  error              // why the first task could not answer (nothing to report), if so
	done    chan struct{}
	// created and calls are what the chain spent of its budget: the
	// conversations conv.create made and the model calls (settings
	// engine.maxConversationsPerMessage, engine.maxModelCallsPerMessage).
	created, calls int
	// approve and noAsk are the approval mode and the "nobody can be asked"
	// of the send that started the chain: its every send keeps them.
	approve approval.Mode
	noAsk   string
	// turn is the root conversation's turn the chain's changes to files
	// belong to (see turnFor).
	turn tools.Turn
}

// TaskReport is one task of a chain as the command line lists it.
type TaskReport struct {
	ConversationID string `json:"conversationId"`
	Title          string `json:"title"`
	// Tool is the conversation tool whose answer the task gave (conv.create,
	// conv.send); Continues marks a continuation; "" and false for the
	// user's message.
	Tool      string `json:"tool,omitempty"`
	Continues bool   `json:"continues,omitempty"`
	Depth     int    `json:"depth"`
	// Outcome: answered, handed-over (it handed its turn to another
	// conversation), failed, incomplete, question (it asks the user).
	Outcome   string        `json:"outcome"`
	MessageID string        `json:"messageId,omitempty"`
	Text      string        `json:"text,omitempty"`
	Error     *events.Error `json:"error,omitempty"`
}

// Outcomes of TaskReport.
const (
	OutcomeAnswered   = "answered"
	OutcomeHandedOver = "handed-over"
	OutcomeFailed     = "failed"
	OutcomeIncomplete = "incomplete"
	OutcomeQuestion   = "question"
)

type chainKey struct{}

// withChain is the context of a task of chain c: the sends of the chain
// keep the approval mode and the "nobody can be asked" of its first one.
func withChain(ctx context.Context, c *chain) context.Context {
	return context.WithValue(engine.WithApprovals(ctx, c.approve, c.noAsk), chainKey{}, c)
}

// chainFromContext returns the chain a task's context runs in (nil outside one).
func chainFromContext(ctx context.Context) *chain {
	c, _ := ctx.Value(chainKey{}).(*chain)
	return c
}

// chains are the chains of a project that have not ended, by id.
type chains struct {
	next atomic.Uint64
	mu   sync.Mutex
	byID map[string]*chain
	// gone are the conversations being deleted.
	gone map[string]bool
	// reaches are what the conversations answering for another one may do,
	// by conversation (see reach).
	reaches map[string]*reach
}

// setReach narrows what a conversation may do while it answers for another
// one (nil: no longer).
func (cs *chains) setReach(id string, r *reach) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.reaches == nil {
		cs.reaches = map[string]*reach{}
	}
	if r == nil {
		delete(cs.reaches, id)
	} else {
		cs.reaches[id] = r
	}
}

// reachOf is what a conversation may do while it answers for another one
// (nil when it does not).
func (cs *chains) reachOf(id string) *reach {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.reaches[id]
}

// deleting marks a conversation as being deleted (or no longer).
func (cs *chains) deleting(id string, on bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.gone == nil {
		cs.gone = map[string]bool{}
	}
	if on {
		cs.gone[id] = true
	} else {
		delete(cs.gone, id)
	}
}

// isDeleting reports whether a conversation is being deleted.
func (cs *chains) isDeleting(id string) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.gone[id]
}

// start registers a new chain with its first task open.
func (cs *chains) start(root string) *chain {
	c := &chain{id: "chain-" + strconv.FormatUint(cs.next.Add(1), 10), root: root, open: 1, done: make(chan struct{})}
	cs.mu.Lock()
	if cs.byID == nil {
		cs.byID = map[string]*chain{}
	}
	cs.byID[c.id] = c
	cs.mu.Unlock()
	return c
}

func (cs *chains) get(id string) *chain {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byID[id]
}

// involving returns the chain in which the conversation waits for another
// one, or nil.
func (cs *chains) waitingIn(conversationID string) *chain {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, c := range cs.byID {
		if c.isWaiting(conversationID) {
			return c
		}
	}
	return nil
}

// end closes one task of the chain; the last one ends the chain.
func (cs *chains) end(c *chain) {
	c.mu.Lock()
	c.open--
	last := c.open == 0
	c.mu.Unlock()
	if !last {
		return
	}
	cs.mu.Lock()
	delete(cs.byID, c.id)
	cs.mu.Unlock()
	close(c.done)
}

func (c *chain) add(n int) {
	c.mu.Lock()
	c.open += n
	c.mu.Unlock()
}

func (c *chain) rootID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.root
}

func (c *chain) push(conversationID string) {
	c.mu.Lock()
	c.waiting = append(c.waiting, conversationID)
	c.mu.Unlock()
}

// pop ends the wait of a conversation.
func (c *chain) pop(conversationID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.waiting) - 1; i >= 0; i-- {
		if c.waiting[i] == conversationID {
			c.waiting = append(c.waiting[:i], c.waiting[i+1:]...)
			return
		}
	}
}

func (c *chain) isWaiting(conversationID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.waiting {
		if w == conversationID {
			return true
		}
	}
	return false
}

// record adds a task's report; the root conversation's result is kept as
// the chain's final one.
func (c *chain) record(r TaskReport, res *engine.SendResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil && r.Depth == 0 && !r.Continues && r.Tool == "" {
		c.first = &r
	} else {
		c.reports = append(c.reports, r)
	}
	if res != nil {
		if c.turns == nil {
			c.turns = map[string]int{}
		}
		c.turns[res.ConversationID] += res.Turns
	}
	if res != nil && res.ConversationID == c.root {
		c.final = res
	}
}

// turnsOf are the LLM calls a conversation made in the chain so far.
func (c *chain) turnsOf(conversationID string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turns[conversationID]
}

// fail records why the first task could not answer.
func (c *chain) fail(err error) {
	c.mu.Lock()
	if c.failed == nil {
		c.failed = err
	}
	c.mu.Unlock()
}

func (c *chain) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

func (c *chain) markStopped(conversationID string) {
	c.mu.Lock()
	if c.stopped == "" {
		c.stopped = conversationID
	}
	c.mu.Unlock()
}

// spendConversation counts a conversation conv.create is about to make;
// false (nothing counted) when the chain has made limit already.
func (c *chain) spendConversation(limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.created >= limit {
		return false
	}
	c.created++
	return true
}

// spendCall counts a model call about to be made; false (nothing counted)
// when the chain has made limit already.
func (c *chain) spendCall(limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls >= limit {
		return false
	}
	c.calls++
	return true
}

// BudgetedLLM is the model client of a project's sends: within a chain, a
// model call past settings engine.maxModelCallsPerMessage is not made; it
// fails with E_CONV_BUDGET instead, which the engine persists as the
// conversation's failed answer, so every conversation of the work still at
// it stops with a result that says why.
func BudgetedLLM(f engine.LLMFactory, effective func() settings.Settings) engine.LLMFactory {
	if f == nil {
		f = engine.DefaultLLMFactory
	}
	return func(s settings.LLM) engine.LLM {
		inner := f(s)
		b := budgetLLM{LLM: inner, settings: effective}
		if em, ok := inner.(engine.Embedders); ok {
			return budgetEmbedLLM{budgetLLM: b, em: em} // embeddings (recall) go through as they are
		}
		return b
	}
}

type budgetLLM struct {
	engine.LLM
	settings func() settings.Settings
}

type budgetEmbedLLM struct {
	budgetLLM
	em engine.Embedders
}

func (b budgetEmbedLLM) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	return b.em.Embed(ctx, model, texts)
}

// ContextWindow passes on what the inner client knows of the model's window
// (engine.WindowReporter).
func (b budgetLLM) ContextWindow(model string) int {
	if wr, ok := b.LLM.(engine.WindowReporter); ok {
		return wr.ContextWindow(model)
	}
	return 0
}

func (b budgetLLM) Stream(ctx context.Context, req llm.Request, h llm.Handler) (*llm.Result, error) {
	if c := chainFromContext(ctx); c != nil {
		if limit := b.settings().Engine.ModelCallsPerMessage(); !c.spendCall(limit) {
			return nil, &llm.Error{Code: errs.ConvBudget, Message: fmt.Sprintf(
				"not sent: the work this user message started has made %d model calls, the limit for one message (settings engine.maxModelCallsPerMessage); "+
					"it stops here. Read what the conversations wrote, then send a new message to go on", limit)}
		}
	}
	return b.LLM.Stream(ctx, req, h)
}

// ChainResult is what a message answered through a chain did.
type ChainResult struct {
	// Result is the final result of the conversation the message was sent
	// in (its latest task).
	Result *engine.SendResult
	// Tasks are the tasks that ran, in order.
	Tasks []TaskReport
	// Stopped names the conversation the user stopped, if any.
	Stopped string
}

func (c *chain) result() *ChainResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	var list []TaskReport
	if c.first != nil {
		list = append(list, *c.first)
	}
	return &ChainResult{Result: c.final, Tasks: append(list, c.reports...), Stopped: c.stopped}
}
