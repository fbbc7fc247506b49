package conversation

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Events of skills (the skills package writes them; see contracts.md).
const (
	EventSkillActivated   = "skill_activated"
	EventSkillDeactivated = "skill_deactivated"
)

// States of a skill row (SkillView.State).
const (
	SkillActive = "active" // its instructions apply
	SkillEnded  = "ended"  // deactivated later, or activated again with a new body
)

// SkillView is what a skill entry is: the is_meta message carrying a
// skill's instructions (ViewSkill), or the event that ended one
// (skill_deactivated, a ViewEvent).
type SkillView struct {
	Name   string `json:"name"`
	Source string `json:"source,omitempty"`
	Path   string `json:"path,omitempty"`
	// By is model or user.
	By string `json:"by,omitempty"`
	// State is active or ended (bodies only).
	State string `json:"state,omitempty"`
	// Body is the skill's instructions as the model received them, without
	// the header the runtime adds (bodies only).
	Body string `json:"body,omitempty"`
}

// skillEventData is the data of skill_activated and skill_deactivated.
type skillEventData struct {
	Skill  string `json:"skill"`
	Source string `json:"source"`
	Path   string `json:"path"`
	By     string `json:"by"`
}

func parseSkillEvent(e *Entry) (skillEventData, bool) {
	var d skillEventData
	if !e.IsEvent() || (e.Event != EventSkillActivated && e.Event != EventSkillDeactivated) ||
		json.Unmarshal(e.Data, &d) != nil || d.Skill == "" {
		return skillEventData{}, false
	}
	return d, true
}

var skillHeader = regexp.MustCompile(`^<skill name="([^"\n]*)"(?: source="([^"\n]*)")?[^>\n]*>\n`)

// ParseSkillBody splits the content of a skill's body message ("<skill
// name=… source=… base=…>", a line on how to use it, a blank line, the
// instructions, "</skill>") into the skill's name and source and the
// instructions. ok is false for another text.
func ParseSkillBody(content string) (name, source, body string, ok bool) {
	m := skillHeader.FindStringSubmatch(content)
	if m == nil {
		return "", "", "", false
	}
	rest := strings.TrimSuffix(strings.TrimRight(content[len(m[0]):], " \t\r\n"), "</skill>")
	if _, after, found := strings.Cut(rest, "\n\n"); found {
		rest = after
	}
	return m[1], m[2], strings.TrimSpace(rest), true
}

// skillRows works out which is_meta messages of entries carry the bodies of
// skills, and whether each still applies; and the skills that
// skill_deactivated events end.
type skillRows struct {
	bodies map[string]*SkillView // body message id -> its view
	ends   map[string]*SkillView // skill_deactivated event id -> its view
}

func newSkillRows(entries []*Entry) skillRows {
	r := skillRows{bodies: map[string]*SkillView{}, ends: map[string]*SkillView{}}
	byRef := map[string]skillEventData{} // body message id -> its activation
	var waiting []skillEventData         // activations that name no message
	current := map[string]*SkillView{}   // skill -> the body that applies
	for _, e := range entries {
		switch {
		case e.IsEvent():
			d, ok := parseSkillEvent(e)
			if !ok {
				continue
			}
			if old := current[d.Skill]; old != nil {
				old.State = SkillEnded
				delete(current, d.Skill)
			}
			if e.Event == EventSkillDeactivated {
				r.ends[e.ID] = &SkillView{Name: d.Skill, By: d.By}
			} else if e.RefMsgID != "" {
				byRef[e.RefMsgID] = d
			} else {
				waiting = append(waiting, d)
			}
		case e.IsMessage() && e.IsMeta && e.Role == RoleUser:
			name, source, body, parsed := ParseSkillBody(e.Text())
			d, known := byRef[e.ID]
			if !known && len(waiting) > 0 {
				d, known, waiting = waiting[0], true, waiting[1:]
			}
			switch {
			case known:
			case parsed:
				// its event lies before the entries read
				d = skillEventData{Skill: name, Source: source}
			default:
				continue
			}
			if !parsed {
				body = e.Text()
			}
			if old := current[d.Skill]; old != nil {
				old.State = SkillEnded
			}
			v := &SkillView{Name: d.Skill, Source: d.Source, Path: d.Path, By: d.By, State: SkillActive, Body: body}
			r.bodies[e.ID] = v
			current[d.Skill] = v
		}
	}
	return r
}
