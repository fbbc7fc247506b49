// Package projectapproval decides the tool calls of one open project: the engine's
// Approver (a conversation's mode, the user's, the project's and the granted rules), the
// requests waiting for the user, and the choices of modes and grants.
package projectapproval

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
	"crewagent/backend/settings"
)

// EnvApprove overrides the default approval mode of conversations that did
// not choose one (ahead of the project's default and the settings'), e.g.
// CREWAGENT_APPROVE=full-auto for unattended use.
const EnvApprove = "CREWAGENT_APPROVE"

// Store is the part of the conversation store the approvals use.
type Store interface {
	Get(id string) (conversation.ConversationMeta, error)
	Append(id string, entries ...*conversation.Entry) error
	UpdateMeta(id string, fn func(*conversation.ConversationMeta)) error
	LoadTail(id string, n int) ([]*conversation.Entry, error)
}

// Config is what the approvals of a project are built from.
type Config struct {
	// Home is the runtime home; ProjectID and Root the project's.
	Home, ProjectID, Root string
	Store                 Store
	// Settings returns the settings in effect now.
	Settings func() settings.Settings
}

// Approvals are the project's approvals: the engine's Approver, and the use
// cases of the window and the command line (answer a request, choose a
// mode, grant, approve the project's rules file).
type Approvals struct {
	c      Config
	store  *approval.Store
	broker approval.Broker
}

// New returns the approvals of a project.
func New(c Config) *Approvals {
	return &Approvals{c: c, store: approval.NewStore(c.Home, c.ProjectID)}
}

var _ engine.Approver = (*Approvals)(nil)

// maxParentDepth bounds the walk up a line of conversations.
const maxParentDepth = 16

// Mode returns the approval mode of a conversation and where it comes from:
// "conversation", "environment" (CREWAGENT_APPROVE), "project", "settings"
// or "default" (convID "": the mode a new conversation gets).
func (a *Approvals) Mode(convID string) (approval.Mode, string, error) {
	// A conversation created by another one (conv.create) works for it: it
	// takes the mode of the nearest one up its line that chose one.
	for depth, id := 0, convID; id != "" && depth < maxParentDepth; depth++ {
		meta, err := a.c.Store.Get(id)
		if err != nil {
			if depth > 0 {
				break // a parent deleted since
			}
			return "", "", err
		}
		if m, err := approval.ParseMode(meta.ApprovalMode); err == nil {
			return m, "conversation", nil
		}
		id = meta.ParentID
	}
	if v := os.Getenv(EnvApprove); v != "" {
		m, err := approval.ParseMode(v)
		if err != nil {
			return "", "", errs.New(errs.InvalidRequest, EnvApprove+": "+err.Error())
		}
		return m, "environment", nil
	}
	st, err := a.store.Load()
	if err == nil && st.Mode != "" {
		if m, err := approval.ParseMode(string(st.Mode)); err == nil {
			return m, "project", nil
		}
	}
	if s := a.c.Settings().Approvals; s != nil && s.Mode != "" {
		if m, err := approval.ParseMode(s.Mode); err == nil {
			return m, "settings", nil
		}
	}
	return approval.DefaultMode, "default", nil
}

// policy gathers what decides the calls of a conversation.
func (a *Approvals) policy(convID string, override approval.Mode) (approval.Policy, error) {
	var p approval.Policy
	if override != "" {
		p.Mode = override
	} else {
		m, _, err := a.Mode(convID)
		if err != nil {
			return p, err
		}
		p.Mode = m
	}
	if s := a.c.Settings().Approvals; s != nil {
		p.User = approval.Rules{Allow: s.Allow, Ask: s.Ask, Deny: s.Deny}
	}
	st, err := a.store.Load()
	if err != nil {
		return p, err
	}
	p.Granted = st.Allow
	// The grants of the conversation, and of those up its line.
	for depth, id := 0, convID; id != "" && depth < maxParentDepth; depth++ {
		meta, err := a.c.Store.Get(id)
		if err != nil {
			break
		}
		p.Conversation = append(p.Conversation, meta.ApprovalAllow...)
		id = meta.ParentID
	}
	pr, err := approval.LoadProjectRules(a.c.Root)
	if err != nil {
		return p, err
	}
	p.Project, p.ProjectApproved = pr.Rules, st.Approves(pr)
	return p, nil
}

// Decide implements engine.Approver. When the rules cannot be read, calls
// that need a decision are refused: a rules file meant to narrow must not
// silently do nothing.
func (a *Approvals) Decide(q engine.ApprovalQuery) approval.Decision {
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
func (a *Approvals) Wait(ctx context.Context, convID, callID string, ready func() error) (approval.Answer, error) {
	return a.broker.Wait(ctx, convID, callID, ready)
}

// Grant implements engine.Approver.
func (a *Approvals) Grant(convID string, ans approval.Answer, rule string) error {
	switch ans.Decision {
	case approval.AnswerConversation:
		return a.grantConversation(convID, rule)
	case approval.AnswerProject:
		return a.store.Grant(rule)
	}
	return nil
}

func (a *Approvals) grantConversation(convID, rule string) error {
	if _, err := approval.ParseRule(rule); err != nil {
		return errs.New(errs.InvalidRequest, err.Error())
	}
	data, _ := json.Marshal(map[string]string{"rule": rule})
	ev := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: fsx.Now(), Event: conversation.EventApprovalGranted, Data: data}
	if err := a.c.Store.Append(convID, ev); err != nil {
		return err
	}
	return a.c.Store.UpdateMeta(convID, func(m *conversation.ConversationMeta) {
		if !slices.Contains(m.ApprovalAllow, rule) {
			m.ApprovalAllow = append(m.ApprovalAllow, rule)
		}
	})
}

// SetConversationMode records the approval mode of a conversation in its
// log (and its index record).
func (a *Approvals) SetConversationMode(convID, mode string) error {
	m, err := approval.ParseMode(mode)
	if err != nil {
		return errs.New(errs.InvalidRequest, err.Error())
	}
	meta, err := a.c.Store.Get(convID)
	if err != nil {
		return err
	}
	if meta.ApprovalMode == string(m) {
		return nil
	}
	data, _ := json.Marshal(map[string]string{"mode": string(m)})
	ev := &conversation.Entry{Type: conversation.TypeEvt, ID: uuid.NewString(), CreatedAt: fsx.Now(), Event: conversation.EventApprovalMode, Data: data}
	if err := a.c.Store.Append(convID, ev); err != nil {
		return err
	}
	return a.c.Store.UpdateMeta(convID, func(meta *conversation.ConversationMeta) { meta.ApprovalMode = string(m) })
}

// SetProjectMode sets the default approval mode of the project's
// conversations ("" goes back to the settings' default).
func (a *Approvals) SetProjectMode(mode string) error {
	var m approval.Mode
	if mode != "" {
		var err error
		if m, err = approval.ParseMode(mode); err != nil {
			return errs.New(errs.InvalidRequest, err.Error())
		}
	}
	return a.store.SetMode(m)
}

// Answer answers the approval request of a tool call: only a user action
// (the window's card, the terminal's prompt) calls it. When a reply of this
// process waits for it, the call runs (allow, allow-conversation,
// allow-project) or gets the refusal with the user's reason (deny), and
// resume is nil. Otherwise a request the app left waiting when it closed is
// answered by a new reply: resume is what that reply resolves (it runs the
// call, or refuses it, and goes on from there: engine.ChatService.ResolveRequest).
func (a *Approvals) Answer(convID, toolCallID string, ans approval.Answer) (resume *engine.Resolution, err error) {
	if err := approval.CheckAnswer(ans); err != nil {
		return nil, errs.New(errs.InvalidRequest, err.Error())
	}
	if a.broker.Answer(convID, toolCallID, ans) {
		return nil, nil
	}
	meta, err := a.c.Store.Get(convID)
	if err != nil {
		return nil, err
	}
	entries, err := a.c.Store.LoadTail(convID, 400)
	if err != nil {
		return nil, err
	}
	held := -1
	for i, e := range entries {
		if e.IsMessage() && e.Role == conversation.RoleTool && e.ToolCallID == toolCallID {
			held = i
		}
	}
	if held < 0 || !entries[held].Approval.Waiting() {
		return nil, errs.New(errs.InvalidRequest, "the call "+strconv.Quote(toolCallID)+" does not wait for an approval: it was answered already")
	}
	for _, e := range entries[held+1:] {
		if e.IsMessage() && e.Role != conversation.RoleTool {
			return nil, errs.New(errs.InvalidRequest, "the conversation went on since this call asked for approval: ask again in a new message")
		}
	}
	if meta.ActiveType == conversation.ActiveWorkflow {
		return nil, errs.New(errs.InvalidRequest, "the run stopped while this call waited for approval: continue the run, and the step asks again")
	}
	return &engine.Resolution{ToolCallID: toolCallID, Answer: ans}, nil
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

// Rules returns the project's .crewagent/permissions.json and whether its
// allow rules count (the user approved it as it is).
func (a *Approvals) Rules() ProjectRules {
	out := ProjectRules{Path: approval.ProjectRulesFile}
	pr, err := approval.LoadProjectRules(a.c.Root)
	if err != nil {
		out.Error = err.Error()
	}
	st, _ := a.store.Load()
	out.Exists, out.Rules, out.Problems = pr.Hash != "", pr.Rules, pr.Problems
	out.Approved = st.Approves(pr)
	return out
}

// ApproveRules approves the project's rules file as it is now: its allow
// rules count until the file changes.
func (a *Approvals) ApproveRules() error {
	pr, err := approval.LoadProjectRules(a.c.Root)
	if err != nil {
		return errs.New(errs.InvalidRequest, err.Error())
	}
	if pr.Hash == "" {
		return errs.New(errs.InvalidRequest, "this project has no "+approval.ProjectRulesFile)
	}
	if len(pr.Problems) > 0 {
		return errs.New(errs.InvalidRequest, approval.ProjectRulesFile+" has rules that do not parse: "+strings.Join(pr.Problems, "; "))
	}
	return a.store.ApproveRules(pr)
}
