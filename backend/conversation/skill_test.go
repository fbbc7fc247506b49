package conversation

import (
	"encoding/json"
	"strings"
	"testing"
)

func skillEvt(id, name, event, ref string) *Entry {
	data, _ := json.Marshal(map[string]string{"skill": name, "source": "project", "path": "/p/.crewagent/skills/" + name + "/SKILL.md", "by": "user"})
	return &Entry{Type: TypeEvt, ID: id, Event: event, Data: data, RefMsgID: ref}
}

func skillBody(id, name, body string) *Entry {
	return msg(id, RoleUser, `<skill name="`+name+`" source="project" base="@skill/`+name+`/">`+"\n"+
		`The skill "`+name+`" is now active: follow its instructions below for as long as they apply.`+"\n\n"+body+"\n</skill>", meta())
}

func TestSkillViews(t *testing.T) {
	type want struct {
		id, kind, name, state, body string
	}
	cases := []struct {
		name    string
		entries []*Entry
		want    []want
	}{
		{"activated by the user", []*Entry{
			msg("u1", RoleUser, "hi"),
			skillEvt("e1", "pptx", EventSkillActivated, "m1"),
			skillBody("m1", "pptx", "# Decks\nUse 16:9."),
		}, []want{{"m1", ViewSkill, "pptx", SkillActive, "# Decks\nUse 16:9."}, {"e1", ViewEvent, "", "", ""}}},
		{"deactivated later", []*Entry{
			skillEvt("e1", "pptx", EventSkillActivated, "m1"),
			skillBody("m1", "pptx", "Use 16:9."),
			msg("u1", RoleUser, "done"),
			skillEvt("e2", "pptx", EventSkillDeactivated, ""),
		}, []want{{"m1", ViewSkill, "pptx", SkillEnded, "Use 16:9."}, {"e2", ViewEvent, "pptx", "", ""}}},
		{"its event before the entries read", []*Entry{
			skillBody("m1", "brand", "Blue only."),
			msg("u1", RoleUser, "next"),
		}, []want{{"m1", ViewSkill, "brand", SkillActive, "Blue only."}}},
		{"activated again with a new body", []*Entry{
			skillEvt("e1", "pptx", EventSkillActivated, "m1"),
			skillBody("m1", "pptx", "old"),
			skillEvt("e2", "pptx", EventSkillActivated, "m2"),
			skillBody("m2", "pptx", "new"),
		}, []want{{"m1", ViewSkill, "pptx", SkillEnded, "old"}, {"m2", ViewSkill, "pptx", SkillActive, "new"}}},
		{"an event naming no message takes the next body", []*Entry{
			skillEvt("e1", "lint", EventSkillActivated, ""),
			msg("m1", RoleUser, "plain instructions written by another tool", meta()),
		}, []want{{"m1", ViewSkill, "lint", SkillActive, "plain instructions written by another tool"}}},
		{"another meta message stays hidden", []*Entry{
			msg("m1", RoleUser, "<skill-prompt>pptx</skill-prompt>", meta()),
		}, []want{{"m1", ViewHidden, "", "", ""}}},
		{"malformed events are ignored", []*Entry{
			{Type: TypeEvt, ID: "e1", Event: EventSkillActivated, Data: json.RawMessage(`{"skill":`), RefMsgID: "m1"},
			{Type: TypeEvt, ID: "e2", Event: EventSkillDeactivated, Data: json.RawMessage(`[]`)},
			msg("m1", RoleUser, "no header", meta()),
		}, []want{{"m1", ViewHidden, "", "", ""}, {"e2", ViewEvent, "", "", ""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			views := Views(tc.entries)
			by := map[string]View{}
			for _, v := range views {
				by[v.ID] = v.View
			}
			for _, w := range tc.want {
				v := by[w.id]
				if v.Kind != w.kind {
					t.Fatalf("%s: kind %s, want %s", w.id, v.Kind, w.kind)
				}
				if w.name == "" {
					if v.Skill != nil {
						t.Errorf("%s: skill %+v", w.id, v.Skill)
					}
					continue
				}
				if v.Skill == nil || v.Skill.Name != w.name || v.Skill.State != w.state || v.Skill.Body != w.body {
					t.Errorf("%s: skill %+v, want %s %s %q", w.id, v.Skill, w.name, w.state, w.body)
				}
			}
		})
	}
}

// A conversation that ends with a skill activated by the user is settled:
// nothing waits for a reply.
func TestSkillRowsDoNotLeaveAConversationUnfinished(t *testing.T) {
	views := Views([]*Entry{
		msg("u1", RoleUser, "hi"),
		msg("a1", RoleAssistant, "hello"),
		skillEvt("e1", "pptx", EventSkillActivated, "m1"),
		skillBody("m1", "pptx", "Use 16:9."),
	})
	if state, _ := Ending(views, ""); state != EndSettled {
		t.Errorf("ending %q", state)
	}
	if i := latestFailure(views); i != -1 {
		t.Errorf("latest failure %d", i)
	}
}

func TestParseSkillBody(t *testing.T) {
	name, source, body, ok := ParseSkillBody("<skill name=\"pptx\" source=\"claude-user\" base=\"@skill/pptx/\">\nThe skill is now active. Files: @skill/pptx/a.md\n\n# Title\n\nText.\n</skill>")
	if !ok || name != "pptx" || source != "claude-user" || body != "# Title\n\nText." {
		t.Errorf("got %q %q %q %v", name, source, body, ok)
	}
	for _, s := range []string{"", "<skill>", "plain", "<skill name=\"x\" source=\"y\">no newline", "<skill-prompt>pptx</skill-prompt>"} {
		if _, _, _, ok := ParseSkillBody(s); ok {
			t.Errorf("%q parsed as a skill body", s)
		}
	}
}

func FuzzParseSkillBody(f *testing.F) {
	f.Add("<skill name=\"pptx\" source=\"project\" base=\"@skill/pptx/\">\nintro\n\nbody\n</skill>")
	f.Add("<skill name=\"\">\n\n\n")
	f.Add("<skill name=\"a\" source=\"b\">\n</skill></skill>")
	f.Fuzz(func(t *testing.T, s string) {
		name, _, body, ok := ParseSkillBody(s)
		if !ok {
			return
		}
		if strings.Contains(name, "\"") || strings.Contains(name, "\n") {
			t.Errorf("name %q", name)
		}
		if len(body) > len(s) {
			t.Errorf("body longer than the text")
		}
	})
}
