package app

import (
	"context"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/memory"
)

// ExplainRequest asks what the next request of a conversation would send and
// what happened to the rest of the conversation.
type ExplainRequest struct {
	ConversationID string `json:"conversationId"`
	// Mode is chat, agent or run; empty is the conversation's active mode.
	Mode    string `json:"mode,omitempty"`
	AgentID string `json:"agentId,omitempty"`
	// All lists the fate of every message of the log (compacted by which
	// compaction, summarised, recalled, pinned, left out): it reads the whole
	// log, which the explanation otherwise avoids.
	All bool `json:"all,omitempty"`
}

// Explain is Preview with the choice of listing every message of the log
// (the inspector and the command line's "context --all").
func (ws *Workspace) Explain(ctx context.Context, req ExplainRequest) (*engine.Preview, error) {
	preq := engine.PreviewRequest{ConversationID: req.ConversationID, Mode: req.Mode, AgentID: req.AgentID, Full: req.All}
	run, err := ws.runs.SetupIfRun(req.ConversationID, req.Mode)
	if err != nil {
		return nil, err
	}
	if run != nil {
		preq.Mode, preq.Run = conversation.ModeRun, run
	}
	return ws.engine.Preview(ctx, preq)
}

// CompactConversation compacts a conversation now (the composer's /compact):
// every message before the newest user message goes into the summary, which
// the focus steers. It fails with ENGINE_CONVERSATION_BUSY while a reply runs.
func (ws *Workspace) CompactConversation(ctx context.Context, conversationID, focus string) (*engine.CompactResult, error) {
	run, err := ws.runs.SetupIfRun(conversationID, "")
	if err != nil {
		return nil, err
	}
	res, err := ws.engine.Compact(ctx, engine.CompactRequest{ConversationID: conversationID, Focus: focus, Run: run})
	if err == nil && res.CompactedMessages > 0 {
		ws.emitNextUsage(ctx, conversationID)
	}
	return res, err
}

// PinMessage pins a message: every compaction keeps it word for word.
func (ws *Workspace) PinMessage(conversationID, messageID string) error {
	return ws.engine.Pin(conversationID, messageID)
}

// UnpinMessage removes a message's pin.
func (ws *Workspace) UnpinMessage(conversationID, messageID string) error {
	return ws.engine.Unpin(conversationID, messageID)
}

// ProjectInstructions returns the project's instruction file (AGENTS.md,
// or CLAUDE.md when there is only that), which every request carries.
func (ws *Workspace) ProjectInstructions() (memory.File, error) { return ws.memory.Instructions() }

// SaveProjectInstructions writes the project's instruction file; the next
// request carries the new text.
func (ws *Workspace) SaveProjectInstructions(text string) (memory.File, error) {
	return ws.memory.SaveInstructions(text)
}
