package app

import (
	"context"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/tasks"
)

// Edits and regenerations make branches of a conversation: the version they
// replace stays in the log and can be chosen again (conversation/branch.go
// says how the log records them).

// EditRequest replaces a message the user sent by new text and answers it.
type EditRequest struct {
	ConversationID string `json:"conversationId"`
	// MessageID is the user message replaced.
	MessageID string `json:"messageId"`
	Text      string `json:"text"`
	Mode      string `json:"mode"` // chat | agent
	AgentID   string `json:"agentId"`
}

// RegenerateRequest answers a message again.
type RegenerateRequest struct {
	ConversationID string `json:"conversationId"`
	// MessageID is a message of the answer to replace (or the user message
	// it answers).
	MessageID string `json:"messageId"`
	Mode      string `json:"mode"` // chat | agent
	AgentID   string `json:"agentId"`
}

// branchMode refuses run mode: a run's state cannot go back.
func (ws *Workspace) branchMode(conversationID, mode, agentID string) (string, error) {
	mode, _, err := ws.engine.ReplyMode(conversationID, mode, agentID)
	if err == nil && mode == conversation.ModeRun {
		err = errs.Msg(errs.InvalidRequest, "chat.runCannotGoBack", nil)
	}
	return mode, err
}

// Edit replaces a sent message by new text and answers it in the background,
// as a new version of the conversation from that message on; the version it
// replaces stays, and SwitchBranch brings it back. Problems found before
// starting (the message is not the user's, the part was compressed since, a
// reply is running, ...) fail the call.
func (ws *Workspace) Edit(req EditRequest) error {
	if err := engine.CheckMessage(req.Text, 0, false); err != nil {
		return err
	}
	mode, err := ws.branchMode(req.ConversationID, req.Mode, req.AgentID)
	if err != nil {
		return err
	}
	plan := func() (conversation.BranchChange, error) {
		entries, err := ws.store.Load(req.ConversationID)
		if err != nil {
			return conversation.BranchChange{}, err
		}
		edited := &conversation.Entry{Type: conversation.TypeMsg, ID: uuid.NewString(),
			Role: conversation.RoleUser, Content: conversation.Str(req.Text), Mode: mode, AgentID: req.AgentID,
			PartType: conversation.PartContent}
		return conversation.PlanEdit(entries, req.MessageID, edited)
	}
	return ws.replyOnBranch(req.ConversationID, mode, req.AgentID, plan)
}

// Regenerate answers a message again in the background: the answer it
// replaces, and what followed it, stay as another version of the
// conversation that SwitchBranch brings back.
func (ws *Workspace) Regenerate(req RegenerateRequest) error {
	mode, err := ws.branchMode(req.ConversationID, req.Mode, req.AgentID)
	if err != nil {
		return err
	}
	plan := func() (conversation.BranchChange, error) {
		entries, err := ws.store.Load(req.ConversationID)
		if err != nil {
			return conversation.BranchChange{}, err
		}
		ch, _, err := conversation.PlanRegenerate(entries, req.MessageID)
		return ch, err
	}
	return ws.replyOnBranch(req.ConversationID, mode, req.AgentID, plan)
}

// replyOnBranch checks a branch change now, then, as the conversation's
// task, makes it again (the log may have changed meanwhile), writes it and
// answers the newest message of the new version (the engine's retry).
func (ws *Workspace) replyOnBranch(id, mode, agentID string, plan func() (conversation.BranchChange, error)) error {
	if ws.tasks.Busy(id) {
		return tasks.ErrBusy
	}
	if _, err := plan(); err != nil {
		return err
	}
	ws.coord.NoteUserWrote(id)
	req := engine.SendRequest{ConversationID: id, Mode: mode, AgentID: agentID, Retry: true}
	return ws.reply(req, func() error {
		ch, err := plan()
		if err != nil {
			return err
		}
		return ws.store.UpdateAndAppend(id, ch.Updates, ch.Lines()...)
	})
}

// SwitchBranch shows another version of a conversation at a branch point:
// the version at index (from 0) of the point that follows the entry after
// ("" for the start of the conversation). What is shown is also what the
// next request sends. Refused while a reply runs.
func (ws *Workspace) SwitchBranch(id, after string, index int) error {
	_, release, err := ws.tasks.Enter(context.Background(), tasks.Task{ConversationID: id, Kind: tasks.KindChat})
	if err != nil {
		return err
	}
	defer release()
	entries, err := ws.store.Load(id)
	if err != nil {
		return err
	}
	ch, err := conversation.PlanSwitch(entries, after, index)
	if err != nil {
		return err
	}
	return ws.store.UpdateAndAppend(id, ch.Updates, ch.Lines()...)
}
