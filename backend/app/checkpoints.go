package app

import (
	"context"
	"errors"
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
	RewindFiles        = "files"
	RewindConversation = "conversation"
	RewindBoth         = "both"
)

// RewindRequest asks to go back to before a user message.
type RewindRequest struct {
	ConversationID string
	// To is a user message of the conversation, or the id of an earlier
	// rewind (its files are put back as they were just before it).
	To string
	// What is files, conversation or both ("" = both).
	What  string
	Force bool
	// ForcePaths are files changed since that are restored anyway (the
	// others are kept unless Force).
	ForcePaths []string `json:"forcePaths,omitempty"`
	// DryRun says what would be restored and kept, and forks nothing.
	DryRun bool `json:"dryRun,omitempty"`
}

func (r RewindRequest) options() checkpoint.RestoreOptions {
	return checkpoint.RestoreOptions{Force: r.Force, ForcePaths: r.ForcePaths, DryRun: r.DryRun}
}

// RewindResult is what a rewind did.
type RewindResult struct {
	ConversationID string `json:"conversationId"`
	To             string `json:"to"`
	// Files is what was restored (nil when files were not asked for).
	Files *checkpoint.Result `json:"files,omitempty"`
	// NewConversationID is the fork that ends before the message ("" when
	// the conversation was not asked for, or the message is its first).
	NewConversationID string   `json:"newConversationId,omitempty"`
	Notes             []string `json:"notes,omitempty"`
}

// Rewind restores the project's files to their state before a user message
// of a conversation (undoing the changes the tools made in its turn and every
// later one, newest first) and/or forks the conversation so that the fork
// ends just before it. Nothing is deleted: the files' state before the rewind
// is kept (RewindResult.Files.RewindID undoes it) and the conversation stays
// as it was.
func (ws *Workspace) Rewind(req RewindRequest) (*RewindResult, error) {
	what := req.What
	if what == "" {
		what = RewindBoth
	}
	if what != RewindFiles && what != RewindConversation && what != RewindBoth {
		return nil, errs.Errorf(errs.InvalidArgument, "rewind %q: give files, conversation or both", what)
	}
	if req.To == "" {
		return nil, errs.New(errs.InvalidArgument, "rewind needs the message to go back to")
	}
	entries, err := ws.store.Load(req.ConversationID)
	if err != nil {
		return nil, err
	}
	res := &RewindResult{ConversationID: req.ConversationID, To: req.To}
	if ws.checkpoints != nil && ws.checkpoints.IsRewind(req.To) {
		if what == RewindConversation {
			return nil, errs.Errorf(errs.InvalidArgument, "%s is a rewind of files: only its files can be put back", req.To)
		}
		files, err := ws.checkpoints.UndoRewindWith(req.To, req.options())
		if err != nil {
			return nil, rewindError(err)
		}
		res.Files = files
		return res, nil
	}
	at := -1
	for i, e := range entries {
		if e.IsMessage() && e.ID == req.To {
			at = i
		}
	}
	if at < 0 {
		return nil, errs.Errorf(errs.NotFound, "conversation %s has no message %s", req.ConversationID, req.To)
	}
	if m := entries[at]; m.Role != conversation.RoleUser || m.IsMeta {
		return nil, errs.Errorf(errs.InvalidArgument, "message %s is not a message of the user (it is a %s message): rewind goes back to before one of yours", req.To, m.Role)
	}
	if what != RewindConversation {
		turns := map[string]bool{}
		for _, e := range entries[at:] {
			if e.IsMessage() && e.Role == conversation.RoleUser {
				turns[e.ID] = true
			}
		}
		if ws.checkpoints == nil {
			return nil, errs.New(errs.Internal, "the project's checkpoints could not be opened (see the log): there is nothing to restore from")
		}
		files, err := ws.checkpoints.RewindWith(req.ConversationID, req.To, turns, req.options())
		switch {
		case errors.Is(err, checkpoint.ErrNothingToRestore) && (what == RewindBoth || req.DryRun):
			res.Notes = append(res.Notes, "no file was changed by the tools from this message on: nothing to restore")
		case err != nil:
			return nil, rewindError(err)
		default:
			res.Files = files
		}
	}
	if what != RewindFiles && !req.DryRun {
		if at == 0 {
			res.Notes = append(res.Notes, "the message is the first of the conversation: there is nothing before it to fork")
		} else {
			meta, err := ws.ForkConversation(req.ConversationID, entries[at-1].ID, "")
			if err != nil {
				return res, err
			}
			res.NewConversationID = meta.ID
		}
	}
	return res, nil
}

func rewindError(err error) error {
	switch {
	case errors.Is(err, checkpoint.ErrNothingToRestore):
		return errs.New(errs.NotFound, "nothing to restore: the tools changed no file from this message on (or the files are already as they were)")
	case errors.Is(err, checkpoint.ErrUnknownRewind):
		return errs.New(errs.NotFound, err.Error())
	}
	return errs.Wrap(errs.Internal, err, err.Error())
}

// UndoChangeRequest asks to put back the files one tool call changed.
type UndoChangeRequest struct {
	ConversationID string `json:"conversationId"`
	ToolCallID     string `json:"toolCallId"`
	// ForcePaths are files changed since the call that are restored anyway.
	ForcePaths []string `json:"forcePaths,omitempty"`
	Force      bool     `json:"force,omitempty"`
	// DryRun says what would be restored and kept.
	DryRun bool `json:"dryRun,omitempty"`
}

// UndoChange puts back the files a tool call of a conversation changed as
// they were before it. A file changed since the call (by a later call, the
// user or another program) is kept unless forced. The result's RewindID
// undoes the undo (Rewind with To set to it).
func (ws *Workspace) UndoChange(req UndoChangeRequest) (*checkpoint.Result, error) {
	if req.ToolCallID == "" {
		return nil, errs.New(errs.InvalidArgument, "undo needs the tool call whose change to undo")
	}
	if _, err := ws.GetConversation(req.ConversationID); err != nil {
		return nil, err
	}
	if ws.checkpoints == nil {
		return nil, errs.New(errs.Internal, "the project's checkpoints could not be opened (see the log): there is nothing to restore from")
	}
	// The changes of a conversation a turn was handed to are recorded with
	// the turn of the conversation that handed it (its parent, or further up).
	ids := []string{req.ConversationID}
	for id, seen := req.ConversationID, 0; seen < 64; seen++ {
		meta, err := ws.GetConversation(id)
		if err != nil || meta.ParentID == "" {
			break
		}
		id = meta.ParentID
		ids = append(ids, id)
	}
	res, err := ws.checkpoints.UndoCall(ids, req.ToolCallID, checkpoint.RestoreOptions{Force: req.Force, ForcePaths: req.ForcePaths, DryRun: req.DryRun})
	if err != nil {
		if errors.Is(err, checkpoint.ErrNothingToRestore) {
			return nil, errs.New(errs.NotFound, "nothing to undo: this call changed no file, or the files are already as they were before it")
		}
		return nil, rewindError(err)
	}
	return res, nil
}
