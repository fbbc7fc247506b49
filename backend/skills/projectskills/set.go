// Package projectskills keeps the skills of one open project: the catalog found (and
// watched in the window), the skill tools offered to the model, and the user's
// activations written to a conversation's log.
package projectskills

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"

	"crewagent/backend/conversation"
	"crewagent/backend/engine"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/fsx"
	"crewagent/backend/skills"
	"crewagent/backend/tools"
)

// Store is the part of the conversation store the skills use.
type Store interface {
	LoadSinceCompaction(id string) ([]*conversation.Entry, error)
	Get(id string) (conversation.ConversationMeta, error)
	Append(id string, entries ...*conversation.Entry) error
	CreateWith(title, activeType string, entries ...*conversation.Entry) (conversation.ConversationMeta, error)
}

// Config is what the skills of a project are built from.
type Config struct {
	// Locations are the folders the skills come from now (the active
	// package's skills/ folder is one of them).
	Locations func() []skills.Location
	// Package is the project's active package: the skills are found again
	// when it changes.
	Package func() string
	// Watch keeps the catalog current with a watcher (the window).
	Watch   bool
	Store   Store
	Emitter events.Emitter
	// Busy reports whether a reply runs in a conversation.
	Busy func(conversationID string) bool
	// Log receives warnings; WatchLogger is the watcher's (nil: its default).
	Log         *slog.Logger
	WatchLogger *slog.Logger
}

// Set is the skills catalog of an open project: discovered on first use (a
// command: once), or kept current by a watcher (the window). It is found
// again when the project's active package changes.
type Set struct {
	c Config

	mu     sync.Mutex
	cat    *skills.Catalog // without a watcher
	w      *skills.Watcher
	pkgID  string // the active package the locations were made for
	built  bool
	closed bool

	// writes serialises the user's activations in the log.
	writes sync.Mutex
}

// New returns the skills of a project (nothing is found before first use).
func New(c Config) *Set { return &Set{c: c} }

// Catalog returns the skills as they are now.
func (s *Set) Catalog() *skills.Catalog {
	pkg := s.c.Package()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		if s.cat == nil {
			s.cat = skills.Discover(nil)
		}
		return s.cat
	}
	if !s.built || s.pkgID != pkg {
		s.buildLocked(pkg)
	}
	if s.w != nil {
		return s.w.Catalog()
	}
	return s.cat
}

// buildLocked discovers the skills (and starts watching them in the window).
func (s *Set) buildLocked(pkg string) {
	changed := s.built
	s.built, s.pkgID = true, pkg
	if s.w != nil {
		_ = s.w.Close()
		s.w = nil
	}
	locs := s.c.Locations()
	if s.c.Watch {
		w, err := skills.NewWatcher(locs, s.changed, skills.WatchOptions{Logger: s.c.WatchLogger})
		if err == nil {
			s.w, s.cat = w, nil
			if changed {
				s.changed(w.Catalog())
			}
			return
		}
		s.c.Log.Warn("cannot watch the skills folders; changes show after the project is opened again", "error", err)
	}
	s.cat = skills.Discover(locs)
	if changed {
		s.changed(s.cat)
	}
}

// changed tells the window that the skills found changed (added, edited or
// removed on disk, or another package's skills).
func (s *Set) changed(cat *skills.Catalog) {
	s.c.Emitter.Emit(events.SkillsChanged, events.SkillsChangedEvent{Skills: len(cat.Skills()), Invalid: len(cat.Invalid())})
}

// Refresh finds the skills again when the active package changed.
func (s *Set) Refresh() { s.Catalog() }

// Close stops the watcher.
func (s *Set) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.w != nil {
		s.cat = s.w.Catalog()
		_ = s.w.Close()
		s.w = nil
	}
}

// State derives the skills of a conversation from its log (back to its
// last compaction, whose event records the state before it).
func (s *Set) State(conversationID string) (*skills.State, error) {
	entries, err := s.c.Store.LoadSinceCompaction(conversationID)
	if err != nil {
		return nil, err
	}
	return skills.Derive(entries), nil
}

// Dir is the folder behind @skill/<name>/ in a conversation: that of the
// skill active there, when the catalog still holds it at the path it was
// activated from (tools.Roots.Skills).
func (s *Set) Dir(conversationID, name string) (string, bool) {
	st, err := s.State(conversationID)
	if err != nil {
		return "", false
	}
	a, ok := st.Get(name)
	if !ok {
		return "", false
	}
	sk, ok := s.Catalog().Get(name)
	if !ok || (a.Path != "" && sk.Path != a.Path) {
		return "", false
	}
	return sk.Dir, true
}

// ---- the tools: skill.activate and skill.deactivate ----

// Providers offer the skill tools to every tool host of a conversation
// (chat, agent and run modes).
func (s *Set) Providers(sc tools.Scope) []tools.Provider {
	if sc.ConversationID == "" {
		return nil
	}
	return []tools.Provider{&skillTools{set: s, conversationID: sc.ConversationID}}
}

// skillTools is the provider of the skill tools of one conversation.
type skillTools struct {
	set            *Set
	conversationID string
}

// Tools offers skill.activate and skill.deactivate when the model has a
// skill to activate, or one to deactivate.
func (p *skillTools) Tools() []tools.ToolDef {
	offer := false
	for _, s := range p.set.Catalog().Skills() {
		offer = offer || s.ModelInvocable()
	}
	if !offer {
		st, err := p.set.State(p.conversationID)
		offer = err == nil && len(st.Names()) > 0
	}
	if !offer {
		return nil
	}
	var out []tools.ToolDef
	for _, d := range skills.ToolDefs() {
		out = append(out, tools.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	return out
}

// Call runs skill.activate or skill.deactivate for the model. An activation
// answers with its result and has the engine append the skill_activated
// event and the body right after it.
func (p *skillTools) Call(ctx context.Context, name string, args []byte) (tools.Result, bool) {
	if name != conversation.ToolSkillActivate && name != conversation.ToolSkillDeactivate {
		return tools.Result{}, false
	}
	skill, err := skills.ToolArgs(args)
	if err != nil {
		return toolResult(skills.ErrorResult(err)), true
	}
	st, err := p.set.State(p.conversationID)
	if err != nil {
		return tools.Failure(tools.NewError(tools.CodeInternal, "the conversation's skills cannot be read: "+err.Error(), nil)), true
	}
	callID := tools.ToolCallID(ctx)
	if name == conversation.ToolSkillDeactivate {
		d, err := skills.Deactivate(st, skill, skills.ByModel, callID, nil)
		if err != nil {
			return toolResult(skills.ErrorResult(err)), true
		}
		res := toolResult(d.Result())
		res.Effect = engine.EntriesAfterResult{Entries: d.Entries}
		return res, true
	}
	act, err := p.set.Catalog().Activate(st, skills.Request{Name: skill, By: skills.ByModel, ToolCallID: callID})
	if err != nil {
		return toolResult(skills.ErrorResult(err)), true
	}
	res := toolResult(act.Result())
	res.Effect = engine.EntriesAfterResult{Entries: act.Entries}
	return res, true
}

// toolResult is a skills result in the tool host's shape.
func toolResult(r skills.ToolResult) tools.Result {
	out := tools.Result{OK: r.OK, Content: r.JSON()}
	if r.Error != nil {
		out.Error = tools.NewError(r.Error.Code, r.Error.Message, nil)
	}
	return out
}

// ---- the user's activations ----

// Change activates (on) or deactivates a skill in a conversation for the
// user and returns the skill's name, the status (activated, already_active,
// deactivated or not_active) and the conversation's skills after it. An
// activation appends the skill_activated event and the is_meta message with
// the body (no tool call); a deactivation a skill_deactivated event.
// Refused: an unknown skill (E_SKILL_NOT_FOUND, naming the skills there
// are), a skill that asks not to be offered to the user (user-invocable:
// false; E_SKILL_NOT_ALLOWED), a SKILL.md that can no longer be used
// (E_SKILL_INVALID), a conversation whose reply is running (E_BUSY).
func (s *Set) Change(conversationID, name string, on bool) (ChangeView, error) {
	out := ChangeView{ConversationID: conversationID, Skill: strings.TrimSpace(name)}
	if _, err := s.c.Store.Get(conversationID); err != nil {
		return out, err
	}
	s.writes.Lock()
	defer s.writes.Unlock()
	if s.c.Busy(conversationID) {
		return out, errs.New(errs.Busy, "a reply is running in this conversation: wait for it to end (or stop it), then change its skills")
	}
	st, err := s.State(conversationID)
	if err != nil {
		return out, err
	}
	var entries []conversation.Entry
	if on {
		act, err := s.userActivation(st, out.Skill)
		if err != nil {
			return out, err
		}
		out.Skill, out.Status, entries = act.Skill.Name, act.Status, act.Entries
	} else {
		d, err := skills.Deactivate(st, out.Skill, skills.ByUser, "", nil)
		if err != nil {
			return out, userError(err)
		}
		out.Status, entries = d.Status, d.Entries
	}
	if len(entries) > 0 {
		ptrs := make([]*conversation.Entry, len(entries))
		for i := range entries {
			e := entries[i]
			e.CreatedAt = fsx.Now()
			ptrs[i] = &e
			st.Apply(&e)
		}
		if err := s.c.Store.Append(conversationID, ptrs...); err != nil {
			return out, err
		}
	}
	out.Active = s.activeViews(st)
	return out, nil
}

// userActivation checks a user's activation against the catalog.
func (s *Set) userActivation(st *skills.State, name string) (skills.Activation, error) {
	act, err := s.Catalog().Activate(st, skills.Request{Name: name, By: skills.ByUser, Allow: func(s skills.Skill) error {
		if !s.UserInvocable {
			return errors.New("it asks not to be offered to the user (user-invocable: false); the model may activate it when a task calls for it")
		}
		return nil
	}})
	if err != nil {
		return act, userError(err)
	}
	return act, nil
}

// userError is a refused activation as the application reports it: bad
// arguments of a user's activation are an invalid request.
func userError(err error) error {
	if errs.CodeOf(err) == skills.CodeBadArguments {
		return errs.New(errs.InvalidRequest, errs.From(err).Message)
	}
	return err
}

// StartWith creates a conversation (mode chat or agent) whose log starts
// with the user's activation of the named skills (chat --skill in a new
// conversation) and returns its id. Nothing is created when one of them is
// refused.
func (s *Set) StartWith(mode string, names []string) (string, error) {
	st := skills.NewState()
	var all []*conversation.Entry
	for _, name := range names {
		act, err := s.userActivation(st, name)
		if err != nil {
			return "", err
		}
		for i := range act.Entries {
			e := act.Entries[i]
			e.CreatedAt = fsx.Now()
			st.Apply(&e)
			all = append(all, &e)
		}
	}
	active := conversation.ActiveChat
	if mode == conversation.ModeAgent {
		active = conversation.ActiveAgent
	}
	meta, err := s.c.Store.CreateWith("", active, all...)
	if err != nil {
		return "", err
	}
	return meta.ID, nil
}

// ---- what the window and the command line show ----

// ListView is what Settings → Skills shows and the composer's picker
// offers: every skill found (available, shadowed, invalid) and the folders
// searched.
type ListView struct {
	Skills    []skills.ListItem `json:"skills"`
	Locations []skills.Location `json:"locations"`
}

// List returns every skill found for the project, with its source, path
// and problems (skills.Catalog.List).
func (s *Set) List() ListView {
	cat := s.Catalog()
	return ListView{Skills: cat.List(), Locations: cat.Locations()}
}

// ActiveView is one skill active in a conversation (a chip of the
// composer).
type ActiveView struct {
	Name   string        `json:"name"`
	Source skills.Source `json:"source"`
	Path   string        `json:"path"`
	By     skills.Actor  `json:"by,omitempty"`
	// Description is the skill's, while the catalog holds it.
	Description string `json:"description,omitempty"`
	// Missing is set when the skill is no longer found where it was
	// activated from: its instructions still apply (they are in the log),
	// its files cannot be read.
	Missing bool `json:"missing,omitempty"`
	// MessageID is the is_meta message carrying its body.
	MessageID string `json:"messageId,omitempty"`
}

// Active returns the skills active in a conversation, in activation order.
func (s *Set) Active(conversationID string) ([]ActiveView, error) {
	if _, err := s.c.Store.Get(conversationID); err != nil {
		return nil, err
	}
	st, err := s.State(conversationID)
	if err != nil {
		return nil, err
	}
	return s.activeViews(st), nil
}

func (s *Set) activeViews(st *skills.State) []ActiveView {
	cat := s.Catalog()
	out := []ActiveView{}
	for _, a := range st.Active() {
		as := ActiveView{Name: a.Name, Source: a.Source, Path: a.Path, By: a.By, MessageID: a.MetaID}
		if sk, ok := cat.Get(a.Name); ok && (a.Path == "" || sk.Path == a.Path) {
			as.Description = sk.Description
		} else {
			as.Missing = true
		}
		out = append(out, as)
	}
	return out
}

// ChangeView is the outcome of a user's activation or deactivation.
type ChangeView struct {
	ConversationID string `json:"conversationId"`
	Skill          string `json:"skill"`
	// Status is activated, already_active, deactivated or not_active.
	Status string       `json:"status"`
	Active []ActiveView `json:"active"`
}

// ActivateAll activates the named skills in a conversation for the user
// before a message is sent (chat --skill), stopping at the first refusal.
func (s *Set) ActivateAll(conversationID string, names []string) error {
	for _, n := range names {
		if _, err := s.Change(conversationID, n, true); err != nil {
			return err
		}
	}
	return nil
}

// Locations are the folders a project's skills come from, highest
// precedence first (skills.DefaultLocations): the project's (root), the
// active package's (packageRoot), the runtime home's, then those other
// agents use.
func Locations(root func() string, home string, packageRoot func() string) func() []skills.Location {
	return func() []skills.Location {
		userHome, _ := os.UserHomeDir()
		return skills.DefaultLocations(skills.Places{
			Project:   root(),
			Package:   packageRoot(),
			Home:      home,
			UserHome:  userHome,
			CodexHome: os.Getenv("CODEX_HOME"),
		})
	}
}
