package contextbuilder

import (
	"crewagent/backend/conversation"
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
	// KindSummary is a summary-class system message of the log
	// (CONVERSATION_SUMMARY), placed right after the system prompt.
	KindSummary Kind = "summary"
	// KindPinned is the PINNED system message: pinned messages, runtime
	// records and meta messages that were compacted, word for word.
	KindPinned Kind = "pinned"
	// KindRecall is the RECALLED_CONTEXT user message: compacted messages
	// relevant to the newest user message, quoted.
	KindRecall Kind = "recall"
)

// Message is one chat message of the request, in the OpenAI shape. Only the
// OpenAI fields are serialised; SourceID, Tokens and Kind are bookkeeping that
// Debug.Rows reports.
type Message struct {
	Role       string                  `json:"role"`
	Content    *string                 `json:"content"`
	ToolCalls  []conversation.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string                  `json:"tool_call_id,omitempty"`
	Name       string                  `json:"name,omitempty"`

	// Images are the images attached to a user message: they go beside its
	// text as image parts (see conversation.Attachment).
	Images []conversation.Attachment `json:"-"`

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
// The builder uses it for texts it composes itself (system prompt, run blocks,
// synthetic results, previews, the pinned and recall blocks) and for log
// entries whose stored count cannot be used (see EntryTokens).
type Counter interface {
	Count(model, text string) int
}

// EntryCounter is optionally implemented by a Counter (as *tokens.Counter does)
// to count a whole log entry the way the store does at append time.
type EntryCounter interface {
	CountMessage(model string, e *conversation.Entry) int
}

// EncodingNamer is optionally implemented by a Counter (as *tokens.Counter
// does): the tokenizer encoding of a model. With it, a stored count made
// with another encoding is not trusted (see EntryTokens).
type EncodingNamer interface {
	EncodingFor(model string) string
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
	// MCPServers lists the MCP servers whose tools the request offers (their
	// wire names, as in mcp__<server>__<tool>).
	MCPServers []string `json:"mcpServers,omitempty"`
}

// Default limits of the fs tools.
const (
	DefaultMaxReadBytes  = 524288
	DefaultMaxWriteBytes = 2097152
)

// Budget limits the request. Zero fields take the defaults.
//
// Only the token limit bounds a request. MaxMessages and MaxChars (the
// settings context.maxMessages / context.maxChars) never cut anything here:
// the engine reads them as compaction triggers (a request over either is
// compacted like one over the token trigger). Below zero (or zero after
// withDefaults for callers that pass -1) they are off.
type Budget struct {
	// TokenBudget is the model's context window in tokens (default 128000).
	TokenBudget int `json:"tokenBudget"`
	// ReserveForResponse is kept free for the reply, at most a quarter of
	// the budget (see Reserve); the request may use TokenBudget - Reserve().
	ReserveForResponse int `json:"reserveForResponse"`
	// MaxMessages is a compaction trigger on the number of request messages.
	MaxMessages int `json:"maxMessages"`
	// MaxChars is a compaction trigger on the characters (runes) of all
	// contents and tool-call arguments of the request.
	MaxChars int `json:"maxChars"`
}

// Budget defaults.
const (
	DefaultTokenBudget = 128000
	DefaultMaxMessages = 0 // off
	DefaultMaxChars    = 0 // off
)

// MaxReserveShare is the largest share of the budget the reply reserve may
// take: a reserve set for a big window (8192 of 128000) must not swallow a
// small one (8192 of 9000).
const MaxReserveShare = 4 // 1/4

// withDefaults fills zero fields.
func (b Budget) withDefaults() Budget {
	if b.TokenBudget <= 0 {
		b.TokenBudget = DefaultTokenBudget
	}
	if b.ReserveForResponse < 0 {
		b.ReserveForResponse = 0
	}
	if b.MaxMessages < 0 {
		b.MaxMessages = 0
	}
	if b.MaxChars < 0 {
		b.MaxChars = 0
	}
	return b
}

// Reserve is the reply reserve in effect: ReserveForResponse, capped at a
// quarter of the budget.
func (b Budget) Reserve() int {
	b = b.withDefaults()
	return min(b.ReserveForResponse, b.TokenBudget/MaxReserveShare)
}

// TokenLimit is the number of tokens the request itself may use:
// TokenBudget - Reserve(). It never shrinks when TokenBudget grows.
func (b Budget) TokenLimit() int {
	b = b.withDefaults()
	return b.TokenBudget - b.Reserve()
}

// Options are the inputs of Build.
type Options struct {
	// Mode is conversation.ModeChat, ModeAgent or ModeRun.
	Mode string
	// History holds the effective entries of the conversation as loaded
	// (messages and events, in log order).
	History []conversation.Entry
	// Agent is the persona of agent and run modes (required there, ignored in chat).
	Agent *Persona
	// Instructions are the base instructions of a conversation created by
	// another one (conv.create), sent as a section of the system prompt.
	Instructions string
	// Memory are the project's instruction files (AGENTS.md), a section of
	// the system prompt in every mode, word for word: compaction never
	// touches them.
	Memory []MemoryFile
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
	// Recall are compacted messages relevant to the newest user message, best
	// first (the recall package ranks them). They enter as one
	// RECALLED_CONTEXT user message right before the run blocks and the newest
	// user message, as many as fit RecallBudget tokens and the room the rest of
	// the request leaves. Items whose message is in the request are skipped.
	Recall       []RecallItem
	RecallBudget int
	// TurnStart is the id of the first entry of the turn in progress when the
	// history has no user message (a run turn started without input): the
	// entries from there on are the current turn, kept out of compaction, and
	// the run blocks go right before them instead of at the end.
	TurnStart string
	// IncludeCollapsedUIEvents sends legacy collapsed UI entries (assistant
	// messages with partType tool_start/tool_result and no tool calls, as the
	// old messages.json format stored tool activity) as assistant text; by
	// default they are left out (settings
	// context.includeCollapsedUiEventsInContext).
	IncludeCollapsedUIEvents bool
	// OmitToolResults sends a one-line stub (OmittedToolResultPrefix, the
	// result's status and size, and its full-output alias path when it has
	// one) instead of the content of each tool result logged before the newest
	// user message (settings context.includeToolResultsInContext=false). The
	// results of the current turn, after that message (all of them when the
	// history has no user message), are sent whole: the model is still
	// working with them.
	OmitToolResults bool
	// Refill sends compacted messages word for word while they fit (see
	// Refill).
	Refill Refill
	// Skills are what the conversation's skills add to the request: the
	// registry section of the system prompt, the bodies of the active skills
	// (pinned) and those of skills that ended (left out). See "Skills" in the
	// package doc.
	Skills Skills
}

// Refill lets the newest compacted messages back into the request word for
// word, as far as they fit: a compaction may take more than the request has
// to give up (so that it is not due again for several turns), and what it
// took but still fits is sent as it was said, right before the uncompacted
// history (the summary covers it too). They are what keep-newest truncation
// would send; the summary adds what is older. FullTokens leaves them out:
// they never trigger a compaction, and they are the first to go when the
// rest of the request grows.
//
// The messages sent stay the same from one request to the next, so that a
// provider's prefix cache keeps them: those from From on are sent again while
// they fit under Limit; when they no longer do (or From is not among them),
// the newest that fit under Limit less the headroom are sent, the headroom
// leaving room for the request to grow for a few turns before they change
// again. The caller passes the first message sent last time as From
// (Debug.RefillFrom).
type Refill struct {
	// Limit is what the request may use with them, in tokens (0: off); the
	// recall block comes after, within the request limit.
	Limit int
	// Headroom is the least room left under Limit when they are chosen
	// again; Turns how many of the largest of the recent turns that room
	// must hold (the larger of the two is left).
	Headroom, Turns int
	// From is the first message sent by the request before ("": none).
	From string
	// MaxSummary: with a summary of more tokens than this (0: any) nothing
	// is chosen again once those from From no longer fit (the
	// history is then many times what fits, and what comes back would not
	// stay for long).
	MaxSummary int
	// After a compaction with reason Except (a manual one: the person asked
	// for the history to go) nothing comes back.
	Except string
}

// MemoryFile is one of the project's instruction files as a request
// carries it.
type MemoryFile struct {
	// Path is its alias path (@project/AGENTS.md).
	Path string `json:"path"`
	// Text is what the request carries: the file, or its first MaxBytes
	// when Truncated.
	Text      string `json:"text"`
	Size      int64  `json:"size"`
	Truncated bool   `json:"truncated,omitempty"`
}

// MemoryPrefix starts the system message of the project's instructions.
const MemoryPrefix = "PROJECT_INSTRUCTIONS"

// RecallItem is one compacted message brought back into a request.
type RecallItem struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Tool string `json:"tool,omitempty"`
	// Text is what is quoted: the message, or the excerpt that matters.
	Text  string  `json:"text"`
	Score float64 `json:"score"`
	// Why says why it was recalled (matched terms, ranks).
	Why string `json:"why"`
	// Terms are the words of the newest user message it shares; Meaning is
	// set when embeddings found it close in meaning.
	Terms   []string `json:"terms,omitempty"`
	Meaning bool     `json:"meaning,omitempty"`
}

// Result is the built request and its explanation.
type Result struct {
	Messages  []Message `json:"messages"`
	ToolNames []string  `json:"toolNames"`
	Debug     Debug     `json:"debug"`
	// Spans are the history units of the request in order: what compaction
	// picks from (the "before" ones, oldest first) and what it must keep.
	Spans []Span `json:"spans"`
	// Pins are the active pins and carried messages (see conversation.Carried).
	Pins []Pin `json:"pins"`
	// Compaction is the data of the last compaction event of History (nil
	// when it has none).
	Compaction *conversation.CompactionData `json:"-"`
	// CompactionEvent is that event's id.
	CompactionEvent string `json:"-"`
	// Anchor is the newest user message's index in Messages (-1: none).
	Anchor int `json:"anchor"`
}

// Span parts.
const (
	PartBefore = "before" // older than the newest user message: compactable
	PartAnchor = "anchor" // the newest user message
	PartAfter  = "after"  // the current turn (the tool loop in progress)
	// PartRefill: compacted, sent word for word while it fits
	// (Options.Refill); not compactable again, not counted in FullTokens.
	PartRefill = "refill"
)

// Span is one history unit of the request: a message, or an assistant
// message with its tool results.
type Span struct {
	Part      string   `json:"part"`
	Index     int      `json:"index"` // of its first message in Messages
	Count     int      `json:"count"`
	SourceIDs []string `json:"sourceIds"`
	Tokens    int      `json:"tokens"`
	Chars     int      `json:"chars"`
	// Pinned is true when one of its messages is pinned.
	Pinned bool `json:"pinned,omitempty"`
	// Trimmed is true when the safety net left the unit out of the request
	// (Index is then -1): it is listed so that compaction sees every unit.
	Trimmed bool `json:"trimmed,omitempty"`
}

// Pin is one message kept word for word through compaction.
type Pin struct {
	conversation.Carried
	// InHistory is true when the message itself is in the request (not yet
	// compacted); otherwise the PINNED block quotes it.
	InHistory bool `json:"inHistory"`
	// Dropped is true when the safety net left it out of the request.
	Dropped bool `json:"dropped,omitempty"`
	// Words is what a person reads for it (a runtime record in words).
	Words string `json:"words,omitempty"`
}

// Row describes one request message.
type Row struct {
	Index    int    `json:"index"`
	Role     string `json:"role"`
	SourceID string `json:"sourceId,omitempty"`
	Tokens   int    `json:"tokens"`
	Kind     Kind   `json:"kind"`
	Reason   string `json:"reason"`
	// Skills names the active skills whose bodies the message carries: a
	// body message of the history, or the PINNED message quoting compacted
	// ones.
	Skills []string `json:"skills,omitempty"`
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
	Recalled   int `json:"recalled"`
	Pinned     int `json:"pinned"`
	Trimmed    int `json:"trimmed"`            // left out by the safety net
	Refilled   int `json:"refilled,omitempty"` // compacted messages sent word for word (Options.Refill)
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
	// FullTokens, FullMessages and FullChars are what the request would use
	// with every history unit whole and without recall: the figures
	// compaction triggers on.
	FullTokens   int `json:"fullTokens"`
	FullMessages int `json:"fullMessages"`
	FullChars    int `json:"fullChars"`
	// RecallTokens is what the RECALLED_CONTEXT message costs (part of
	// UsedTokens).
	RecallTokens int `json:"recallTokens"`
	// Recalled lists the recalled messages in the request, with why.
	Recalled []RecallItem `json:"recalled"`
	// TokenLimit = TokenBudget - ReserveForResponse.
	TokenLimit int    `json:"tokenLimit"`
	Budget     Budget `json:"budget"`
	// RefillFrom is the first compacted message sent word for word
	// (Options.Refill), "" when none is.
	RefillFrom string `json:"refillFrom,omitempty"`
	// UsedChars counts runes of contents and tool-call arguments.
	UsedChars int `json:"usedChars"`
	// OverBudget is true when the request exceeds the token limit even after
	// the safety net: the parts it never drops (system prompt, run blocks,
	// the newest user message and the current turn with its tool results as
	// previews) do not fit. Such a request must not be sent.
	OverBudget bool `json:"overBudget"`
	// SafetyNet is true when the safety net had to shorten or leave out
	// something (see Compressed and Dropped); compaction normally makes it
	// unnecessary.
	SafetyNet bool     `json:"safetyNet"`
	Notes     []string `json:"notes,omitempty"`
}
