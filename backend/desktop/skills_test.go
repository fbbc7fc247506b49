package desktop

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
	"crewagent/backend/events"
	"crewagent/backend/skills"
)

// The bound Skills: the window lists a skill added to the project while it
// is open, activates it in a conversation (whose page then shows a skill
// entry, not a message), and deactivates it.
func TestBoundSkills(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	w := openTestProject(t, "")
	p := filepath.Join(w.root, ".crewagent", "skills", "pptx", "SKILL.md")
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte("---\nname: pptx\ndescription: Decks.\n---\nUse 16:9.\n"), 0o644))
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := w.app.Skills.List()
		must(t, err)
		if slices.ContainsFunc(v.Skills, func(it skills.ListItem) bool { return it.Name == "pptx" }) && len(w.rec.Named(events.SkillsChanged)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the skill added on disk is not listed: %+v", v)
		}
		time.Sleep(20 * time.Millisecond)
	}

	conv, err := w.app.Conversations.Create("")
	must(t, err)
	ch, err := w.app.Skills.Activate(conv.ID, "pptx")
	must(t, err)
	if ch.Status != skills.StatusActivated || len(ch.Active) != 1 || ch.Active[0].Name != "pptx" || ch.Active[0].Description != "Decks." {
		t.Fatalf("activate: %+v", ch)
	}
	page, err := w.app.Conversations.Load(conv.ID, 50)
	must(t, err)
	var views []conversation.View
	for _, e := range page.Entries {
		views = append(views, e.View)
	}
	if len(views) != 2 || views[1].Kind != conversation.ViewSkill || views[1].Skill.Name != "pptx" || views[1].Skill.Body != "Use 16:9." || views[1].Skill.State != conversation.SkillActive {
		t.Fatalf("views %+v", views)
	}
	if page.Unfinished || page.Awaiting {
		t.Errorf("a conversation with only a skill waits for a reply: %+v", page)
	}
	active, err := w.app.Skills.Active(conv.ID)
	must(t, err)
	if len(active) != 1 {
		t.Fatalf("active %+v", active)
	}
	ch, err = w.app.Skills.Deactivate(conv.ID, "pptx")
	must(t, err)
	if ch.Status != skills.StatusDeactivated || len(ch.Active) != 0 {
		t.Fatalf("deactivate %+v", ch)
	}
	page, err = w.app.Conversations.Load(conv.ID, 50)
	must(t, err)
	if v := page.Entries[1].View; v.Skill.State != conversation.SkillEnded {
		t.Errorf("after deactivation the body is %+v", v.Skill)
	}
	if v := page.Entries[2].View; v.Kind != conversation.ViewEvent || v.Skill == nil || v.Skill.Name != "pptx" {
		t.Errorf("the deactivation event %+v", v)
	}

	_, err = w.app.Skills.Activate(conv.ID, "nope")
	if errs.From(err).Code != errs.SkillNotFound {
		t.Errorf("unknown: %v", err)
	}
	if msg := FormatError(err).(string); msg[:len(errs.SkillNotFound)] != errs.SkillNotFound {
		t.Errorf("the window receives %q", msg)
	}
}
