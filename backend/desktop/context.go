package desktop

import (
	"context"

	"crewagent/backend/app"
	"crewagent/backend/engine"
	"crewagent/backend/memory"
)

// Context compacts conversations and pins their messages (bridge/context.ts).
type Context struct{ s *app.Session }

// Compact compacts a conversation now (the composer's /compact): what
// comes before its newest user message becomes the summary, which the focus
// steers. It returns what was compacted (nothing when there was nothing to).
func (x *Context) Compact(conversationID, focus string) (*engine.CompactResult, error) {
	return current(x.s, func(ws *app.Workspace) (*engine.CompactResult, error) {
		return ws.CompactConversation(context.Background(), conversationID, focus)
	})
}

// Pin pins a message: every compaction keeps it word for word.
func (x *Context) Pin(conversationID, messageID string) error {
	return currentDo(x.s, func(ws *app.Workspace) error { return ws.PinMessage(conversationID, messageID) })
}

// Unpin removes a message's pin.
func (x *Context) Unpin(conversationID, messageID string) error {
	return currentDo(x.s, func(ws *app.Workspace) error { return ws.UnpinMessage(conversationID, messageID) })
}

// Instructions returns the project's instruction file (AGENTS.md), which
// every request carries.
func (x *Context) Instructions() (memory.File, error) {
	return current(x.s, func(ws *app.Workspace) (memory.File, error) { return ws.ProjectInstructions() })
}

// SaveInstructions writes the project's instruction file.
func (x *Context) SaveInstructions(text string) (memory.File, error) {
	return current(x.s, func(ws *app.Workspace) (memory.File, error) { return ws.SaveProjectInstructions(text) })
}
