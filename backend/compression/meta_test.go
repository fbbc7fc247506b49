package compression

import (
	"context"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
)

// A compacted meta message (a skill's instructions) is carried whole, even
// past the length a pin keeps; a record is still clipped.
func TestCompactCarriesMetaWhole(t *testing.T) {
	var c convo
	body := "<skill name=\"pptx\">\n" + strings.Repeat("Keep every title under eight words. ", 400) + "\n</skill>"
	if len([]rune(body)) <= conversation.MaxCarriedChars {
		t.Fatal("the body must be longer than a carried pin")
	}
	meta := c.add(conversation.Entry{Role: conversation.RoleUser, Content: conversation.Str(body), IsMeta: true})
	rec := c.add(conversation.Entry{Role: conversation.RoleSystem, Content: conversation.Str("ARTIFACT_SAVED " + strings.Repeat("x", conversation.MaxCarriedChars+10)), PartType: conversation.PartRecord})
	for i := 0; i < 30; i++ {
		c.user("Round " + strings.Repeat("detail ", 40))
		c.assistant(strings.Repeat("An answer with some words. ", 40))
	}
	c.user("Where are we?")
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: conversation.ModeChat, History: c.entries, Counter: counter, Model: testModel,
		Budget: contextbuilder.Budget{TokenBudget: 200000},
		Skills: contextbuilder.Skills{Bodies: []contextbuilder.SkillBody{{ID: meta.ID, Name: "pptx"}}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Limit: res.Debug.TokenLimit, Counter: counter, Model: testModel}
	comp, err := Compact(context.Background(), res, c.entries, Plan(res, c.entries, cfg, true), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]conversation.Carried{}
	for _, p := range comp.Data.Pinned {
		got[p.ID] = p
	}
	if p := got[meta.ID]; p.Kind != conversation.CarriedMeta || p.Text != body {
		t.Errorf("the skill body is carried as %q (%d of %d runes)", p.Kind, len([]rune(p.Text)), len([]rune(body)))
	}
	if p := got[rec.ID]; p.Kind != conversation.CarriedRecord || len([]rune(p.Text)) > conversation.MaxCarriedChars+10 {
		t.Errorf("the record is carried as %q, %d runes", p.Kind, len([]rune(p.Text)))
	}
	if strings.Contains(comp.Summary, "Keep every title under eight words") {
		t.Error("the carried body is summarised as well")
	}
}
