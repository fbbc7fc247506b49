package app

import (
	"crewagent/backend/events"
	"crewagent/backend/mcp/projectmcp"
)

// Elicitations lets the window answer what MCP servers ask the user during a call
// (projectmcp.Elicitations).
type Elicitations = projectmcp.Elicitations

// NewElicitations returns the window's elicitations, announced on em.
func NewElicitations(em events.Emitter) *Elicitations { return projectmcp.NewElicitations(em) }
