package compression

import (
	"context"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/convlog"
)

// A compacted meta message (a skill's instructions) is carried whole, even
// past the length a pin keeps; a record is still clipped.
func TestCompactCarriesMetaWhole(t *testing.T) {
	var c convo
	body := "<skill name=\"pptx\">\n" + strings.Repeat("Keep every title under eight words. ", 400) + "\n</skill>"
	if len([]rune(body)) <= convlog.MaxCarriedChars {
		t.Fatal("the body must be longer than a carried pin")
	}
	meta := c.add(convlog.Entry{Role: convlog.RoleUser, Content: convlog.Str(body), IsMeta: true})
	rec := c.add(convlog.Entry{Role: convlog.RoleSystem, Content: convlog.Str("ARTIFACT_SAVED " + strings.Repeat("x", convlog.MaxCarriedChars+10)), PartType: convlog.PartRecord})
	for i := 0; i < 30; i++ {
		c.user("Round " + strings.Repeat("detail ", 40))
		c.assistant(strings.Repeat("An answer with some words. ", 40))
	}
	c.user("Where are we?")
	res, err := contextbuilder.Build(contextbuilder.Options{Mode: convlog.ModeChat, History: c.entries, Counter: counter, Model: testModel,
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
	got := map[string]convlog.Carried{}
	for _, p := range comp.Data.Pinned {
		got[p.ID] = p
	}
	if p := got[meta.ID]; p.Kind != convlog.CarriedMeta || p.Text != body {
		t.Errorf("the skill body is carried as %q (%d of %d runes)", p.Kind, len([]rune(p.Text)), len([]rune(body)))
	}
	if p := got[rec.ID]; p.Kind != convlog.CarriedRecord || len([]rune(p.Text)) > convlog.MaxCarriedChars+10 {
		t.Errorf("the record is carried as %q, %d runes", p.Kind, len([]rune(p.Text)))
	}
	if strings.Contains(comp.Summary, "Keep every title under eight words") {
		t.Error("the carried body is summarised as well")
	}
}
