package app

import (
	"context"
	"errors"
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

// ---- the project's skills ----

// skillSet is the skills catalog of an open project: discovered on first
// use (a command: once), or kept current by a watcher (the window). It is
// found again when the project's active package changes (its skills/
// folder is one of the locations).
type skillSet struct {
	ws    *Workspace
	watch bool

	mu     sync.Mutex
	cat    *skills.Catalog // without a watcher
	w      *skills.Watcher
	pkgID  string // the active package the locations were made for
	built  bool
	closed bool

	// writes serialises the user's activations in the log.
	writes sync.Mutex
}

func newSkillSet(ws *Workspace, watch bool) *skillSet { return &skillSet{ws: ws, watch: watch} }

// locations are the folders the project's skills come from, highest
// precedence first (skills.DefaultLocations): the project's, the active
// package's, the runtime home's, then those other agents use.
func (ws *Workspace) skillLocations() []skills.Location {
	userHome, _ := os.UserHomeDir()
	return skills.DefaultLocations(skills.Places{
		Project:   ws.project.Root,
		Package:   ws.packageRoot(),
		Home:      ws.rt.home,
		UserHome:  userHome,
		CodexHome: os.Getenv("CODEX_HOME"),
	})
}

// catalog returns the skills as they are now.
func (s *skillSet) catalog() *skills.Catalog {
	pkg := s.ws.activePackageID()
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
func (s *skillSet) buildLocked(pkg string) {
	changed := s.built
	s.built, s.pkgID = true, pkg
	if s.w != nil {
		_ = s.w.Close()
		s.w = nil
	}
	locs := s.ws.skillLocations()
	if s.watch {
		w, err := skills.NewWatcher(locs, s.ws.skillsChanged, skills.WatchOptions{Logger: s.ws.rt.opts.Logger})
		if err == nil {
			s.w, s.cat = w, nil
			if changed {
				s.ws.skillsChanged(w.Catalog())
			}
			return
		}
		s.ws.rt.log.Warn("cannot watch the skills folders; changes show after the project is opened again", "error", err)
	}
	s.cat = skills.Discover(locs)
	if changed {
		s.ws.skillsChanged(s.cat)
	}
}

// refresh finds the skills again when the active package changed.
func (s *skillSet) refresh() { s.catalog() }

// close stops the watcher.
func (s *skillSet) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.w != nil {
		s.cat = s.w.Catalog()
		_ = s.w.Close()
		s.w = nil
	}
}

// skillsChanged tells the window that the skills found changed (added,
// edited or removed on disk, or another package's skills).
func (ws *Workspace) skillsChanged(cat *skills.Catalog) {
	ws.emitter.Emit(events.SkillsChanged, events.SkillsChangedEvent{Skills: len(cat.Skills()), Invalid: len(cat.Invalid())})
}

// SkillCatalog returns the project's skills as they are now.
func (ws *Workspace) SkillCatalog() *skills.Catalog { return ws.skills.catalog() }

// skillState derives the skills of a conversation from its log (back to its
// last compaction, whose event records the state before it).
func (ws *Workspace) skillState(conversationID string) (*skills.State, error) {
	entries, err := ws.store.LoadSinceCompaction(conversationID)
	if err != nil {
		return nil, err
	}
	return skills.Derive(entries), nil
}

// skillDir is the folder behind @skill/<name>/ in a conversation: that of
// the skill active there, when the catalog still holds it at the path it
// was activated from (tools.Roots.Skills).
func (ws *Workspace) skillDir(conversationID, name string) (string, bool) {
	st, err := ws.skillState(conversationID)
	if err != nil {
		return "", false
	}
	a, ok := st.Get(name)
	if !ok {
		return "", false
	}
	sk, ok := ws.skills.catalog().Get(name)
	if !ok || (a.Path != "" && sk.Path != a.Path) {
		return "", false
	}
	return sk.Dir, true
}

// ---- the tools: skill.activate and skill.deactivate ----

// skillProviders offers the skill tools to every tool host of a
// conversation (chat, agent and run modes).
func (ws *Workspace) skillProviders(sc tools.Scope) []tools.Provider {
	if sc.ConversationID == "" {
		return nil
	}
	return []tools.Provider{&skillTools{ws: ws, conversationID: sc.ConversationID}}
}

// skillTools is the provider of the skill tools of one conversation.
type skillTools struct {
	ws             *Workspace
	conversationID string
}

// Tools offers skill.activate and skill.deactivate when the model has a
// skill to activate, or one to deactivate.
func (p *skillTools) Tools() []tools.ToolDef {
	offer := false
	for _, s := range p.ws.skills.catalog().Skills() {
		offer = offer || s.ModelInvocable()
	}
	if !offer {
		st, err := p.ws.skillState(p.conversationID)
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
	st, err := p.ws.skillState(p.conversationID)
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
	act, err := p.ws.skills.catalog().Activate(st, skills.Request{Name: skill, By: skills.ByModel, ToolCallID: callID})
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

// ---- the use cases: listing, and the user's activations ----

// SkillsView is what Settings → Skills shows and the composer's picker
// offers: every skill found (available, shadowed, invalid) and the folders
// searched.
type SkillsView struct {
	Skills    []skills.ListItem `json:"skills"`
	Locations []skills.Location `json:"locations"`
}

// ListSkills returns every skill found for the project, with its source,
// path and problems (skills.Catalog.List).
func (ws *Workspace) ListSkills() SkillsView {
	cat := ws.skills.catalog()
	return SkillsView{Skills: cat.List(), Locations: cat.Locations()}
}

// ActiveSkill is one skill active in a conversation (a chip of the composer).
type ActiveSkill struct {
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

// ActiveSkills returns the skills active in a conversation, in activation
// order.
func (ws *Workspace) ActiveSkills(conversationID string) ([]ActiveSkill, error) {
	if _, err := ws.store.Get(conversationID); err != nil {
		return nil, err
	}
	st, err := ws.skillState(conversationID)
	if err != nil {
		return nil, err
	}
	return ws.activeSkills(st), nil
}

func (ws *Workspace) activeSkills(st *skills.State) []ActiveSkill {
	cat := ws.skills.catalog()
	out := []ActiveSkill{}
	for _, a := range st.Active() {
		as := ActiveSkill{Name: a.Name, Source: a.Source, Path: a.Path, By: a.By, MessageID: a.MetaID}
		if sk, ok := cat.Get(a.Name); ok && (a.Path == "" || sk.Path == a.Path) {
			as.Description = sk.Description
		} else {
			as.Missing = true
		}
		out = append(out, as)
	}
	return out
}

// SkillChange is the outcome of a user's activation or deactivation.
type SkillChange struct {
	ConversationID string `json:"conversationId"`
	Skill          string `json:"skill"`
	// Status is activated, already_active, deactivated or not_active.
	Status string        `json:"status"`
	Active []ActiveSkill `json:"active"`
}

// ActivateSkill activates a skill in a conversation for the user (the
// composer's /skill NAME and picker, chat --skill): the skill_activated
// event and the is_meta message with the body are appended (no tool call).
// Refused: an unknown skill (E_SKILL_NOT_FOUND, naming the skills there
// are), a skill that asks not to be offered to the user (user-invocable:
// false; E_SKILL_NOT_ALLOWED), a SKILL.md that can no longer be used
// (E_SKILL_INVALID), a conversation whose reply is running (E_BUSY).
func (ws *Workspace) ActivateSkill(conversationID, name string) (SkillChange, error) {
	return ws.changeSkill(conversationID, name, true)
}

// DeactivateSkill ends a skill in a conversation for the user (/skill off
// NAME, a chip): a skill_deactivated event is appended. A skill that is not
// active is no error (status not_active).
func (ws *Workspace) DeactivateSkill(conversationID, name string) (SkillChange, error) {
	return ws.changeSkill(conversationID, name, false)
}

func (ws *Workspace) changeSkill(conversationID, name string, on bool) (SkillChange, error) {
	name = strings.TrimSpace(name)
	out := SkillChange{ConversationID: conversationID, Skill: name}
	if _, err := ws.store.Get(conversationID); err != nil {
		return out, err
	}
	ws.skills.writes.Lock()
	defer ws.skills.writes.Unlock()
	if ws.tasks.Busy(conversationID) {
		return out, errs.New(errs.Busy, "a reply is running in this conversation: wait for it to end (or stop it), then change its skills")
	}
	st, err := ws.skillState(conversationID)
	if err != nil {
		return out, err
	}
	var entries []conversation.Entry
	if on {
		act, err := ws.userActivation(st, name)
		if err != nil {
			return out, err
		}
		out.Skill, out.Status, entries = act.Skill.Name, act.Status, act.Entries
	} else {
		d, err := skills.Deactivate(st, name, skills.ByUser, "", nil)
		if err != nil {
			return out, skillError(err)
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
		if err := ws.store.Append(conversationID, ptrs...); err != nil {
			return out, err
		}
	}
	out.Active = ws.activeSkills(st)
	return out, nil
}

// userActivation checks a user's activation against the catalog.
func (ws *Workspace) userActivation(st *skills.State, name string) (skills.Activation, error) {
	act, err := ws.skills.catalog().Activate(st, skills.Request{Name: name, By: skills.ByUser, Allow: func(s skills.Skill) error {
		if !s.UserInvocable {
			return errors.New("it asks not to be offered to the user (user-invocable: false); the model may activate it when a task calls for it")
		}
		return nil
	}})
	if err != nil {
		return act, skillError(err)
	}
	return act, nil
}

// skillError is a refused activation as the application reports it: bad
// arguments of a user's activation are an invalid request.
func skillError(err error) error {
	if errs.CodeOf(err) == skills.CodeBadArguments {
		return errs.New(errs.InvalidRequest, errs.From(err).Message)
	}
	return err
}

// StartWithSkills creates a conversation (mode chat or agent) whose log
// starts with the user's activation of the named skills (chat --skill in a
// new conversation) and returns its id. Nothing is created when one of
// them is refused.
func (ws *Workspace) StartWithSkills(mode string, names []string) (string, error) {
	st := skills.NewState()
	var all []*conversation.Entry
	for _, name := range names {
		act, err := ws.userActivation(st, name)
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
	meta, err := ws.store.CreateWith("", active, all...)
	if err != nil {
		return "", err
	}
	return meta.ID, nil
}

// ActivateSkills activates the named skills in a conversation for the user
// before a message is sent (chat --skill), stopping at the first refusal.
func (ws *Workspace) ActivateSkills(conversationID string, names []string) error {
	for _, n := range names {
		if _, err := ws.ActivateSkill(conversationID, n); err != nil {
			return err
		}
	}
	return nil
}
