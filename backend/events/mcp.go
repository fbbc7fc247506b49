package events

import "encoding/json"

// MCPStatusEvent is the payload of mcp:status: an MCP server of the open
// project changed state (starting, ready, failed, approved, stopped…), or the
// configured servers changed (Server is "" then: read the whole list again).
type MCPStatusEvent struct {
	Server string `json:"server"`
	// State is the server's state: disabled, pending-approval, stopped,
	// starting, ready or failed.
	State     string `json:"state,omitempty"`
	ToolCount int    `json:"toolCount"`
	// Error says why a failed server failed (secrets removed).
	Error string `json:"error,omitempty"`
}

// MCPElicitationEvent is the payload of mcp:elicitation: a server asks the user to fill
// in a form (Schema: a flat object schema of strings, numbers, booleans and enums).
type MCPElicitationEvent struct {
	ID      string          `json:"id"`
	Server  string          `json:"server"`
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"requestedSchema" ts_type:"Record<string, any>"`
}

// MCPElicitationDoneEvent is the payload of mcp:elicitation-done.
type MCPElicitationDoneEvent struct {
	ID string `json:"id"`
}
