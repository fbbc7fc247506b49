package skills

import (
	"encoding/json"
	"slices"

	"crewagent/backend/conversation"
)

// Event names recorded in the conversation log.
const (
	EventActivated   = conversation.EventSkillActivated
	EventDeactivated = conversation.EventSkillDeactivated
)

// Actor says who activated a skill.
type Actor string

// Actors.
const (
	ByModel Actor = "model"
	ByUser  Actor = "user"
)

// ActivatedData is the data of a skill_activated event. Skill, Source and
// Path are the contract; the other fields are optional.
type ActivatedData struct {
	Skill  string `json:"skill"`
	Source Source `json:"source"`
	// Path is the host path of the SKILL.md activated.
	Path string `json:"path"`
	By   Actor  `json:"by,omitempty"`
	// ToolCallID is the call of a model activation.
	ToolCallID string `json:"toolCallId,omitempty"`
	// AllowedTools are the tool names the skill narrows to, recorded so
	// that narrowing follows the log even when the file changes or goes
	// away; absent when the skill does not narrow.
	AllowedTools *[]string `json:"allowedTools,omitempty"`
	// Commands are the command-prefix allow rules its allowed-tools grant
	// (AllowedTools.Commands), recorded like AllowedTools.
	Commands []string `json:"commands,omitempty"`
}

// DeactivatedData is the data of a skill_deactivated event.
type DeactivatedData struct {
	Skill string `json:"skill"`
	By    Actor  `json:"by,omitempty"`
	// ToolCallID is the call of a model deactivation.
	ToolCallID string `json:"toolCallId,omitempty"`
}

// Active is one active skill as the log records it.
type Active struct {
	Name       string `json:"name"`
	Source     Source `json:"source"`
	Path       string `json:"path"`
	By         Actor  `json:"by,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// AllowedTools is nil when the skill does not narrow the tools.
	AllowedTools []string `json:"allowedTools,omitempty"`
	// Commands are the command-prefix allow rules it grants.
	Commands []string `json:"commands,omitempty"`
	// EventID is the skill_activated event; MetaID the is_meta user
	// message carrying the body ("" when the log has none yet).
	EventID string `json:"eventId"`
	MetaID  string `json:"metaId,omitempty"`
	// Body is the content of the is_meta message, as sent to the model.
	Body    string `json:"-"`
	HasBody bool   `json:"hasBody"`
	// Compacted is set when the is_meta message is marked compacted: the
	// body must then be put back into requests by the caller.
	Compacted bool `json:"compacted,omitempty"`
}

// State is the set of active skills of a conversation, derived from its log.
// Feed it the effective entries in log order (Apply, or Derive). Unknown
// events, malformed data and unrelated is_meta messages are ignored. A State
// is not safe for concurrent mutation.
type State struct {
	active []*Active
	// waiting are activations whose event named no message; the next
	// is_meta user message is their body (logs written by other tools).
	waiting []*Active
	// metas maps the id of every skill body message seen to its skill,
	// active or not.
	metas map[string]string
	stale []string // body messages of activations that ended, in log order
}

// NewState returns an empty state.
func NewState() *State { return &State{metas: map[string]string{}} }

// Derive returns the state after the given entries (the effective entries
// of a log, as convlog.Store.Load returns them, or its end from a compaction
// event on, as convlog.Store.LoadSinceCompaction returns it: a compaction
// event records the state, see Snapshot).
func Derive(entries []*conversation.Entry) *State {
	s := NewState()
	for _, e := range entries {
		s.Apply(e)
	}
	return s
}

// Apply advances the state by one log entry.
func (s *State) Apply(e *conversation.Entry) {
	if e == nil {
		return
	}
	if s.metas == nil {
		s.metas = map[string]string{}
	}
	switch {
	case e.IsEvent() && e.Event == conversation.EventCompaction:
		if sn, ok := compactionSkills(e); ok {
			s.restore(sn)
		}
	case e.IsEvent() && e.Event == EventActivated:
		var d ActivatedData
		if json.Unmarshal(e.Data, &d) != nil || !ValidName(d.Skill) {
			return
		}
		s.end(d.Skill)
		a := &Active{Name: d.Skill, Source: d.Source, Path: d.Path, By: d.By, ToolCallID: d.ToolCallID, EventID: e.ID, MetaID: e.RefMsgID}
		if d.AllowedTools != nil {
			a.AllowedTools = append([]string{}, (*d.AllowedTools)...)
		}
		a.Commands = slices.Clone(d.Commands)
		s.active = append(s.active, a)
		if a.MetaID == "" {
			s.waiting = append(s.waiting, a)
		} else {
			s.metas[a.MetaID] = a.Name
		}
	case e.IsEvent() && e.Event == EventDeactivated:
		var d DeactivatedData
		if json.Unmarshal(e.Data, &d) != nil || d.Skill == "" {
			return
		}
		s.end(d.Skill)
	case e.IsMessage() && e.IsMeta && e.Role == conversation.RoleUser:
		if name, ok := s.metas[e.ID]; ok {
			if a := s.find(name); a != nil && a.MetaID == e.ID {
				a.Body, a.HasBody, a.Compacted = e.Text(), true, e.Compacted
			}
			return
		}
		if len(s.waiting) > 0 {
			a := s.waiting[0]
			s.waiting = s.waiting[1:]
			a.MetaID, a.Body, a.HasBody, a.Compacted = e.ID, e.Text(), true, e.Compacted
			s.metas[e.ID] = a.Name
		}
	}
}

// end removes name from the active skills; its body message becomes stale.
func (s *State) end(name string) {
	i := slices.IndexFunc(s.active, func(a *Active) bool { return a.Name == name })
	if i < 0 {
		return
	}
	a := s.active[i]
	s.active = slices.Delete(s.active, i, i+1)
	s.waiting = slices.DeleteFunc(s.waiting, func(w *Active) bool { return w == a })
	if a.MetaID != "" {
		s.stale = append(s.stale, a.MetaID)
	}
}

func (s *State) find(name string) *Active {
	for _, a := range s.active {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Active returns the active skills in activation order.
func (s *State) Active() []Active {
	if s == nil {
		return nil
	}
	out := make([]Active, len(s.active))
	for i, a := range s.active {
		out[i] = *a
		out[i].AllowedTools = slices.Clone(a.AllowedTools)
	}
	return out
}

// Get returns the active skill called name.
func (s *State) Get(name string) (Active, bool) {
	if s == nil {
		return Active{}, false
	}
	if a := s.find(name); a != nil {
		return *a, true
	}
	return Active{}, false
}

// IsActive reports whether name is active.
func (s *State) IsActive(name string) bool {
	_, ok := s.Get(name)
	return ok
}

// Names returns the names of the active skills in activation order.
func (s *State) Names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s.active))
	for i, a := range s.active {
		out[i] = a.Name
	}
	return out
}

// PinnedIDs returns the ids of the is_meta messages carrying the bodies of
// the active skills: compaction must keep them, and the request must hold
// them however old they are.
func (s *State) PinnedIDs() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, a := range s.active {
		if a.MetaID != "" {
			out = append(out, a.MetaID)
		}
	}
	return out
}

// StaleIDs returns the ids of the body messages of skills that were
// deactivated (or activated again with a new body): their instructions no
// longer apply, so requests should leave them out.
func (s *State) StaleIDs() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.stale)
}

// IsSkillBody reports whether the message id carries a skill body (active
// or stale), and for which skill — the UI renders such messages as a
// "Skill activated" row rather than a chat bubble.
func (s *State) IsSkillBody(id string) (string, bool) {
	if s == nil {
		return "", false
	}
	name, ok := s.metas[id]
	return name, ok
}

// NarrowTools returns the tools of current that stay available while the
// active skills apply (see NarrowTools).
func (s *State) NarrowTools(current []string) []string {
	if s == nil {
		return slices.Clone(current)
	}
	lists := make([][]string, 0, len(s.active))
	for _, a := range s.active {
		lists = append(lists, a.AllowedTools)
	}
	return NarrowTools(current, lists...)
}

// CommandGrants returns the command-prefix allow rules the active skills
// grant (see AllowedTools.Commands), each once.
func (s *State) CommandGrants() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, a := range s.active {
		for _, c := range a.Commands {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// Clone returns an independent copy of s.
func (s *State) Clone() *State {
	c := NewState()
	if s == nil {
		return c
	}
	m := map[*Active]*Active{}
	for _, a := range s.active {
		cp := *a
		cp.AllowedTools = slices.Clone(a.AllowedTools)
		cp.Commands = slices.Clone(a.Commands)
		m[a] = &cp
		c.active = append(c.active, &cp)
	}
	for _, w := range s.waiting {
		c.waiting = append(c.waiting, m[w])
	}
	for k, v := range s.metas {
		c.metas[k] = v
	}
	c.stale = slices.Clone(s.stale)
	return c
}
