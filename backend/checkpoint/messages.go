package checkpoint

import (
	"errors"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// Going back to before a user message of a conversation, and undoing one
// tool call: the requests of the window and the command line, checked
// against the conversation's log, with errors as the application reports
// them.

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

func (r RewindRequest) options() RestoreOptions {
	return RestoreOptions{Force: r.Force, ForcePaths: r.ForcePaths, DryRun: r.DryRun}
}

// RewindResult is what a rewind did.
type RewindResult struct {
	ConversationID string `json:"conversationId"`
	To             string `json:"to"`
	// Files is what was restored (nil when files were not asked for).
	Files *Result `json:"files,omitempty"`
	// NewConversationID is the fork that ends before the message ("" when
	// the conversation was not asked for, or the message is its first).
	NewConversationID string   `json:"newConversationId,omitempty"`
	Notes             []string `json:"notes,omitempty"`
}

// ToMessage restores the project's files to their state before a user
// message of a conversation whose log load reads (undoing the changes the
// tools made in its turn and every later one, newest first) and/or has fork
// make a fork of the conversation that ends with the message before it
// (fork returns the new conversation's id). When To is a rewind, it puts
// back the files as they were just before it. Nothing is deleted: the
// files' state before the rewind is kept (RewindResult.Files.RewindID
// undoes it) and the conversation stays as it was. st is nil when the
// project's checkpoints could not be opened.
func ToMessage(st *Store, load func() ([]*conversation.Entry, error), fork func(after string) (string, error), req RewindRequest) (*RewindResult, error) {
	res := &RewindResult{ConversationID: req.ConversationID, To: req.To}
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
	entries, err := load()
	if err != nil {
		return nil, err
	}
	if st != nil && st.IsRewind(req.To) {
		if what == RewindConversation {
			return nil, errs.Errorf(errs.InvalidArgument, "%s is a rewind of files: only its files can be put back", req.To)
		}
		files, err := st.UndoRewindWith(req.To, req.options())
		if err != nil {
			return nil, appError(err)
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
		if st == nil {
			return nil, errNotOpen
		}
		files, err := st.RewindWith(req.ConversationID, req.To, turns, req.options())
		switch {
		case errors.Is(err, ErrNothingToRestore) && (what == RewindBoth || req.DryRun):
			res.Notes = append(res.Notes, "no file was changed by the tools from this message on: nothing to restore")
		case err != nil:
			return nil, appError(err)
		default:
			res.Files = files
		}
	}
	if what != RewindFiles && !req.DryRun {
		if at == 0 {
			res.Notes = append(res.Notes, "the message is the first of the conversation: there is nothing before it to fork")
		} else {
			id, err := fork(entries[at-1].ID)
			if err != nil {
				return res, err
			}
			res.NewConversationID = id
		}
	}
	return res, nil
}

var errNotOpen = errs.New(errs.Internal, "the project's checkpoints could not be opened (see the log): there is nothing to restore from")

// appError is a failed restore as the application reports it.
func appError(err error) error {
	switch {
	case errors.Is(err, ErrNothingToRestore):
		return errs.New(errs.NotFound, "nothing to restore: the tools changed no file from this message on (or the files are already as they were)")
	case errors.Is(err, ErrUnknownRewind):
		return errs.New(errs.NotFound, err.Error())
	}
	return errs.Wrap(errs.Internal, err, err.Error())
}

// UndoRequest asks to put back the files one tool call changed.
type UndoRequest struct {
	ConversationID string `json:"conversationId"`
	ToolCallID     string `json:"toolCallId"`
	// ForcePaths are files changed since the call that are restored anyway.
	ForcePaths []string `json:"forcePaths,omitempty"`
	Force      bool     `json:"force,omitempty"`
	// DryRun says what would be restored and kept.
	DryRun bool `json:"dryRun,omitempty"`
}

// UndoToolCall puts back the files a tool call of a conversation changed as
// they were before it. A file changed since the call (by a later call, the
// user or another program) is kept unless forced. The result's RewindID
// undoes the undo. parentOf returns the conversation a conversation was
// handed its turn by ("" for none): its changes are recorded with the turn
// of that one (or further up). st is nil when the checkpoints could not be
// opened.
func UndoToolCall(st *Store, parentOf func(id string) string, req UndoRequest) (*Result, error) {
	if st == nil {
		return nil, errNotOpen
	}
	ids := []string{req.ConversationID}
	for id, seen := req.ConversationID, 0; seen < 64; seen++ {
		if id = parentOf(id); id == "" {
			break
		}
		ids = append(ids, id)
	}
	res, err := st.UndoCall(ids, req.ToolCallID, RestoreOptions{Force: req.Force, ForcePaths: req.ForcePaths, DryRun: req.DryRun})
	if err != nil {
		if errors.Is(err, ErrNothingToRestore) {
			return nil, errs.New(errs.NotFound, "nothing to undo: this call changed no file, or the files are already as they were before it")
		}
		return nil, appError(err)
	}
	return res, nil
}
