package approval

import (
	"fmt"
	"strings"
)

// Policy is everything a decision depends on.
type Policy struct {
	Mode Mode
	// User are the rules of the settings (approvals.allow/ask/deny).
	User Rules
	// Granted are the allow rules the user gave for this project ("always
	// allow in this project"), kept in the runtime home.
	Granted []string
	// Conversation are the allow rules the user gave for this conversation.
	Conversation []string
	// Skills are the allow rules the skills active in the conversation grant
	// (their allowed-tools, e.g. Bash(python:*) is shell.run(python)). Like
	// every allow rule they yield to deny and ask rules.
	Skills []string
	// Project are the rules of the project's .crewagent/permissions.json;
	// their allow rules count only once ProjectApproved.
	Project         Rules
	ProjectApproved bool
}

// Decision is the outcome for one call.
type Decision struct {
	Effect Effect `json:"effect"`
	// Kind is the call's kind.
	Kind Kind `json:"kind"`
	// Rule is the rule that decided ("" when the mode did), with where it
	// comes from ("settings", "project", "project grant", "conversation").
	Rule   string `json:"rule,omitempty"`
	Source string `json:"source,omitempty"`
	// Reason says why, in words (for a refusal: what the model is told).
	Reason string `json:"reason"`
}

type sourced struct {
	rule   Rule
	source string
}

func parseAll(list []string, source string) []sourced {
	var out []sourced
	for _, s := range list {
		if r, err := ParseRule(s); err == nil {
			out = append(out, sourced{r, source})
		}
	}
	return out
}

// Decide decides call c. Rules that do not parse are skipped (Rules.Check
// reports them).
func (p Policy) Decide(c Call) Decision {
	kind := Classify(c.Tool)
	d := Decision{Kind: kind}
	if kind == KindFree || kind == KindRead {
		d.Effect, d.Reason = Allow, "reading runs in every mode"
		if kind == KindFree {
			d.Reason = "this tool is not subject to approval"
		}
		return d
	}
	if kind == KindWrite && len(c.Paths) > 0 && allUnder(c.Paths, "@state") {
		d.Effect, d.Reason = Allow, "a run's own state files never ask"
		return d
	}
	mode := p.Mode
	if mode == "" {
		mode = DefaultMode
	}
	deny := append(parseAll(p.User.Deny, "settings"), parseAll(p.Project.Deny, "project")...)
	for _, s := range deny {
		if s.rule.matchAny(c) {
			d.Effect, d.Rule, d.Source = Deny, s.rule.String(), s.source
			d.Reason = fmt.Sprintf("refused by the deny rule %q in the %s approval rules", s.rule.String(), sourceWords(s.source))
			return d
		}
	}
	if mode == ReadOnly {
		d.Effect = Deny
		d.Reason = "refused: the conversation is in read-only mode (" + what(kind) + " is not allowed); the user can change the approval mode"
		return d
	}
	ask := append(parseAll(p.User.Ask, "settings"), parseAll(p.Project.Ask, "project")...)
	for _, s := range ask {
		if s.rule.matchAny(c) {
			d.Effect, d.Rule, d.Source = AskUser, s.rule.String(), s.source
			d.Reason = fmt.Sprintf("the ask rule %q in the %s approval rules", s.rule.String(), sourceWords(s.source))
			return d
		}
	}
	allow := parseAll(p.User.Allow, "settings")
	allow = append(allow, parseAll(p.Granted, "project grant")...)
	allow = append(allow, parseAll(p.Conversation, "conversation")...)
	allow = append(allow, parseAll(p.Skills, "skill")...)
	if p.ProjectApproved {
		allow = append(allow, parseAll(p.Project.Allow, "project")...)
	}
	for _, s := range allow {
		if s.rule.allows(c) {
			d.Effect, d.Rule, d.Source = Allow, s.rule.String(), s.source
			d.Reason = fmt.Sprintf("allowed by the rule %q in the %s approval rules", s.rule.String(), sourceWords(s.source))
			return d
		}
	}
	switch {
	case mode == FullAuto:
		d.Effect, d.Reason = Allow, "full-auto mode"
	case mode == AutoEdit && kind == KindWrite && len(c.Paths) > 0 && allUnder(c.Paths, "@project"):
		d.Effect, d.Reason = Allow, "auto-edit mode: writes inside the project run"
	default:
		d.Effect, d.Reason = AskUser, string(mode)+" mode: "+what(kind)+" waits for the user's approval"
	}
	return d
}

func sourceWords(source string) string {
	switch source {
	case "settings":
		return "user's"
	case "project":
		return "project's (.crewagent/permissions.json)"
	case "project grant":
		return "user's project"
	case "skill":
		return "active skills'"
	}
	return source
}

// what names what a kind of call does.
func what(k Kind) string {
	switch k {
	case KindWrite:
		return "changing files"
	case KindCommand:
		return "running commands"
	case KindExternal:
		return "calling an MCP tool"
	}
	return "this call"
}

// allUnder reports whether every path is the root alias or below it.
func allUnder(paths []string, root string) bool {
	for _, p := range paths {
		if p != root && !strings.HasPrefix(p, root+"/") {
			return false
		}
	}
	return true
}

// GrantFor returns the allow rule an approval "for this conversation" or
// "always in this project" records for a call: the tool for file tools and
// MCP tools, the tool with the command's first words for commands (the
// program and its subcommand: "go test", "npm run").
func GrantFor(c Call) string {
	tool := Canonical(c.Tool)
	if Classify(tool) != KindCommand {
		return tool
	}
	words := strings.Fields(c.Command)
	if len(words) == 0 {
		return tool
	}
	n := 1
	if len(words) > 1 && !strings.HasPrefix(words[1], "-") && !strings.ContainsAny(words[1], "/.") {
		n = 2
	}
	return tool + "(" + strings.Join(words[:n], " ") + ")"
}
