package app

import (
	"crewagent/backend/skills"
	"crewagent/backend/skills/projectskills"
)

// The project's skills live in projectskills (the catalog, the skill tools,
// the user's activations); here, what the window and the command line see.

// openSkills builds the project's skills (found on first use; watched in
// the window).
func (ws *Workspace) openSkills(watch bool) {
	locations := projectskills.Locations(func() string { return ws.project.Root }, ws.rt.home, ws.packageRoot)
	ws.skills = projectskills.New(projectskills.Config{Locations: locations, Package: ws.activePackageID, Watch: watch,
		Store: ws.store, Emitter: ws.emitter, Busy: ws.tasks.Busy, Log: ws.rt.log, WatchLogger: ws.rt.opts.Logger})
}

// SkillCatalog returns the project's skills as they are now.
func (ws *Workspace) SkillCatalog() *skills.Catalog { return ws.skills.Catalog() }

// What the window and the command line show of the skills.
type (
	SkillsView  = projectskills.ListView
	ActiveSkill = projectskills.ActiveView
	SkillChange = projectskills.ChangeView
)

// ListSkills returns every skill found for the project, with its source,
// path and problems.
func (ws *Workspace) ListSkills() SkillsView { return ws.skills.List() }

// ActiveSkills returns the skills active in a conversation, in activation
// order.
func (ws *Workspace) ActiveSkills(conversationID string) ([]ActiveSkill, error) {
	return ws.skills.Active(conversationID)
}

// ActivateSkill activates a skill in a conversation for the user (the
// composer's /skill NAME and picker, chat --skill; projectskills.Set.Change).
func (ws *Workspace) ActivateSkill(conversationID, name string) (SkillChange, error) {
	return ws.skills.Change(conversationID, name, true)
}

// DeactivateSkill ends a skill in a conversation for the user (/skill off
// NAME, a chip): a skill_deactivated event is appended. A skill that is not
// active is no error (status not_active).
func (ws *Workspace) DeactivateSkill(conversationID, name string) (SkillChange, error) {
	return ws.skills.Change(conversationID, name, false)
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
	return ws.skills.ActivateAll(conversationID, names)
}
