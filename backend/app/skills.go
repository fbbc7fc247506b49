package app

import (
	"os"

	"crewagent/backend/skills"
	"crewagent/backend/skills/projectskills"
)

// The project's skills live in projectskills (the catalog, the skill tools,
// the user's activations); here, what the window and the command line see.

// openSkills builds the project's skills (found on first use; watched in
// the window).
func (ws *Workspace) openSkills(watch bool) {
	ws.skills = projectskills.New(projectskills.Config{Locations: ws.skillLocations, Package: ws.activePackageID, Watch: watch,
		Store: ws.store, Emitter: ws.emitter, Busy: ws.tasks.Busy, Log: ws.rt.log, WatchLogger: ws.rt.opts.Logger})
}

// skillLocations are the folders the project's skills come from, highest
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

// SkillCatalog returns the project's skills as they are now.
func (ws *Workspace) SkillCatalog() *skills.Catalog { return ws.skills.Catalog() }

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
	cat := ws.skills.Catalog()
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
	st, err := ws.skills.State(conversationID)
	if err != nil {
		return nil, err
	}
	return ws.activeSkills(st), nil
}

func (ws *Workspace) activeSkills(st *skills.State) []ActiveSkill {
	cat := ws.skills.Catalog()
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
// composer's /skill NAME and picker, chat --skill; projectskills.Set.Change).
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
	skill, status, st, err := ws.skills.Change(conversationID, name, on)
	out := SkillChange{ConversationID: conversationID, Skill: skill, Status: status}
	if err != nil {
		return out, err
	}
	out.Active = ws.activeSkills(st)
	return out, nil
}

// StartWithSkills creates a conversation (mode chat or agent) whose log
// starts with the user's activation of the named skills (chat --skill in a
// new conversation) and returns its id. Nothing is created when one of
// them is refused.
func (ws *Workspace) StartWithSkills(mode string, names []string) (string, error) {
	return ws.skills.StartWith(mode, names)
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
