package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/uuid"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// Error codes of activation and deactivation, carried in the tool result
// {"ok":false,"error":{"code","message"}}.
const (
	CodeBadArguments = errs.BadArguments
	CodeUnknownSkill = errs.SkillNotFound
	CodeUserOnly     = errs.SkillUserOnly
	CodeNotAllowed   = errs.SkillNotAllowed
	CodeInvalidSkill = errs.SkillInvalid
)

// Statuses of a successful activation or deactivation.
const (
	StatusActivated     = "activated"
	StatusAlreadyActive = "already_active"
	StatusDeactivated   = "deactivated"
	StatusNotActive     = "not_active"
)

// Error is a refused activation or deactivation (errs.Error); its message is
// written for the model (and the user) and holds no host path. It is also
// the {"code","message"} of a refusing tool result.
type Error = errs.Error

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Request asks for a skill to be activated.
type Request struct {
	Name string
	By   Actor
	// ToolCallID is the model's call (recorded in the event).
	ToolCallID string
	// Allow is the caller's policy: a non-nil error refuses the skill with
	// E_SKILL_NOT_ALLOWED and the error's text. nil allows every skill.
	Allow func(Skill) error
	// NewID makes entry ids; nil means uuid.NewString.
	NewID func() string
}

// Activation is an accepted activation.
type Activation struct {
	Skill  Skill
	Status string // StatusActivated or StatusAlreadyActive
	// Entries are to be appended to the log in this order (after the tool
	// result of a model activation): the skill_activated event and the
	// is_meta user message carrying the body. None when already active.
	Entries []conversation.Entry
}

// Activate checks a request against the catalog and the conversation's
// state and returns the entries that record it. It refuses, with an *Error:
// an empty or malformed name (E_BAD_ARGUMENTS), a skill the catalog does
// not hold (E_SKILL_NOT_FOUND), a disable-model-invocation skill asked for
// by the model (E_SKILL_USER_ONLY; the user may activate it), a skill the
// Allow policy refuses (E_SKILL_NOT_ALLOWED) and a SKILL.md that can no
// longer be read or parsed (E_SKILL_INVALID). An active skill gives
// StatusAlreadyActive and no entries — unless the catalog's skill of that
// name now lives at another path (moved, or the active one was deleted and
// a shadowed one took its place): it is then activated again, and the new
// body replaces the old one. The caller appends the entries and
// applies them to its state (or derives the state again from the log).
func (c *Catalog) Activate(st *State, req Request) (Activation, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" {
		return Activation{}, errorf(CodeBadArguments, `"name" is required: the name of a skill from the skills list`)
	}
	sk, ok := c.Get(name)
	if a, active := st.Get(name); active && (!ok || a.Path == "" || a.Path == sk.Path) {
		if !ok {
			sk = Skill{Name: name, Source: a.Source, Path: a.Path}
		}
		return Activation{Skill: sk, Status: StatusAlreadyActive}, nil
	}
	if !ok {
		return Activation{}, c.unknown(name, req.By)
	}
	if req.By != ByUser && sk.DisableModelInvocation {
		return Activation{}, errorf(CodeUserOnly, "the skill %q can only be activated by the user (it is marked disable-model-invocation); ask the user to activate it", name)
	}
	if req.Allow != nil {
		if err := req.Allow(sk); err != nil {
			return Activation{}, errorf(CodeNotAllowed, "the skill %q is not allowed here: %s", name, err.Error())
		}
	}
	body, err := loadBody(sk)
	if err != nil {
		return Activation{}, err
	}
	newID := req.NewID
	if newID == nil {
		newID = uuid.NewString
	}
	by := req.By
	if by == "" {
		by = ByModel
	}
	entries := ActivationEntries(sk, by, req.ToolCallID, RenderBody(sk, body), newID(), newID())
	return Activation{Skill: sk, Status: StatusActivated, Entries: entries}, nil
}

// unknown builds the E_SKILL_NOT_FOUND error, naming a few skills the actor
// may activate.
func (c *Catalog) unknown(name string, by Actor) *Error {
	var names []string
	if c != nil {
		for _, s := range c.skills {
			if by == ByUser || s.ModelInvocable() {
				names = append(names, s.Name)
			}
		}
	}
	if len(names) == 0 {
		return errorf(CodeUnknownSkill, "there is no skill %q (no skills are installed)", name)
	}
	sort.SliceStable(names, func(i, j int) bool {
		return similarity(name, names[i]) > similarity(name, names[j])
	})
	more := ""
	if len(names) > 10 {
		more = fmt.Sprintf(" and %d more", len(names)-10)
		names = names[:10]
	}
	return errorf(CodeUnknownSkill, "there is no skill %q; skills: %s%s", name, strings.Join(names, ", "), more)
}

// similarity is a cheap closeness of two names: the length of their common
// prefix plus shared hyphen-separated words.
func similarity(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for _, w := range strings.Split(a, "-") {
		if w != "" && strings.Contains(b, w) {
			n += len(w)
		}
	}
	return n
}

// loadBody reads the skill's SKILL.md again and returns its body.
func loadBody(sk Skill) (string, error) {
	f, err := os.Open(sk.Path)
	if err != nil {
		return "", errorf(CodeInvalidSkill, "the skill %q cannot be read any more (%s)", sk.Name, osErrText(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", errorf(CodeInvalidSkill, "the skill %q cannot be read any more (%s)", sk.Name, osErrText(err))
	}
	p := Parse(data, filepath.Base(sk.Dir))
	if !p.Usable() {
		var msgs []string
		for _, pr := range p.Problems {
			if pr.Severity == SeverityError {
				msgs = append(msgs, pr.Message)
			}
		}
		return "", errorf(CodeInvalidSkill, "the skill %q is no longer valid: %s", sk.Name, strings.Join(msgs, "; "))
	}
	return p.Body, nil
}

// maxListedFiles is the most supporting files named in a skill body message.
const maxListedFiles = 50

// RenderBody renders the is_meta message of an activation: a header naming
// the skill and the alias of its files, then the SKILL.md body.
func RenderBody(sk Skill, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q source=%q base=%q>\n", sk.Name, string(sk.Source), sk.Alias())
	fmt.Fprintf(&b, "The skill %q is now active: follow its instructions below for as long as they apply.", sk.Name)
	if n := len(sk.Files) + sk.MoreFiles; n > 0 {
		fmt.Fprintf(&b, " Its supporting files are read-only under %s; paths in the instructions are relative to it (read them with fs.read when the instructions call for them).\nFiles: ", sk.Alias())
		files := sk.Files
		if len(files) > maxListedFiles {
			files = files[:maxListedFiles]
		}
		for i, f := range files {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sk.Alias() + f)
		}
		if rest := n - len(files); rest > 0 {
			fmt.Fprintf(&b, " (and %d more)", rest)
		}
	}
	b.WriteString("\n\n")
	b.WriteString(body)
	b.WriteString("\n</skill>")
	return b.String()
}

// ActivationEntries builds the log entries of an activation, in order: the
// skill_activated event (its ref_msg_id names the body message) and the
// is_meta user message whose content is rendered (see RenderBody). It is
// pure: ids are given, createdAt is left for the store to fill.
func ActivationEntries(sk Skill, by Actor, toolCallID, rendered, eventID, metaID string) []conversation.Entry {
	d := ActivatedData{Skill: sk.Name, Source: sk.Source, Path: sk.Path, By: by, ToolCallID: toolCallID}
	if t := sk.Tools(); t.Declared {
		tools := t.Tools
		d.AllowedTools = &tools
		d.Commands = t.Commands
	}
	data, _ := json.Marshal(d)
	return []conversation.Entry{
		{Type: conversation.TypeEvt, ID: eventID, Event: EventActivated, Data: data, RefMsgID: metaID},
		{Type: conversation.TypeMsg, ID: metaID, Role: conversation.RoleUser, Content: conversation.Str(rendered), IsMeta: true, PartType: conversation.PartContent},
	}
}

// Deactivation is an accepted deactivation.
type Deactivation struct {
	Name   string
	Status string // StatusDeactivated or StatusNotActive
	// Entries holds the skill_deactivated event (none when not active).
	Entries []conversation.Entry
}

// Deactivate returns the entry that ends an active skill. A skill that is
// not active gives StatusNotActive and no entries (deactivating is
// idempotent); an empty name is E_BAD_ARGUMENTS. newID nil means
// uuid.NewString.
func Deactivate(st *State, name string, by Actor, toolCallID string, newID func() string) (Deactivation, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Deactivation{}, errorf(CodeBadArguments, `"name" is required: the name of an active skill`)
	}
	if !st.IsActive(name) {
		return Deactivation{Name: name, Status: StatusNotActive}, nil
	}
	if newID == nil {
		newID = uuid.NewString
	}
	if by == "" {
		by = ByModel
	}
	return Deactivation{Name: name, Status: StatusDeactivated, Entries: []conversation.Entry{DeactivationEntry(name, by, toolCallID, newID())}}, nil
}

// DeactivationEntry builds the skill_deactivated event (pure).
func DeactivationEntry(name string, by Actor, toolCallID, id string) conversation.Entry {
	data, _ := json.Marshal(DeactivatedData{Skill: name, By: by, ToolCallID: toolCallID})
	return conversation.Entry{Type: conversation.TypeEvt, ID: id, Event: EventDeactivated, Data: data}
}

// ToolResult is the content of the tool message answering skill.activate or
// skill.deactivate, in the tool host's shape: {"ok":true,...} or
// {"ok":false,"error":{"code","message"}}.
type ToolResult struct {
	OK      bool   `json:"ok"`
	Skill   string `json:"skill,omitempty"`
	Status  string `json:"status,omitempty"`
	Files   string `json:"files,omitempty"`
	Message string `json:"message,omitempty"`
	Error   *Error `json:"error,omitempty"`
}

// JSON renders the result.
func (r ToolResult) JSON() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// Result is the tool result of an activation.
func (a Activation) Result() ToolResult {
	r := ToolResult{OK: true, Skill: a.Skill.Name, Status: a.Status}
	switch a.Status {
	case StatusAlreadyActive:
		r.Message = fmt.Sprintf("the skill %q is already active; its instructions are in the conversation", a.Skill.Name)
	default:
		r.Message = fmt.Sprintf("the skill %q is active; its instructions follow in the next message", a.Skill.Name)
		if len(a.Skill.Files)+a.Skill.MoreFiles > 0 {
			r.Files = a.Skill.Alias()
		}
	}
	return r
}

// Result is the tool result of a deactivation.
func (d Deactivation) Result() ToolResult {
	r := ToolResult{OK: true, Skill: d.Name, Status: d.Status}
	if d.Status == StatusNotActive {
		r.Message = fmt.Sprintf("the skill %q is not active", d.Name)
	} else {
		r.Message = fmt.Sprintf("the skill %q is no longer active; stop following its instructions", d.Name)
	}
	return r
}

// ErrorResult is the tool result of a refused call.
func ErrorResult(err error) ToolResult {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: errs.Internal, Message: err.Error()}
	}
	return ToolResult{OK: false, Error: e}
}
