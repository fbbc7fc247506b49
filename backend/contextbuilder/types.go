package contextbuilder

import (
	"crewagent/backend/convlog"
)

// Kind tells where a request message came from.
type Kind string

// Message kinds.
const (
	// KindSystem is a part of the system prompt composed for this request.
	KindSystem Kind = "system"
	// KindHistory is a message taken from the conversation log (or a synthetic
	// tool result that completes an interrupted tool call of the log).
	KindHistory Kind = "history"
	// KindInjection is a run-only user block (RUN_DIRECTIVE, NODE_BRIEF, ...).
	KindInjection Kind = "injection"
)

// Message is one chat message of the request, in the OpenAI shape. Only the
// OpenAI fields are serialised; SourceID, Tokens and Kind are bookkeeping that
// Debug.Rows reports.
type Message struct {
	Role       string             `json:"role"`
	Content    *string            `json:"content"`
	ToolCalls  []convlog.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string             `json:"tool_call_id,omitempty"`
	Name       string             `json:"name,omitempty"`

	// SourceID is the id of the log entry the message came from ("" for the
	// system prompt, run injections and synthetic tool results).
	SourceID string `json:"-"`
	// Tokens is what the message costs in the request (stored count for log
	// entries, counted once for texts composed here).
	Tokens int `json:"-"`
	// Kind says whether the message is system prompt, history or injection.
	Kind Kind `json:"-"`
}

// Text returns the content or "" when it is null.
func (m *Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// Counter counts the tokens of a text for a model. *tokens.Counter implements it.
// The builder uses it only for texts it composes itself (system prompt, run
// blocks, synthetic results, appended alias lines) and for log entries whose
// stored count is 0; stored counts are never recomputed.
type Counter interface {
	Count(model, text string) int
}

// EntryCounter is optionally implemented by a Counter (as *tokens.Counter does)
// to count a whole log entry the way the store does at append time.
type EntryCounter interface {
	CountMessage(model string, e *convlog.Entry) int
}

// RunInjector supplies the run-only user-role blocks of mode run. While a
// workflow step is active it returns RUN_DIRECTIVE and NODE_BRIEF (and
// optionally step context); after completion (the post-completion profile) it
// returns only RUN_DIRECTIVE with the post-run protocol.
type RunInjector interface {
	Blocks() []string
}

// Persona is the agent identity rendered into the system prompt of agent and
// run modes.
type Persona struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	Title              string   `json:"title,omitempty"`
	Role               string   `json:"role,omitempty"`
	Identity           string   `json:"identity,omitempty"`
	CommunicationStyle string   `json:"communicationStyle,omitempty"`
	Principles         []string `json:"principles,omitempty"`
	// CriticalActions are the agent's must-do rules (agents.json critical_actions),
	// listed in the persona section in their order.
	CriticalActions []string `json:"criticalActions,omitempty"`
	SystemPrompt    string   `json:"systemPrompt,omitempty"`
}

// ToolPolicy is the effective (merged) tool policy the tool-policy section of
// the system prompt describes.
type ToolPolicy struct {
	// Enabled lists the tool names the model may call. When empty,
	// Options.ToolNames is used.
	Enabled []string `json:"enabled,omitempty"`
	// MaxReadBytes and MaxWriteBytes are the fs limits (0 = the runtime
	// defaults, 524288 and 2097152).
	MaxReadBytes  int64 `json:"maxReadBytes,omitempty"`
	MaxWriteBytes int64 `json:"maxWriteBytes,omitempty"`
	// MCPServers lists the MCP servers whose tools are allowed.
	MCPServers []string `json:"mcpServers,omitempty"`
}

// Default limits of the fs tools.
const (
	DefaultMaxReadBytes  = 524288
	DefaultMaxWriteBytes = 2097152
)

// Budget limits the request. Zero fields take the defaults; MaxMessages or
// MaxChars below zero disable that limit.
type Budget struct {
	// TokenBudget is the model's context window in tokens (default 128000).
	TokenBudget int `json:"tokenBudget"`
	// ReserveForResponse is kept free for the reply; the request may use
	// TokenBudget - ReserveForResponse tokens.
	ReserveForResponse int `json:"reserveForResponse"`
	// MaxMessages caps the number of request messages, system prompt
	// included (default 80).
	MaxMessages int `json:"maxMessages"`
	// MaxChars caps the characters (runes) of all contents and tool-call
	// arguments of the request (default 120000).
	MaxChars int `json:"maxChars"`
}

// Budget defaults.
const (
	DefaultTokenBudget = 128000
	DefaultMaxMessages = 80
	DefaultMaxChars    = 120000
)

// withDefaults fills zero fields.
func (b Budget) withDefaults() Budget {
	if b.TokenBudget <= 0 {
		b.TokenBudget = DefaultTokenBudget
	}
	if b.ReserveForResponse < 0 {
		b.ReserveForResponse = 0
	}
	if b.MaxMessages == 0 {
		b.MaxMessages = DefaultMaxMessages
	}
	if b.MaxChars == 0 {
		b.MaxChars = DefaultMaxChars
	}
	return b
}

// TokenLimit is the number of tokens the request itself may use.
func (b Budget) TokenLimit() int {
	b = b.withDefaults()
	if l := b.TokenBudget - b.ReserveForResponse; l > 0 {
		return l
	}
	return 0
}

// Options are the inputs of Build.
type Options struct {
	// Mode is convlog.ModeChat, ModeAgent or ModeRun.
	Mode string
	// History holds the effective entries of the conversation as loaded
	// (messages and events, in log order).
	History []convlog.Entry
	// Agent is the persona of agent and run modes (required there, ignored in chat).
	Agent *Persona
	// ToolPolicy describes the enabled tools and limits.
	ToolPolicy ToolPolicy
	// ToolNames are the tool definitions sent with the request; when empty,
	// ToolPolicy.Enabled.
	ToolNames []string
	// ToolTokens is what the tool definitions sent with the request cost
	// (counted once by the caller); it is part of the used tokens.
	ToolTokens int
	// Run supplies the run blocks (required in mode run, ignored otherwise).
	Run RunInjector
	// Budget limits the request.
	Budget Budget
	// Counter counts the texts composed here (required).
	Counter Counter
	// Model is the model the request is for (selects the tokenizer).
	Model string
	// OmitToolResults sends a one-line stub (OmittedToolResultPrefix, the
	// result's status and size, and its full-output alias path when it has
	// one) instead of the content of each tool result logged before the newest
	// user message (settings context.includeToolResultsInContext=false). The
	// results of the current turn, after that message (all of them when the
	// history has no user message), are sent whole: the model is still
	// working with them.
	OmitToolResults bool
}

// Result is the built request and its explanation.
type Result struct {
	Messages  []Message `json:"messages"`
	ToolNames []string  `json:"toolNames"`
	Debug     Debug     `json:"debug"`
	// DependsOnOlder is false when no entry older than Options.History could
	// change the request, provided none of them is a summary-class system
	// message: the newest user message is a non-meta one of History, and the
	// backward scan of the history stopped at a unit of History that broke a
	// limit, so everything older is trimmed whatever it holds. Build over any
	// longer history that ends with these entries then returns the same
	// messages, tool names, rows, kept and compressed decisions and usage;
	// only Debug's accounting of the older entries (Dropped, Counts) differs.
	// A caller reading the log from its end can stop once it is false.
	DependsOnOlder bool `json:"-"`
}

// Row describes one request message.
type Row struct {
	Index    int    `json:"index"`
	Role     string `json:"role"`
	SourceID string `json:"sourceId,omitempty"`
	Tokens   int    `json:"tokens"`
	Kind     Kind   `json:"kind"`
	Reason   string `json:"reason"`
}

// Decision records what happened to a log entry and why. In Debug.Dropped,
// consecutive entries (in log order, events aside) sharing a reason form one
// decision: SourceID is the first, ThroughID the last, Count how many.
type Decision struct {
	SourceID  string `json:"sourceId"`
	ThroughID string `json:"throughId,omitempty"`
	Count     int    `json:"count"`
	Role      string `json:"role,omitempty"` // "" when the run mixes roles
	Reason    string `json:"reason"`
}

// Counts summarises a build.
type Counts struct {
	Entries    int `json:"entries"`
	Events     int `json:"events"`
	Messages   int `json:"messages"`
	System     int `json:"system"`
	History    int `json:"history"`
	Injections int `json:"injections"`
	Kept       int `json:"kept"`
	Dropped    int `json:"dropped"` // entries (Debug.Dropped may group them)
	Compressed int `json:"compressed"`
	Synthetic  int `json:"synthetic"`
}

// Debug explains a build: one row per request message, every log message's
// fate, and the budget used.
type Debug struct {
	Mode       string     `json:"mode"`
	Rows       []Row      `json:"rows"`
	Kept       []Decision `json:"kept"`
	Dropped    []Decision `json:"dropped"`
	Compressed []Decision `json:"compressed"`
	Counts     Counts     `json:"counts"`
	// UsedTokens = sum of message tokens + ReplyPriming + Options.ToolTokens.
	UsedTokens int `json:"usedTokens"`
	// TokenLimit = TokenBudget - ReserveForResponse.
	TokenLimit int    `json:"tokenLimit"`
	Budget     Budget `json:"budget"`
	// UsedChars counts runes of contents and tool-call arguments.
	UsedChars int `json:"usedChars"`
	// OverBudget is true only when the parts that are never dropped (system
	// prompt, run blocks, newest user message) exceed a limit on their own.
	OverBudget bool     `json:"overBudget"`
	Notes      []string `json:"notes,omitempty"`
}
