package contextbuilder

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"crewagent/backend/conversation"
)

const registryText = "SKILLS\nSkills are folders of instructions.\nAvailable skills:\n- pptx: Make slide decks."

// skillBody adds the is_meta body message of a skill.
func (l *logBuilder) skillBody(name, body string) *conversation.Entry {
	return l.add(conversation.Entry{Role: conversation.RoleUser, IsMeta: true, Content: conversation.Str(`<skill name="` + name + `">` + "\n" + body + "\n</skill>")})
}

// compaction adds a compaction event carrying pins.
func (l *logBuilder) compaction(pinned ...conversation.Carried) *conversation.Entry {
	data, _ := json.Marshal(conversation.CompactionData{Strategy: "key-messages", Pinned: pinned})
	return l.add(conversation.Entry{Type: conversation.TypeEvt, Event: conversation.EventCompaction, Data: data})
}

func rowOf(res *Result, pred func(Row) bool) (Row, bool) {
	i := slices.IndexFunc(res.Debug.Rows, pred)
	if i < 0 {
		return Row{}, false
	}
	return res.Debug.Rows[i], true
}

func TestSkillsRegistryInEveryMode(t *testing.T) {
	for _, mode := range []string{conversation.ModeChat, conversation.ModeAgent, conversation.ModeRun} {
		t.Run(mode, func(t *testing.T) {
			var l logBuilder
			l.user("make a deck")
			o := opts(mode, l.entries)
			if mode == conversation.ModeRun {
				o.Run = fakeRun{"RUN_DIRECTIVE"}
			}
			o.Skills.Registry = registryText
			res := mustBuild(t, o)
			var sys []string
			for _, r := range res.Debug.Rows {
				if r.Kind == KindSystem {
					sys = append(sys, r.Reason)
				}
			}
			i := slices.Index(sys, "system prompt: skills")
			if i < 0 || i != len(sys)-2 || sys[len(sys)-1] != "system prompt: mode banner" {
				t.Fatalf("system parts %v: the skills section belongs right before the mode banner", sys)
			}
			if got := res.Messages[i].Text(); got != registryText {
				t.Errorf("skills section %q", got)
			}

			o.Skills.Registry = "  "
			res = mustBuild(t, o)
			if _, ok := rowOf(res, func(r Row) bool { return r.Reason == "system prompt: skills" }); ok {
				t.Error("an empty registry still made a section")
			}
		})
	}
}

func TestSkillBodies(t *testing.T) {
	t.Run("an active body in the history is kept and named", func(t *testing.T) {
		var l logBuilder
		l.user("make a deck")
		body := l.skillBody("pptx", "Use 16:9.")
		l.assistant("ok")
		l.user("go on")
		o := opts(conversation.ModeChat, l.entries)
		o.Skills.Bodies = []SkillBody{{ID: body.ID, Name: "pptx"}}
		res := mustBuild(t, o)
		r, ok := rowOf(res, func(r Row) bool { return r.SourceID == body.ID })
		if !ok {
			t.Fatalf("the body is not in the request:\n%s", dump(res.Messages))
		}
		if r.Reason != "kept: body of the active skill pptx (pinned while it is active)" || !slices.Equal(r.Skills, []string{"pptx"}) {
			t.Errorf("row %+v", r)
		}
		if len(res.Debug.Notes) != 0 {
			t.Errorf("notes %v", res.Debug.Notes)
		}
	})

	t.Run("the safety net keeps an active body before older messages", func(t *testing.T) {
		var l logBuilder
		l.user("make a deck")
		body := l.skillBody("pptx", "Use 16:9. "+strings.Repeat("Keep titles short. ", 20))
		filler := l.assistant(strings.Repeat("filler text that takes room ", 80))
		l.user("go on")
		o := opts(conversation.ModeChat, l.entries)
		o.Skills.Bodies = []SkillBody{{ID: body.ID, Name: "pptx"}}
		full := mustBuild(t, o)
		o.Budget = Budget{TokenBudget: full.Debug.UsedTokens - filler.Tokens/2}
		res := mustBuild(t, o)
		got := ids(res.Messages)
		if !res.Debug.SafetyNet || slices.Contains(got, filler.ID) || !slices.Contains(got, body.ID) {
			t.Fatalf("safety net %v, request %v: the body should stay and the filler go", res.Debug.SafetyNet, got)
		}

		// the same log without the skill: the body is an ordinary old message
		o.Skills.Bodies = nil
		res = mustBuild(t, o)
		if slices.Contains(ids(res.Messages), body.ID) {
			t.Fatalf("without the skill active its message has no claim to stay: %v", ids(res.Messages))
		}
	})

	t.Run("an ended body is left out, also from PINNED", func(t *testing.T) {
		var l logBuilder
		old := l.skillBody("pptx", "old instructions")
		l.compaction(conversation.Carried{ID: old.ID, Role: conversation.RoleUser, Kind: conversation.CarriedMeta, Text: old.Text()},
			conversation.Carried{ID: "pin1", Role: conversation.RoleUser, Kind: conversation.CarriedPin, Text: "a pinned fact"})
		inHistory := l.skillBody("brand", "brand instructions")
		l.user("next")
		o := opts(conversation.ModeChat, l.entries)
		o.Skills.Ended = []string{old.ID, inHistory.ID}
		res := mustBuild(t, o)
		text := dump(res.Messages) + pinnedText(res)
		if strings.Contains(text, "old instructions") || strings.Contains(text, "brand instructions") {
			t.Fatalf("an ended body is in the request:\n%s", text)
		}
		if !strings.Contains(pinnedText(res), "a pinned fact") {
			t.Errorf("the other pin went too:\n%s", pinnedText(res))
		}
		if got := reasonOf(res.Debug.Dropped, inHistory.ID); got != "excluded: body of a skill that is no longer active" {
			t.Errorf("reason %q", got)
		}
		for _, p := range res.Pins {
			if p.ID == old.ID {
				t.Errorf("the ended body is still a pin, so the next compaction would carry it on")
			}
		}
	})

	t.Run("a compacted active body is quoted whole in PINNED", func(t *testing.T) {
		var l logBuilder
		long := strings.Repeat("Step: check the layout. ", 600) // over conversation.MaxCarriedChars
		l.compaction(conversation.Carried{ID: "body1", Role: conversation.RoleUser, Kind: conversation.CarriedMeta, Text: `<skill name="pptx">` + long + `</skill>`})
		l.user("next")
		o := opts(conversation.ModeChat, l.entries)
		o.Skills.Bodies = []SkillBody{{ID: "body1", Name: "pptx"}}
		res := mustBuild(t, o)
		pin := pinnedText(res)
		if !strings.Contains(pin, "[#body1 active skill pptx, meta] <skill name=\"pptx\">"+long+"</skill>") {
			t.Fatalf("PINNED does not quote the body whole:\n%.300s", pin)
		}
		r, _ := rowOf(res, func(r Row) bool { return r.Kind == KindPinned })
		if !slices.Equal(r.Skills, []string{"pptx"}) {
			t.Errorf("PINNED row skills %v", r.Skills)
		}
	})

	t.Run("the safety net leaves out other pins before a skill's body", func(t *testing.T) {
		var l logBuilder
		l.compaction(
			conversation.Carried{ID: "body1", Role: conversation.RoleUser, Kind: conversation.CarriedMeta, Text: "<skill>" + strings.Repeat("rule ", 300) + "</skill>"},
			conversation.Carried{ID: "pin1", Role: conversation.RoleUser, Kind: conversation.CarriedPin, Text: strings.Repeat("pinned ", 300)})
		l.user("next")
		o := opts(conversation.ModeChat, l.entries)
		o.Skills.Bodies = []SkillBody{{ID: "body1", Name: "pptx"}}
		full := mustBuild(t, o)
		o.Budget = Budget{TokenBudget: full.Debug.UsedTokens - 100}
		res := mustBuild(t, o)
		pin := pinnedText(res)
		if strings.Contains(pin, "pinned pinned") || !strings.Contains(pin, "rule rule") {
			t.Fatalf("PINNED after the safety net:\n%.400s", pin)
		}

		// with no room even for the body, it goes last, and a note says so
		o.Budget = Budget{TokenBudget: full.Debug.UsedTokens - 700}
		res = mustBuild(t, o)
		if strings.Contains(pinnedText(res), "rule rule") {
			t.Fatalf("the body should not fit: %d of %d", res.Debug.UsedTokens, res.Debug.TokenLimit)
		}
		if !slices.ContainsFunc(res.Debug.Notes, func(n string) bool { return strings.Contains(n, "the body of the skill pptx was left out") }) {
			t.Errorf("notes %v", res.Debug.Notes)
		}
	})

	t.Run("a body neither read nor carried is noted", func(t *testing.T) {
		var l logBuilder
		l.user("next")
		o := opts(conversation.ModeChat, l.entries)
		o.Skills.Bodies = []SkillBody{{ID: "gone", Name: "pptx"}}
		res := mustBuild(t, o)
		if !slices.ContainsFunc(res.Debug.Notes, func(n string) bool { return strings.Contains(n, "the body of the skill pptx is not in the request") }) {
			t.Errorf("notes %v", res.Debug.Notes)
		}
	})
}

func pinnedText(res *Result) string {
	for _, m := range res.Messages {
		if m.Kind == KindPinned {
			return m.Text()
		}
	}
	return ""
}
