package engine

import (
	"context"
	"slices"
	"time"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/errs"
	"crewagent/backend/llm"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
)

// Store is the part of *convlog.Store the engine uses. Preview only reads
// (Get, Load, LoadTail, LoadSinceCompaction, SidecarPath), so a read-only
// store serves it.
type Store interface {
	Create(title, activeType string) (conversation.ConversationMeta, error)
	// CreateWith creates a conversation together with its first entries.
	CreateWith(title, activeType string, entries ...*conversation.Entry) (conversation.ConversationMeta, error)
	Get(id string) (conversation.ConversationMeta, error)
	Load(id string) ([]*conversation.Entry, error)
	LoadTail(id string, n int) ([]*conversation.Entry, error)
	LoadSinceCompaction(id string) ([]*conversation.Entry, error)
	LoadBackTo(id, from string) ([]*conversation.Entry, error)
	Append(id string, entries ...*conversation.Entry) error
	Update(id string, e *conversation.Entry) error
	UpdateMeta(id string, fn func(*conversation.ConversationMeta)) error
	// Compaction, pins and the files beside the log.
	Compact(id string, w convlog.CompactionWrite) error
	Pin(id, msgID string) (*conversation.Entry, error)
	Unpin(id, msgID string) (*conversation.Entry, error)
	SaveToolOutput(id, msgID, toolCallID, toolName, full string) (string, error)
	SidecarPath(id, name string) (string, error)
	AppendSidecar(id, name string, data []byte) error
}

var _ Store = (*convlog.Store)(nil)

// LLM is the part of *llm.Client the engine uses.
type LLM interface {
	Stream(ctx context.Context, req llm.Request, h llm.Handler) (*llm.Result, error)
	Complete(ctx context.Context, req llm.Request) (*llm.Result, error)
}

var _ LLM = (*llm.Client)(nil)

// LLMFactory builds the client for the current LLM settings. It is called for
// every send (settings may change while the app runs); ChatService keeps the
// last client and reuses it while the settings stay the same.
type LLMFactory func(s settings.LLM) LLM

// DefaultLLMFactory builds an *llm.Client from the settings (see LLMConfig).
func DefaultLLMFactory(s settings.LLM) LLM { return llm.New(LLMConfig(s)) }

// TestConnection asks the endpoint of cfg for its models, then sends one
// tiny request to the chosen model (llm.Probe); settings without an
// endpoint are said not to be configured.
func TestConnection(ctx context.Context, cfg settings.Settings) llm.ConnectionResult {
	if cfg.LLM.BaseURL == "" {
		return llm.ConnectionResult{Model: cfg.LLM.Model, Models: []string{}, Code: errs.LLMNotConfigured, Message: cfg.RequireLLM().Error()}
	}
	return llm.Probe(ctx, LLMConfig(cfg.LLM))
}

// Endpoints are every endpoint of the LLM settings (the default one first),
// each with its client configuration and the models it names.
func Endpoints(l settings.LLM) []llm.Endpoint {
	var eps []llm.Endpoint
	for _, ep := range l.AllEndpoints() {
		one := l
		one.BaseURL, one.APIKey = ep.BaseURL, ep.APIKey
		eps = append(eps, llm.Endpoint{Name: ep.Name, Models: ep.Models, Config: LLMConfig(one)})
	}
	return eps
}

// LLMConfig maps the LLM settings to the client configuration. Zero or
// negative timeouts take the client's defaults; maxRetries 0 means no retries.
func LLMConfig(s settings.LLM) llm.Config {
	secs := func(n int) time.Duration {
		if n <= 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	retries := s.MaxRetries
	if retries == 0 {
		retries = -1 // the client reads 0 as "default"; settings mean "none"
	}
	shape, _ := llm.ParseShape(s.RequestShape) // an unknown one is warned about: auto
	return llm.Config{
		Shape:             shape,
		ReasoningEffort:   effort(s.ReasoningEffort),
		BaseURL:           s.BaseURL,
		APIKey:            s.APIKey,
		Model:             s.Model,
		Timeout:           secs(s.TimeoutSeconds),
		ConnectTimeout:    secs(s.ConnectTimeoutSeconds),
		FirstTokenTimeout: secs(s.FirstTokenTimeoutSeconds),
		IdleTimeout:       secs(s.IdleTimeoutSeconds),
		MaxRetries:        retries,
	}
}

// effort is the reasoning effort sent: a value the settings refuse (and warn
// about) is not sent.
func effort(e string) string {
	if slices.Contains(settings.ReasoningEfforts, e) {
		return e
	}
	return ""
}

// SettingsProvider returns the settings in effect now (*settings.Store does).
type SettingsProvider interface {
	Effective() settings.Settings
}

// StaticSettings is a SettingsProvider that always returns the same settings.
type StaticSettings settings.Settings

// Effective implements SettingsProvider.
func (s StaticSettings) Effective() settings.Settings { return settings.Settings(s).Clone() }

// Counter counts tokens (*tokens.Counter implements it).
type Counter interface {
	contextbuilder.Counter
	contextbuilder.EntryCounter
}

// ToolHost runs the tool calls of one send (*tools.Host implements it).
type ToolHost interface {
	Tools() []tools.ToolDef
	ToolNames() []string
	Policy() tools.Policy
	Call(ctx context.Context, name, argsJSON string) tools.Result
}

var _ ToolHost = (*tools.Host)(nil)

// ToolScope is what a tool host is built for.
type ToolScope struct {
	ConversationID string
	Mode           string
	// Agent is the persona of agent mode (nil in chat mode).
	Agent *Agent
	// Policy is the effective policy: settings.tools, merged with the agent's
	// tools block in agent mode (an agent can only tighten).
	Policy tools.Policy
	// Allow and MCPServers narrow the tools of a conversation created with
	// lists of them (conv.create): nil does not narrow.
	Allow      []string
	MCPServers []string
}

// ToolHostFactory builds the tool host of one send.
type ToolHostFactory func(scope ToolScope) (ToolHost, error)

// Agent is a persona for agent mode and the tool policy it brings.
type Agent struct {
	ID      string
	Persona contextbuilder.Persona
	// Tools is the agent's tools block (nil: none, i.e. fs on, mcp off).
	Tools *tools.AgentTools
	// PackageID and PackageRoot name the installed package the agent comes
	// from ("" when it does not come from one).
	PackageID   string
	PackageRoot string
}

// AgentResolver finds the agent of an id (agent mode without SendRequest.Agent).
type AgentResolver interface {
	ResolveAgent(agentID string) (*Agent, error)
}

// AgentLister is implemented by an AgentResolver that can list the agent ids
// it resolves, so that an error can name them.
type AgentLister interface {
	AgentIDs() ([]string, error)
}

// systemPolicy converts settings.tools to the tool host's policy.
func systemPolicy(s settings.Tools) tools.Policy {
	return tools.Policy{
		FS:  tools.FSPolicy{Enabled: s.FS.Enabled, MaxReadBytes: int64(s.FS.MaxReadBytes), MaxWriteBytes: int64(s.FS.MaxWriteBytes)},
		MCP: tools.SettingsMCP(s.MCP.Enabled, s.MCP.AllowedServers),
	}
}
