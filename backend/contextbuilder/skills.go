package contextbuilder

import "slices"

// Skills is what the skills of a conversation add to a request (the skills
// package derives it from the log; see the package doc, "Skills").
type Skills struct {
	// Registry is the skills section of the system prompt: the skills the
	// model may activate ("" for none).
	Registry string
	// Bodies are the is_meta messages carrying the bodies of the active
	// skills. Each is pinned: kept in place while it is in the history
	// (the safety net keeps it before anything else it may leave out), and
	// quoted whole in the PINNED message once a compaction has carried it.
	Bodies []SkillBody
	// Ended are the body messages of skills that are no longer active
	// (deactivated, or activated again with a new body): their
	// instructions no longer apply, so they are left out, also from PINNED.
	Ended []string
}

// SkillBody is the body message of an active skill.
type SkillBody struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// skillSets indexes opts.Skills for the build.
func (b *builder) skillSets() {
	for _, sb := range b.opts.Skills.Bodies {
		if sb.ID == "" {
			continue
		}
		if b.skillBody == nil {
			b.skillBody = make(map[string]string, len(b.opts.Skills.Bodies))
		}
		b.skillBody[sb.ID] = sb.Name
	}
	for _, id := range b.opts.Skills.Ended {
		if _, active := b.skillBody[id]; id == "" || active {
			continue
		}
		if b.ended == nil {
			b.ended = make(map[string]bool, len(b.opts.Skills.Ended))
		}
		b.ended[id] = true
	}
}

// dropEndedPins removes the carried bodies of skills that ended.
func (b *builder) dropEndedPins() {
	if len(b.ended) == 0 {
		return
	}
	b.pins = slices.DeleteFunc(b.pins, func(p Pin) bool { return b.ended[p.ID] })
}

// isSkillPin reports whether pin k carries the body of an active skill.
func (b *builder) isSkillPin(k int) bool {
	_, ok := b.skillBody[b.pins[k].ID]
	return ok
}

// nextPinToDrop returns the quoted pin the safety net leaves out next: the
// oldest that is not a skill body, then the oldest skill body (-1: none).
func (b *builder) nextPinToDrop() int {
	skill := -1
	for k := range b.pins {
		p := &b.pins[k]
		if p.InHistory || p.Dropped {
			continue
		}
		if !b.isSkillPin(k) {
			return k
		}
		if skill < 0 {
			skill = k
		}
	}
	return skill
}

// markSkillRows names the skills whose bodies each request message carries
// and notes the active skills whose body the request lacks.
func (b *builder) markSkillRows() {
	if len(b.skillBody) == 0 {
		return
	}
	dbg := &b.res.Debug
	seen := map[string]bool{}
	for i := range dbg.Rows {
		r := &dbg.Rows[i]
		switch {
		case r.SourceID != "" && r.Kind == KindHistory:
			if name, ok := b.skillBody[r.SourceID]; ok {
				r.Skills = []string{name}
				seen[r.SourceID] = true
			}
		case r.Kind == KindPinned:
			for k, p := range b.pins {
				if b.isSkillPin(k) && !p.InHistory && !p.Dropped {
					r.Skills = append(r.Skills, b.skillBody[p.ID])
					seen[p.ID] = true
				}
			}
		}
	}
	for _, sb := range b.opts.Skills.Bodies {
		if sb.ID == "" || seen[sb.ID] {
			continue
		}
		dropped := false
		for _, p := range b.pins {
			dropped = dropped || (p.ID == sb.ID && p.Dropped)
		}
		if i, ok := b.ids[sb.ID]; ok && b.fate[i] >= fateReason {
			dbg.Notes = append(dbg.Notes, "the body of the skill "+sb.Name+" was left out ("+b.reasons[b.fate[i]-fateReason]+")")
		} else if dropped {
			dbg.Notes = append(dbg.Notes, "the body of the skill "+sb.Name+" was left out: the request does not fit the token limit with it (deactivate a skill or raise the budget)")
		} else {
			dbg.Notes = append(dbg.Notes, "the body of the skill "+sb.Name+" is not in the request: its message is neither in the history read nor carried by a compaction")
		}
	}
}
