package desktop

import "crewagent/backend/app"

// Skills are the open project's skills and those active in its
// conversations (bridge/skills.ts).
type Skills struct{ s *app.Session }

// List returns every skill found for the project (available, shadowed,
// invalid) with its source, path and problems, and the folders searched.
func (x *Skills) List() (app.SkillsView, error) {
	return current(x.s, func(ws *app.Workspace) (app.SkillsView, error) { return ws.ListSkills(), nil })
}

// Active returns the skills active in a conversation.
func (x *Skills) Active(conversationID string) ([]app.ActiveSkill, error) {
	return current(x.s, func(ws *app.Workspace) ([]app.ActiveSkill, error) { return ws.ActiveSkills(conversationID) })
}

// Activate activates a skill in a conversation for the user.
func (x *Skills) Activate(conversationID, name string) (app.SkillChange, error) {
	return current(x.s, func(ws *app.Workspace) (app.SkillChange, error) { return ws.ActivateSkill(conversationID, name) })
}

// Deactivate ends a skill in a conversation.
func (x *Skills) Deactivate(conversationID, name string) (app.SkillChange, error) {
	return current(x.s, func(ws *app.Workspace) (app.SkillChange, error) { return ws.DeactivateSkill(conversationID, name) })
}
