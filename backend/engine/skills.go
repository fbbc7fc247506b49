package engine

import (
	"fmt"
	"slices"
	"strings"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/llm"
	"crewagent/backend/skills"
	"crewagent/backend/tools"
)

// Skills in a request (every mode). The active skills are derived from the
// history a request is built from (the log back to its last compaction,
// whose event records the state: skills.Snapshot). Each request then
//   - lists the skills the model may activate in the system prompt
//     (Options.Skills; within skills.RegistryTokens of the budget, the most
//     relevant to the newest user message first when not all fit);
//   - keeps the bodies of the active skills (pinned) and leaves out those of
//     skills that ended;
//   - offers only the tools the active skills allow (allowed-tools only ever
//     narrows), and refuses a call to any other.
// A compaction records the state in its event, so it survives any number
// of them.

// EntriesAfterResult is a tool result's Effect that appends entries to the
// log right after the result (a skill activation: the skill_activated event
// and the is_meta message with the skill's body). Messages are tagged like
// the other entries of the send; events keep their type.
type EntriesAfterResult struct {
	Entries []conversation.Entry
}

// runProtocolTools are the tools a run turn keeps while skills narrow the
// others: its steps are read and its progress recorded with them.
var runProtocolTools = []string{conversation.ToolFSRead, conversation.ToolFSApplyPatch}

// skillsState is what the skills make of p's history, derived again when the
// history or the tools change.
type skillsState struct {
	key     int // len(p.history) it was derived for; -1: stale
	state   *skills.State
	offered []string // tool names offered (nil: every tool of the host)
}

// skills returns the skills state of p's history.
func (s *ChatService) skills(p *prepared) *skillsState {
	if p.sk != nil && p.sk.key == len(p.history) {
		return p.sk
	}
	hist := make([]*conversation.Entry, len(p.history))
	for i := range p.history {
		hist[i] = &p.history[i]
	}
	st := skills.Derive(hist)
	sk := &skillsState{key: len(p.history), state: st}
	all := make([]string, len(p.toolDefs))
	for i, d := range p.toolDefs {
		all[i] = d.Name
	}
	if narrowed := st.NarrowTools(all); len(narrowed) != len(all) {
		if p.mode == conversation.ModeRun {
			// A run keeps the tools its protocol needs (reading its step,
			// recording its progress in @state/workflow.md), whatever a
			// skill allows.
			for _, t := range runProtocolTools {
				if slices.Contains(all, t) && !slices.Contains(narrowed, t) {
					narrowed = append(narrowed, t)
				}
			}
		}
		sk.offered = narrowed
	}
	p.sk = sk
	s.offerTools(p, sk.offered)
	return sk
}

// offerTools makes the tools of p's requests those named (nil: all of the
// host's): their definitions and what they cost.
func (s *ChatService) offerTools(p *prepared, names []string) {
	p.llmTools, p.toolTokens, p.toolNames = nil, 0, nil
	for i, d := range p.toolDefs {
		if names != nil && !slices.Contains(names, d.Name) {
			continue
		}
		p.llmTools = append(p.llmTools, llm.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		p.toolTokens += p.toolCost[i]
		p.toolNames = append(p.toolNames, d.Name)
	}
	if p.toolNames == nil {
		p.toolNames = []string{}
	}
}

// skillsOption is the skills part of the builder's options for p.
func (s *ChatService) skillsOption(p *prepared) contextbuilder.Skills {
	sk := s.skills(p)
	var out contextbuilder.Skills
	for _, a := range sk.state.Active() {
		if a.MetaID != "" {
			out.Bodies = append(out.Bodies, contextbuilder.SkillBody{ID: a.MetaID, Name: a.Name})
		}
	}
	out.Ended = sk.state.StaleIDs()
	if s.opts.Skills == nil {
		return out
	}
	cat := s.opts.Skills()
	if cat == nil {
		return out
	}
	if !slices.Contains(p.toolNames, conversation.ToolSkillActivate) {
		return out // the model cannot activate skills in this request
	}
	reg := cat.Registry(skills.RegistryOptions{
		MaxTokens: skills.RegistryTokens(p.budget.TokenBudget),
		Counter:   s.counter,
		Model:     p.model,
		Query:     newestUserText(p.history),
		Active:    sk.state.Names(),
	})
	out.Registry = reg.Text
	return out
}

// refuseNarrowed answers a call to a tool the active skills do not allow
// (the model was not offered it); ok is false when the call may run.
func (r *run) refuseNarrowed(name string) (tools.Result, bool) {
	sk := r.s.skills(r.p)
	if sk.offered == nil || slices.Contains(sk.offered, name) || !slices.ContainsFunc(r.p.toolDefs, func(d tools.ToolDef) bool { return d.Name == name }) {
		return tools.Result{}, false
	}
	active := sk.state.Names()
	return tools.Failure(tools.NewError(tools.CodeToolNotAvailable, fmt.Sprintf(
		"%s is not available while the skill %s is active (its allowed-tools); the tools available are %s",
		name, strings.Join(active, ", "), strings.Join(sk.offered, ", ")),
		map[string]any{"available": sk.offered, "skills": active})), true
}

// appendAfterResult appends the entries of an EntriesAfterResult effect.
func (r *run) appendAfterResult(fx EntriesAfterResult) error {
	if len(fx.Entries) == 0 {
		return nil
	}
	out := make([]*conversation.Entry, len(fx.Entries))
	for i := range fx.Entries {
		e := fx.Entries[i]
		if e.ID == "" {
			e.ID = r.s.opts.NewID()
		}
		if e.CreatedAt == "" {
			e.CreatedAt = r.s.now()
		}
		if e.IsMessage() {
			r.tag(&e)
		}
		out[i] = &e
	}
	if err := r.s.opts.Store.Append(r.convID, out...); err != nil {
		return err
	}
	for _, e := range out {
		r.p.history = append(r.p.history, *e)
	}
	return nil
}

// skillsSnapshot is the skills state to record in a compaction event of p's
// history (nil when no skill was ever active: nothing to record).
func (s *ChatService) skillsSnapshot(p *prepared) []byte {
	st := s.skills(p).state
	if len(st.Names()) == 0 && len(st.StaleIDs()) == 0 {
		return nil
	}
	return st.Snapshot().JSON()
}

// newestUserText is the text of the newest message the user wrote in the
// context ("" when none).
func newestUserText(h []conversation.Entry) string {
	for i := len(h) - 1; i >= 0; i-- {
		e := &h[i]
		if e.IsMessage() && e.Role == conversation.RoleUser && !e.IsMeta && e.InContext() && !e.Compacted {
			return e.Text()
		}
	}
	return ""
}
