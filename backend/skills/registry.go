package skills

import (
	"fmt"
	"strings"

	"crewagent/backend/conversation"
)

// Counter counts the tokens of a text for a model; *tokens.Counter
// implements it (as it does contextbuilder.Counter).
type Counter interface {
	Count(model, text string) int
}

// Registry sizes.
const (
	// DefaultRegistryTokens is the registry cap when RegistryOptions gives none.
	DefaultRegistryTokens = 2000
	// shortDescription is the length descriptions are cut to when the full
	// ones do not all fit.
	shortDescription = 160
)

// RegistryTokens is a registry cap for a context window of budget tokens:
// 2 % of it, between 500 and 4000.
func RegistryTokens(budget int) int {
	return min(max(budget/50, 500), 4000)
}

// RegistryOptions configure Catalog.Registry.
type RegistryOptions struct {
	// MaxTokens caps the text (0 means DefaultRegistryTokens).
	MaxTokens int
	// Counter counts tokens (required); Model selects the tokenizer.
	Counter Counter
	Model   string
	// Query is the newest user message: when not every skill fits, the
	// ones most relevant to it are listed.
	Query string
	// Active are the active skills' names (State.Names()): they are marked
	// so the model does not activate them again.
	Active []string
}

// Registry is the skills section of the system prompt.
type Registry struct {
	// Text is the section ("" when there is nothing to list).
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
	// Listed are the skills listed, in the order of the text.
	Listed []string `json:"listed"`
	// Omitted are model-visible skills left out for the cap.
	Omitted []string `json:"omitted,omitempty"`
	// Hidden are the disable-model-invocation skills, never listed.
	Hidden []string `json:"hidden,omitempty"`
	// Shortened is set when descriptions were cut to fit.
	Shortened bool `json:"shortened,omitempty"`
}

const registryHeader = `SKILLS
Skills are folders of instructions (and sometimes scripts or reference files) for particular tasks. When a request matches a skill's description, call ` + conversation.ToolSkillActivate + ` with {"name": "<skill>"} before you start: its instructions arrive in the next message, starting with <skill name=...>, and stay in effect in later turns. Do not activate a skill that is already active. Call ` + conversation.ToolSkillDeactivate + ` with {"name": "<skill>"} when an active skill no longer applies.`

// Registry renders the skills section of the system prompt: the names and
// descriptions (never the bodies) of the skills the model may activate,
// within opts.MaxTokens.
//
// When every skill fits with its whole description (at most
// MaxDescriptionLen characters), they are listed by name, so the text does
// not change from one message to the next. Otherwise descriptions are cut
// to a short line; if still not all fit, the skills most relevant to
// opts.Query come first (ranked lexically, then by source precedence) and
// the rest are counted in a closing line. disable-model-invocation skills
// are never listed. When not even the header fits, Text is "".
func (c *Catalog) Registry(opts RegistryOptions) Registry {
	limit := opts.MaxTokens
	if limit <= 0 {
		limit = DefaultRegistryTokens
	}
	var reg Registry
	if c == nil {
		return reg
	}
	var visible []Skill
	for _, s := range c.skills {
		if s.DisableModelInvocation {
			reg.Hidden = append(reg.Hidden, s.Name)
			continue
		}
		visible = append(visible, s)
	}
	active := map[string]bool{}
	var activeVisible []string
	for _, n := range opts.Active {
		active[n] = true
	}
	for _, s := range visible {
		if active[s.Name] {
			activeVisible = append(activeVisible, s.Name)
		}
	}
	if len(visible) == 0 {
		return reg
	}
	count := func(text string) int { return c.count(opts.Counter, opts.Model, text) }
	head := registryHeader
	if len(activeVisible) > 0 {
		head += "\nActive now: " + strings.Join(activeVisible, ", ") + "."
	}
	head += "\nAvailable skills:"
	headTokens := count(head)
	line := func(s Skill, n int) string {
		desc := s.Description
		if s.WhenToUse != "" {
			desc += " When to use: " + s.WhenToUse
		}
		l := "\n- " + s.Name
		if active[s.Name] {
			l += " (active)"
		}
		return l + ": " + truncateRunes(desc, n)
	}
	footer := func(omitted int) string {
		if omitted == 0 {
			return ""
		}
		return fmt.Sprintf("\n(%d more skills are not listed here; %s works for them too when the user names one.)", omitted, conversation.ToolSkillActivate)
	}
	fill := func(order []Skill, n int, partial bool) (lines []string, names []string, ok bool) {
		total := headTokens
		for i, s := range order {
			l := line(s, n)
			t := count(l)
			rest := len(order) - i - 1
			if total+t+count(footer(rest)) > limit {
				if !partial {
					return nil, nil, false
				}
				break
			}
			total += t
			lines = append(lines, l)
			names = append(names, s.Name)
		}
		return lines, names, len(names) == len(order)
	}
	finish := func(lines, names []string, shortened bool) Registry {
		for {
			omitted := len(visible) - len(names)
			text := head + strings.Join(lines, "") + footer(omitted)
			tokens := count(text)
			if tokens <= limit || len(lines) == 0 {
				if tokens > limit {
					reg.Omitted = nameList(visible)
					return reg
				}
				reg.Text, reg.Tokens, reg.Listed, reg.Shortened = text, tokens, names, shortened
				listed := map[string]bool{}
				for _, n := range names {
					listed[n] = true
				}
				for _, s := range visible {
					if !listed[s.Name] {
						reg.Omitted = append(reg.Omitted, s.Name)
					}
				}
				return reg
			}
			// Counting lines one by one is close but not exact: drop the last.
			lines, names = lines[:len(lines)-1], names[:len(names)-1]
		}
	}
	if lines, names, ok := fill(visible, MaxDescriptionLen, false); ok {
		return finish(lines, names, false)
	}
	if lines, names, ok := fill(visible, shortDescription, false); ok {
		return finish(lines, names, true)
	}
	lines, names, _ := fill(rankSkills(visible, opts.Query, c.termIndex()), shortDescription, true)
	return finish(lines, names, true)
}

func nameList(skills []Skill) []string {
	out := make([]string, len(skills))
	for i, s := range skills {
		out[i] = s.Name
	}
	return out
}

// count counts text once per model: registry lines are the same from one
// request to the next while the catalog is.
func (c *Catalog) count(counter Counter, model, text string) int {
	if counter == nil {
		return len(text)/4 + 1
	}
	k := countKey{model, text}
	c.countMu.Lock()
	n, ok := c.counts[k]
	c.countMu.Unlock()
	if ok {
		return n
	}
	n = counter.Count(model, text)
	c.countMu.Lock()
	if c.counts == nil {
		c.counts = map[countKey]int{}
	}
	if len(c.counts) < 50000 {
		c.counts[k] = n
	}
	c.countMu.Unlock()
	return n
}

// termIndex returns the ranking terms of every skill, computed once.
func (c *Catalog) termIndex() map[string]map[string]int {
	c.termsOnce.Do(func() {
		c.terms = make(map[string]map[string]int, len(c.skills))
		for _, s := range c.skills {
			c.terms[s.Name] = skillTerms(s)
		}
	})
	return c.terms
}
