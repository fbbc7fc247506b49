package tools

import "context"

// Provider offers tools beyond the built-in ones: the tools of MCP servers,
// skill activation, the conversation tools. A Host lists a provider's tools
// after its own, dispatches their calls to it and writes them to the
// execution log like any other call. A provider sees the same arguments the
// model sent (already checked to be a JSON object) and answers with a Result
// (failures as ok:false results, never Go errors).
type Provider interface {
	// Tools returns the provider's tool definitions, in the order they are offered.
	Tools() []ToolDef
	// Call runs one of the provider's tools; handled is false when name is
	// not one of them.
	Call(ctx context.Context, name string, args []byte) (res Result, handled bool)
}

// HostAware is implemented by a provider that needs to know every tool its
// host offers (its own included), e.g. to narrow what it passes on; the
// host tells it once its list is complete.
type HostAware interface {
	HostTools(names []string)
}

// Scope is what the providers of one host serve: one send or one request
// of a run.
type Scope struct {
	ConversationID string
	// Mode is chat, agent or run.
	Mode    string
	AgentID string
	// RunID and WorkflowID are set in run mode.
	RunID      string
	WorkflowID string
	// Policy is the effective tool policy of the host.
	Policy Policy
	// MCPAllowlist, when not nil, narrows the MCP servers further: a child
	// conversation's mcp_allowlist. It can only take servers away from those
	// Policy allows (an empty list allows none).
	MCPAllowlist []string
}

// ProviderFactory builds the providers of one host (nil or empty: none).
type ProviderFactory func(Scope) []Provider

// Providers joins factories into one; nil factories are skipped.
func Providers(factories ...ProviderFactory) ProviderFactory {
	return func(s Scope) []Provider {
		var out []Provider
		for _, f := range factories {
			if f != nil {
				out = append(out, f(s)...)
			}
		}
		return out
	}
}
