package app

import (
	"crewagent/backend/approval"
	"crewagent/backend/approval/projectapproval"
)

// The project's approvals live in projectapproval (the engine's Approver,
// the requests waiting for the user, modes and grants); here, the use cases
// of the window and the command line.

// ApprovalMode is a conversation's approval mode and where it comes from:
// "conversation", "environment" (CREWAGENT_APPROVE), "project", "settings"
// or "default".
type ApprovalMode struct {
	Mode   approval.Mode `json:"mode"`
	Source string        `json:"source"`
}

// ApprovalMode returns the approval mode of a conversation ("" for the mode
// a new conversation gets).
func (ws *Workspace) ApprovalMode(convID string) (ApprovalMode, error) {
	m, src, err := ws.approvals.Mode(convID)
	return ApprovalMode{m, src}, err
}

// SetApprovalMode records the approval mode of a conversation in its log
// (and its index record).
func (ws *Workspace) SetApprovalMode(convID, mode string) error {
	return ws.approvals.SetConversationMode(convID, mode)
}

// SetProjectApprovalMode sets the default approval mode of the project's
// conversations ("" goes back to the settings' default).
func (ws *Workspace) SetProjectApprovalMode(mode string) error {
	return ws.approvals.SetProjectMode(mode)
}

// AnswerApproval answers the approval request of a tool call: only a user
// action (the window's card, the terminal's prompt) calls it. A request
// left waiting when the app closed is answered by a reply that runs the
// call (or refuses it) and goes on from there.
func (ws *Workspace) AnswerApproval(convID, toolCallID string, ans approval.Answer) error {
	resume, err := ws.approvals.Answer(convID, toolCallID, ans)
	if err != nil || resume == nil {
		return err
	}
	req, err := ws.engine.ResolveRequest(convID, *resume)
	if err != nil {
		return err
	}
	return ws.reply(req, nil)
}

// ProjectRules are the project's rules file as the window and the command
// line show it.
type ProjectRules = projectapproval.ProjectRules

// ApprovalRules returns the project's .crewagent/permissions.json and whether
// its allow rules count (the user approved it as it is).
func (ws *Workspace) ApprovalRules() ProjectRules { return ws.approvals.Rules() }

// ApproveProjectRules approves the project's rules file as it is now: its
// allow rules count until the file changes.
func (ws *Workspace) ApproveProjectRules() error { return ws.approvals.ApproveRules() }
