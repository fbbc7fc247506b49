package skills

import (
	"encoding/json"
	"slices"

	"crewagent/backend/conversation"
)

// maxSnapshotEnded is the most ended bodies a snapshot names (the newest):
// older ones lie far behind any request.
const maxSnapshotEnded = 200

// Snapshot is the state of a conversation's skills as a compaction event
// records it (conversation.CompactionData.Skills). A request reads the log only
// back to its last compaction, so the activations older than that are known
// from here: State.Apply of a compaction event that carries a snapshot
// takes the state from it. The bodies are not in it: a body message still in
// the history is read there, a compacted one is carried word for word by the
// compaction (conversation.CompactionData.Pinned).
type Snapshot struct {
	Active []SnapshotSkill `json:"active"`
	// Ended are the body messages of skills that ended (the newest
	// maxSnapshotEnded): requests leave them out.
	Ended []SnapshotEnded `json:"ended,omitempty"`
}

// SnapshotSkill is one active skill in a Snapshot.
type SnapshotSkill struct {
	Name       string `json:"skill"`
	Source     Source `json:"source"`
	Path       string `json:"path"`
	By         Actor  `json:"by,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// AllowedTools is absent for a skill that does not narrow the tools
	// (null and [] differ: [] narrows to the tools always kept).
	AllowedTools *[]string `json:"allowedTools,omitempty"`
	// Commands are the command-prefix allow rules it grants.
	Commands []string `json:"commands,omitempty"`
	EventID  string   `json:"eventId"`
	MetaID   string   `json:"metaId,omitempty"`
}

// SnapshotEnded is the body message of a skill that ended.
type SnapshotEnded struct {
	ID    string `json:"id"`
	Skill string `json:"skill"`
}

// Snapshot returns the state to record in a compaction event.
func (s *State) Snapshot() Snapshot {
	out := Snapshot{Active: []SnapshotSkill{}}
	if s == nil {
		return out
	}
	for _, a := range s.active {
		sk := SnapshotSkill{Name: a.Name, Source: a.Source, Path: a.Path, By: a.By, ToolCallID: a.ToolCallID, EventID: a.EventID, MetaID: a.MetaID}
		if a.AllowedTools != nil {
			tools := slices.Clone(a.AllowedTools)
			sk.AllowedTools = &tools
		}
		sk.Commands = slices.Clone(a.Commands)
		out.Active = append(out.Active, sk)
	}
	stale := s.stale
	if len(stale) > maxSnapshotEnded {
		stale = stale[len(stale)-maxSnapshotEnded:]
	}
	for _, id := range stale {
		out.Ended = append(out.Ended, SnapshotEnded{ID: id, Skill: s.metas[id]})
	}
	return out
}

// JSON renders the snapshot (for conversation.CompactionData.Skills).
func (sn Snapshot) JSON() json.RawMessage {
	b, _ := json.Marshal(sn) // plain values: cannot fail
	return b
}

// compactionSkills reads the snapshot of a compaction event; ok is false
// when it carries none (a compaction written without skills, or by another
// program).
func compactionSkills(e *conversation.Entry) (Snapshot, bool) {
	var d struct {
		Skills *Snapshot `json:"skills"`
	}
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &d) != nil || d.Skills == nil {
		return Snapshot{}, false
	}
	return *d.Skills, true
}

// restore makes the state the one a compaction recorded. What the entries
// before it said is replaced, except the bodies already read (kept for the
// skills still active from the same message) and the body messages known.
func (s *State) restore(sn Snapshot) {
	old := map[string]*Active{}
	for _, a := range s.active {
		if a.MetaID != "" {
			old[a.MetaID] = a
		}
	}
	s.active, s.waiting = nil, nil
	for _, sk := range sn.Active {
		if !ValidName(sk.Name) || slices.ContainsFunc(s.active, func(a *Active) bool { return a.Name == sk.Name }) {
			continue
		}
		a := &Active{Name: sk.Name, Source: sk.Source, Path: sk.Path, By: sk.By, ToolCallID: sk.ToolCallID, EventID: sk.EventID, MetaID: sk.MetaID}
		if sk.AllowedTools != nil {
			a.AllowedTools = slices.Clone(*sk.AllowedTools)
		}
		a.Commands = slices.Clone(sk.Commands)
		if o := old[a.MetaID]; o != nil && o.Name == a.Name {
			a.Body, a.HasBody, a.Compacted = o.Body, o.HasBody, o.Compacted
		}
		s.active = append(s.active, a)
		if a.MetaID == "" {
			s.waiting = append(s.waiting, a)
		} else {
			s.metas[a.MetaID] = a.Name
		}
	}
	for _, e := range sn.Ended {
		if e.ID == "" {
			continue
		}
		if !slices.Contains(s.stale, e.ID) {
			s.stale = append(s.stale, e.ID)
		}
		if _, ok := s.metas[e.ID]; !ok && e.Skill != "" {
			s.metas[e.ID] = e.Skill
		}
	}
	// A body the snapshot calls active is not stale, whatever came before.
	for _, a := range s.active {
		if a.MetaID != "" {
			s.stale = slices.DeleteFunc(s.stale, func(id string) bool { return id == a.MetaID })
		}
	}
}
