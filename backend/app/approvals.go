package app

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"crewagent/backend/approval"
	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/fsx"
)

// EnvApprove overrides the default approval mode of conversations that did
// not choose one (ahead of the project's default and the settings'), e.g.
// CREWAGENT_APPROVE=full-auto for unattended use.
const EnvApprove = "CREWAGENT_APPROVE"

// approvals are the project's approvals: the engine's Approver, and the use
// cases of the window and the command line (answer a request, choose a
// mode, grant, approve the project's rules file).
type approvals struct {
	ws     *Workspace
	store  *approval.Store
	broker approval.Broker
}

func newApprovals(ws *Workspace) *approvals {
	return &approvals{ws: ws, store: approval.NewStore(ws.rt.home, ws.project.ID)}
}

var _ engine.Approver = (*approvals)(nil)

// maxParentDepth bounds the walk up a line of conversations.
const maxParentDepth = 16

// ApprovalMode is a conversation's approval mode and where it comes from:
// "conversation", "environment" (CREWAGENT_APPROVE), "project", "settings"
// or "default".
type ApprovalMode struct {
	Mode   approval.Mode `json:"mode"`
	Source string        `json:"source"`
}

// mode returns the mode of a conversation ("" for none yet).
func (a *approvals) mode(convID string) (ApprovalMode, error) {
	// A conversation created by another one (conv.create) works for it: it
	// takes the mode of the nearest one up its line that chose one.
	for depth, id := 0, convID; id != "" && depth < maxParentDepth; depth++ {
		meta, err := a.ws.store.Get(id)
		if err != nil {
			if depth > 0 {
				break // a parent deleted since
			}
			return ApprovalMode{}, err
		}
		if m, err := approval.ParseMode(meta.ApprovalMode); err == nil {
			return ApprovalMode{m, "conversation"}, nil
		}
		id = meta.ParentID
	}
	if v := os.Getenv(EnvApprove); v != "" {
		m, err := approval.ParseMode(v)
		if err != nil {
			return ApprovalMode{}, errs.New(errs.InvalidRequest, EnvApprove+": "+err.Error())
		}
		return ApprovalMode{m, "environment"}, nil
	}
	st, err := a.store.Load()
	if err == nil && st.Mode != "" {
		if m, err := approval.ParseMode(string(st.Mode)); err == nil {
			return ApprovalMode{m, "project"}, nil
		}
	}
	if s := a.ws.rt.Effective().Approvals; s != nil && s.Mode != "" {
		if m, err := approval.ParseMode(s.Mode); err == nil {
			return ApprovalMode{m, "settings"}, nil
		}
	}
	return ApprovalMode{approval.DefaultMode, "default"}, nil
}

// policy gathers what decides the calls of a conversation.
func (a *approvals) policy(convID string, override approval.Mode) (approval.Policy, error) {
	var p approval.Policy
	if override != "" {
		p.Mode = override
	} else {
		m, err := a.mode(convID)
		if err != nil {
			return p, err
		}
		p.Mode = m.Mode
	}
	if s := a.ws.rt.Effective().Approvals; s != nil {
		p.User = approval.Rules{Allow: s.Allow, Ask: s.Ask, Deny: s.Deny}
	}
	st, err := a.store.Load()
	if err != nil {
		return p, err
	}
	p.Granted = st.Allow
	// The grants of the conversation, and of those up its line.
	for depth, id := 0, convID; id != "" && depth < maxParentDepth; depth++ {
		meta, err := a.ws.store.Get(id)
		if err != nil {
			break
		}
		p.Conversation = append(p.Conversation, meta.ApprovalAllow...)
		id = meta.ParentID
	}
	pr, err := approval.LoadProjectRules(a.ws.project.Root)
	if err != nil {
		return p, err
	}
	p.Project, p.ProjectApproved = pr.Rules, st.Approves(pr)
	return p, nil
}

// Decide implements engine.Approver. When the rules cannot be read, calls
// that need a decision are refused: a rules file meant to narrow must not
// silently do nothing.
func (a *approvals) Decide(q engine.ApprovalQuery) approval.Decision {
	p, err := a.policy(q.ConversationID, q.Override)
	p.Skills = q.Grants
	if err != nil {
		d := p.Decide(q.Call)
		if d.Effect == approval.Allow && d.Kind != approval.KindRead && d.Kind != approval.KindFree {
			d.Effect = approval.Deny
			d.Reason = "refused: the approval rules cannot be read (" + err.Error() + ")"
		}
		return d
	}
	return p.Decide(q.Call)
}

// Wait implements engine.Approver.
func (a *approvals) Wait(ctx context.Context, convID, callID string, ready func() error) (approval.Answer, error) {
	return a.broker.Wait(ctx, convID, callID, ready)
}

// Grant implements engine.Approver.
func (a *approvals) Grant(convID string, ans approval.Answer, rule string) error {
	switch ans.Decision {
	case approval.AnswerConversation:
		return a.grantConversation(convID, rule)
	case approval.AnswerProject:
		return a.store.Grant(rule)
	}
	return nil
}

func (a *approvals) grantConversation(convID, rule string) error {
	if _, err := approval.ParseRule(rule); err != nil {
		return errs.New(errs.InvalidRequest, err.Error())
	}
	data, _ := json.Marshal(map[string]string{"rule": rule})
	ev := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: fsx.Now(), Event: conversation.EventApprovalGranted, Data: data}
	if err := a.ws.store.Append(convID, ev); err != nil {
		return err
	}
	return a.ws.store.UpdateMeta(convID, func(m *conversation.ConversationMeta) {
		if !slices.Contains(m.ApprovalAllow, rule) {
			m.ApprovalAllow = append(m.ApprovalAllow, rule)
		}
	})
}

// ApprovalMode returns the approval mode of a conversation ("" for the mode
// a new conversation gets).
func (ws *Workspace) ApprovalMode(convID string) (ApprovalMode, error) {
	return ws.approvals.mode(convID)
}

// SetApprovalMode records the approval mode of a conversation in its log
// (and its index record).
func (ws *Workspace) SetApprovalMode(convID, mode string) error {
	m, err := approval.ParseMode(mode)
	if err != nil {
		return errs.New(errs.InvalidRequest, err.Error())
	}
	meta, err := ws.store.Get(convID)
	if err != nil {
		return err
	}
	if meta.ApprovalMode == string(m) {
		return nil
	}
	data, _ := json.Marshal(map[string]string{"mode": string(m)})
	ev := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: fsx.Now(), Event: conversation.EventApprovalMode, Data: data}
	if err := ws.store.Append(convID, ev); err != nil {
		return err
	}
	return ws.store.UpdateMeta(convID, func(meta *conversation.ConversationMeta) { meta.ApprovalMode = string(m) })
}

// SetProjectApprovalMode sets the default approval mode of the project's
// conversations ("" goes back to the settings' default).
func (ws *Workspace) SetProjectApprovalMode(mode string) error {
	var m approval.Mode
	if mode != "" {
		var err error
		if m, err = approval.ParseMode(mode); err != nil {
			return errs.New(errs.InvalidRequest, err.Error())
		}
	}
	return ws.approvals.store.SetMode(m)
}

// AnswerApproval answers the approval request of a tool call: only a user
// action (the window's card, the terminal's prompt) calls it. The call
// waiting for it runs (allow, allow-conversation, allow-project) or gets
// the refusal with the user's reason (deny).
func (ws *Workspace) AnswerApproval(convID, toolCallID string, ans approval.Answer) error {
	if err := approval.CheckAnswer(ans); err != nil {
		return errs.New(errs.InvalidRequest, err.Error())
	}
	if ws.approvals.broker.Answer(convID, toolCallID, ans) {
		return nil
	}
	// No reply of this process waits for it: a request the app left waiting
	// when it closed is answered by a reply that runs the call (or refuses
	// it) and goes on from there.
	meta, err := ws.store.Get(convID)
	if err != nil {
		return err
	}
	entries, err := ws.store.LoadTail(convID, 400)
	if err != nil {
		return err
	}
	held := -1
	for i, e := range entries {
		if e.IsMessage() && e.Role == conversation.RoleTool && e.ToolCallID == toolCallID {
			held = i
		}
	}
	if held < 0 || !entries[held].Approval.Waiting() {
		return errs.New(errs.InvalidRequest, "the call "+strconv.Quote(toolCallID)+" does not wait for an approval: it was answered already")
	}
	for _, e := range entries[held+1:] {
		if e.IsMessage() && e.Role != conversation.RoleTool {
			return errs.New(errs.InvalidRequest, "the conversation went on since this call asked for approval: ask again in a new message")
		}
	}
	if meta.ActiveType == conversation.ActiveWorkflow {
		return errs.New(errs.InvalidRequest, "the run stopped while this call waited for approval: continue the run, and the step asks again")
	}
	mode := conversation.ModeChat
	if meta.ActiveType == conversation.ActiveAgent {
		mode = conversation.ModeAgent
	}
	return ws.reply(engine.SendRequest{ConversationID: convID, Mode: mode, AgentID: meta.SelectedAgentID,
		Resolve: &engine.Resolution{ToolCallID: toolCallID, Answer: ans}}, nil)
}

// ProjectRules are the project's rules file as the window and the command
// line show it.
type ProjectRules struct {
	Path     string         `json:"path"`
	Exists   bool           `json:"exists"`
	Rules    approval.Rules `json:"rules"`
	Approved bool           `json:"approved"`
	Problems []string       `json:"problems,omitempty"`
	Error    string         `json:"error,omitempty"`
}

// ApprovalRules returns the project's .crewagent/permissions.json and whether
// its allow rules count (the user approved it as it is).
func (ws *Workspace) ApprovalRules() ProjectRules {
	out := ProjectRules{Path: approval.ProjectRulesFile}
	pr, err := approval.LoadProjectRules(ws.project.Root)
	if err != nil {
		out.Error = err.Error()
	}
	st, _ := ws.approvals.store.Load()
	out.Exists, out.Rules, out.Problems = pr.Hash != "", pr.Rules, pr.Problems
	out.Approved = st.Approves(pr)
	return out
}

// ApproveProjectRules approves the project's rules file as it is now: its
// allow rules count until the file changes.
func (ws *Workspace) ApproveProjectRules() error {
	pr, err := approval.LoadProjectRules(ws.project.Root)
	if err != nil {
		return errs.New(errs.InvalidRequest, err.Error())
	}
	if pr.Hash == "" {
		return errs.New(errs.InvalidRequest, "this project has no "+approval.ProjectRulesFile)
	}
	if len(pr.Problems) > 0 {
		return errs.New(errs.InvalidRequest, approval.ProjectRulesFile+" has rules that do not parse: "+strings.Join(pr.Problems, "; "))
	}
	return ws.approvals.store.ApproveRules(pr)
}
