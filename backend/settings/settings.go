// Package settings owns <home>/settings.json: the Settings model and its
// defaults, validation, environment overrides, masking and 0600 atomic saves.
package settings

import (
	"maps"
	"slices"
)

// FileName is the name of the settings file inside the runtime home.
const FileName = "settings.json"

// Compression strategies for Context.CompressionStrategy.
const (
	StrategyKeyMessages = "key-messages"
	StrategyLLMSummary  = "llm-summary"
)

// Themes for Settings.Theme: light, dark, or whatever the system prefers
// (followed live by the window).
const (
	ThemeLight  = "light"
	ThemeDark   = "dark"
	ThemeSystem = "system"
)

// Settings is the content of settings.json. Every field is always written (no
// omitempty) so that a saved file states every value explicitly.
type Settings struct {
	LLM     LLM     `json:"llm"`
	Context Context `json:"context"`
	Tools   Tools   `json:"tools"`
	Engine  Engine  `json:"engine"`
	Theme   string  `json:"theme"`
	// Approvals are the user's approval mode and rules (nil: none set, the
	// mode is "ask").
	Approvals *Approvals `json:"approvals,omitempty"`
	// Checkpoints bound what is kept to undo the tools' changes to the
	// project's files (nil: the defaults).
	Checkpoints *Checkpoints `json:"checkpoints,omitempty"`
}

// Checkpoints bound the earlier contents of files kept per project; the
// oldest go first. Zero takes the default.
type Checkpoints struct {
	MaxDays  int   `json:"maxDays,omitempty"`  // default 30
	MaxBytes int64 `json:"maxBytes,omitempty"` // default 1 GiB
}

// Checkpoint bounds by default.
const (
	DefaultCheckpointDays  = 30
	DefaultCheckpointBytes = 1 << 30
)

// CheckpointBounds returns the bounds with the defaults filled in.
func (s Settings) CheckpointBounds() (days int, bytes int64) {
	days, bytes = DefaultCheckpointDays, DefaultCheckpointBytes
	if c := s.Checkpoints; c != nil {
		if c.MaxDays > 0 {
			days = c.MaxDays
		}
		if c.MaxBytes > 0 {
			bytes = c.MaxBytes
		}
	}
	return days, bytes
}

// Approvals configures which tool calls wait for the user's approval
// (backend/approval): the default mode of conversations (read-only, ask,
// auto-edit, full-auto; "" = ask) and the user's allow / ask / deny rules.
type Approvals struct {
	Mode  string   `json:"mode,omitempty"`
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// ApprovalModes are the values approvals.mode takes.
var ApprovalModes = []string{"read-only", "ask", "auto-edit", "full-auto"}

// LLM configures the OpenAI-compatible endpoint.
type LLM struct {
	BaseURL                  string `json:"baseUrl"`
	Model                    string `json:"model"`
	APIKey                   string `json:"apiKey"`
	TimeoutSeconds           int    `json:"timeoutSeconds"`
	SummaryModel             string `json:"summaryModel"` // optional cheaper model for summaries; "" = Model
	ConnectTimeoutSeconds    int    `json:"connectTimeoutSeconds"`
	FirstTokenTimeoutSeconds int    `json:"firstTokenTimeoutSeconds"`
	IdleTimeoutSeconds       int    `json:"idleTimeoutSeconds"`
	MaxRetries               int    `json:"maxRetries"`
	// EmbeddingsModel turns on vector recall: compacted messages are also
	// ranked by the similarity of their embeddings (OpenAI-compatible
	// /v1/embeddings) to the newest message. "" = lexical recall only.
	EmbeddingsModel string `json:"embeddingsModel"`
	// EmbeddingsBaseURL is the endpoint of the embeddings model ("" = BaseURL).
	EmbeddingsBaseURL string `json:"embeddingsBaseUrl"`
	// RequestShape is the form of the message list: "auto" (or "") learns it
	// from the model's chat-template errors, "standard" sends the messages as
	// they are, "alternating" one system message and strictly alternating
	// user and assistant turns, "alternating-no-system" the same with the
	// system text in the first user message (see RequestShapes).
	RequestShape string `json:"requestShape,omitempty"`
	// ReasoningEffort is sent as reasoning_effort to reasoning models:
	// "minimal", "low", "medium" or "high" ("" leaves it to the server).
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	// Prices are what models cost per million tokens (by model name), and
	// Currency what they are in (DefaultCurrency when empty): costs are
	// shown for the models that have one.
	Prices   map[string]Price `json:"prices,omitempty"`
	Currency string           `json:"currency,omitempty"`
	// Endpoints are more servers a conversation may choose (with a model) in
	// the composer or with chat --endpoint and --model; the fields above are
	// the endpoint named "default".
	Endpoints []Endpoint `json:"endpoints,omitempty"`
	// EndpointName is set by For to the endpoint chosen ("" for the default).
	EndpointName string `json:"-"`
}

// ReasoningEfforts are the values of llm.reasoningEffort ("" too).
var ReasoningEfforts = []string{"minimal", "low", "medium", "high"}

// RequestShapes are the values of llm.requestShape.
var RequestShapes = []string{"auto", "standard", "alternating", "alternating-no-system"}

// Context configures the context builder and compression.
type Context struct {
	// MaxMessages and MaxChars are compaction triggers (0 = off): a request
	// with more messages or characters is compacted; they never cut anything.
	MaxMessages                 int     `json:"maxMessages"`
	MaxChars                    int     `json:"maxChars"`
	TokenBudget                 int     `json:"tokenBudget"`
	ReserveForResponse          int     `json:"reserveForResponse"`
	TriggerThreshold            float64 `json:"triggerThreshold"`
	TargetAfterCompression      float64 `json:"targetAfterCompression"`
	CompressionStrategy         string  `json:"compressionStrategy"`
	IncludeToolResultsInContext bool    `json:"includeToolResultsInContext"`
	// IncludeCollapsedUIEventsInContext sends legacy collapsed tool_start /
	// tool_result UI entries to the model as assistant text (default off).
	IncludeCollapsedUIEventsInContext bool `json:"includeCollapsedUiEventsInContext"`
	// SummaryShare is the share of the room left by the request's fixed
	// part (system prompt, tool definitions, project instructions) that a
	// compaction summary may take; RecallShare the share of the request
	// limit recalled messages may take (0 = no recall).
	SummaryShare float64 `json:"summaryShare"`
	RecallShare  float64 `json:"recallShare"`
}

// Caps that earlier versions wrote as defaults; a file holding exactly these
// gets the current defaults (caps off), since they only ever were defaults.
const (
	legacyMaxMessages = 80
	legacyMaxChars    = 120000
)

// Tools configures the tool host.
type Tools struct {
	FS    FSTools    `json:"fs"`
	MCP   MCPTools   `json:"mcp"`
	Shell ShellTools `json:"shell"`
}

// ShellTools configures shell.run, the command tool: command lines run in the project
// folder inside a sandbox (bubblewrap on Linux).
type ShellTools struct {
	// Enabled offers shell.run in agent mode (an agent's own tools block may still take it
	// away).
	Enabled bool `json:"enabled"`
	// InChat also offers it in plain chat mode (off by default).
	InChat bool `json:"inChat"`
	// TimeoutSeconds is the longest a command may run; it is killed with every process it
	// started after that. A call may ask for less, never more.
	TimeoutSeconds int `json:"timeoutSeconds"`
	// AllowNetwork gives the network to a command whose call asks for it; otherwise
	// commands never have the network.
	AllowNetwork bool `json:"allowNetwork"`
}

// FSTools configures the fs.* tools.
type FSTools struct {
	Enabled       bool `json:"enabled"`
	MaxReadBytes  int  `json:"maxReadBytes"`
	MaxWriteBytes int  `json:"maxWriteBytes"`
}

// MCPTools configures MCP servers (the servers themselves are the mcpServers
// table, see MCPServersKey).
type MCPTools struct {
	// Enabled offers the tools of MCP servers to the model (agents must also
	// enable them in their tools.mcp block). On by default: the servers of
	// mcpServers are there because the user wrote them.
	Enabled bool `json:"enabled"`
	// AllowedServers limits which servers are offered; empty allows every
	// configured server.
	AllowedServers []string `json:"allowedServers"`
	// StartOnOpen starts the servers when the window opens a project instead
	// of when their tools are first needed.
	StartOnOpen bool `json:"startOnOpen"`
	// CallTimeoutSeconds bounds one tool call; a call that takes longer is
	// cancelled on the server.
	CallTimeoutSeconds int `json:"callTimeoutSeconds"`
	// MaxToolsPerServer and MaxToolTokensPerServer bound the tool
	// definitions one server may bring into every request (tokens estimated
	// from their size); a server over either is offered without its tools,
	// and says so, while the other servers' tools are offered.
	MaxToolsPerServer      int `json:"maxToolsPerServer"`
	MaxToolTokensPerServer int `json:"maxToolTokensPerServer"`
}

// Default bounds of one MCP server's tool definitions.
const (
	DefaultMaxToolsPerServer      = 128
	DefaultMaxToolTokensPerServer = 32000
)

// ToolsPerServer is MaxToolsPerServer, its default when not positive.
func (m MCPTools) ToolsPerServer() int {
	if m.MaxToolsPerServer <= 0 {
		return DefaultMaxToolsPerServer
	}
	return m.MaxToolsPerServer
}

// ToolTokensPerServer is MaxToolTokensPerServer, its default when not
// positive.
func (m MCPTools) ToolTokensPerServer() int {
	if m.MaxToolTokensPerServer <= 0 {
		return DefaultMaxToolTokensPerServer
	}
	return m.MaxToolTokensPerServer
}

// Engine configures the tool loop.
type Engine struct {
	MaxTurns int `json:"maxTurns"`
	// MaxToolCallsPerMessage caps the tool calls run for one model message; the calls
	// beyond it are answered with an error result (E_TOO_MANY_TOOL_CALLS) without running.
	MaxToolCallsPerMessage int `json:"maxToolCallsPerMessage"`
	// MaxInterruptChainDepth caps how many conversations deep conv.create and
	// conv.send may hand a turn over (a conversation handing over to one that
	// hands over again, and so on); past it the call fails instead. 0 turns
	// the handovers off.
	MaxInterruptChainDepth int `json:"maxInterruptChainDepth"`
	// MaxConversationsPerMessage caps the conversations conv.create makes in
	// the work one user message starts (its reply, the replies it hands
	// over to, and theirs); past it conv.create is refused.
	MaxConversationsPerMessage int `json:"maxConversationsPerMessage"`
	// MaxModelCallsPerMessage caps the model calls of that work, in every
	// conversation it reaches; past it the work stops, each conversation
	// still at work with a failure that says so.
	MaxModelCallsPerMessage int `json:"maxModelCallsPerMessage"`
}

// Default budgets of the work one user message starts.
const (
	DefaultMaxConversationsPerMessage = 20
	DefaultMaxModelCallsPerMessage    = 200
)

// ConversationsPerMessage is MaxConversationsPerMessage, its default when
// not positive.
func (e Engine) ConversationsPerMessage() int {
	if e.MaxConversationsPerMessage <= 0 {
		return DefaultMaxConversationsPerMessage
	}
	return e.MaxConversationsPerMessage
}

// ModelCallsPerMessage is MaxModelCallsPerMessage, its default when not
// positive.
func (e Engine) ModelCallsPerMessage() int {
	if e.MaxModelCallsPerMessage <= 0 {
		return DefaultMaxModelCallsPerMessage
	}
	return e.MaxModelCallsPerMessage
}

// Defaults returns the settings used for every field settings.json does not set.
// The LLM endpoint (baseUrl, model, apiKey) has no default: see RequireLLM.
func Defaults() Settings {
	return Settings{
		LLM: LLM{
			TimeoutSeconds:           120,
			ConnectTimeoutSeconds:    10,
			FirstTokenTimeoutSeconds: 60,
			IdleTimeoutSeconds:       60,
			MaxRetries:               3,
		},
		Context: Context{
			MaxMessages:                 0,
			MaxChars:                    0,
			TokenBudget:                 128000,
			ReserveForResponse:          8192,
			TriggerThreshold:            0.95,
			TargetAfterCompression:      0.6,
			CompressionStrategy:         StrategyKeyMessages,
			IncludeToolResultsInContext: true,
			SummaryShare:                0.5,
			RecallShare:                 0.05,
		},
		Tools: Tools{
			FS: FSTools{Enabled: true, MaxReadBytes: 524288, MaxWriteBytes: 2097152},
			MCP: MCPTools{Enabled: true, AllowedServers: []string{}, CallTimeoutSeconds: 120,
				MaxToolsPerServer: DefaultMaxToolsPerServer, MaxToolTokensPerServer: DefaultMaxToolTokensPerServer},
			Shell: ShellTools{Enabled: true, TimeoutSeconds: 600},
		},
		Engine: Engine{MaxTurns: 30, MaxToolCallsPerMessage: 64, MaxInterruptChainDepth: 4,
			MaxConversationsPerMessage: DefaultMaxConversationsPerMessage, MaxModelCallsPerMessage: DefaultMaxModelCallsPerMessage},
		Theme: ThemeSystem,
	}
}

// Clone returns a deep copy (the slices are not shared).
func (s Settings) Clone() Settings {
	s.Tools.MCP.AllowedServers = slices.Clone(s.Tools.MCP.AllowedServers)
	if s.Tools.MCP.AllowedServers == nil {
		s.Tools.MCP.AllowedServers = []string{}
	}
	s.LLM.Prices = maps.Clone(s.LLM.Prices)
	if s.LLM.Endpoints != nil {
		eps := make([]Endpoint, len(s.LLM.Endpoints))
		for i, e := range s.LLM.Endpoints {
			e.Models = slices.Clone(e.Models)
			eps[i] = e
		}
		s.LLM.Endpoints = eps
	}
	if s.Approvals != nil {
		a := *s.Approvals
		a.Allow, a.Ask, a.Deny = slices.Clone(a.Allow), slices.Clone(a.Ask), slices.Clone(a.Deny)
		s.Approvals = &a
	}
	return s
}

// SummaryModelOrDefault returns the model to use for summaries.
func (l LLM) SummaryModelOrDefault() string {
	if l.SummaryModel != "" {
		return l.SummaryModel
	}
	return l.Model
}

// Masked returns a copy safe to show in the UI: the API key becomes MaskKey(key).
func (s Settings) Masked() Settings {
	m := s.Clone()
	m.LLM.APIKey = MaskKey(s.LLM.APIKey)
	for i := range m.LLM.Endpoints {
		m.LLM.Endpoints[i].APIKey = MaskKey(m.LLM.Endpoints[i].APIKey)
	}
	return m
}

// maskPrefix starts every masked key. Real keys never contain it.
const maskPrefix = "••••"

// MaskKey hides an API key: "" stays "", keys of 8 characters or more become
// "••••" + their last 4 characters, shorter keys become "••••".
func MaskKey(key string) string {
	switch {
	case key == "":
		return ""
	case len(key) < 8:
		return maskPrefix
	default:
		return maskPrefix + key[len(key)-4:]
	}
}

// IsMasked reports whether v is a masked key (as produced by MaskKey) rather
// than a key the user typed.
func IsMasked(v string) bool {
	return len(v) >= len(maskPrefix) && v[:len(maskPrefix)] == maskPrefix
}
