package app

import (
	"context"
	"path/filepath"
	"time"

	"crewagent/backend/checkpoint"
	"crewagent/backend/conversation"
	"crewagent/backend/coordinator"
	"crewagent/backend/errs"
	"crewagent/backend/tools"
)

// openCheckpoints opens the project's checkpoint store (finishing a rewind
// a killed process left half done) and prunes it to the settings' bounds.
func (ws *Workspace) openCheckpoints() error {
	st, err := checkpoint.Open(filepath.Join(ws.project.DataDir, "checkpoints"), ws.project.Root, checkpoint.Options{})
	if err != nil {
		return err
	}
	ws.checkpoints = st
	days, bytes := ws.rt.Effective().CheckpointBounds()
	if _, err := st.Prune(checkpoint.Bounds{MaxAge: time.Duration(days) * 24 * time.Hour, MaxBytes: bytes}); err != nil {
		ws.rt.log.Warn("cannot prune the checkpoints", "error", err)
	}
	return nil
}

// changeRecorder records the changes the tools make to the project's files
// in the checkpoint store, with the turn they belong to: the conversations a
// chain hands turns to record theirs with the turn of the chain's first
// conversation.
type changeRecorder struct{ ws *Workspace }

func (r changeRecorder) BeginChange(ctx context.Context, tool string, paths []string) (func() error, error) {
	if r.ws.checkpoints == nil { // opened read-only
		return func() error { return nil }, nil
	}
	t, _ := tools.TurnOf(ctx)
	t = coordinator.TurnFor(ctx, t)
	return r.ws.checkpoints.Begin(checkpoint.Change{ConversationID: t.ConversationID, MessageID: t.MessageID,
		ToolCallID: tools.ToolCallID(ctx), Tool: tool}, paths)
}

// Rewind targets.
const (
	RewindFiles        = checkpoint.RewindFiles
	RewindConversation = checkpoint.RewindConversation
	RewindBoth         = checkpoint.RewindBoth
)

// RewindRequest asks to go back to before a user message.
type RewindRequest = checkpoint.RewindRequest

// RewindResult is what a rewind did.
type RewindResult = checkpoint.RewindResult

// Rewind restores the project's files to their state before a user message
// of a conversation and/or forks the conversation so that the fork ends just
// before it (checkpoint.ToMessage).
func (ws *Workspace) Rewind(req RewindRequest) (*RewindResult, error) {
	load := func() ([]*conversation.Entry, error) { return ws.store.Load(req.ConversationID) }
	fork := func(after string) (string, error) {
		meta, err := ws.ForkConversation(req.ConversationID, after, "")
		return meta.ID, err
	}
	return checkpoint.ToMessage(ws.checkpoints, load, fork, req)
}

// UndoChangeRequest asks to put back the files one tool call changed.
type UndoChangeRequest = checkpoint.UndoRequest

// UndoChange puts back the files a tool call of a conversation changed as
// they were before it (checkpoint.UndoToolCall).
func (ws *Workspace) UndoChange(req UndoChangeRequest) (*checkpoint.Result, error) {
	if req.ToolCallID == "" {
		return nil, errs.New(errs.InvalidArgument, "undo needs the tool call whose change to undo")
	}
	if _, err := ws.GetConversation(req.ConversationID); err != nil {
		return nil, err
	}
	return checkpoint.UndoToolCall(ws.checkpoints, func(id string) string {
		meta, err := ws.GetConversation(id)
		if err != nil {
			return ""
		}
		return meta.ParentID
	}, req)
}
